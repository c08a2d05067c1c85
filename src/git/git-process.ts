// Running the git binary: async, output collected as bytes and decoded once, repository
// chosen by cwd alone, and failures turned into one-line E_GIT errors.
import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
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
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      const message = error.code === 'ENOENT' ? 'git executable not found on PATH' : `could not run git: ${error.message}`;
      reject(new CheckpointError('E_GIT', message, { cause: error }));
    });
    child.on('close', (code) => {
      const result = { code: code ?? -1, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      if (result.code === 0 || options.allowedExitCodes?.includes(result.code)) resolve(result);
      else reject(gitFailed(cwd, args, result));
    });
    // A git that exits before reading stdin makes the write fail with EPIPE; its exit code tells the story.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Whether an executable `git` is on PATH, checked on the file system without spawning anything. */
export async function gitOnPath(): Promise<boolean> {
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd', 'git'] : ['git'];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      const candidate = join(dir, name);
      const isFile = await stat(candidate).then((s) => s.isFile(), () => false);
      if (isFile && (await access(candidate, constants.X_OK).then(() => true, () => false))) return true;
    }
  }
  return false;
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
