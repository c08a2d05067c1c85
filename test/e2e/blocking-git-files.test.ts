// A FIFO (or device) planted where git reads its own files (a pack index, the index, the config)
// makes every git process wait forever, and with it doctor in a pre-push hook. git never writes
// one; the native engine refuses to start git on such a repository instead of hanging.
// With a FIFO or device planted the commands run as processes of the built binary under the hang
// guard; before one is planted and after the repair, through the CLI's entry in this process (as
// a new process would: runCliFresh), which saves a node start-up each.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cliGuarded as run, commitAll, git, makeRepo, tempDir, write, type RunResult } from '../helpers/repo.js';
import { runCliFresh } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const dirs: string[] = [];
beforeAll(() => assertBuilt());
afterEach(() => dirs.splice(0).forEach(cleanup));


/** A packed repository whose checkpoint still queues PR #12, which landed after it was written. */
function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api', updated_at: '2026-11-01T10:00:00Z', next_actions: ['Merge PR #12 (orders API)', 'Write the changelog'] }), null, 2)}\n`);
  commitAll(dir, 'checkpoint: api', '2026-11-01T10:01:00Z');
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  commitAll(dir, 'Orders API (#12)', '2026-11-02T10:00:00Z');
  git(dir, ['gc', '-q']);
  return dir;
}

function plantFifo(path: string): void {
  rmSync(path, { force: true });
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
}

const packIndex = (dir: string) => join(dir, '.git/objects/pack', readdirSync(join(dir, '.git/objects/pack')).find((f) => f.endsWith('.idx'))!);

describe.each([
  ['a pack index', packIndex, /\.git\/objects\/pack\/pack-[0-9a-f]+\.idx is a FIFO, not a file: git would wait on it forever; refused/],
  ['packed-refs', (dir: string) => join(dir, '.git/packed-refs'), /\.git\/packed-refs is a FIFO, not a file/],
  ['the config', (dir: string) => join(dir, '.git/config'), /\.git\/config is a FIFO, not a file/],
  ['.git/info/grafts', (dir: string) => join(dir, '.git/info/grafts'), /\.git\/info\/grafts is a FIFO, not a file/],
])('a FIFO in place of %s', (_what, where, reason) => {
  it('doctor refuses in one line with exit 2; next still answers and says history was not read', () => {
    const dir = repo();
    plantFifo(where(dir));
    const doctor = run(dir, ['doctor', '--engine', 'native']);
    expect(doctor.signal, doctor.stderr).toBeNull();
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(2);
    expect(doctor.stderr).toMatch(reason);
    expect(doctor.stderr).not.toMatch(/internal error|\n\s+at /);
    const next = run(dir, ['next', '--engine', 'native']);
    expect(next.signal, next.stderr).toBeNull();
    expect(next.code).toBe(0);
    expect(next.stdout).toContain('Merge PR #12 (orders API)');
    expect(next.stderr).toMatch(/warning: git history could not be read/);
    expect(next.stderr).toMatch(reason);
  });
});

// git log, cat-file and ls-tree never open the index: the history questions of next, status and
// resume answer beside a FIFO or device there exactly as beside a healthy index; doctor, which
// vouches for the work tree (git status), refuses.
describe.each([
  ['a FIFO', (index: string) => plantFifo(index)],
  ['a link to /dev/zero', (index: string) => { rmSync(index); symlinkSync('/dev/zero', index); }],
])('%s in place of .git/index, history only', (_what, plant) => {
  it('next, status and resume answer as with a healthy index (PR #12 seen landed); doctor refuses', async () => {
    const dir = repo();
    const commands = [['next'], ['status', '--json'], ['resume', 'api', '--json']].map((c) => [...c, '--engine', 'native']);
    // In this process, from the sources: they leave no landed-work answer for the planted runs
    // to reuse (the binary's runs would), so those work it out beside what is planted.
    const healthy: RunResult[] = [];
    for (const c of commands) healthy.push(await runCliFresh(dir, c));
    plant(join(dir, '.git/index'));
    const planted = commands.map((c) => run(dir, c));
    for (const [i, r] of planted.entries()) {
      expect(r.signal, r.stderr).toBeNull();
      expect(r.stderr, commands[i]!.join(' ')).toBe(healthy[i]!.stderr);
      expect(r.code).toBe(healthy[i]!.code);
      expect(r.stdout.replace(/"(age|ago)[^,}]*/g, ''), commands[i]!.join(' ')).toBe(healthy[i]!.stdout.replace(/"(age|ago)[^,}]*/g, ''));
    }
    expect(planted[0]!.stdout).not.toMatch(/^→ Merge PR #12/m);
    expect(planted[0]!.stdout).toContain('Write the changelog');
    const doctor = run(dir, ['doctor', '--engine', 'native']);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(2);
    expect(doctor.stderr).toMatch(/^checkpoint: git cannot read the index \/.*\/\.git\/index: it is a (FIFO|device), not a file/);
  });
});

