// What each entry point loads. The merge driver runs once per conflicted file inside
// `git merge`: it must not carry yargs, isomorphic-git or chalk, and everyday commands must
// not load yargs or isomorphic-git. Checked on the built files and on a real run.
import { describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { assertBuilt, BIN, cleanup, commitAll, GIT_ENV, makeRepo, ROOT, tempDir, write } from '../helpers/repo.js';

const dist = (f: string) => readFileSync(join(ROOT, 'dist', f), 'utf8');
// Strings only those libraries' code contains.
const YARGS = 'recommendCommands';
const ISOMORPHIC_GIT = 'packfileSha';
const CHALK = 'The `level` option should be an integer';
const MCP_SDK = 'StdioServerTransport already started';
const YAML_LIB = 'Excessive alias count indicates a resource exhaustion attack';
const TOML_LIB = 'Cannot redefine existing key';
// Strings only one command's code holds: `resolve` (no bundle of its own) and doctor's checks.
const RESOLVE = 'no conflicted checkpoint files';
const DOCTOR = 'changed after the checkpoint was written';
/** The commands with a bundle of their own, dist/cli-<name>.cjs (scripts/build.mjs OWN_BUNDLES). */
const OWN_BUNDLES = readdirSync(join(ROOT, 'dist')).flatMap((f) => /^cli-([a-z-]+)\.cjs$/.exec(f)?.[1] ?? []);

/** The files under dist/ that a run of the CLI read (via a preloaded fs hook; a look for a file that is not there is no read). */
function filesLoaded(cwd: string, args: string[], input = ''): string[] {
  const hook = join(tempDir(), 'trace.cjs');
  writeFileSync(hook, `const fs = require('fs'); const seen = new Set(); const orig = fs.readFileSync;
fs.readFileSync = function (p, ...rest) { const r = orig.call(this, p, ...rest); if (typeof p === 'string' && p.includes('/dist/')) seen.add(p.slice(p.indexOf('/dist/') + 6)); return r; };
process.on('exit', () => process.stderr.write('LOADED ' + JSON.stringify([...seen]) + '\\n'));`);
  const r = spawnSync(process.execPath, ['-r', hook, BIN, ...args], { cwd, encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1' } });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  return JSON.parse(line!.slice(7));
}

const nodeCompileCache = () => typeof (createRequire(import.meta.url)('node:module') as { enableCompileCache?: unknown }).enableCompileCache === 'function';

/** Node's own modules a run loaded after start-up (process.moduleLoadList, via a preloaded hook). */
function builtinsLoaded(cwd: string, args: string[]): string[] {
  const hook = join(tempDir(), 'builtins.cjs');
  writeFileSync(hook, `const before = new Set(process.moduleLoadList);
process.on('exit', () => require('fs').writeSync(2, 'BUILTINS ' + JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m))) + '\\n'));`);
  const r = spawnSync(process.execPath, ['-r', hook, BIN, ...args], { cwd, encoding: 'utf8', env: { ...GIT_ENV, NO_COLOR: '1' } });
  const line = r.stderr.split('\n').find((l) => l.startsWith('BUILTINS '));
  return (JSON.parse(line!.slice(9)) as string[]).map((m) => m.replace(/^NativeModule /, ''));
}

describe('bundles', () => {
  it('the merge driver bundle carries none of yargs, isomorphic-git or chalk', () => {
    assertBuilt();
    const carries = (file: string) => [YARGS, ISOMORPHIC_GIT, CHALK, MCP_SDK, YAML_LIB, TOML_LIB].filter((sig) => dist(file).includes(sig));
    expect(carries('merge-driver.cjs')).toEqual([]);
    // The CLI bundle keeps yargs and isomorphic-git in their own files (chalk is in, loaded lazily).
    expect(carries('cli.cjs')).toEqual([CHALK]);
    expect(carries('help.cjs')).toContain(YARGS);
    expect(carries('isomorphic-git.cjs')).toEqual([ISOMORPHIC_GIT]);
    // The MCP server and SDK only in the file `checkpoint mcp` requires (chalk rides along, lazily).
    expect(carries('mcp.cjs')).toEqual([CHALK, MCP_SDK]);
    // lefthook's config readers only in the file init requires where a lefthook config is (stop 62 known limit: lefthook hand parser).
    expect(carries('lefthook-read.cjs')).toEqual([YAML_LIB, TOML_LIB]);
    // The everyday commands' own bundles: like cli.cjs, with that command's code and no other's.
    for (const name of OWN_BUNDLES) expect(carries(`cli-${name}.cjs`), name).toEqual([CHALK]);
    for (const name of OWN_BUNDLES) expect(dist(`cli-${name}.cjs`), name).not.toContain(RESOLVE);
    expect(dist('cli.cjs')).toContain(RESOLVE);
    expect(dist('cli-doctor.cjs')).toContain(DOCTOR);
    expect(dist('cli-validate.cjs')).not.toContain(DOCTOR);
    expect(dist('cli-validate.cjs').length).toBeLessThan(dist('cli.cjs').length / 3);
  });

  it('a merge loads only the driver bundle; status loads only its own bundle', () => {
    assertBuilt();
    const dir = makeRepo();
    try {
      const doc = JSON.stringify({ protocol_version: '1.1', skill: 'a', project: 'p', project_dir: '/p', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'x', step: 'y', status: 'complete', progress_summary: 's' });
      for (const f of ['O', 'A', 'B']) writeFileSync(join(dir, f), doc);
      expect(filesLoaded(dir, ['merge-driver', 'O', 'A', 'B', '.checkpoints/a.checkpoint.json', '7']).filter((f) => f.endsWith('.cjs'))).toEqual(['merge-driver.cjs']);
      // A merge that changes ours: laid out as formatJson writes, the driver alone; kept by hand (tabs), the layout writer too.
      const parsed = JSON.parse(doc);
      for (const [indent, loaded] of [[2, ['merge-driver.cjs']], ['\t', ['merge-driver.cjs', 'merge-layout.cjs']]] as const) {
        writeFileSync(join(dir, 'O'), JSON.stringify(parsed, null, indent));
        writeFileSync(join(dir, 'A'), JSON.stringify({ ...parsed, step: 'z' }, null, indent));
        writeFileSync(join(dir, 'B'), JSON.stringify({ ...parsed, phase: 'w' }, null, 2));
        expect(filesLoaded(dir, ['merge-driver', 'O', 'A', 'B', '.checkpoints/a.checkpoint.json', '7']).filter((f) => f.endsWith('.cjs'))).toEqual(loaded);
      }
      expect(OWN_BUNDLES.sort()).toEqual(['doctor', 'done', 'next', 'pause', 'resume', 'status', 'update', 'validate']);
      expect(filesLoaded(dir, ['status']).filter((f) => f.endsWith('.cjs'))).toEqual(['cli-status.cjs']);
      expect(filesLoaded(dir, ['-C', '.', '--json', 'validate']).filter((f) => f.endsWith('.cjs'))).toEqual(['cli-validate.cjs']);
      // A command with no bundle of its own, and a command word the launcher guessed wrong: cli.cjs runs it.
      expect(filesLoaded(dir, ['list']).filter((f) => f.endsWith('.cjs'))).toEqual(['cli.cjs']);
      expect(filesLoaded(dir, ['--typo', 'status']).filter((f) => f.endsWith('.cjs'))).toEqual(['cli-status.cjs', 'cli.cjs']);
      expect(filesLoaded(dir, ['--help']).filter((f) => f.endsWith('.cjs')).sort()).toEqual(['cli.cjs', 'help.cjs']);
      // `checkpoint mcp` (stdin closed at once: it serves nothing and exits) adds the server file.
      expect(filesLoaded(dir, ['mcp']).filter((f) => f.endsWith('.cjs')).sort()).toEqual(['cli.cjs', 'mcp.cjs']);
    } finally {
      cleanup(dir);
    }
  });

  it('init loads the lefthook readers only where lefthook runs the hooks and a config of it is there', () => {
    assertBuilt();
    const dir = makeRepo();
    try {
      const init = () => filesLoaded(dir, ['init']).filter((f) => f.endsWith('.cjs'));
      expect(init()).toEqual(['cli.cjs']);
      write(dir, '.git/hooks/pre-push', '#!/bin/sh\n\ncall_lefthook()\n{\n  lefthook "$@"\n}\n\ncall_lefthook run "pre-push" "$@"\n');
      expect(init()).toEqual(['cli.cjs']);
      write(dir, 'lefthook.yml', 'pre-commit:\n  commands:\n    lint:\n      run: npm run lint # 8.0 notes\n');
      expect(init().sort()).toEqual(['cli.cjs', 'lefthook-read.cjs']);
    } finally {
      cleanup(dir);
    }
  });
});

describe('start-up', () => {
  it('the read-only commands load none of node:module, os, url or child_process on a settled repository', () => {
    assertBuilt();
    const dir = makeRepo();
    try {
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({ protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'x', step: 'y', status: 'in_progress', progress_summary: 's', next_actions: ['Ship the API (PR 12)'] }, null, 2)}\n`);
      spawnSync('git', ['add', '-A'], { cwd: dir, env: GIT_ENV });
      spawnSync('git', ['commit', '-qm', 'checkpoint'], { cwd: dir, env: GIT_ENV });
      // The first run of each learns (and may ask git); the second answers from what it kept.
      for (const cmd of ['validate', 'status', 'next']) builtinsLoaded(dir, [cmd]);
      for (const cmd of ['validate', 'status', 'next']) {
        const loaded = builtinsLoaded(dir, [cmd]);
        // Node >= 22.1 loads node:module for its own compile cache (see the launcher).
        const unwanted = nodeCompileCache() ? /^(os|url|child_process)$/ : /^(module|os|url|child_process|internal\/modules\/esm\/loader)$/;
        expect(loaded.filter((m) => unwanted.test(m)), cmd).toEqual([]);
      }
    } finally {
      cleanup(dir);
    }
  });
});

describe('start-up right after a commit', () => {
  it('doctor asks no `git status` (no node:child_process) when a named file is racily clean: its content settles it', () => {
    assertBuilt();
    const dir = makeRepo();
    try {
      write(dir, 'src/api.ts', 'export const v = 1;\n');
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({ protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'x', step: 'y', status: 'in_progress', progress_summary: 's', next_actions: ['Ship the API (PR 12)'], context_primer: { generated_files: ['src/api.ts'] } }, null, 2)}\n`);
      spawnSync('git', ['add', '-A'], { cwd: dir, env: GIT_ENV });
      spawnSync('git', ['commit', '-qm', 'checkpoint'], { cwd: dir, env: GIT_ENV });
      builtinsLoaded(dir, ['doctor']); // learns what HEAD determines
      write(dir, 'src/api.ts', 'export const v = 2;\n');
      spawnSync('git', ['commit', '-qam', 'step'], { cwd: dir, env: GIT_ENV });
      // Racily clean by construction (the index dated to the file's own mtime), as when both are written in one second.
      const { mtime } = statSync(join(dir, 'src/api.ts'));
      utimesSync(join(dir, '.git/index'), mtime, mtime);
      expect(builtinsLoaded(dir, ['doctor']).filter((m) => /^child_process$/.test(m))).toEqual([]);
    } finally {
      cleanup(dir);
    }
  });
});

describe('the launcher', () => {
  // Every file of the install (bin/, dist/) with its size and mtime.
  const installState = () => ['bin', 'dist'].flatMap((d) => readdirSync(join(ROOT, d), { recursive: true }).map(String).sort().map((f) => {
    const st = statSync(join(ROOT, d, f));
    return `${d}/${f} ${st.size} ${st.mtimeMs}`;
  }));

  it('the bundles the launcher compiles are ASCII, so its Latin-1 read of them is exact', () => {
    for (const file of ['cli.cjs', 'merge-driver.cjs', 'merge-layout.cjs', 'help.cjs']) expect(/[^\x00-\x7f]/.exec(dist(file)), file).toBeNull();
  });

  it('help.cjs holds one string-width, the one that measures ASCII by its length', () => {
    // cliui and wrap-ansi ask for 7.x (a grapheme segmenter per string); the build gives them yargs' own.
    expect(dist('help.cjs').split('new Intl.Segmenter').length - 1).toBe(1);
    expect(dist('help.cjs')).toContain('^[\\u0020-\\u007E]*$');
  });

  it('compiles help.cjs with a code cache too, and a torn one gives the same help', () => {
    assertBuilt();
    if (nodeCompileCache()) return; // node's own cache (Node >= 22.1) lives in node's folder
    const dir = makeRepo();
    const cache = tempDir();
    try {
      const env = { ...GIT_ENV, XDG_CACHE_HOME: cache, NO_COLOR: '1', COLUMNS: '100' };
      const help = () => spawnSync(process.execPath, [BIN, 'status', '--help'], { cwd: dir, env, encoding: 'utf8' });
      const first = help();
      expect(first.status, first.stderr).toBe(0);
      expect(first.stdout).toContain('checkpoint status');
      const files = readdirSync(join(cache, 'checkpoint-protocol'));
      const helpCache = files.find((f) => /^help\.cjs\..*\.status\.cache$/.test(f));
      expect(helpCache, files.join(', ')).toBeDefined();
      writeFileSync(join(cache, 'checkpoint-protocol', helpCache!), 'not a code cache');
      const second = help();
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(readFileSync(join(cache, 'checkpoint-protocol', helpCache!), 'utf8')).not.toBe('not a code cache');
      const third = help();
      expect(third.stdout).toBe(first.stdout);
    } finally {
      cleanup(dir);
      cleanup(cache);
    }
  });

  it('never writes into its install folder; on Node 20 it keeps a per-command code cache in the user cache folder', () => {
    assertBuilt();
    const dir = makeRepo();
    const cache = tempDir();
    try {
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({ protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'x', step: 'y', status: 'complete', progress_summary: 's (PR 12)' }, null, 2)}\n`);
      const env = { ...GIT_ENV, XDG_CACHE_HOME: cache };
      const status = () => spawnSync(process.execPath, [BIN, 'status', '--json'], { cwd: dir, env, encoding: 'utf8' });
      const before = installState();
      const first = status();
      expect(first.status, first.stderr).toBe(0);
      expect(installState()).toEqual(before);
      if (nodeCompileCache()) return; // node's own cache (Node >= 22.1) lives in node's folder
      const files = readdirSync(join(cache, 'checkpoint-protocol'));
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^cli-status\.cjs\..*\.status\.cache$/);
      // A torn or foreign cache is rejected by V8: same answer, and the cache is replaced.
      const cacheFile = join(cache, 'checkpoint-protocol', files[0]!);
      writeFileSync(cacheFile, 'not a code cache');
      const second = status();
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(readFileSync(cacheFile, 'utf8')).not.toBe('not a code cache');
      expect(installState()).toEqual(before);
    } finally {
      cleanup(dir);
      cleanup(cache);
    }
  });

  it('a code cache made where a command ran little learns what a later run needed, then settles', () => {
    assertBuilt();
    if (nodeCompileCache()) return; // node's own cache (Node >= 22.1) lives in node's folder
    const empty = makeRepo({ commit: false });
    const dir = makeRepo();
    const cache = tempDir();
    try {
      // A real-shaped project: hand-written fields, a PR that landed, a generated file with a note.
      write(dir, 'src/api.ts', 'export const api = 1;\n');
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({ protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '.', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'x', step: '2 of 3', status: 'In Progress', progress_summary: 's', next_actions: ['Merge PR #12', 'Tidy docs/*.md'], generated_files: ['src/api.ts (PR 12)', 'docs/*.md'], skill_state: { score: 8.0 } }, null, 2)}\n`);
      commitAll(dir, 'checkpoint', '2026-01-01T00:00:00Z');
      write(dir, 'src/api.ts', 'export const api = 2;\n');
      commitAll(dir, 'Rate limits (#12)', '2026-01-02T00:00:00Z');
      const env = { ...GIT_ENV, XDG_CACHE_HOME: cache, NO_COLOR: '1' };
      const doctor = (cwd: string) => spawnSync(process.execPath, [BIN, 'doctor'], { cwd, env, encoding: 'utf8' });
      const folder = join(cache, 'checkpoint-protocol');
      const cacheFile = () => {
        const files = readdirSync(folder).filter((f) => f.endsWith('.doctor.cache'));
        expect(files).toHaveLength(1);
        return join(folder, files[0]!);
      };
      const now = () => Math.floor(Date.now() / 1000);
      const headerOf = () => {
        const b = readFileSync(cacheFile());
        return { tag: b.toString('latin1', 0, 4), due: b.readUInt32LE(4), wait: b.readUInt32LE(8), data: b.subarray(12) };
      };
      /** As if the check's wait had passed (or the clock stood at `due`). */
      const setDue = (due: number) => {
        const b = readFileSync(cacheFile());
        b.writeUInt32LE(due, 4);
        writeFileSync(cacheFile(), b);
      };
      // First run in a repository with no commits: a small cache, checked again after a minute.
      expect(doctor(empty).status).not.toBe(2);
      const small = headerOf();
      expect(small.tag).toBe('cpc1');
      expect(small.wait).toBe(60);
      expect(small.due - now()).toBeGreaterThan(0);
      // Before the check is due the file is left as it is.
      const first = doctor(dir);
      expect(first.stdout).toContain('#12');
      expect(headerOf()).toEqual(small);
      // Due: the real run compiled more than the cache held, so the union replaces it.
      setDue(0);
      const grown = doctor(dir);
      expect(grown.stdout).toBe(first.stdout);
      const big = headerOf();
      expect(big.data.length).toBeGreaterThan(small.data.length * 1.1);
      expect(big.wait).toBe(60);
      // Due again with nothing to learn: the data stays, the next check waits four times longer.
      setDue(0);
      expect(doctor(dir).stdout).toBe(first.stdout);
      expect(headerOf().data).toEqual(big.data);
      expect(headerOf().wait).toBe(240);
      // A check due after more than its wait is a clock set back: checked now, not in years.
      setDue(now() + 10 * 365 * 24 * 3600);
      expect(doctor(empty).status).not.toBe(2);
      expect(headerOf().wait).toBe(960);
      expect(headerOf().data).toEqual(big.data);
      // A file without the header is no cache of ours: compiled without, and written anew.
      writeFileSync(cacheFile(), big.data);
      expect(doctor(dir).stdout).toBe(first.stdout);
      expect(headerOf().tag).toBe('cpc1');
    } finally {
      cleanup(empty);
      cleanup(dir);
      cleanup(cache);
    }
  });

  it('keeps the cache folder bounded: other installs\' caches untouched for 30 days and torn writes go when a cache is written', () => {
    assertBuilt();
    if (nodeCompileCache()) return; // node's own cache (Node >= 22.1) lives in node's folder
    const dir = makeRepo();
    const cache = tempDir();
    try {
      const folder = join(cache, 'checkpoint-protocol');
      mkdirSync(folder, { recursive: true });
      const day = 24 * 60 * 60;
      const now = Date.now() / 1000;
      // Caches of installs at other paths (a deleted clone, an old npx folder): two stale, one in use.
      const files: Record<string, number> = {
        'cli.cjs.0badf00d.11.3.244.8-node.38.441000.1796224540835.2934667.status.cache': now - 40 * day,
        'merge-driver.cjs.0badf00d.11.3.244.8-node.38.66000.1796224540835.29.merge.cache': now - 31 * day,
        'cli.cjs.12345678.11.3.244.8-node.38.441000.1796224540835.2934667.doctor.cache': now - 2 * day,
        'cli.cjs.12345678.11.3.244.8-node.38.441000.1796224540835.2934667.next.cache.4242.tmp': now - 2 * day,
        'cli.cjs.12345678.11.3.244.8-node.38.441000.1796224540835.2934667.next.cache.4343.tmp': now - 60,
        // Not this launcher's: never touched, however old.
        'notes.txt': now - 400 * day,
        'backup.cache': now - 400 * day,
      };
      for (const [name, at] of Object.entries(files)) {
        writeFileSync(join(folder, name), 'x');
        utimesSync(join(folder, name), at, at);
      }
      // A link named like a cache: not a file of ours, left alone (lstat, never followed).
      const target = join(cache, 'kept.txt');
      writeFileSync(target, 'kept');
      symlinkSync(target, join(folder, 'cli.cjs.abcdef01.11.3.244.8-node.38.1.1.1.status.cache'));
      utimesSync(target, now - 90 * day, now - 90 * day);
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({ protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'x', step: 'y', status: 'complete', progress_summary: 's' }, null, 2)}\n`);
      const run = spawnSync(process.execPath, [BIN, 'status', '--json'], { cwd: dir, env: { ...GIT_ENV, XDG_CACHE_HOME: cache }, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(0);
      const left = readdirSync(folder).sort();
      const ours = left.filter((f) => !(f in files) && !f.startsWith('cli.cjs.abcdef01.'));
      expect(ours).toHaveLength(1);
      expect(ours[0]).toMatch(/^cli-status\.cjs\.[0-9a-f]+\..*\.status\.cache$/);
      expect(left.filter((f) => f !== ours[0])).toEqual([
        'backup.cache',
        'cli.cjs.12345678.11.3.244.8-node.38.441000.1796224540835.2934667.doctor.cache',
        'cli.cjs.12345678.11.3.244.8-node.38.441000.1796224540835.2934667.next.cache.4343.tmp',
        'cli.cjs.abcdef01.11.3.244.8-node.38.1.1.1.status.cache',
        'notes.txt',
      ]);
      expect(readFileSync(target, 'utf8')).toBe('kept');
      // This install's own cache is never aged out: another command's first run (a new cache
      // written, a prune) leaves it, however old.
      utimesSync(join(folder, ours[0]!), now - 90 * day, now - 90 * day);
      const validate = spawnSync(process.execPath, [BIN, 'validate'], { cwd: dir, env: { ...GIT_ENV, XDG_CACHE_HOME: cache }, encoding: 'utf8' });
      expect(validate.status, validate.stderr).toBe(0);
      const after = readdirSync(folder);
      expect(after).toContain(ours[0]);
      expect(after.filter((f) => /^cli-validate\.cjs\.[0-9a-f]+\..*\.validate\.cache$/.test(f))).toHaveLength(1);
      // A cache of an older build of another of this install's bundles goes when a cache is
      // written (its name as this install's, another size and mtime); the current build's stays.
      expect(spawnSync(process.execPath, [BIN, 'next'], { cwd: dir, env: { ...GIT_ENV, XDG_CACHE_HOME: cache }, encoding: 'utf8' }).status).toBe(0);
      const next = readdirSync(folder).find((f) => /^cli-next\.cjs\..*\.next\.cache$/.test(f))!;
      const older = next.replace(/^(cli-next\.cjs\.[0-9a-f]+\.[\d.]+-node\.\d+\.)\d+\.\d+\./, '$11.1.');
      expect(older).not.toBe(next);
      writeFileSync(join(folder, older), 'x');
      rmSync(join(folder, after.find((f) => f.startsWith('cli-validate.cjs.'))!));
      expect(spawnSync(process.execPath, [BIN, 'validate'], { cwd: dir, env: { ...GIT_ENV, XDG_CACHE_HOME: cache }, encoding: 'utf8' }).status).toBe(0);
      const last = readdirSync(folder);
      expect(last).not.toContain(older);
      expect(last).toContain(ours[0]);
      expect(last).toContain(next);
    } finally {
      cleanup(dir);
      cleanup(cache);
    }
  });
});
