// Atomic replace: write a temp file in the same folder, fsync it, rename over the target,
// fsync the folder. A reader (or a crash) sees the old file or the new one, never a torn one.
// Temp names start with "." and end in ".tmp", so no listing ever mistakes one for a checkpoint.
import { closeSync, fchmodSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CheckpointError } from '../errors.js';

/**
 * Unique enough for temp and lock names: the pid separates processes, the random part
 * separates calls within one. (node:crypto would cost more start-up than the whole write.)
 */
export function uniqueSuffix(): string {
  return `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;
}

export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${uniqueSuffix()}.tmp`);
}

export function isTempFile(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp');
}

/** The permission bits of the regular file at `target`, or undefined when there is none (absent, a link). */
function modeOf(target: string): number | undefined {
  try {
    const st = lstatSync(target);
    return st.isFile() ? st.mode & 0o777 : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `content` whole into a new temp file beside `target`, fsynced (mode: the permission bits it gets). */
function writeTemp(target: string, content: string | Uint8Array, mode?: number): string {
  const tmp = tempPathFor(target);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    if (mode !== undefined) fchmodSync(fd, mode);
    const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  return tmp;
}

export function writeFileAtomic(target: string, content: string | Uint8Array): void {
  // The replacement keeps the file's own mode: a private 0600 file is not made world-readable,
  // an executable one shows git no mode change. (open's mode is masked by the umask; fchmod is not.)
  const tmp = writeTemp(target, content, modeOf(target));
  try {
    renameSync(tmp, target);
  } catch (e) {
    // The temp file just written is gone: the folder was moved or replaced under the write
    // (another process renaming it). The target was not replaced; said in one line.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !discard(tmp)) {
      throw new CheckpointError('E_LOCKED', `${basename(dirname(target))}/ was moved or replaced during the write of ${basename(target)}; it was not written`, { hint: 'make sure no other process renames the folder, then run the command again' });
    }
    discard(tmp);
    throw e;
  }
  syncDir(dirname(target));
}

/** Removes a temp file; false when it was already gone. */
function discard(tmp: string): boolean {
  try {
    unlinkSync(tmp);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/**
 * Creates `target` with `content`, never over anything at that name (EEXIST, as open's 'wx'), and
 * never as a torn file: the bytes go into a temp file first, which is then hard-linked into place.
 * A write that fails (a full disk) or a crash leaves no file at `target`. `mode`: its permission
 * bits (the file it is a copy of keeps them: a private 0600 one stays private), else the default.
 */
export function createFileAtomic(target: string, content: string | Uint8Array, mode?: number): void {
  const tmp = writeTemp(target, content, mode === undefined ? undefined : mode & 0o777);
  try {
    linkSync(tmp, target);
  } catch (e) {
    if (!NO_HARD_LINKS.has((e as NodeJS.ErrnoException).code ?? '')) {
      unlinkSync(tmp);
      throw e;
    }
    // A file system without hard links (exFAT, some network and VM shares): claim the name empty
    // ('wx' refuses an existing file as link() does), then replace it whole with the written temp file.
    try {
      closeSync(openSync(target, 'wx', 0o600));
    } catch (claim) {
      unlinkSync(tmp);
      throw claim;
    }
    renameSync(tmp, target);
    syncDir(dirname(target));
    return;
  }
  unlinkSync(tmp);
  syncDir(dirname(target));
}

/** link()'s answers where a file system has no hard links; EEXIST (a file at the name) is thrown as ever. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK']);

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  }
}
