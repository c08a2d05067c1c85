// Since git 2.43, reverting a revert writes `Reapply "<subject>"` (older git: `Revert "Revert
// "<subject>""`). After land -> revert -> reapply the work is in the tree again: `next` must not
// recommend merging it and doctor must warn, on both engines (red team 07). The messages are
// written as git 2.43 writes them, so the test runs on any git.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { cli, commitAll, git, initialized, makeRepo, write } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'];

async function landedOn(dir: string, engine: string): Promise<{ next: string; landed: string[] }> {
  const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
  const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
  const landed = (doctor.findings as { check: string; path: string; level: string }[]).filter((f) => f.check === 'landed').map((f) => `${f.level} ${f.path}`);
  return { next: next.next.text, landed };
}

describe('a reapplied revert lands the work again (red team 07)', () => {
  it.each(ENGINES)('`Reapply "Add X (#12)"` after the revert: next skips "Merge PR #12", doctor warns (%s engine)', async (engine) => {
    const dir = makeRepo();
    initialized(dir);
    const u = cli(dir, ['update', 'api', '--phase=build', '--step=x', '--status=in_progress', '--progress_summary=x', '--next_actions+=Merge PR #12', '--next_actions+=Write docs']);
    expect(u.code, u.stderr).toBe(0);
    commitAll(dir, 'checkpoint: api');
    write(dir, 'x.ts', 'x\n');
    const land = commitAll(dir, 'Add X (#12)');
    git(dir, ['rm', '-q', 'x.ts']);
    git(dir, ['commit', '-q', '-m', 'Revert "Add X (#12)"', '-m', `This reverts commit ${land}.`]);
    const revert = git(dir, ['rev-parse', 'HEAD']).trim();
    expect(await landedOn(dir, engine)).toEqual({ next: 'Merge PR #12', landed: [] });
    write(dir, 'x.ts', 'x\n');
    git(dir, ['add', 'x.ts']);
    git(dir, ['commit', '-q', '-m', 'Reapply "Add X (#12)"', '-m', `This reverts commit ${revert}.`]);
    expect(await landedOn(dir, engine)).toEqual({ next: 'Write docs', landed: ['warning next_actions[0]'] });
  });
});