// Both engines refuse an index that is no file in one wording, with the one repair that works
// whatever was planted: remove it and let git rebuild it from HEAD.
describe.each([
  ['a FIFO', (index: string) => plantFifo(index), 'a FIFO'],
  ['a link to /dev/zero', (index: string) => { rmSync(index); symlinkSync('/dev/zero', index); }, 'a device'],
])('%s in place of .git/index', (_what, plant, kind) => {
  it('native and isomorphic refuse it alike: same line, same hint, exit 2; the repair works', async () => {
    const dir = repo();
    // generated_files: the one question that reads the index on both engines.
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api', updated_at: '2026-11-03T10:00:00Z', context_primer: { key_decisions: ['orders in 8.0 units'], generated_files: ['src/orders.ts (PR 12)'] } }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', '2026-11-03T10:01:00Z');
    const index = join(dir, '.git/index');
    plant(index);
    const [native, isomorphic] = (['native', 'isomorphic'] as const).map((engine) => run(dir, ['doctor', '--json', '--engine', engine]));
    for (const r of [native!, isomorphic!]) {
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code, r.stdout + r.stderr).toBe(2);
    }
    expect(isomorphic!.stdout + isomorphic!.stderr).toBe(native!.stdout + native!.stderr);
    expect(native!.stdout + native!.stderr).toContain(`git cannot read the index ${index}: it is ${kind}, not a file (git never writes one there, and would wait on it forever)`);
    expect(native!.stdout + native!.stderr).toContain(`rebuild it from HEAD: \`rm ${index} && git reset\``);
    rmSync(index);
    git(dir, ['reset', '-q']);
    for (const engine of ['native', 'isomorphic']) expect((await runCliFresh(dir, ['doctor', '--engine', engine])).code).not.toBe(2);
  });
});

// git status (doctor's question about the generated files) and check-ignore read the ignore and
// attribute rules of the top and of each folder on the way to a path, the repository's own rules,
// and a cherry-pick's or revert's state: a FIFO there made doctor, resume and so the pre-push and
// SessionStart hooks wait forever (red team 63 r1 1). Refused like a FIFO .gitattributes at init.
describe.each([
  ['.gitignore'],
  ['.gitattributes'],
  ['src/.gitignore'],
  ['src/.gitattributes'],
  ['.git/info/exclude'],
  ['.git/info/attributes'],
  ['.git/CHERRY_PICK_HEAD'],
  ['.git/REVERT_HEAD'],
])('a FIFO at %s, with generated files listed', (rel) => {
  it('doctor refuses in one line with exit 2; resume answers as before and notes the files went unchecked', () => {
    const dir = repo();
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api', updated_at: '2026-11-03T10:00:00Z', context_primer: { key_decisions: ['orders in 8.0 units'], generated_files: ['src/orders.ts (PR 12)'] } }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', '2026-11-03T10:01:00Z');
    // Touched since it was staged, under a line-ending rule: only git can say whether it changed
    // (without one, the index reader hashes the file itself and no git process runs).
    git(dir, ['config', 'core.autocrlf', 'true']);
    utimesSync(join(dir, 'src/orders.ts'), new Date('2026-11-04T10:00:00Z'), new Date('2026-11-04T10:00:00Z'));
    const healthy = run(dir, ['resume', 'api', '--engine', 'native']);
    mkdirSync(join(dir, '.git/info'), { recursive: true });
    plantFifo(join(dir, rel));
    const doctor = run(dir, ['doctor', '--engine', 'native']);
    expect(doctor.signal, doctor.stderr).toBeNull();
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(2);
    expect(doctor.stdout).toBe('');
    expect(doctor.stderr).toBe(`checkpoint: ${rel} is a FIFO, not a plain file; refused; hint: replace it with a regular file (or remove it)\n`);
    const resume = run(dir, ['resume', 'api', '--engine', 'native']);
    expect(resume.signal, resume.stderr).toBeNull();
    expect(resume.code, resume.stdout + resume.stderr).toBe(healthy.code);
    expect(resume.stdout).toBe(healthy.stdout);
    expect(resume.stderr).toContain(`${rel} is a FIFO, not a plain file; refused`);
  });
});

