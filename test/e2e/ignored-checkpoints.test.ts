// A .gitignore rule over checkpoint files (committed by a clone, or by habit: `*.json`): the state
// is never committed, so no other clone or branch sees it. doctor names each such file with the
// command that shows the rule, on both engines; a tracked file the same rule would match is fine.
// And the temp files interrupted writes leave behind, which doctor names as safe to delete.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, makeRepo, write } from '../helpers/repo.js';
import { checkpointDoc } from '../helpers/fixtures.js';

type F = { check: string; level: string; skill: string | null; message: string };
const ignoredFindings = async (dir: string, engine: string) => (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as F[]).filter((f) => f.check === 'gitignore');

describe('checkpoints git ignores (red team, 12-04)', () => {
  it('are a warning naming the file and how to find the rule; a tracked one under the same rule is not', async () => {
    const dir = makeRepo();
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'web' }), null, 2)}\n`);
    commitAll(dir, 'web, tracked');
    write(dir, '.gitignore', '*.checkpoint.json\n');
    commitAll(dir, 'ignore rule');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api' }), null, 2)}\n`);
    expect(git(dir, ['status', '--short', '--ignored', '.checkpoints'])).toBe('!! .checkpoints/api.checkpoint.json\n');
    for (const engine of ['native', 'isomorphic']) {
      expect(await ignoredFindings(dir, engine), engine).toEqual([{
        level: 'warning', check: 'gitignore', skill: 'api', path: '', blocks: true,
        message: 'git ignores .checkpoints/api.checkpoint.json: it is never committed, so no other clone or branch sees it; `git check-ignore -v .checkpoints/api.checkpoint.json` names the rule: remove it, or add !.checkpoints/api.checkpoint.json after it',
      }]);
    }
    write(dir, '.gitignore', '*.checkpoint.json\n!.checkpoints/*.checkpoint.json\n');
    for (const engine of ['native', 'isomorphic']) expect(await ignoredFindings(dir, engine), engine).toEqual([]);
  });
});

describe('temp files interrupted writes left (red team, 12-04)', () => {
  it('in .checkpoints/ and history/ are one note; a rotation journal, which the next rotate reads, is not among them', async () => {
    const dir = makeRepo();
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api' }), null, 2)}\n`);
    write(dir, '.checkpoints/.api.checkpoint.json.4242.k3j.tmp', '{');
    write(dir, '.checkpoints/history/.api.2026-12-01.json.4242.q9z.tmp', '{');
    write(dir, '.checkpoints/.api.rotation.tmp', '{}');
    const found = (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as F[]).filter((f) => f.check === 'leftovers');
    expect(found).toEqual([expect.objectContaining({ level: 'info', message: '2 temp files left by interrupted writes (e.g. .checkpoints/.api.checkpoint.json.4242.k3j.tmp); never read, safe to delete' })]);
  });
});
