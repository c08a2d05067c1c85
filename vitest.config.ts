import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, longest first (their times in one full run on an idle 2-core box,
 * fresh clone, 2026-12-06 late, after the MCP, push and fixture-history tests moved in-process),
 * so that the two workers end together rather than one finishing a long file alone. Listed past
 * the few longest too: on a fresh clone (CI) vitest has no durations of its own and would order
 * the rest by file size. The rest keep vitest's order.
 */
const LONGEST = [
  'test/git/engines.test.ts',
  'test/merge/git-driver.test.ts',
  'test/e2e/pushed-tips.test.ts',
  'test/e2e/git-processes.test.ts',
  'test/e2e/hook-install.test.ts',
  'test/e2e/doctor-entry-forms.test.ts',
  'test/e2e/driver-install.test.ts',
  'test/package/pack.test.ts',
  'test/e2e/doctor.test.ts',
  'test/merge/property.test.ts',
  'test/e2e/index-conflicts.test.ts',
  'test/rotate/rotate-cli.test.ts',
  'test/package/bundles.test.ts',
  'test/git/line-endings.test.ts',
  'test/mcp/server.test.ts',
  'test/e2e/resolve.test.ts',
  'test/e2e/pushed-glob-edits.test.ts',
  'test/e2e/future-updated-at.test.ts',
  'test/e2e/doctor-false-findings.test.ts',
  'test/git/object-store.test.ts',
  'test/e2e/host-merges.test.ts',
  'test/e2e/doctor-paths-landed.test.ts',
  'test/integrations/agent-hooks.test.ts',
  'test/e2e/hostile-clone.test.ts',
  'test/capsule/budget.test.ts',
  'test/e2e/doctor-rebase.test.ts',
  'test/e2e/doctor-whitespace.test.ts',
];
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((l) => f.moduleId.endsWith(l));
      return i === -1 ? LONGEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Timeouts only catch a hang: no test asserts how long anything takes (speed is bench/'s),
    // and on a loaded 2-core box an e2e file spawning the binary hundreds of times is slow.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // The template repositories makeRepo() copies, made once per run and removed at its end.
    globalSetup: ['test/helpers/global-setup.ts'],
    // After each file, the folders it made with tempDir()/makeRepo() are removed, pass or fail.
    setupFiles: ['test/helpers/cleanup.ts'],
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    // One worker runs many files without a fresh process and module graph for each (~0.5 s of
    // CPU per file). Tests leave no process-wide state behind: test/helpers/in-process.ts
    // restores cwd, env and streams after each command.
    isolate: false,
    // Most of a test's time is a child process (the binary, git) running on the other core;
    // two files at once keep both cores busy (the default on 2 cores is one).
    maxWorkers: 2,
    // The launcher's per-user code cache: the binaries the tests install and run keep theirs in
    // a temp folder of this run (global-setup.ts removes it at the end), never in ~/.cache.
    env: { XDG_CACHE_HOME: join(tmpdir(), `checkpoint-protocol-test-cache-${process.pid}`) },
  },
});
