// Running the git binary: output collected as bytes and decoded once, repository chosen by
// cwd alone, and failures turned into one-line E_GIT errors. Synchronous underneath on
// purpose: a CLI run asks git one or two questions, and spawnSync skips the stream and pipe
// machinery an async child needs (~4 ms of start-up, which is most of a `next`'s budget).
import { spawnSync } from 'node:child_process';
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

/**
 * Runs `git <args>` in `cwd`. Exit codes other than 0 and those in `allowedExitCodes`
 * reject with the first line of git's stderr.
 */
export function runGit(
  cwd: string,
  args: readonly string[],
  options: { input?: string; allowedExitCodes?: readonly number[] } = {},
): Promise<GitResult> {
  const env = { ...process.env };
  for (const name of REPO_LOCATING_VARS) delete env[name];
  const child = spawnSync('git', args, { cwd, env, input: options.input ?? '', maxBuffer: 1 << 30, windowsHide: true });
  if (child.error) {
    const error = child.error as NodeJS.ErrnoException;
    const message = error.code === 'ENOENT' ? 'git executable not found on PATH' : `could not run git: ${error.message}`;
    return Promise.reject(new CheckpointError('E_GIT', message, { cause: error }));
  }
  const result = { code: child.status ?? -1, stdout: child.stdout.toString('utf8'), stderr: child.stderr.toString('utf8') };
  if (result.code === 0 || options.allowedExitCodes?.includes(result.code)) return Promise.resolve(result);
  return Promise.reject(gitFailed(cwd, args, result));
}

/** Like runGit, for output that must stay bytes (object contents with their byte sizes). */
export function runGitBytes(cwd: string, args: readonly string[], input: string): Buffer {
  const env = { ...process.env };
  for (const name of REPO_LOCATING_VARS) delete env[name];
  const child = spawnSync('git', args, { cwd, env, input, maxBuffer: 1 << 30, windowsHide: true });
  if (child.error || child.status !== 0) {
    throw child.error ? new CheckpointError('E_GIT', `could not run git: ${child.error.message}`, { cause: child.error }) : gitFailed(cwd, args, { code: child.status ?? -1, stdout: '', stderr: child.stderr.toString('utf8') });
  }
  return child.stdout;
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
