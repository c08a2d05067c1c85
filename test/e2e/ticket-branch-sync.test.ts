// Updating a ticket branch from main is not the ticket landing (red team s11 #2). A real project:
// `checkpoint init` (its pre-push hook), a ticket branch whose checkpoint queues PLAT-7 work,
// and the merges people make to keep that branch current: `git merge main`, `git pull` with a
// merge, a remote-tracking merge, and a pull of the ticket branch itself after it diverged.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, gitTry, makeRepo, tempDir, write, initialized } from '../helpers/repo.js';

const ACTIONS = ['Finish the PLAT-7 feature flag (src/flag.ts, PR 12 later)', 'Open the PR for PLAT-7'];

function checkpoint(): string {
  const doc = {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/claude/demo',
    created_at: '2026-02-27T10:00:00Z', updated_at: new Date(Date.now() - 5_000).toISOString(),
    phase: 'build', step: 'flag', status: 'in_progress', progress_summary: 'flag half done; gen ~8.0 min',
    progress_table: [{ id: 'p1', label: 'Flag', status: 'in_progress', note: 'half (PR 12)' }],
    next_actions: ACTIONS,
    context_primer: { key_decisions: ['flag off by default (PR 12)'] },
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** The subjects of HEAD's merge commits, newest first. */
const merges = (dir: string) => git(dir, ['log', '--merges', '--format=%s']).trim().split('\n');

const skipped = async (dir: string) => {
  const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
  const status = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
  const resume = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
  return { next: next.next?.skipped_as_landed, reconcile: next.reconcile, status: status.next?.skipped_as_landed, resume: resume.next?.skipped_as_landed };
};

const landedFindings = async (dir: string, engine: string) =>
  (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { path: string; message: string }[])
    .filter((f) => f.path.startsWith('next_actions')).map((f) => f.message);

describe('a ticket branch kept current with main (red team s11 #2)', () => {
  it('sync merges land nothing: next, status, resume and doctor (both engines) stay quiet and the push goes through; merging the branch into main lands it', async () => {
    const dir = makeRepo();
    const remote = tempDir('cp-remote-');
    git(remote, ['init', '-q', '--bare']);
    git(dir, ['remote', 'add', 'origin', remote]);
    initialized(dir);
    commitAll(dir, 'init checkpoint');
    git(dir, ['push', '-q', '-u', 'origin', 'main']);
    git(dir, ['checkout', '-q', '-b', 'PLAT-7-flag']);
    write(dir, '.checkpoints/api.checkpoint.json', checkpoint());
    commitAll(dir, 'PLAT-7: start flag');
    const first = gitTry(dir, ['push', '-q', '-u', 'origin', 'PLAT-7-flag']);
    expect(first.status, first.stdout + first.stderr).toBe(0);

    // main moves on (another clone pushes), and the ticket branch takes it in three ways.
    const other = tempDir('cp-other-');
    git(other, ['clone', '-q', remote, '.']);
    const advanceMain = (name: string) => {
      git(other, ['checkout', '-q', 'main']);
      git(other, ['pull', '-q', '--no-rebase', 'origin', 'main']);
      write(other, name, 'fix\n');
      commitAll(other, `unrelated fix ${name}`);
      git(other, ['push', '-q', 'origin', 'main']);
    };
    advanceMain('a.txt');
    git(dir, ['fetch', '-q', 'origin']);
    git(dir, ['merge', '-q', '--no-edit', 'origin/main']);
    advanceMain('b.txt');
    git(dir, ['fetch', '-q', 'origin']);
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--ff-only', 'origin/main']);
    git(dir, ['checkout', '-q', 'PLAT-7-flag']);
    git(dir, ['merge', '-q', '--no-edit', 'main']);
    advanceMain('c.txt');
    git(dir, ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'main']);
    // A teammate pushes to the ticket branch; the local branch diverged, so the pull merges it.
    git(other, ['fetch', '-q', 'origin']);
    git(other, ['checkout', '-q', '-b', 'PLAT-7-flag', 'origin/PLAT-7-flag']);
    write(other, 'src/flag.ts', 'export const flag = false;\n');
    commitAll(other, 'PLAT-7: flag module');
    git(other, ['push', '-q', 'origin', 'PLAT-7-flag']);
    write(dir, 'notes.md', 'local\n');
    commitAll(dir, 'PLAT-7: notes');
    git(dir, ['pull', '-q', '--no-rebase', '--no-edit', 'origin', 'PLAT-7-flag']);

    const subjects = merges(dir);
    expect(subjects).toEqual([
      expect.stringMatching(/^Merge branch 'PLAT-7-flag' of \S+ into PLAT-7-flag$/),
      expect.stringMatching(/^Merge branch 'main' of \S+ into PLAT-7-flag$/),
      "Merge branch 'main' into PLAT-7-flag",
      "Merge remote-tracking branch 'origin/main' into PLAT-7-flag",
    ]);
    expect(await skipped(dir)).toEqual({ next: [], reconcile: false, status: [], resume: [] });
    for (const engine of ['native', 'isomorphic']) expect(await landedFindings(dir, engine), engine).toEqual([]);
    const push = gitTry(dir, ['push', 'origin', 'PLAT-7-flag']);
    expect(push.status, push.stdout + push.stderr).toBe(0);

    // The branch lands the way GitHub writes it: now both actions are shipped work.
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #12 from o/PLAT-7-flag', 'PLAT-7-flag']);
    const landed = await skipped(dir);
    expect(landed.reconcile).toBe(true);
    for (const engine of ['native', 'isomorphic']) {
      const found = await landedFindings(dir, engine);
      // Both actions name PLAT-7, and the first names PR 12 too: all three landed in that merge.
      expect(found.map((m) => m.replace(/^.*? names (\S+), which landed after the checkpoint \([0-9a-f]{7} "(.*?)"\).*$/, '$1 $2')), engine).toEqual([
        '#12 Merge pull request #12 from o/PLAT-7-flag',
        'PLAT-7 Merge pull request #12 from o/PLAT-7-flag',
        'PLAT-7 Merge pull request #12 from o/PLAT-7-flag',
      ]);
    }
    const refused = gitTry(dir, ['push', 'origin', 'main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/PLAT-7, which landed[^\n]*\[blocks push\]/);
  });
});
