// A commit made after the checkpoint (the graph says so: it is not in the history of the commit
// that recorded it) whose date says before: a committer clock behind (GIT_COMMITTER_DATE, a
// machine set wrong), a rebase or cherry-pick that kept its date. What that commit does itself is
// judged by the graph, not by its date: its edit of a listed file is a change since the
// checkpoint, its merge of a queued PR is a landing after the queueing. Real git, both engines,
// and the pre-push hook as git runs it.
import { describe, expect, it } from 'vitest';
import { builtOnce } from '../helpers/built-once.js';
import { runCli } from '../helpers/in-process.js';
import { cli, commitAll, git, gitTry, makeRepo, read, tempDir, write, headSha, initialized } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'] as const;
const FILE = '.checkpoints/api.checkpoint.json';

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

function checkpoint(skill: string, savedMinutesAgo: number, files: string[], actions: string[]): string {
  const doc = {
    protocol_version: '1.1', skill, project: 'demo', project_dir: '/home/someone/demo',
    created_at: '2026-06-01T09:00:00Z', updated_at: ago(savedMinutesAgo).replace('Z', '.250Z'),
    phase: 'build', step: 'spec', status: 'in_progress', progress_summary: 'Spec drafted; scored 8.0.',
    progress_table: [{ id: 'spec', label: 'Spec', status: 'in_progress', note: 'see PR 12' }],
    context_primer: { key_decisions: ['OpenAPI 3.1'], generated_files: files },
    next_actions: actions,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

type F = { level: string; check: string; path: string; skill: string; message: string; blocks?: boolean; evidence?: Record<string, unknown> };

async function findings(dir: string, engine: string, extra: string[] = []): Promise<F[]> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...extra]);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).findings as F[];
}

/**
 * A checkpoint listing three files, committed 2 hours ago. Before it (in its history), on a clock
 * four days behind, src/keep.ts was edited: the save saw that. After it, on a clock three days
 * behind, src/gen.ts is regenerated (made after the checkpoint, dated long before it); then
 * docs/api.md is edited with `git commit --date` (the author date only: the committer date, which
 * the walk goes by, is honest); then an honest commit on top.
 */
function regeneratedBehind(actions: string[] = ['Review the spec with the API team']): { dir: string; regen: string; anchor: string; docs: string } {
  // Built once per list of actions in this file, a copy for each test and engine (builtOnce).
  return builtOnce(`regenerated behind ${JSON.stringify(actions)}`, () => buildRegeneratedBehind(actions));
}

function buildRegeneratedBehind(actions: string[]): { dir: string; regen: string; anchor: string; docs: string } {
  const dir = makeRepo();
  write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
  write(dir, 'src/keep.ts', 'keep\n');
  write(dir, 'docs/api.md', '# API\n');
  commitAll(dir, 'initial', ago(24 * 60));
  write(dir, 'src/keep.ts', 'keep 2\n');
  commitAll(dir, 'Touch keep (clock behind)', ago(4 * 24 * 60));
  write(dir, FILE, checkpoint('api', 121, ['src/gen.ts (regenerated, PR 12)', 'src/keep.ts', 'docs/api.md'], actions));
  const anchor = commitAll(dir, 'checkpoint: api', ago(120));
  write(dir, 'src/gen.ts', 'export const n = 9.0;\n');
  const regen = commitAll(dir, 'Regenerate the client', ago(3 * 24 * 60));
  write(dir, 'docs/api.md', '# API v2\n');
  git(dir, ['commit', '-q', '-am', 'API docs (author date kept from a rebase)', `--date=${ago(5 * 24 * 60)}`]);
  const docs = headSha(dir);
  write(dir, 'README.md', 'demo\n');
  commitAll(dir, 'Readme', ago(30));
  return { dir, regen, anchor, docs };
}

