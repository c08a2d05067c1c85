// doctor on a hand-written checkpoint whose only errors are repairable slips (a status written
// "in-progress" or "Done", an action written {"action": …}): the slips are reported as errors, and
// every drift check still runs on the file as status, next and resume read it. Real git, both engines.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, commitAll, git, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const ENGINES = ['native', 'isomorphic'] as const;
const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** As a person leaves one: slips on top, in a row and in an action; paths with notes; a number written 8.0. */
function messy(over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/someone/demo',
    created_at: '2026-06-01T09:00:00Z', updated_at: ago(120),
    phase: 'build', step: 'auth', status: 'in-progress',
    progress_summary: 'Auth in review; scored 8.0 on the nightly run.',
    progress_table: [{ id: 'design', label: 'Design', status: 'Done' }, { id: 'auth', label: 'Auth (PR 12)', status: 'in_progress' }],
    context_primer: { key_decisions: ['JWT'], generated_files: ['src/auth.ts (PR 12)', 'src/session.ts', 'docs/notes.md — draft', 'docs/**/*.md'] },
    next_actions: [{ action: 'Merge PR #12 (auth middleware)' }, 'Write the session docs'],
    ...over,
  };
}

/** The checkpoint committed 2h ago, then: PR #12 merged, session.ts deleted, notes revised. */
function drifted(cp: Record<string, unknown>): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'src/auth.ts', 'auth\n');
  write(dir, 'src/session.ts', 'session\n');
  write(dir, 'docs/notes.md', 'notes\n');
  write(dir, FILE, `${JSON.stringify(cp, null, 2)}\n`);
  commitAll(dir, 'checkpoint: api', ago(119));
  git(dir, ['checkout', '-q', '-b', 'feature']);
  write(dir, 'src/middleware.ts', 'mw\n');
  commitAll(dir, 'Add auth middleware', ago(90));
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['merge', '-q', '--no-ff', 'feature', '-m', 'Merge pull request #12 from team/feature'], { GIT_COMMITTER_DATE: ago(80), GIT_AUTHOR_DATE: ago(80) });
  git(dir, ['rm', '-q', 'src/session.ts']);
  commitAll(dir, 'Drop the session module', ago(70));
  write(dir, 'docs/notes.md', 'notes, revised\n');
  commitAll(dir, 'Revise notes', ago(60));
  return dir;
}

type F = { level: string; check: string; path: string; message: string; evidence?: Record<string, unknown>; fix?: string };

