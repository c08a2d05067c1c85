// The one way this program speaks to git: the binary run in a repository chosen by cwd alone
// (the repo-locating variables a hook or a parent git sets are cleared), output collected as
// bytes and decoded once, failures turned into one-line E_GIT errors. `runGit` is a real
// async child, so callers that ask git two questions at once get them run side by side;
// `runGitBytes` and `runGitSync` (git-sync.ts) are honestly synchronous, for sync code.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { MAX_RELAYED_CHARS, shown, shownPath } from '../one-line.js';
import { assertIndexNotBlocking, subcommandOf } from './index-guard.js';
import { packMismatchIn } from './pack-damage.js';
import { gitEnv, gitOutputSync as outputSync, noteGitRun, runGitSync as runSync, spawnGitSync, type GitResult } from './git-sync.js';

// The synchronous core lives in git-sync.ts (no imports: the merge driver uses it too, unguarded:
// git starts the driver with the index already read).
export { gitEnv, type GitResult } from './git-sync.js';

/** git-sync's runGitSync, refused (E_GIT) before a git that reads the index would wait on a FIFO there. */
export function runGitSync(cwd: string, args: readonly string[]): GitResult {
  assertIndexNotBlocking(cwd, args);
  return runSync(cwd, args);
}

/** git-sync's gitOutputSync, refused (E_GIT) before a git that reads the index would wait on a FIFO there. */
export function gitOutputSync(cwd: string, args: readonly string[]): string | null {
  assertIndexNotBlocking(cwd, args);
  return outputSync(cwd, args);
}

function spawnError(error: NodeJS.ErrnoException): CheckpointError {
  const message = error.code === 'ENOENT' ? 'git executable not found on PATH' : `could not run git: ${error.message}`;
  return new CheckpointError('E_GIT', message, { cause: error });
}

/**
 * Reads a long listing whose start may answer the question: given each chunk of stdout as it
 * arrives, the number of bytes from the start that answer it (whole records), or -1 to read on.
 */
export type EnoughOutput = (chunk: Buffer) => number;

/**
 * Runs `git <args>` in `cwd` as an async child. Exit codes other than 0 and those in
 * `allowedExitCodes` reject with the first line of git's stderr. With `enough`: once it answers,
 * git is stopped and the result (exit code 0) is the bytes it kept.
 */
export function runGit(
  cwd: string,
  args: readonly string[],
  options: { input?: string; allowedExitCodes?: readonly number[]; env?: NodeJS.ProcessEnv; timeoutMs?: number; enough?: EnoughOutput } = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    assertIndexNotBlocking(cwd, args);
    // Fetched on first use: a command answered from files and caches never loads child_process.
    const { spawn } = process.getBuiltinModule('node:child_process');
    noteGitRun();
    // A listing read while it comes: git writes each record out at once (GIT_FLUSH), not in 4 KiB blocks.
    const env = gitEnv(options.enough ? { ...options.env, GIT_FLUSH: '1' } : options.env);
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('git', args, { cwd, env, windowsHide: true, stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    } catch (error) {
      // Thrown, not emitted: arguments over what the system passes (E2BIG), a cwd gone meanwhile.
      reject(spawnError(error as NodeJS.ErrnoException));
      return;
    }
    // Our own timer, not spawn's `timeout`: node clears that one only on 'exit', which a git that
    // never started (not on PATH) does not emit, so the process lived on for the whole timeout.
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => child.kill(), options.timeoutMs);
    const settled = () => clearTimeout(timer);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let kept = -1;
    let enough = options.enough;
    child.stdout!.on('data', (chunk: Buffer) => {
      if (kept >= 0) return;
      out.push(chunk);
      try {
        kept = enough?.(chunk) ?? -1;
      } catch {
        // Output it cannot read: read to the end, and let the caller's parse say what is wrong.
        enough = undefined;
      }
      if (kept >= 0) child.kill();
    });
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => {
      settled();
      reject(spawnError(error));
    });
    child.on('close', (code) => {
      settled();
      noteGitRun();
      const stdout = Buffer.concat(out);
      const result = kept >= 0
        ? { code: 0, stdout: stdout.subarray(0, kept).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }
        : { code: code ?? -1, stdout: stdout.toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
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
  assertIndexNotBlocking(cwd, args);
  const child = spawnGitSync(cwd, args, input);
  if (child.error) throw spawnError(child.error as NodeJS.ErrnoException);
  if (child.status !== 0) throw gitFailed(cwd, args, { code: child.status ?? -1, stdout: '', stderr: child.stderr.toString('utf8') });
  return child.stdout;
}

/** Whether an executable `git` is on PATH, checked on the file system without spawning anything. */
export async function gitOnPath(): Promise<boolean> {
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd', 'git'] : ['git'];
  // Each directory once: PATH often repeats some (version managers prepend theirs again).
  for (const dir of new Set((process.env.PATH ?? '').split(delimiter))) {
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
    // Most PATH directories have no git: no ENOENT error built (and thrown) for each of them.
    if (!statSync(path, { throwIfNoEntry: false })?.isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The error for git output a parser cannot read (a record cut short, an unexpected line). */
export function malformedOutput(detail: string): CheckpointError {
  return new CheckpointError('E_GIT', `could not read git output: ${detail}`);
}

/** The one-line error for a git run that failed: subcommand, directory, git's first stderr line. */
export function gitFailed(cwd: string, args: readonly string[], result: GitResult): CheckpointError {
  // A refused pack explains the missing object git then names: the pack is what to repair.
  const pack = packMismatchIn(result.stderr, cwd);
  if (pack) return pack;
  // git's own verdict (`fatal: index file corrupt`) says more than the first complaint before it.
  const lines = result.stderr.split('\n').map((line) => line.trim()).filter(Boolean);
  const detail = lines.find((line) => line.startsWith('fatal:')) ?? firstLine(result.stderr) ?? `exit code ${result.code}`;
  // A damaged object: the same advice the embedded engine gives for one.
  const repair = /^fatal: (?:packed|loose) object \S+ .*is corrupt/.test(detail) ? 'run `git fsck` to see what is lost, then fetch it again or clone afresh' : 'repair the repository, or run checkpoint in a clone git can read';
  return new CheckpointError('E_GIT', `git ${subcommandOf(args)} failed in ${shownPath(cwd)}: ${shown(detail, MAX_RELAYED_CHARS) || `exit code ${result.code}`}`, {
    hint: `git -C ${shownPath(cwd)} ${subcommandOf(args)} shows git's whole message; ${repair}`,
  });
}

function firstLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
}
