// A bare repository, or the .git folder of a work tree, has no working tree to keep checkpoints
// in: every command refuses it in one line (exit 2) and writes nothing there, not .checkpoints/,
// not .gitattributes, not merge config. Real `git init --bare` and `git worktree add`.
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
        expect(line.hint, where).toBe(`run checkpoint in a clone of it (git clone ${bare} <folder>)`);
        expect(r.stdout, where).toBe('');
      }
    }
    // -C names it as the user did; from inside, in full.
    expect(errorLine((await run(parent, ['-C', 'b.git', 'status'])).stderr).message).toBe('b.git is a bare repository (no working tree)');
    expect(snapshot(bare)).toEqual(before);
  });

  it('the .git folder of a work tree (its hooks, a linked worktree\'s admin dir): refused, pointing at the work tree', async () => {
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
      [join(dotGit, 'worktrees', 'wt'), ['init']],
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
});
