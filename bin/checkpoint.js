#!/usr/bin/env node
// Launcher, CommonJS on purpose (bin/package.json): it loads one minified CommonJS bundle from
// dist/, so the ESM loader never starts. `merge-driver` runs once per conflicted file inside
// `git merge`, so it loads a self-contained bundle of the pure merge code; the everyday commands
// load their own bundle (cli-<name>.cjs), everything else the whole CLI (cli.cjs). Always runs: no "am I the entry module?" check, which breaks under
// npm's symlinked bin paths.
//
// Start-up speed: compiling the CLI bundle is a large part of a command's cost, so it is
// compiled with a V8 code cache. This file is the only place that knows about it:
//  - Node >= 22.1: node's own module.enableCompileCache() and a plain require().
//  - Node 20: the same idea by hand (remove once engines say >= 22.1): the cache is made by this
//    user's node on first run and kept in the user's cache folder, keyed by V8 version and the
//    bundle's identity; a stale or foreign cache is rejected by V8 and replaced, and one that a
//    later run outgrows is replaced by the union (loadWithCache).
// Nothing is ever written into the install folder; if the cache folder is not writable, the
// bundle simply compiles without a cache.
// On Node 20 this file never loads node:module: requiring it starts part of the ESM loader
// (about 1 ms of node's own code compiled on every run).
'use strict';
const { dirname, join } = require('node:path');

const DIST = join(__dirname, '..', 'dist');
const argv = process.argv.slice(2);
const [major, minor] = process.versions.node.split('.').map(Number);
const NODE_COMPILE_CACHE = major > 22 || (major === 22 && minor >= 1);

function load(name, command) {
  const file = join(DIST, name);
  if (NODE_COMPILE_CACHE) {
    require('node:module').enableCompileCache();
    return require(file);
  }
  return loadWithCache(file, name, command);
}

/** dist/cli-<command>.cjs (scripts/build.mjs OWN_BUNDLES), or null when the command has none. */
function loadOwn(command) {
  const name = `cli-${command}.cjs`;
  try {
    return load(name, command);
  } catch (e) {
    if (e && e.code === 'ENOENT' && e.path === join(DIST, name)) return null; // the source read found no such bundle
    if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).split('\n')[0].includes(name)) return null; // the same, by node's require (Node >= 22.1)
    throw e;
  }
}

/**
 * Sibling bundles compiled with a code cache too when a bundle requires them (scripts/build.mjs
 * holds them to the same rules as cli.cjs): help.cjs renders every `--help`, and compiling its
 * ~110 KB of yargs is most of that cost. The others (the embedded git engine, the MCP server)
 * load through node's own require.
 */
const CACHED_SIBLINGS = new Set(['help.cjs']);
const siblings = Object.create(null);

/**
 * The require() a bundle gets: built-ins and the bundle's sibling files (`./help.cjs`), the
 * only two kinds scripts/build.mjs leaves unbundled (it refuses a bundle with an import()).
 */
function bundleRequire(id) {
  if (!id.startsWith('./')) return require(id);
  const name = id.slice(2);
  if (!CACHED_SIBLINGS.has(name) || NODE_COMPILE_CACHE) return require(join(DIST, name));
  return (siblings[name] ??= loadWithCache(join(DIST, name), name, commandOf(argv)));
}

/**
 * require() of one self-contained CommonJS file, compiled with a per-user V8 code cache. One
 * cache per command: V8 compiles functions lazily, so a cache holds what that command ran.
 *
 * What a command runs depends on where it runs: a first doctor in a repository with no commits
 * yet compiles a fraction of what one in a real repository needs, and a cache that never learnt more would make
 * every later run compile the rest again (measured: doctor 8-19% slower). So a cache is checked
 * again now and then (see CHECK_FIRST_S): if this run compiled more than it held, the union (V8
 * keeps what it loaded plus what it compiled) replaces it; if not, the next check waits longer.
 */
