#!/usr/bin/env node
// Launcher. `merge-driver` takes the fast path (pure merge code + fs only: it runs once per
// conflicted file inside `git merge`); everything else loads the CLI. Always runs main:
// no "am I the entry module?" check, which breaks under npm's symlinked bin paths.
const argv = process.argv.slice(2);
try {
  if (argv[0] === 'merge-driver') {
    const { runMergeDriver } = await import('../dist/merge-driver.js');
    process.exitCode = await runMergeDriver(argv.slice(1));
  } else {
    const { main } = await import('../dist/cli.js');
    process.exitCode = await main(argv);
  }
} catch (e) {
  if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('/dist/')) {
    process.stderr.write('checkpoint: the build output is missing (dist/); run `npm run build` in the checkpoint package\n');
  } else {
    process.stderr.write(`checkpoint: internal error: ${e && e.message ? e.message : e}\n`);
  }
  process.exitCode = 2;
}