describe.each(ENGINES)('%s engine: what a commit dated before the checkpoint but made after it does itself', (engine) => {
  it('its edit of a listed file is a change since the checkpoint, named with its date and why it counts', async () => {
    const { dir, regen, docs } = regeneratedBehind();
    const all = await findings(dir, engine);
    const gen = all.find((f) => f.path === 'context_primer.generated_files[0]');
    expect(gen).toMatchObject({ level: 'warning', evidence: { file: 'src/gen.ts', sha: regen } });
    expect(gen!.message).toMatch(/^src\/gen\.ts changed after the checkpoint was written \([0-9a-f]{7} "Regenerate the client", \S+Z, dated before it but made after its commit\); re-read it$/);
    // A skewed edit in the checkpoint commit's history keeps its date: the save saw it.
    expect(all.find((f) => f.path === 'context_primer.generated_files[1]')).toBeUndefined();
    // `git commit --date` moved the author date only: found by its (committer) date, no note.
    const api = all.find((f) => f.path === 'context_primer.generated_files[2]');
    expect(api).toMatchObject({ level: 'warning', evidence: { file: 'docs/api.md', sha: docs } });
    expect(api!.message).not.toContain('dated before it');
  });

  it('the same edit as pushed: the pushed tip finding blocks', async () => {
    const { dir, regen, anchor, docs } = regeneratedBehind();
    const all = await findings(dir, engine, [`--pushed=${anchor}..${headSha(dir)}`]);
    expect(all.filter((f) => f.blocks).map((f) => [f.path, f.evidence?.sha])).toEqual([['context_primer.generated_files[0]', regen], ['context_primer.generated_files[2]', docs]]);
  });

  it('its merge of a queued PR is a landing after the queueing: doctor warns, next and status skip the action', async () => {
    const dir = makeRepo();
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    write(dir, FILE, checkpoint('api', 121, ['src/gen.ts'], ['Finish PR #482 (invoice totals) and rebase it', 'Review the spec with the API team']));
    commitAll(dir, 'checkpoint: api', ago(120));
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/totals.ts', 'totals\n');
    commitAll(dir, 'invoice totals', ago(60));
    git(dir, ['checkout', '-q', 'main']);
    // Merged on a machine whose clock is two days behind: the merge itself is dated before the queueing.
    git(dir, ['merge', '-q', '--no-ff', 'feat', '-m', 'Merge pull request #482 from acme/feat'], { GIT_COMMITTER_DATE: ago(2 * 24 * 60), GIT_AUTHOR_DATE: ago(2 * 24 * 60) });
    const merge = headSha(dir);
    const landed = (await findings(dir, engine)).find((f) => f.path === 'next_actions[0]');
    expect(landed).toMatchObject({ level: 'warning', evidence: { sha: merge } });
    expect(landed!.message).toContain(`which landed after the checkpoint (${merge.slice(0, 7)} "Merge pull request #482 from acme/feat", dated `);
    expect(landed!.message).toContain(': before it, but made after its commit); reconcile instead of redoing it');
    const next = await runCli(dir, ['next', '--engine', engine]);
    expect(next.stdout).toContain(`#482 landed in ${merge.slice(0, 7)} "Merge pull request #482 from acme/feat"`);
    expect(next.stdout).toContain('Review the spec with the API team');
    expect((await runCli(dir, ['status', '--engine', engine])).stdout).toContain(`already landed: #482 landed in ${merge.slice(0, 7)}`);
  });

  it('two checkpoints: a commit dated between their saves but made after the newer one changes its file', async () => {
    const dir = makeRepo();
    write(dir, 'docs/old.md', 'old\n');
    write(dir, '.checkpoints/docs.checkpoint.json', checkpoint('docs', 10 * 24 * 60, ['docs/old.md'], ['Proofread the docs']));
    commitAll(dir, 'checkpoint: docs', ago(10 * 24 * 60 - 1));
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    write(dir, FILE, checkpoint('api', 121, ['src/gen.ts'], ['Review the spec with the API team']));
    commitAll(dir, 'checkpoint: api', ago(120));
    // Dated five days back: after the docs checkpoint, so the walk (back to it) lists it, but before api's.
    write(dir, 'src/gen.ts', 'export const n = 9.0;\n');
    const regen = commitAll(dir, 'Regenerate the client', ago(5 * 24 * 60));
    const all = await findings(dir, engine);
    expect(all.find((f) => f.skill === 'api' && f.path === 'context_primer.generated_files[0]')).toMatchObject({ level: 'warning', evidence: { file: 'src/gen.ts', sha: regen } });
    expect(all.find((f) => f.skill === 'docs' && f.path.startsWith('context_primer'))).toBeUndefined();
  });
});

