// A .gitignore rule over checkpoint files (committed by a clone, or by habit: `*.json`): the state
// is never committed, so no other clone or branch sees it. doctor names each such file with the
// command that shows the rule, on both engines; a tracked file the same rule would match is fine.
// And the temp files interrupted writes leave behind, which doctor names as safe to delete.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { assertBuilt, cli, commitAll, git, gitTry, makeRepo, write } from '../helpers/repo.js';
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
  it('a rule that ignores the folder itself (.checkpoints/): the advice is not "add !file", which git cannot honour there, but .checkpoints/* then !file, which works as pasted (red team 64 r3 r1)', async () => {
    const dir = makeRepo();
    write(dir, '.gitignore', '.checkpoints/\n');
    commitAll(dir, 'ignore rule');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api' }), null, 2)}\n`);
    const advice = 'it ignores the .checkpoints/ folder itself, and git cannot re-include a file in an ignored folder: remove it, or replace it with .checkpoints/* and add !.checkpoints/api.checkpoint.json after that';
    for (const engine of ['native', 'isomorphic']) {
      expect((await ignoredFindings(dir, engine)).map((f) => f.message), engine).toEqual([`git ignores .checkpoints/api.checkpoint.json: it is never committed, so no other clone or branch sees it; \`git check-ignore -v .checkpoints/api.checkpoint.json\` names the rule: ${advice}`]);
    }
    // Pasted as given: git no longer ignores the file, and doctor says nothing.
    write(dir, '.gitignore', '.checkpoints/*\n!.checkpoints/api.checkpoint.json\n');
    expect(gitTry(dir, ['check-ignore', '-q', '.checkpoints/api.checkpoint.json']).status).toBe(1);
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

// .checkpoints committed as a submodule's gitlink (mode 160000, never initialised): git add skips
// every file under it, so no checkpoint is ever committed, just as under an ignore rule; init and
// doctor said all was well (red team 63 r1 5).
describe('.checkpoints committed as a gitlink (red team 63 r1 5)', () => {
  it('init notes it and doctor warns, naming the repair; after it, neither says a word', async () => {
    const dir = makeRepo();
    commitAll(dir, 'root');
    const head = git(dir, ['rev-parse', 'HEAD']).trim();
    git(dir, ['update-index', '--add', '--cacheinfo', `160000,${head},.checkpoints`]);
    git(dir, ['commit', '-qm', 'gitlink']);
    const repair = 'make it a folder again: `git rm --cached .checkpoints`, then `git add .checkpoints` and commit';
    assertBuilt();
    const init = cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout + init.stderr).toContain(`git records .checkpoints as a submodule (a gitlink), so .checkpoints/<skill>.checkpoint.json is never committed and no other clone or branch sees it; ${repair}`);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api', status: 'in review', context_primer: { key_decisions: ['prices in 8.0 units'], generated_files: ['src/prices.ts (new)'] } }), null, 2)}\n`);
    commitAll(dir, 'save');
    expect(git(dir, ['ls-files', '.checkpoints'])).toBe('.checkpoints\n');
    const gitlinked = async (engine: string) => (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as F[]).filter((f) => f.check === 'gitlink' || f.check === 'gitignore');
    for (const engine of ['native', 'isomorphic']) {
      expect(await gitlinked(engine), engine).toEqual([expect.objectContaining({
        level: 'warning', check: 'gitlink', skill: 'api', path: '',
        message: `git records .checkpoints as a submodule (a gitlink), so .checkpoints/api.checkpoint.json is never committed and no other clone or branch sees it; ${repair}`,
      })]);
    }
    git(dir, ['rm', '-q', '--cached', '.checkpoints']);
    commitAll(dir, 'checkpoints as a folder');
    expect(git(dir, ['ls-files', '.checkpoints'])).toContain('.checkpoints/api.checkpoint.json');
    for (const engine of ['native', 'isomorphic']) expect(await gitlinked(engine), engine).toEqual([]);
    const again = cli(dir, ['init']);
    expect(again.stdout + again.stderr).not.toContain('gitlink');
  });
});
