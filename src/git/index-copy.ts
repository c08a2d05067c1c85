// `git diff` stores the stat data it refreshed back into the index it read (builtin/diff.c,
// whenever a file's stat changed but its content did not), --no-optional-locks or not. A
// read-only question gives it a private copy of the index instead, through GIT_INDEX_FILE: the
// same bytes, so the same answer (clean filters, autocrlf's look at the staged blob, modes), and
// whatever git writes lands in a temporary folder outside the repository, removed afterwards.
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import { indexRefusal } from './index-damage.js';

const CHUNK = 1 << 20;

/** The temporary folder, from node:os fetched when a copy is made: importing this module (native.ts does) must not load it. */
const tmpdir = (): string => process.getBuiltinModule('node:os').tmpdir();

/**
 * Runs `run` with the path of a copy of `<gitdir>/index` (a path to no file when there is no
 * index: git reads that as an empty one), then removes the copy and anything git left beside it.
 */
export async function withIndexCopy<T>(gitdir: string, run: (indexFile: string) => Promise<T>): Promise<T> {
  let dir: string | null = null;
  try {
    dir = mkdtempSync(join(tmpdir(), 'checkpoint-index-'));
    const copy = join(dir, 'index');
    try {
      copyIndex(join(gitdir, 'index'), copy, gitdir);
    } catch (error) {
      throw error instanceof CheckpointError ? error : noCopy(error);
    }
    return await run(copy);
  } catch (error) {
    throw dir === null ? noCopy(error) : error;
  } finally {
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
  }
}

/** The temporary folder is full or not writable: said in one line, as any refusal. */
function noCopy(error: unknown): CheckpointError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new CheckpointError('E_GIT', `could not copy the index to compare a staged file with HEAD without writing .git (${code} in ${shownPath(tmpdir())})`, {
    hint: 'free space there, or point TMPDIR at a writable folder',
  });
}

/** Copies a plain file; a FIFO or device put there since the caller checked is refused as git's index. */
function copyIndex(from: string, to: string, gitdir: string): void {
  let src: number;
  try {
    src = openSync(from, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw refusal(gitdir);
  }
  let dst: number | null = null;
  try {
    if (!fstatSync(src).isFile()) throw refusal(gitdir);
    dst = openSync(to, 'wx', 0o600);
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let n; (n = readSync(src, buf, 0, CHUNK, null)) > 0; ) {
      for (let at = 0; at < n; ) at += writeSync(dst, buf, at, n - at);
    }
  } finally {
    closeSync(src);
    if (dst !== null) closeSync(dst);
  }
}

function refusal(gitdir: string): CheckpointError {
  return indexRefusal(gitdir) ?? new CheckpointError('E_GIT', `could not read the index in ${shownPath(gitdir)}`);
}