function loadWithCache(file, name, command) {
  const fs = require('node:fs');
  const { Script } = require('node:vm');
  // ASCII only (scripts/build.mjs refuses anything else), so Latin-1 reads it exactly, without
  // the UTF-8 decode node's 'utf8' read makes of a few hundred KB on every run.
  const source = fs.readFileSync(file, 'latin1');
  // V8 checks only the source's length, so the key carries the file's identity too; the prefix
  // names this install's bundle, whose older caches are removed when a new one is written.
  // os.homedir() is HOME when set (libuv's rule): read directly, node:os stays unloaded.
  const dir = join(process.env.XDG_CACHE_HOME || join(process.env.HOME || require('node:os').homedir(), '.cache'), 'checkpoint-protocol');
  const build = buildName(fs.statSync(file), name);
  const cacheFile = join(dir, `${build}${command || 'other'}.cache`);
  const kept = readCache(fs, cacheFile);
  // Module.wrap()'s exact wrapper, so line 1 keeps its columns for stack traces.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n});`, { filename: file, cachedData: kept ? kept.data : undefined });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, bundleRequire, mod, file, DIST);
  const fresh = kept === null || script.cachedDataRejected;
  const now = nowSeconds();
  // A check due after more than its own wait is a clock set back: due now.
  if (fresh || now >= kept.due || kept.due - now > kept.wait) {
    // At exit, so the cache also holds what this run compiled lazily. Written whole or not at all.
    process.once('exit', () => {
      try {
        const data = script.createCachedData();
        if (!fresh && data.length <= kept.data.length + (kept.data.length >> 5)) {
          // Nothing new worth a rewrite: only the header changes, to wait longer next time.
          const wait = Math.min(kept.wait * 4, CHECK_LAST_S);
          const fd = fs.openSync(cacheFile, 'r+');
          try {
            fs.writeSync(fd, header(nowSeconds() + wait, wait));
          } finally {
            fs.closeSync(fd);
          }
          return;
        }
        makeDir(fs, dir);
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, Buffer.concat([header(nowSeconds() + CHECK_FIRST_S, CHECK_FIRST_S), data]));
        fs.renameSync(tmp, cacheFile);
        if (fresh) prune(fs, dir);
      } catch {
        // not writable: the next run compiles without a cache, or with the one it has
      }
    });
  }
  return mod.exports;
}

/**
 * What a cache's name starts with: the bundle, this install's path (hashed), V8's version and the
 * bundle file's identity (V8 checks only the source's length).
 */
function buildName(st, name) {
  return `${name}.${hash(join(DIST, name))}.${process.versions.v8}.${st.size}.${Math.trunc(st.mtimeMs)}.${st.ino}.`;
}

/**
 * A cache file is a 12-byte header then V8's data. The header: a tag (a file without it is no
 * cache of this launcher's), when to check it next and the wait that check was given, in whole
 * seconds. A new or grown cache is checked after a minute, then after 4 times the last wait
 * each time it had nothing to learn, up to a week: a few checks (each ~2-3 ms, once) settle it.
 */
const HEADER_BYTES = 12;
const HEADER_TAG = 0x31637063; // "cpc1"
const CHECK_FIRST_S = 60;
const CHECK_LAST_S = 7 * 24 * 60 * 60;

const nowSeconds = () => Math.floor(Date.now() / 1000);

function header(due, wait) {
  const b = Buffer.alloc(HEADER_BYTES);
  b.writeUInt32LE(HEADER_TAG, 0);
  b.writeUInt32LE(due >>> 0, 4);
  b.writeUInt32LE(wait, 8);
  return b;
}

/** The cache kept for this bundle and command: { data, due, wait }, or null (none, or not ours). */
function readCache(fs, cacheFile) {
  let bytes;
  try {
    bytes = fs.readFileSync(cacheFile);
  } catch {
    return null; // first run of this build with this node: compile without
  }
  if (bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== HEADER_TAG) return null;
  const wait = bytes.readUInt32LE(8);
  return { data: bytes.subarray(HEADER_BYTES), due: bytes.readUInt32LE(4), wait: wait >= CHECK_FIRST_S && wait <= CHECK_LAST_S ? wait : CHECK_FIRST_S };
}