describe.each(ENGINES)('doctor on a slip-only checkpoint (%s engine)', (engine) => {
  it('reports the slips as before and runs every drift check on the file as written', async () => {
    const dir = drifted(messy());
    const before = read(dir, FILE);
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout);
    const findings: F[] = report.findings;
    // The slips, as today: errors with the did-you-mean.
    const schema = findings.filter((f) => f.check === 'schema' && f.level === 'error');
    expect(schema.map((f) => f.path)).toEqual(['status', 'progress_table[0].status', 'next_actions[0].text']);
    expect(schema[0]!.message).toContain('(did you mean in_progress?)');
    // The drift the file's slips used to hide.
    const landed = findings.filter((f) => f.check === 'landed');
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ level: 'warning', path: 'next_actions[0]' });
    expect(landed[0]!.message).toContain('"Merge PR #12 (auth middleware)" names #12');
    const files = findings.filter((f) => f.check === 'generated_files');
    const at = (i: number) => files.find((f) => f.path === `context_primer.generated_files[${i}]`);
    expect(at(1)).toMatchObject({ level: 'warning', evidence: { file: 'src/session.ts', missing: true } });
    expect(at(1)!.message).toContain('"Drop the session module"');
    expect(at(2)).toMatchObject({ level: 'warning', evidence: { file: 'docs/notes.md' } });
    expect(at(0)).toBeUndefined();
    // One note saying the file was read despite the slips, with the exact fix.
    const fix = "checkpoint update api --status=in_progress --progress_table.0.status=complete --next_actions.0.text='Merge PR #12 (auth middleware)' --keep-updated-at";
    const note = findings.filter((f) => f.check === 'schema' && f.level === 'info');
    expect(note).toHaveLength(1);
    expect(note[0]!.fix).toBe(fix);
    expect(note[0]!.message).toContain(fix);
    // The report's shape: what was there stays, counts include the drift.
    expect(report).toMatchObject({ ok: false, errors: 3, checkpoints: 1, engine, pushed_commits: null });
    expect(report.warnings).toBeGreaterThanOrEqual(3);
    const text = await runCli(dir, ['doctor', '--engine', engine]);
    expect(text.stdout).toContain(`fix: ${fix}`);
    expect(text.stdout).toMatch(/warning +next_actions\[0\]: "Merge PR #12/);
    expect(read(dir, FILE)).toBe(before);
    // Fixed as the note says: the slips go, the drift stays.
    expect((await runCli(dir, ['update', 'api', '--status=in_progress', '--progress_table.0.status=complete', '--next_actions.0.text=Merge PR #12 (auth middleware)', '--keep-updated-at'])).code).toBe(0);
    const after: F[] = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings;
    expect(after.filter((f) => f.check === 'schema' && f.level !== 'advice')).toEqual([]);
    // The action is still dated by when it was queued (as {"action": …}): the fix's re-save hides no landing.
    expect(after.filter((f) => f.check === 'landed').map((f) => f.path)).toEqual(['next_actions[0]']);
    // A repair, not a save: the notes revised after the save are still changed after it (red team 64 r1 1).
    const drift = (fs: F[]) => fs.filter((f) => f.check === 'generated_files' && f.level === 'warning').map((f) => f.evidence?.file);
    expect(drift(after)).toEqual(['src/session.ts', 'docs/notes.md']);
    commitAll(dir, 'checkpoint: api (slips fixed)', ago(1));
    const committed: F[] = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings;
    expect(committed.filter((f) => f.check === 'landed').map((f) => f.path)).toEqual(['next_actions[0]']);
    expect(drift(committed)).toEqual(['src/session.ts', 'docs/notes.md']);
    expect((await runCli(dir, ['next', '--engine', engine])).stdout).toContain('skipped next_actions[0] "Merge PR #12 (auth middleware)": #12 landed in');
  });

  it('numbers as progress row ids and labels and as key_decisions read as their text: drift is still checked, the fix makes them text (red team 62b 03)', async () => {
    const rows = [{ id: 1, label: 'Design', status: 'complete' }, { id: 2, label: 3, status: 'in_progress' }];
    const primer = { key_decisions: ['JWT', 2], generated_files: messy().context_primer.generated_files };
    const dir = drifted(messy({ status: 'in_progress', progress_table: rows, context_primer: primer, next_actions: ['Merge PR #12 (auth middleware)', 'Write the session docs'] }));
    // As typed by hand: the decision written 2.0.
    write(dir, FILE, read(dir, FILE).replace(/("JWT",\s*)2/, '$12.0'));
    const before = read(dir, FILE);
    const findings: F[] = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings;
    expect(findings.filter((f) => f.check === 'schema' && f.level === 'error').map((f) => f.path)).toEqual(['progress_table[0].id', 'progress_table[1].id', 'progress_table[1].label', 'context_primer.key_decisions[1]']);
    expect(findings.filter((f) => f.check === 'landed').map((f) => f.path)).toEqual(['next_actions[0]']);
    expect(findings.find((f) => f.path === 'context_primer.generated_files[1]')).toMatchObject({ level: 'warning', evidence: { file: 'src/session.ts', missing: true } });
    const fix = "checkpoint update api --context_primer.key_decisions.1='2.0' --progress_table.0.id='1' --progress_table.1.id='2' --progress_table.1.label='3' --keep-updated-at";
    expect(findings.find((f) => f.check === 'schema' && f.level === 'info')!.fix).toBe(fix);
    expect(read(dir, FILE)).toBe(before);
    const next = await runCli(dir, ['next', '--engine', engine]);
    expect(next.stdout).toContain('→ Write the session docs');
    expect((await runCli(dir, ['resume', 'api', '--engine', engine])).code).toBe(0);
    // Pasted as printed: the values become text, as written, and the file is valid.
    expect((await runCli(dir, ['update', 'api', "--context_primer.key_decisions.1=2.0", '--progress_table.0.id=1', '--progress_table.1.id=2', '--progress_table.1.label=3'])).code).toBe(0);
    const fixed = JSON.parse(read(dir, FILE));
    expect(fixed.progress_table.map((r: { id: unknown; label: unknown }) => [r.id, r.label])).toEqual([['1', 'Design'], ['2', '3']]);
    expect(fixed.context_primer.key_decisions).toEqual(['JWT', '2.0']);
    expect((await runCli(dir, ['validate', 'api'])).code).toBe(0);
  });

  it('an action object without text keeps its "pr" and "ticket" keys: the landing they name is found, and next skips it (red team 12-07)', async () => {
    const dir = drifted(messy({ next_actions: [{ action: 'Get the auth middleware merged', pr: 12 }, { task: 'Ship the session docs', ticket: 'PLAT-9' }, 'Write the session docs'] }));
    const findings: F[] = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings;
    expect(findings.filter((f) => f.check === 'landed').map((f) => [f.path, f.message.slice(0, f.message.indexOf(','))])).toEqual([['next_actions[0]', '"Get the auth middleware merged" names #12']]);
    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next;
    expect(next.text).toBe('Ship the session docs');
    expect(next.skipped_as_landed.map((s: { text: string }) => s.text)).toEqual(['Get the auth middleware merged']);
  });

  it('a top-level status written "Done" is read as complete: a changed file is advice, as for a complete skill', async () => {
    const dir = drifted(messy({ status: 'Done', next_actions: [] }));
    const findings: F[] = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings;
    expect(findings.find((f) => f.path === 'context_primer.generated_files[2]')).toMatchObject({ level: 'advice', evidence: { file: 'docs/notes.md' } });
    expect(findings.find((f) => f.path === 'status')).toMatchObject({ level: 'error' });
  });

  it('a file with any other error keeps today\'s report: its errors only, no drift checked on it', async () => {
    const dir = drifted(messy({ updated_at: 'last Tuesday' }));
    const findings: F[] = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings;
    expect(findings.some((f) => f.path === 'updated_at' && f.level === 'error')).toBe(true);
    expect(findings.filter((f) => f.check === 'landed' || f.check === 'generated_files')).toEqual([]);
    expect(findings.filter((f) => f.fix !== undefined)).toEqual([]);
  });

  it('the pre-push judgement checks a pushed slip-only checkpoint too: the landing it still queues blocks', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/auth.ts', 'auth\n');
    write(dir, FILE, `${JSON.stringify(messy({ context_primer: { key_decisions: [], generated_files: ['src/auth.ts (PR 12)'] } }), null, 2)}\n`);
    const base = commitAll(dir, 'checkpoint: api', ago(119));
    git(dir, ['update-ref', 'refs/remotes/origin/main', base]);
    write(dir, 'src/middleware.ts', 'mw\n');
    const tip = commitAll(dir, 'Auth middleware (#12)', ago(30));
    const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', `${base}..${tip}`]);
    expect(r.code, r.stderr).toBe(1);
    const findings: (F & { blocks: boolean })[] = JSON.parse(r.stdout).findings;
    // One line (the work tree's words); it blocks only because the pushed tip was judged too.
    const landed = findings.filter((f) => f.check === 'landed');
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ path: 'next_actions[0]', blocks: true, evidence: { sha: tip } });
    // The slips are not what the push carries, but reconciling the landing changes the checkpoint
    // and the next push carries them: they block now, so one refusal names all (red team 64 r1 2).
    const slips = findings.filter((f) => f.check === 'schema' && f.level === 'error');
    expect(slips.map((f) => [f.path, f.blocks])).toEqual([['status', true], ['progress_table[0].status', true], ['next_actions[0].text', true]]);
  });
});
