import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Timeouts only catch a hang: no test asserts how long anything takes (speed is bench/'s),
    // and on a loaded 2-core box an e2e file spawning the binary hundreds of times is slow.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One worker runs many files without a fresh process and module graph for each (~0.5 s of
    // CPU per file). Tests leave no process-wide state behind: test/helpers/in-process.ts
    // restores cwd, env and streams after each command.
    isolate: false,
    // Most of a test's time is a child process (the binary, git) running on the other core;
    // two files at once keep both cores busy (the default on 2 cores is one).
    maxWorkers: 2,
    // The launcher's per-user code cache: the binaries the tests install and run keep theirs in
    // one temp folder, never in the user's ~/.cache.
    env: { XDG_CACHE_HOME: join(tmpdir(), 'checkpoint-protocol-test-cache') },
  },
});
