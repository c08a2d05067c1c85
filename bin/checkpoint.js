#!/usr/bin/env node
// Launcher, CommonJS on purpose (bin/package.json): `merge-driver` runs once per conflicted
// file inside `git merge`, so it loads a self-contained bundle of the pure merge code;
// everything else loads the CLI bundle. Neither starts the ESM loader, and both compile with
// the V8 code cache the build leaves beside them (a stale or foreign cache is simply rejected
// by V8 and the file compiles as usual). Always runs: no "am I the entry module?" check,
// which breaks under npm's symlinked bin paths.
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const Module = require('node:module');
const { Script } = require('node:vm');

const argv = process.argv.slice(2);

/** require() for a dist/ bundle, compiled with its code cache. CHECKPOINT_WRITE_V8_CACHE=1 (the build) refreshes it. */
function loadBundle(name) {
  const file = join(__dirname, '..', 'dist', name);
  const cacheFile = `${file}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache: compile normally
  }
  const script = new Script(Module.wrap(readFileSync(file, 'utf8')), { filename: file, cachedData });
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, Module.createRequire(file), mod, file, dirname(file));
  if (process.env.CHECKPOINT_WRITE_V8_CACHE === '1') {
    // After the run, so the cache also holds the functions this run compiled lazily.
    process.once('exit', () => writeFileSync(cacheFile, script.createCachedData()));
  }
  return mod.exports;
}

function fail(e) {
  const missing = e && e.code === 'ENOENT' && /[\\/]dist[\\/]/.test(String(e.path || e.message));
  process.stderr.write(missing
    ? 'checkpoint: the build output is missing (dist/); run `npm run build` in the checkpoint package\n'
    : `checkpoint: internal error: ${e && e.message ? e.message : e}\n`);
  process.exitCode = 2;
}

try {
  const run = argv[0] === 'merge-driver'
    ? loadBundle('merge-driver.cjs').runMergeDriver(argv.slice(1))
    : loadBundle('cli.cjs').main(argv);
  run.then((code) => { process.exitCode = code; }, fail);
} catch (e) {
  fail(e);
}