/** How long a cache of another install (another path, maybe long gone) is kept untouched, and a torn write's leftover. */
const OTHER_INSTALL_MS = 30 * 24 * 60 * 60 * 1000;
const LEFTOVER_MS = 24 * 60 * 60 * 1000;
/** This launcher's file names (see loadWithCache): nothing else in the folder is ever removed. */
const CACHE_NAME = /^[a-z-]+\.cjs\.[0-9a-f]{1,8}\.[\w.-]+\.(?:cache|\d+\.tmp)$/;

/**
 * Run when a new cache was just written (a new build or command, so rarely): this install's
 * caches of older builds (of any of its bundles) go at once; other installs' caches (one path
 * each: a removed project, an old npx folder, a deleted clone) go once untouched for 30 days, so
 * the folder stays bounded. A live install that loses its cache this way compiles once and
 * writes it again.
 */
function prune(fs, dir) {
  const now = Date.now();
  const current = Object.create(null); // this install's bundles, by name: their build's cache name start ('' if gone)
  for (const f of fs.readdirSync(dir)) {
    if (!CACHE_NAME.test(f)) continue;
    const path = join(dir, f);
    const bundle = f.slice(0, f.indexOf('.cjs.') + 4);
    if (f.startsWith(`${bundle}.${hash(join(DIST, bundle))}.`) && f.endsWith('.cache')) {
      if (!(bundle in current)) {
        try {
          current[bundle] = buildName(fs.statSync(join(DIST, bundle)), bundle);
        } catch {
          current[bundle] = ''; // a bundle this build no longer has
        }
      }
      if (!current[bundle] || !f.startsWith(current[bundle])) fs.rmSync(path, { force: true });
      continue;
    }
    try {
      const st = fs.lstatSync(path);
      if (st.isFile() && now - st.mtimeMs > (f.endsWith('.tmp') ? LEFTOVER_MS : OTHER_INSTALL_MS)) fs.rmSync(path, { force: true });
    } catch {
      // gone meanwhile (another process pruning): nothing to do
    }
  }
}

/**
 * The cache folder and, if missing, its parent (~/.cache), one level each: Node 20's recursive
 * mkdir never returns on some paths (under /proc), and a deeper missing path is no cache of ours.
 */
function makeDir(fs, dir) {
  for (const d of [dirname(dir), dir]) {
    try {
      fs.mkdirSync(d, { mode: 0o700 });
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

/** The command word, which names the code cache: the first plain word, past `-C <dir>` / `--dir <dir>`. */
function commandOf(args) {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-C' || args[i] === '--dir') i++;
    else if (/^[a-z][a-z-]{0,19}$/.test(args[i])) return args[i];
  }
  return undefined;
}

/** FNV-1a of a path, in hex: short and stable (node:crypto would cost more start-up). */
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16);
}

function fail(e) {
  const missing = e && (e.code === 'MODULE_NOT_FOUND' || e.code === 'ENOENT') && /[\\/]dist[\\/]/.test(String(e.path || e.message).split('\n')[0]);
  process.stderr.write(missing
    ? 'checkpoint: the build output is missing (dist/); run `npm run build` in the checkpoint package\n'
    : `checkpoint: internal error: ${e && e.message ? e.message : e}\n`);
  process.exitCode = 2;
}

try {
  if (argv[0] === 'merge-driver') {
    // Once per conflicted file inside `git merge`: it writes synchronously and leaves nothing
    // running, so it ends as soon as it is done (process.exit skips node's teardown; the code
    // cache is still written by its 'exit' listener).
    const driver = load('merge-driver.cjs', 'merge');
    driver.runMergeDriver(argv.slice(1)).then((code) => {
      process.exitCode = code;
      if (driver.canExitNow()) process.exit();
    }, fail);
  } else {
    const command = commandOf(argv);
    // The command's own bundle when it has one (smaller: faster to read and compile), unless
    // the guess from the first plain word was wrong (`checkpoint --typo status`): then cli.cjs.
    let cli = command === undefined ? null : loadOwn(command);
    if (!cli || !cli.handles(argv)) cli = load('cli.cjs', command);
    cli.main(argv).then((code) => { process.exitCode = code; }, fail);
  }
} catch (e) {
  fail(e);
}
