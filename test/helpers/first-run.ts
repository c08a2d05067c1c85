// What a command says on its first run in a repository: the oracle tests of the kept answers
// (.git/checkpoint, carried over new commits) compare a warm run with. Run in-process (runCli),
// each command in a copy of the repository of its own: no cache on disk (the copy's
// .git/checkpoint removed) and none in memory (the process-wide memos are keyed by the
// repository's path, and no run has seen the copy's). The warm runs under test are the build's
// (the binary, or its bundle's entry in this process: runBuilt), which keeps on disk what a run
// from the sources does not (verdicts, landed work).
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './in-process.js';
import { tempDir, type RunResult } from './repo.js';

/**
 * Each of `commands` run first, each in its own copy of `dir` (work tree mtimes kept: doctor dates
 * uncommitted edits by them), what it prints of the copy's path said of `dir`'s.
 */
export async function firstRuns(dir: string, commands: readonly string[][], opts: { env?: NodeJS.ProcessEnv } = {}): Promise<RunResult[]> {
  const results: RunResult[] = [];
  for (const args of commands) {
    const copy = join(tempDir('cp-first-run-'), 'repo');
    cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
    rmSync(join(copy, '.git', 'checkpoint'), { recursive: true, force: true });
    const r = await runCli(copy, args, opts);
    results.push({ code: r.code, stdout: r.stdout.replaceAll(copy, dir), stderr: r.stderr.replaceAll(copy, dir) });
  }
  return results;
}
