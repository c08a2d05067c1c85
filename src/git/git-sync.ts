// The synchronous core of the git gateway (git-process.ts): the environment every git child
// gets and the one synchronous spawn. It imports nothing, and fetches child_process only when
// it runs git, so the merge driver (whose start-up is its whole cost) uses it without loading
// the rest of the gateway.

/**
 * Variables a hook or a parent git process may set that would point git at another
 * repository, index or object store than the directory we were asked about.
 */
const REPO_LOCATING_VARS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
];

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment every git child gets: ours, minus what would point git elsewhere, plus the caller's `extra`. */
export function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of REPO_LOCATING_VARS) delete env[name];
  // core.fsmonitor names a command git runs on status and ls-files: a repository's .git/config
  // (a copied folder, a tarball) may point it anywhere. Ours never need it: off, after the user's
  // own GIT_CONFIG_* entries (git 2.31+; older git ignores these variables).
  const count = Number(env.GIT_CONFIG_COUNT);
  const n = Number.isInteger(count) && count > 0 ? count : 0;
  return { ...env, GIT_CONFIG_COUNT: String(n + 1), [`GIT_CONFIG_KEY_${n}`]: 'core.fsmonitor', [`GIT_CONFIG_VALUE_${n}`]: 'false', ...extra };
}

let gitRuns = 0;

/**
 * Counts git processes started and ended by this process: any of them may have moved HEAD, so
 * HEAD read before a change in the count is read again (commit-cache.ts headFiles).
 */
export function gitRunCount(): number {
  return gitRuns;
}

/** Called as a git child starts and again as it ends. */
export function noteGitRun(): void {
  gitRuns++;
}

/** `git <args>` in `cwd`, synchronously, with gitEnv(): the raw child, output as bytes. */
export function spawnGitSync(cwd: string, args: readonly string[], input?: string) {
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  noteGitRun();
  try {
    return spawnSync('git', args, { cwd, env: gitEnv(), input, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], maxBuffer: 1 << 30, windowsHide: true });
  } finally {
    noteGitRun();
  }
}

/**
 * Synchronous `git <args>` for the few callers that ask one question in sync code (install,
 * resolve's index stages, the merge driver's line merge): the result whatever the exit code,
 * so each caller decides what a failure means. Spawn errors (no git) and a kill by a signal
 * give code -1.
 */
export function runGitSync(cwd: string, args: readonly string[]): GitResult {
  const child = spawnGitSync(cwd, args);
  if (child.error) return { code: -1, stdout: '', stderr: child.error.message };
  return { code: child.status ?? -1, stdout: child.stdout.toString('utf8'), stderr: child.stderr.toString('utf8') };
}

/** git's stdout when it exits 0, else null: for questions where a failure means "nothing there" (no repository, no such stage, an unset key). */
export function gitOutputSync(cwd: string, args: readonly string[]): string | null {
  const r = runGitSync(cwd, args);
  return r.code === 0 ? r.stdout : null;
}