// git status and check-ignore also read rule files outside the repository: the one
// core.excludesFile and core.attributesFile name (in the repository's config or the user's),
// else git's defaults under XDG_CONFIG_HOME. A FIFO there hung doctor, and so the pre-push hook,
// as one in the repository did; refused in the same words, naming the setting.
describe('a FIFO where git reads its rules outside the repository, with generated files listed', () => {
  /** repo() with src/orders.ts listed and touched since it was staged under a line-ending rule, so that git status is asked. */
  function watched(): string {
    const dir = repo();
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api', updated_at: '2026-11-03T10:00:00Z', context_primer: { key_decisions: ['orders in 8.0 units'], generated_files: ['src/orders.ts (PR 12)', 'build/'] } }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', '2026-11-03T10:01:00Z');
    git(dir, ['config', 'core.autocrlf', 'true']);
    utimesSync(join(dir, 'src/orders.ts'), new Date('2026-11-04T10:00:00Z'), new Date('2026-11-04T10:00:00Z'));
    return dir;
  }
  const home = () => {
    const d = tempDir('cp-home-');
    mkdirSync(join(d, '.config/git'), { recursive: true });
    return d;
  };
  it.each([
    ['core.excludesFile in the repository config', 'excludesFile', (dir: string, h: string) => git(dir, ['config', 'core.excludesFile', join(h, 'ignore')]), 'ignore'],
    ['core.attributesFile in the repository config', 'attributesFile', (dir: string, h: string) => git(dir, ['config', 'core.attributesFile', join(h, 'attrs')]), 'attrs'],
    ['core.excludesFile = ~/… in ~/.gitconfig', 'excludesFile', (_dir: string, h: string) => write(h, '.gitconfig', '[core]\n\texcludesFile = ~/ignore\n'), 'ignore'],
    ['the default global ignore file', 'excludesFile', () => {}, '.config/git/ignore'],
    ['the default global attributes file', 'attributesFile', () => {}, '.config/git/attributes'],
  ])('%s: doctor refuses in one line with exit 2, naming the file and the setting', { timeout: 300_000 }, (_what, setting, configure, rel) => {
    const dir = watched();
    const h = home();
    configure(dir, h);
    const env = { HOME: h, XDG_CONFIG_HOME: join(h, '.config'), GIT_CONFIG_GLOBAL: undefined };
    expect(run(dir, ['doctor', '--engine', 'native'], { env }).code).toBe(0);
    plantFifo(join(h, rel));
    const doctor = run(dir, ['doctor', '--engine', 'native'], { env });
    expect(doctor.signal, doctor.stderr).toBeNull();
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(2);
    expect(doctor.stdout).toBe('');
    expect(doctor.stderr).toBe(`checkpoint: ${join(h, rel)} (core.${setting}) is a FIFO, not a plain file; refused; hint: replace it with a regular file (or remove it)\n`);
  });

  it('a FIFO rule file deep in a listed folder, which git never needs: doctor answers as before', { timeout: 300_000 }, () => {
    const dir = watched();
    write(dir, 'build/out/deep/app.js', 'x\n');
    write(dir, 'src/orders.ts', 'export const orders = 9.0;\n');
    const healthy = run(dir, ['doctor', '--engine', 'native']);
    expect(healthy.stdout).toMatch(/src\/orders\.ts has uncommitted edits/);
    plantFifo(join(dir, 'build/out/.gitignore'));
    plantFifo(join(dir, 'build/out/deep/.gitattributes'));
    const doctor = run(dir, ['doctor', '--engine', 'native']);
    expect(doctor.signal, doctor.stderr).toBeNull();
    expect(doctor.stderr).toBe(healthy.stderr);
    expect(doctor.code).toBe(healthy.code);
    expect(doctor.stdout).toBe(healthy.stdout);
  });
});

// The branch HEAD names is read from its loose file first (git and isomorphic-git alike), and the
// embedded engine reads the shallow file and the config too: a FIFO there hung both engines, a
// link to /dev/zero read until memory ran out. Both refuse before reading, in the same line.
describe.each([
  ['the branch HEAD names', (dir: string) => join(dir, '.git', git(dir, ['symbolic-ref', 'HEAD']).trim()), /^checkpoint: \.git\/refs\/heads\/\S+ is a (FIFO|device), not a file: git would wait on it forever; refused/],
  ['.git/shallow', (dir: string) => join(dir, '.git/shallow'), /^checkpoint: \.git\/shallow is a (FIFO|device), not a file/],
  ['.git/config', (dir: string) => join(dir, '.git/config'), /^checkpoint: \.git\/config is a (FIFO|device), not a file/],
])('%s planted', (_what, where, reason) => {
  it.each([
    ['a FIFO', (path: string) => plantFifo(path)],
    ['a link to /dev/zero', (path: string) => { rmSync(path, { force: true }); symlinkSync('/dev/zero', path); }],
  ])('%s: both engines refuse in one line with exit 2', { timeout: 300_000 }, (_kind, plant) => {
    const dir = repo();
    plant(where(dir));
    const [native, isomorphic] = (['native', 'isomorphic'] as const).map((engine) => run(dir, ['doctor', '--engine', engine]));
    for (const r of [native!, isomorphic!]) {
      expect(r.signal, r.stderr).toBeNull();
      expect(r.code, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(reason);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    }
    expect(isomorphic!.stderr).toBe(native!.stderr);
  });
});
