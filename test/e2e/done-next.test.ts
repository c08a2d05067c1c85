// `done` says what comes next, and it must be what `next` recommends: past the actions the
// checkpoint marks done ("[x] …") or names work git shows landed (red team 12-07: done named a
// merged PR as next, so an agent reading its output redid shipped work). Real git, a real merge.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, makeRepo, mergePullRequest, write } from '../helpers/repo.js';

/** A hand-kept checkpoint (4-space indent, a note after a path) queueing `actions`, saved on 2026-11-02; PR #3 merged the day after. */
function project(actions: string[]): string {
  const dir = makeRepo();
  write(dir, 'src/orders.ts', 'export const orders = [];\n');
  commitAll(dir, 'orders', '2026-11-01T00:00:00Z');
  write(dir, '.checkpoints/w.checkpoint.json', `${JSON.stringify({
    protocol_version: '1.1', skill: 'w', project: 'shop', project_dir: '.',
    created_at: '2026-11-01T09:00:00Z', updated_at: '2026-11-02T00:00:00Z',
    phase: 'build', step: 'orders', status: 'in_progress', progress_summary: 'Orders API behind the flag (8.0/10).',
    context_primer: { generated_files: ['src/orders.ts (PR 3)'] },
    next_actions: actions,
  }, null, 4)}\n`);
  commitAll(dir, 'w: checkpoint', '2026-11-02T00:01:00Z');
  mergePullRequest(dir, { n: 3, branch: 'o/orders', files: { 'src/orders.ts': 'export const orders: string[] = [];\n' }, subject: 'Type the orders', at: '2026-11-03T00:00:00Z', mergedAt: '2026-11-03T01:00:00Z' });
  return dir;
}

const nextText = async (dir: string) => (JSON.parse((await runCli(dir, ['next', '--json'])).stdout) as { next: { text: string } | null }).next?.text;

describe('done names the action next recommends', () => {
  it('past a landed PR and a hand-ticked action, each said with why', async () => {
    const dir = project(['Write the README', 'Merge PR #3', '[x] Update changelog', 'Tag release']);
    const r = await runCli(dir, ['done', 'w']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe([
      '✓ done: Write the README',
      '  next: Tag release',
      '  skipped next_actions[0] "Merge PR #3": #3 landed in ' + git(dir, ['rev-parse', '--short=7', 'HEAD']).trim() + ' "Merge pull request #3 from o/orders"',
      '  skipped next_actions[1] "[x] Update changelog": marked done in the checkpoint',
      '',
    ].join('\n'));
    expect(await nextText(dir)).toBe('Tag release');
  });

  it('--json gives the same next, and null with the skipped ones when none is open', async () => {
    const dir = project(['Write the README', 'Merge PR #3', '[x] Update changelog']);
    const r = await runCli(dir, ['done', 'w', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { done: string; next: string | null; skipped_as_landed: { index: number; text: string; evidence: string }[] };
    expect(out.done).toBe('Write the README');
    expect(out.next).toBeNull();
    expect(out.skipped_as_landed.map((s) => [s.index, s.text, s.evidence.replace(/ in [0-9a-f]{7,} /, ' in <sha> ')])).toEqual([
      [0, 'Merge PR #3', '#3 landed in <sha> "Merge pull request #3 from o/orders"'],
      [1, '[x] Update changelog', 'marked done in the checkpoint'],
    ]);
    // `next` says to reconcile: the text done points to.
    expect(await nextText(dir)).toMatch(/^Reconcile w: all 2 queued actions already landed or marked done/);
    const plain = await runCli(project(['Write the README', 'Merge PR #3', '[x] Update changelog']), ['done', 'w']);
    expect(plain.stdout).toContain('  next: none open: the 2 actions left are already landed or marked done; checkpoint next says how to reconcile\n');
  });

  it('an open action first is named as before, nothing skipped', async () => {
    const dir = project(['Write the README', 'Write the rollout doc', 'Merge PR #3']);
    const r = await runCli(dir, ['done', 'w', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ done: 'Write the README', next: 'Write the rollout doc' });
    expect(JSON.parse(r.stdout)).not.toHaveProperty('skipped_as_landed');
    expect(await nextText(dir)).toBe('Write the rollout doc');
  });
});