// A checkpoint edited in the work tree, not committed: an instant some commit recorded keeps that
// commit as its anchor (a text the committed file already queued, a save whose updated_at the
// committed file holds); a save no commit recorded has none, and is judged by date alone.
describe.each(ENGINES)('%s engine: an uncommitted checkpoint', (engine) => {
  it('a text the committed checkpoint queued keeps the commit that queued it: a skewed merge after it is a landing', async () => {
    const dir = makeRepo();
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    write(dir, FILE, checkpoint('api', 121, ['src/gen.ts'], ['Finish PR #482 (invoice totals) and rebase it', 'Review the spec with the API team']));
    commitAll(dir, 'checkpoint: api', ago(120));
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/totals.ts', 'totals\n');
    commitAll(dir, 'invoice totals', ago(60));
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'feat', '-m', 'Merge pull request #482 from acme/feat'], { GIT_COMMITTER_DATE: ago(2 * 24 * 60), GIT_AUTHOR_DATE: ago(2 * 24 * 60) });
    const merge = headSha(dir);
    // The session saves again and does not commit: the save itself has no commit, the queued text does.
    expect((await runCli(dir, ['update', 'api', '--step=totals reviewed'])).code).toBe(0);
    expect(git(dir, ['status', '--porcelain', FILE]).trim()).toBe(`M ${FILE}`);
    const landed = (await findings(dir, engine)).find((f) => f.path === 'next_actions[0]');
    expect(landed).toMatchObject({ level: 'warning', evidence: { sha: merge } });
    expect(landed!.message).toContain('which landed after it was queued');
    expect((await runCli(dir, ['next', '--engine', engine])).stdout).toContain(`#482 landed in ${merge.slice(0, 7)}`);
  });

  it('a hand edit that kept updated_at keeps the save\'s commit: a skewed edit after it is a change since', async () => {
    // Its revisions are read for the queued PR's date: they show the commit that recorded this updated_at.
    const { dir, regen } = regeneratedBehind(['Finish PR #482 (invoice totals) and rebase it']);
    // A note added by hand, updated_at untouched: the save is still the one the commit recorded.
    write(dir, FILE, read(dir, FILE).replace('"OpenAPI 3.1"', '"OpenAPI 3.1 (see PR 12)"'));
    expect(git(dir, ['status', '--porcelain', FILE]).trim()).toBe(`M ${FILE}`);
    expect((await findings(dir, engine)).find((f) => f.path === 'context_primer.generated_files[0]')).toMatchObject({ level: 'warning', evidence: { sha: regen } });
  });
});

