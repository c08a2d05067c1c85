// A bare repository, or the .git folder of a work tree, has no working tree to keep checkpoints
// in: every command refuses it in one line (exit 2) and writes nothing there, not .checkpoints/,
// not .gitattributes, not merge config. Real `git init --bare` and `git worktree add`.
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { COMMANDS } from '../../src/cli/spec.js';
import { cleanup, cli, commitAll, errorLine, git, makeRepo, tempDir, write } from '../helpers/repo.js';
import { NEEDS_PROCESS, runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** Arguments that get each command past its own usage checks (a skill, a capsule, a file). */
const ARGS: Record<string, string[]> = {
  init: [],
  list: [],
  show: ['api'],
  validate: ['api.checkpoint.json'],
  update: ['api', '--step=sprint-2 (see PR 12)', '--next_actions+=Write the tests'],
  done: ['api'],
  reset: ['api'],
  history: [],
  restore: ['api.2026-06-01T00-00-00.000Z.checkpoint.json'],
  status: [],
  next: [],
  resume: [],
  doctor: [],
  rotate: [],
  migrate: [],
  pause: ['api', '--auto'],
  mcp: [],
  'install-driver': [],
  'uninstall-driver': [],
  resolve: [],
};

/** Every file under `dir` with its bytes (and mode): what "nothing written" is checked against. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = join(rel, e.name);
      if (e.isDirectory()) walk(path);
      else files.set(path, `${statSync(join(dir, path)).mode} ${readFileSync(join(dir, path), 'base64')}`);
    }
  };
  walk('.');
  return files;
}

async function run(cwd: string, args: string[]) {
  return args.some((a) => NEEDS_PROCESS.test(a)) ? cli(cwd, args, { input: '' }) : runCli(cwd, args, { input: '' });
}

describe('a folder with no working tree', () => {
  it('covers every command', () => {
    expect(Object.keys(ARGS).sort()).toEqual(COMMANDS.map((c) => c.name).sort());
  });

  it('a bare repository (-C b.git, or from inside it): every command refuses in one line, exit 2, nothing written', async () => {
    const parent = tempDir();
    git(parent, ['init', '-q', '--bare', 'b.git']);
    const bare = join(parent, 'b.git');
    const before = snapshot(bare);
    for (const [name, args] of Object.entries(ARGS)) {
      const runs: [string, string[]][] = [[parent, ['-C', 'b.git', name, ...args]], [join(bare, 'refs', 'heads'), [name, ...args]]];
      for (const [cwd, argv] of runs) {
        // Started without -C, the server takes its project from the host on each call (test/mcp).
        if (name === 'mcp' && argv[0] !== '-C') continue;
        const r = await run(cwd, argv);
        const where = `${argv.join(' ')} in ${cwd}`;
        expect(r.code, `${where}: ${r.stderr}`).toBe(2);
        const line = errorLine(r.stderr);
        expect(line.lines, where).toBe(1);
        expect(line.message, where).toMatch(/b\.git is a bare repository \(no working tree\)$/);
        expect(line.hint, where).toBe(`run checkpoint in a clone of it (git clone ${bare} '<folder>')`);
        expect(r.stdout, where).toBe('');
      }
    }
    // -C names it as the user did; from inside, in full.
    expect(errorLine((await run(parent, ['-C', 'b.git', 'status'])).stderr).message).toBe('b.git is a bare repository (no working tree)');
    expect(snapshot(bare)).toEqual(before);
  });

  it('the .git folder of a work tree (its hooks, its refs): refused, pointing at the work tree', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api'), null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    const linked = join(tempDir(), 'wt');
    git(dir, ['worktree', 'add', '-q', '-b', 'side', linked]);
    const dotGit = join(dir, '.git');
    const before = snapshot(dir);
    const cases: [string, string[]][] = [
      [dotGit, ['status']],
      [join(dotGit, 'hooks'), ['update', 'api', '--step=x']],
      [dir, ['-C', '.git', 'install-driver']],
      [dir, ['-C', '.git/refs', 'pause', 'api', '--auto']],
    ];
    for (const [cwd, argv] of cases) {
      const r = await run(cwd, argv);
      const where = `${argv.join(' ')} in ${cwd}`;
      expect(r.code, `${where}: ${r.stderr}`).toBe(2);
      expect(errorLine(r.stderr), where).toEqual({ lines: 1, message: `${dotGit} is the git dir of ${dir}, not a working tree`, hint: `run checkpoint in ${dir}` });
    }
    expect(snapshot(dir)).toEqual(before);
    // The work trees themselves still work, a bare repository kept inside one included.
    git(dir, ['init', '-q', '--bare', 'vendor/mirror.git']);
    expect((await runCli(dir, ['status'])).code).toBe(0);
    expect((await runCli(join(dir, 'vendor'), ['update', 'api', '--step=from-a-subfolder'])).code).toBe(0);
    expect((await runCli(linked, ['show', 'api'])).code).toBe(0);
    expect((await run(join(dir, 'vendor'), ['-C', 'mirror.git', 'list'])).code).toBe(2);
  });

  it('a linked worktree\'s admin dir and a submodule\'s git dir: refused, naming their own work tree, not the main one', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api'), null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    const linked = join(tempDir(), 'feature wt');
    git(dir, ['worktree', 'add', '-q', '-b', 'side', linked]);
    const sub = makeRepo();
    dirs.push(sub);
    git(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/lib']);
    // As the user finds them: `cd "$(git rev-parse --absolute-git-dir)"`.
    const admin = git(linked, ['rev-parse', '--absolute-git-dir']).trim();
    const modules = git(join(dir, 'vendor', 'lib'), ['rev-parse', '--absolute-git-dir']).trim();
    expect([admin, modules]).toEqual([expect.stringContaining('/.git/worktrees/'), join(dir, '.git', 'modules', 'vendor', 'lib')]);
    const before = snapshot(dir);
    const cases: [string, string[], string, string][] = [
      [admin, ['status'], admin, linked],
      [join(dir, '.git'), ['-C', relative(join(dir, '.git'), admin), 'init'], admin, linked],
      [modules, ['status'], modules, join(dir, 'vendor', 'lib')],
      [join(modules, 'hooks'), ['update', 'api', '--step=x'], modules, join(dir, 'vendor', 'lib')],
    ];
    for (const [cwd, argv, gitDir, workTree] of cases) {
      const r = await run(cwd, argv);
      const where = `${argv.join(' ')} in ${cwd}`;
      expect(r.code, `${where}: ${r.stderr}`).toBe(2);
      expect(errorLine(r.stderr), where).toEqual({ lines: 1, message: `${gitDir} is the git dir of ${workTree}, not a working tree`, hint: `run checkpoint in ${workTree}` });
    }
    // A worktree removed without `git worktree prune`: its admin dir names no work tree that is there.
    rmSync(linked, { recursive: true, force: true });
    const r = await run(admin, ['status']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toEqual({ lines: 1, message: `${admin} is a git dir, not a working tree`, hint: 'run checkpoint in its work tree' });
    expect(snapshot(dir)).toEqual(before);
  });
});
