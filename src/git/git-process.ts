// The one way this program speaks to git: the binary run in a repository chosen by cwd alone
// (the repo-locating variables a hook or a parent git sets are cleared), output collected as
// bytes and decoded once, failures turned into one-line E_GIT errors. `runGit` is a real
// async child, so callers that ask git two questions at once get them run side by side;
// `runGitBytes` is honestly synchronous, for the one read that needs raw bytes in sync code.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CheckpointError } from '../errors.js';

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

/** The environment every git child gets: ours, minus what would point git elsewhere. */
export function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  for (const name of REPO_LOCATING_VARS) delete env[name];
  return env;
}

function spawnError(error: NodeJS.ErrnoException): CheckpointError {
  const message = error.code === 'ENOENT' ? 'git executable not found on PATH' : `could not run git: ${error.message}`;
  return new CheckpointError('E_GIT', message, { cause: error });
}

/**
 * Runs `git <args>` in `cwd` as an async child. Exit codes other than 0 and those in
 * `allowedExitCodes` reject with the first line of git's stderr.
 */
export function runGit(
  cwd: string,
  args: readonly string[],
  options: { input?: string; allowedExitCodes?: readonly number[]; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: gitEnv(options.env), windowsHide: true, timeout: options.timeoutMs, stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(spawnError(error)));
    child.on('close', (code) => {
      const result = { code: code ?? -1, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
      if (result.code === 0 || options.allowedExitCodes?.includes(result.code)) resolve(result);
      else reject(gitFailed(cwd, args, result));
    });
    if (options.input) {
      // git may exit before reading all of it (a failed lookup): that is its answer, not ours to report.
      child.stdin!.on('error', () => {});
      child.stdin!.end(options.input);
    }
  });
}

/** Synchronous, for output that must stay bytes (object contents with their byte sizes). */
export function runGitBytes(cwd: string, args: readonly string[], input: string): Buffer {
  const child = spawnSync('git', args, { cwd, env: gitEnv(), input, maxBuffer: 1 << 30, windowsHide: true });
  if (child.error) throw spawnError(child.error as NodeJS.ErrnoException);
  if (child.status !== 0) throw gitFailed(cwd, args, { code: child.status ?? -1, stdout: '', stderr: child.stderr.toString('utf8') });
  return child.stdout;
}

/**
 * Synchronous `git <args>` for the few callers that ask one question in sync code (install,
 * resolve's index stages): the same environment as runGit, and the result whatever the exit
 * code, so each caller decides what a failure means. Spawn errors (no git) give code -1.
 */
export function runGitSync(cwd: string, args: readonly string[]): GitResult {
  const child = spawnSync('git', args, { cwd, env: gitEnv(), stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30, windowsHide: true });
  if (child.error) return { code: -1, stdout: '', stderr: (child.error as Error).message };
  return { code: child.status ?? -1, stdout: child.stdout.toString('utf8'), stderr: child.stderr.toString('utf8') };
}

/** Whether an executable `git` is on PATH, checked on the file system without spawning anything. */
export async function gitOnPath(): Promise<boolean> {
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd', 'git'] : ['git'];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (isExecutableFile(candidate)) return true;
    }
  }
  return false;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The one-line error for a git run that failed: subcommand, directory, git's first stderr line. */
export function gitFailed(cwd: string, args: readonly string[], result: GitResult): CheckpointError {
  const detail = firstLine(result.stderr) || `exit code ${result.code}`;
  return new CheckpointError('E_GIT', `git ${subcommandOf(args)} failed in ${cwd}: ${detail}`);
}

function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return '';
}

function firstLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
}