// A walk cut by walk_days (a stale checkpoint beside a fresh one): the graph rule holds inside
// the cut; a commit dated before the bound is never walked past (walk_days bounds the cost), and
// when it sits on HEAD's line after a committed checkpoint's commit, doctor says so, naming it.
describe.each(ENGINES)('%s engine: a walk cut by walk_days', (engine) => {
  /** Built once per skew in this file, a copy for each engine (builtOnce). */
  const staleAndFresh = (skewedDaysAgo: number): { dir: string; regen: string } => builtOnce(`stale and fresh ${skewedDaysAgo}`, () => buildStaleAndFresh(skewedDaysAgo));

  function buildStaleAndFresh(skewedDaysAgo: number): { dir: string; regen: string } {
    const dir = makeRepo();
    write(dir, '.checkpoints/config.json', '{ "walk_days": 30 }\n');
    write(dir, 'docs/old.md', 'old\n');
    write(dir, '.checkpoints/docs.checkpoint.json', checkpoint('docs', 60 * 24 * 60, ['docs/old.md'], ['Proofread the docs']));
    commitAll(dir, 'checkpoint: docs', ago(60 * 24 * 60 - 1));
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    write(dir, FILE, checkpoint('api', 121, ['src/gen.ts'], ['Review the spec with the API team']));
    commitAll(dir, 'checkpoint: api', ago(120));
    write(dir, 'src/gen.ts', 'export const n = 9.0;\n');
    const regen = commitAll(dir, 'Regenerate the client', ago(skewedDaysAgo * 24 * 60));
    write(dir, 'README.md', 'demo\n');
    commitAll(dir, 'Readme', ago(30));
    return { dir, regen };
  }

  it('a commit dated inside the bound but before the fresh checkpoint, made after it, changed its file', async () => {
    const { dir, regen } = staleAndFresh(10);
    const all = await findings(dir, engine);
    expect(all.find((f) => f.check === 'history' && f.message.startsWith('history walk cut at'))).toBeDefined();
    expect(all.find((f) => f.skill === 'api' && f.path === 'context_primer.generated_files[0]')).toMatchObject({ level: 'warning', evidence: { file: 'src/gen.ts', sha: regen } });
  });

  it('one dated before the bound hides what is behind it: doctor names it; walk_days 0 finds the change', async () => {
    const { dir, regen } = staleAndFresh(100);
    const hidden = (await findings(dir, engine)).filter((f) => f.skill === 'api' && f.check === 'history');
    expect(hidden).toEqual([expect.objectContaining({ level: 'info', evidence: { sha: regen } })]);
    expect(hidden[0]!.message).toBe(`${regen.slice(0, 7)} on HEAD's first-parent line was made after this checkpoint was committed, but is dated before the history walk's bound (walk_days 30; a clock behind?): what it and the commits behind it changed or landed was not checked (\`git log --first-parent ${regen.slice(0, 7)}\` lists them; "walk_days": 0 in .checkpoints/config.json checks them)`);
    write(dir, '.checkpoints/config.json', '{ "walk_days": 0 }\n');
    const all = await findings(dir, engine);
    expect(all.filter((f) => f.check === 'history')).toEqual([]);
    expect(all.find((f) => f.skill === 'api' && f.path === 'context_primer.generated_files[0]')).toMatchObject({ level: 'warning', evidence: { sha: regen } });
  });
});

describe('the pre-push hook, as git runs it', () => {
  it('refuses a push whose commit, dated before the checkpoint, regenerated a listed file after it; allows it once the checkpoint is updated', async () => {
    const dir = makeRepo();
    const remote = tempDir('cp-remote-');
    git(remote, ['init', '-q', '--bare']);
    git(dir, ['remote', 'add', 'origin', remote]);
    initialized(dir);
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    write(dir, FILE, checkpoint('api', 121, ['src/gen.ts (regenerated, PR 12)'], ['Review the spec with the API team']));
    commitAll(dir, 'checkpoint: api', ago(120));
    const first = gitTry(dir, ['push', '-q', '-u', 'origin', 'main']);
    expect(first.status, first.stdout + first.stderr).toBe(0);
    write(dir, 'src/gen.ts', 'export const n = 9.0;\n');
    const regen = commitAll(dir, 'Regenerate the client', ago(3 * 24 * 60));
    const refused = gitTry(dir, ['push', 'origin', 'main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(new RegExp(`src/gen\\.ts changed after the checkpoint was written \\(${regen.slice(0, 7)}[^\\n]*\\[blocks push\\]`));
    // The session re-reads the file and saves: the push goes through.
    expect(cli(dir, ['update', 'api', '--step=client regenerated']).code).toBe(0);
    commitAll(dir, 'checkpoint: api after the regeneration');
    const pushed = gitTry(dir, ['push', 'origin', 'main']);
    expect(pushed.status, pushed.stdout + pushed.stderr).toBe(0);
  });
});
