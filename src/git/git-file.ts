// One small git-dir file (HEAD, config, packed-refs, a worktree's gitdir) read as git reads it,
// never blocking on a FIFO planted in its place. Import-light: locate.ts uses it too.
import { closeSync, constants, fstatSync, openSync, type BigIntStats } from 'node:fs';
import { readPlainFd } from '../store/safe-fs.js';

/** packed-refs of a very large repository stays well under this; more is not ours to parse. */
const MAX_GIT_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A git-dir file's text as git reads it (a link followed), without ever blocking: null when it
 * does not exist; undefined when it is not a plain file (a FIFO planted there would block a plain
 * read forever), is too large, or cannot be read.
 */
export function readGitFile(path: string): string | null | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    return readPlainFd(fd, MAX_GIT_FILE_BYTES) ?? undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A git-dir file (the index, a shared index) opened for reading without ever blocking, with its
 * stat: null when it is missing, not a plain file (a FIFO, a folder) or cannot be opened. The
 * caller closes `fd`.
 */
export function openPlainGitFile(path: string): { fd: number; stats: BigIntStats } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (stats.isFile()) return { fd, stats };
  } catch {
    // unreadable: as no file
  }
  closeSync(fd);
  return null;
}
