#!/usr/bin/env node
// Launcher, CommonJS on purpose (bin/package.json): `merge-driver` runs once per conflicted
// file inside `git merge`, so it require()s a self-contained CJS bundle of the pure merge
// code and never starts the ESM loader. Everything else imports the CLI. Always runs:
// no "am I the entry module?" check, which breaks under npm's symlinked bin paths.
'use strict';
const argv = process.argv.slice(2);

function fail(e) {
  const missing = e && (e.code === 'MODULE_NOT_FOUND' || e.code === 'ERR_MODULE_NOT_FOUND') && /[\\/]dist[\\/]/.test(String(e.message));
  process.stderr.write(missing
    ? 'checkpoint: the build output is missing (dist/); run `npm run build` in the checkpoint package\n'
    : `checkpoint: internal error: ${e && e.message ? e.message : e}\n`);
  process.exitCode = 2;
}

try {
  const run = argv[0] === 'merge-driver'
    ? require('../dist/merge-driver.cjs').runMergeDriver(argv.slice(1))
    : import('../dist/cli.js').then((cli) => cli.main(argv));
  run.then((code) => { process.exitCode = code; }, fail);
} catch (e) {
  fail(e);
}
