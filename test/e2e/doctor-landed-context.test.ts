// Queued actions that name a PR as context (red team, 12-07): "Check that #126 didn't break the
// login flow" after "Merge pull request #126", "Rework the parser (see #127 discussion)" after
// "Add rate limiting (#127)". A hand-kept checkpoint committed months ago, the PRs landed since
// with real git: doctor warns only about the action that lands #126 itself, `next` skips only it,
// and `done --landed` (which picks its engine itself) records only it; doctor and next in both git engines.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { cleanup, commitAll, git, makeRepo, mergePullRequest, read, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const CP = '.checkpoints/api.checkpoint.json';
const CONTEXT = [
  "Check that #126 didn't break the login flow",
  'Rework the parser (see #127 discussion)',
  'Rework the tokenizer, see #127',
  'Split the lexer per #127',
  'Rename the AST nodes as discussed in #127',
  "Tighten error messages following #127's review",
  'revert of #126 broke SSO; fix it',
  'Port the retry logic like #126 did',
];
const MERGE = 'Merge PR #126 (auth refactor)';

/** Hand-kept, as agents leave them: notes in paths, a score written 8.0, a fractional-second save. */
function checkpointText(actions: string[]): string {
  return `${JSON.stringify({
    protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '/home/dana/code/shop',
    created_at: '2026-08-30T09:12:00Z', updated_at: '2026-09-14T10:00:41.207Z',
    phase: 'build', step: 'auth + parser', status: 'in_progress', progress_summary: 'auth refactor in review (PR 126); rate limiting up as #127',
    progress_table: [{ id: 'auth', label: 'Auth refactor', status: 'in_progress' }, { id: 'parser', label: 'Parser rework', status: 'pending' }],
    context_primer: { key_decisions: ['sessions in cookies (PR 126)'], generated_files: ['src/parser/grammar.ts (from grammar.peg)'] },
    next_actions: actions,
    skill_state: { score: 8.0 },
  }, null, 2)}\n`;
}

/** The checkpoint queuing `actions`, committed; then #126 merged from its branch and #127 squashed in. */
function repo(actions: string[]): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'src/parser/grammar.ts', 'export const grammar = 1;\n');
  write(dir, CP, checkpointText(actions));
  commitAll(dir, 'checkpoint: api', '2026-09-14T10:02:00Z');
  mergePullRequest(dir, { n: 126, branch: 'x/auth-refactor', files: { 'src/auth.ts': 'export const session = "cookie";\n' }, subject: 'Move sessions to cookies', at: '2026-09-15T09:00:00Z', mergedAt: '2026-09-15T11:00:00Z' });
  write(dir, 'src/limit.ts', 'export const perMinute = 60;\n');
  commitAll(dir, 'Add rate limiting (#127)', '2026-09-16T14:30:00Z');
  return dir;
}

describe.each(['native', 'isomorphic'] as const)('an action naming a landed PR as context (%s)', (engine) => {
  it('doctor warns only about the merge of #126; next skips only it; done --landed records only it', async () => {
    const dir = repo([MERGE, ...CONTEXT]);
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
    const landed = doctor.findings.filter((f: { check: string }) => f.check === 'landed');
    expect(landed.map((f: { level: string; path: string; message: string }) => [f.level, f.path, f.message.slice(0, f.message.indexOf(','))])).toEqual([
      ['warning', 'next_actions[0]', `"${MERGE}" names #126`],
    ]);

    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next;
    expect(next.text).toBe(CONTEXT[0]);
    expect(next.skipped_as_landed.map((s: { text: string }) => s.text)).toEqual([MERGE]);

    const done = await runCli(dir, ['done', 'api', '--landed']);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    const after = JSON.parse(read(dir, CP));
    expect(after.next_actions).toEqual(CONTEXT);
    expect(after.recently_done.map((d: { action: string }) => d.action)).toEqual([MERGE]);
  });

  it('with only context actions queued: no landed finding, and next recommends the first', async () => {
    const dir = repo(CONTEXT);
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
    expect(doctor.findings.filter((f: { check: string }) => f.check === 'landed')).toEqual([]);
    const next = await runCli(dir, ['next', '--engine', engine]);
    expect(next.stdout).toContain(`→ ${CONTEXT[0]}`);
    expect(next.stdout).not.toContain('skipped');
  });
});

// Red team 64 (r9): "Backport #5 to release/1.x" waits for #5's merge, and was kept; the same
// words naming #5 by its URL or as "acme/proj#5" were called landed (doctor warned, next skipped
// them). The action's words are judged the same whatever form names the request.
describe('a follow-up naming its PR by URL or owner/repo#N (red team 64 r9)', () => {
  const FOLLOW_UPS = [
    'Backport https://github.com/acme/proj/pull/5 to release/1.x',
    'Follow up on acme/proj#5',
    'Backport #5 to release/1.x',
    'Cherry-pick https://github.com/acme/proj/pull/5/files into v2',
  ];
  const LANDS = 'Merge https://github.com/acme/proj/pull/5';

  it('is kept when #5 merged, in doctor and next; the merge itself, so written, is landed', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    git(dir, ['remote', 'add', 'origin', 'https://github.com/acme/proj.git']);
    write(dir, 'src/parser/grammar.ts', 'export const grammar = 1;\n');
    write(dir, CP, checkpointText([LANDS, ...FOLLOW_UPS]));
    commitAll(dir, 'checkpoint: api', '2026-09-14T10:02:00Z');
    mergePullRequest(dir, { n: 5, branch: 'acme/f5', files: { 'src/a.ts': 'export const a = 1;\n' }, subject: 'a', at: '2026-09-15T09:00:00Z', mergedAt: '2026-09-15T11:00:00Z' });

    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout);
    expect(doctor.findings.filter((f: { check: string }) => f.check === 'landed').map((f: { path: string }) => f.path)).toEqual(['next_actions[0]']);
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next;
    expect(next.text).toBe(FOLLOW_UPS[0]);
    expect(next.skipped_as_landed.map((s: { text: string }) => s.text)).toEqual([LANDS]);
  });
});
