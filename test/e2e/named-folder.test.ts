// `-C <folder>` names a folder from afar: a write there may start a .checkpoints/ only in a git
// work tree or a folder that already holds one; anywhere else (a typo, /dev, /proc/self, a
// Downloads folder) it is refused in one line, nothing created, and `checkpoint init` there is the
// way to start one. Reads and init are unchanged.
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { cleanup, cli, errorLine, makeRepo, tempDir, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));
const track = (d: string) => (dirs.push(d), d);

describe('-C: writes only into a project', () => {
  it('an update into a folder that is no git work tree and has no .checkpoints/ is refused in one line, nothing created; after init it works', async () => {
    const elsewhere = track(makeRepo());
    const plain = track(tempDir());
    write(plain, 'notes/todo.md', '- ship it (PR 12)\n');
    const r = await runCli(elsewhere, ['-C', plain, 'update', 'api', '--next_actions+=Write the tests (src/x.ts, PR 12)']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toBe(`${plain} is not a git work tree and holds no .checkpoints/; refused to start one there`);
    expect(line.hint).toBe(`run \`checkpoint -C ${plain} init\` there first (or git init), or check the folder`);
    expect(readdirSync(plain)).toEqual(['notes']);
    // Reads say there is nothing, as before.
    expect((await runCli(elsewhere, ['-C', plain, 'list'])).code).toBe(0);
    // init is the way in; then the same update works.
    expect(cli(elsewhere, ['-C', plain, 'init']).code).toBe(0);
    expect((await runCli(elsewhere, ['-C', plain, 'update', 'api', '--next_actions+=go'])).code).toBe(0);
    expect(existsSync(join(plain, '.checkpoints/api.checkpoint.json'))).toBe(true);
  });

  it('a folder of the project that is a link to a plain folder elsewhere is that folder, as git -C and cd take it: refused, nothing written into the project (red team 12-07)', async () => {
    const project = track(makeRepo());
    const plain = track(tempDir());
    symlinkSync(plain, join(project, 'scratch'));
    const before = readdirSync(project).sort();
    const r = await runCli(project, ['-C', 'scratch', 'update', 'api', '--next_actions+=go']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toBe(`${realpathSync(plain)} is not a git work tree and holds no .checkpoints/; refused to start one there`);
    expect(readdirSync(project).sort()).toEqual(before);
    expect(readdirSync(plain)).toEqual([]);
    // Reads find no project there either, as from inside it; the project itself is found as before.
    expect(JSON.parse((await runCli(project, ['-C', 'scratch', 'list', '--json'])).stdout)).toEqual([]);
    expect((await runCli(project, ['update', 'api', '--next_actions+=go'])).code).toBe(0);
    expect(JSON.parse((await runCli(project, ['-C', 'scratch', 'list', '--json'])).stdout)).toEqual([]);
    // "scratch/.." is the folder above the link's target, as git -C reads it, not the project.
    expect(JSON.parse((await runCli(project, ['-C', 'scratch/..', 'list', '--json'])).stdout)).toEqual([]);
    expect(JSON.parse((await runCli(project, ['-C', '.', 'list', '--json'])).stdout).map((c: { skill: string }) => c.skill)).toEqual(['api']);
  });

  it("the hint's init command is safe to paste for a folder named with a space and a ';'", async () => {
    const elsewhere = track(makeRepo());
    const odd = join(track(tempDir()), 'my notes;rm -rf x');
    mkdirSync(odd);
    const r = await runCli(elsewhere, ['-C', odd, 'update', 'api', '--next_actions+=go']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).hint).toBe(`run \`checkpoint -C '${odd}' init\` there first (or git init), or check the folder`);
  });

  it('/proc/self and /dev are refused in one line (never an internal error), nothing written', async () => {
    const elsewhere = track(makeRepo());
    for (const dir of ['/proc/self', '/dev']) {
      const r = await runCli(elsewhere, ['-C', dir, 'update', 'zz', '--next_actions+=go']);
      expect(r.code, dir).toBe(2);
      expect(errorLine(r.stderr).lines).toBe(1);
      expect(errorLine(r.stderr).message).toMatch(/ is not a git work tree and holds no \.checkpoints\/; refused to start one there$/);
      expect(r.stderr).not.toContain('internal error');
    }
    expect(existsSync('/dev/.checkpoints')).toBe(false);
  });

  it('init where the file system refuses a folder (/proc/self) is one plain line, never an internal error', async () => {
    const elsewhere = track(makeRepo());
    // As a process: /proc/self is then the checkpoint process's own folder.
    const r = cli(elsewhere, ['-C', '/proc/self', 'init']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(/^ENOENT: no such file or directory, mkdir '\/proc\/\S+\/\.checkpoints'$/);
    expect(line.hint).toMatch(/^the file system refused it/);
    expect(r.stderr).not.toContain('internal error');
  });

  it('a git work tree (from a subfolder too) and a plain folder that already holds .checkpoints/ take writes as before', async () => {
    const elsewhere = track(tempDir());
    const repo = track(makeRepo());
    mkdirSync(join(repo, 'src/deep'), { recursive: true });
    expect((await runCli(elsewhere, ['-C', join(repo, 'src/deep'), 'update', 'api', '--next_actions+=go'])).code).toBe(0);
    expect(existsSync(join(repo, '.checkpoints/api.checkpoint.json'))).toBe(true);
    const kept = track(tempDir());
    mkdirSync(join(kept, '.checkpoints'));
    expect((await runCli(elsewhere, ['-C', kept, 'update', 'api', '--next_actions+=go'])).code).toBe(0);
    expect(existsSync(join(kept, '.checkpoints/api.checkpoint.json'))).toBe(true);
  });
});
