// A branch that merged main in and is pushed again: main's commits are already on the remote,
// so what they changed or landed is no finding of this push's own (red team s21). Real `git push`
// through the installed hook, and `doctor --pushed` on both engines with the remote as it was.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, gitTry, write } from '../helpers/repo.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { published } from '../helpers/published.js';

const ENGINES = ['native', 'isomorphic'] as const;

/** The project: a checkpoint listing gen/x.md (with a note) and queuing PR #12, published in March. */
function project(): string {
  return published('api', checkpointDoc({ skill: 'api', created_at: '2026-03-01T00:00:00Z', updated_at: '2026-03-14T08:00:00Z', next_actions: ['Merge PR #12 after review', 'Write docs'], context_primer: { generated_files: ['gen/x.md (PR 12)'] } }), { 'gen/x.md': '# generated\n' });
}

/** What `doctor --pushed` says blocks, run as the hook runs it for `range`. */
async function blocking(dir: string, engine: string, range: string): Promise<string[]> {
  const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', range]);
  return (JSON.parse(r.stdout) as { findings: { message: string; blocks: boolean }[] }).findings.filter((f) => f.blocks).map((f) => f.message);
}

const rev = (dir: string, name: string) => git(dir, ['rev-parse', name]).trim();

describe('a pushed branch that merged main in', () => {
  it('is not blamed for what main changed: the push goes through, both engines agree, as for the same work rebased', async () => {
    const dir = project();
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/w.ts', 'export const w = 1;\n');
    commitAll(dir, 'my unrelated work', '2026-03-20T10:00:00Z');
    expect(gitTry(dir, ['push', '-q', 'origin', 'feat']).status).toBe(0);
    // A teammate edits the listed file on main; feat merges main in.
    git(dir, ['checkout', '-q', 'main']);
    write(dir, 'gen/x.md', '# generated, edited\n');
    commitAll(dir, 'teammate edits gen', '2026-03-21T10:00:00Z');
    expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
    git(dir, ['checkout', '-q', 'feat']);
    git(dir, ['merge', '-q', '--no-edit', 'origin/main'], { GIT_COMMITTER_DATE: '2026-03-22T10:00:00Z', GIT_AUTHOR_DATE: '2026-03-22T10:00:00Z' });
    const range = `${rev(dir, 'origin/feat')}..${rev(dir, 'feat')}`;
    for (const engine of ENGINES) expect(await blocking(dir, engine, range), engine).toEqual([]);
    const push = gitTry(dir, ['push', 'origin', 'feat']);
    expect(push.status, push.stdout + push.stderr).toBe(0);
  });

  it('a merge that itself changes a listed file (its own resolution) still blocks, on both engines', async () => {
    const dir = project();
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'gen/x.md', '# generated, feat\n');
    commitAll(dir, 'feat edits gen', '2026-03-20T10:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, 'gen/x.md', '# generated, main\n');
    commitAll(dir, 'main edits gen', '2026-03-21T10:00:00Z');
    expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
    git(dir, ['checkout', '-q', 'feat']);
    gitTry(dir, ['merge', '-q', 'origin/main']);
    write(dir, 'gen/x.md', '# generated, both\n');
    git(dir, ['add', 'gen/x.md']);
    git(dir, ['commit', '-q', '--no-edit'], { GIT_COMMITTER_DATE: '2026-03-22T10:00:00Z', GIT_AUTHOR_DATE: '2026-03-22T10:00:00Z' });
    // A new branch: its own commits are feat's edit and the merge's resolution.
    for (const engine of ENGINES) {
      const found = await blocking(dir, engine, rev(dir, 'feat'));
      expect(found, engine).toEqual([expect.stringContaining('gen/x.md changed after the checkpoint was written')]);
    }
  });

  it('an existing branch gets the verdict a new branch gets: a PR main already landed is not this push\'s', async () => {
    const dir = project();
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/w.ts', 'export const w = 1;\n');
    commitAll(dir, 'feat work', '2026-03-20T10:00:00Z');
    expect(gitTry(dir, ['push', '-q', 'origin', 'feat']).status).toBe(0);
    git(dir, ['checkout', '-q', '-b', 'pr12', 'main']);
    write(dir, 'src/p.ts', 'export const p = 1;\n');
    commitAll(dir, 'p work', '2026-03-20T11:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'pr12', '-m', 'Merge pull request #12 from org/pr12'], { GIT_COMMITTER_DATE: '2026-03-21T10:00:00Z', GIT_AUTHOR_DATE: '2026-03-21T10:00:00Z' });
    expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
    git(dir, ['checkout', '-q', 'feat']);
    git(dir, ['merge', '-q', '--no-edit', 'origin/main'], { GIT_COMMITTER_DATE: '2026-03-22T10:00:00Z', GIT_AUTHOR_DATE: '2026-03-22T10:00:00Z' });
    for (const engine of ENGINES) {
      expect(await blocking(dir, engine, `${rev(dir, 'origin/feat')}..${rev(dir, 'feat')}`), engine).toEqual([]);
      expect(await blocking(dir, engine, rev(dir, 'feat')), `${engine}, as a new branch`).toEqual([]);
    }
    const push = gitTry(dir, ['push', 'origin', 'feat']);
    expect(push.status, push.stdout + push.stderr).toBe(0);
  });
});

describe('a pull request that changed a listed file, merged, then a commit on top, pushed together (red team 12-07)', () => {
  it.each([
    ['made after the save: one line, naming that commit (the merge took it whole)', '2026-03-20T10:00:00Z', 'branch'],
    ['made before the save, merged after it: one line, naming the merge (the change came after the save through it)', '2026-03-10T10:00:00Z', 'merge'],
  ])('its branch commit %s, blocking, on both engines', async (_, branchDate, named) => {
    const dir = project();
    const before = rev(dir, 'main');
    git(dir, ['checkout', '-q', '-b', 'pr41', before]);
    write(dir, 'gen/x.md', '# regenerated\n');
    commitAll(dir, 'Regenerate x', branchDate);
    const branch = rev(dir, 'pr41');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'pr41', '-m', 'Merge pull request #41 from org/pr41'], { GIT_COMMITTER_DATE: '2026-03-21T10:00:00Z', GIT_AUTHOR_DATE: '2026-03-21T10:00:00Z' });
    const merge = rev(dir, 'main');
    write(dir, 'src/w.ts', 'export const w = 1;\n');
    commitAll(dir, 'Unrelated work', '2026-03-22T10:00:00Z');
    for (const engine of ENGINES) {
      const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', `${before}..${rev(dir, 'main')}`]);
      const lines = (JSON.parse(r.stdout) as { findings: { path: string; message: string; blocks: boolean }[] }).findings.filter((f) => f.path === 'context_primer.generated_files[0]');
      const expected = named === 'merge' ? `${merge.slice(0, 7)} "Merge pull request #41 from org/pr41"` : `${branch.slice(0, 7)} "Regenerate x"`;
      expect(lines.map((f) => [f.message.slice(0, f.message.indexOf(',')), f.blocks]), engine).toEqual([[`gen/x.md changed after the checkpoint was written (${expected}`, true]]);
    }
  });
});
