// Which paths git's index marks skip-worktree: what a sparse checkout leaves out of the work
// tree on purpose. `git status` does not list such a path as deleted, so neither may the
// embedded engine, which otherwise compares HEAD with the disk. Read from the index file
// itself (versions 2 to 4, sparse-folder entries included); an index this reader cannot follow
// (a split index, a damaged file) names no path, which leaves the engine's answer as it was.
import { join } from 'node:path';
import { readIndex } from './index-status.js';

const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;

/** Of `paths` (repo-relative, `/`-separated), those the index in `gitdir` marks skip-worktree, directly or by a sparse folder. */
export function skipWorktreePaths(gitdir: string, paths: readonly string[]): Set<string> {
  const buf = paths.length ? (readIndex(join(gitdir, 'index'))?.buf ?? null) : null;
  if (buf === null || buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return new Set();
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return new Set();
  const wanted = new Set(paths);
  const skipped = new Set<string>();
  const count = buf.readUInt32BE(8);
  const end = buf.length - 20; // the trailing checksum
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (at + 62 > end) return new Set();
    const flags = buf.readUInt16BE(at + 60);
    const hasExtended = version >= 3 && (flags & EXTENDED) !== 0;
    const extended = hasExtended ? buf.readUInt16BE(at + 62) : 0;
    const nameAt = at + (hasExtended ? 64 : 62);
    let name: Buffer;
    if (version === 4) {
      // The previous name less `strip` bytes, then a NUL-ended suffix; no padding.
      const strip = readVarint(buf, nameAt, end);
      if (strip === null || strip.value > previous.length) return new Set();
      const nul = buf.indexOf(0, strip.next);
      if (nul < 0 || nul >= end) return new Set();
      name = Buffer.concat([previous.subarray(0, previous.length - strip.value), buf.subarray(strip.next, nul)]);
      at = nul + 1;
    } else {
      let length = flags & 0xfff;
      if (length === 0xfff) length = buf.indexOf(0, nameAt) - nameAt;
      if (length < 0 || nameAt + length >= end) return new Set();
      name = buf.subarray(nameAt, nameAt + length);
      // Entries are padded with NULs to a multiple of 8 bytes.
      at += (nameAt - at + length + 8) & ~7;
    }
    previous = name;
    if (!(extended & SKIP_WORKTREE)) continue;
    const text = name.toString('utf8');
    // A sparse index folds a whole folder outside the sparse set into one entry ending in `/`.
    if (text.endsWith('/')) {
      for (const path of wanted) if (path.startsWith(text)) skipped.add(path);
    } else if (wanted.has(text)) skipped.add(text);
  }
  return splitIndex(buf, at, end) ? new Set() : skipped;
}

/** git's varint in index v4 names (each continuation byte adds one before shifting). */
function readVarint(buf: Buffer, at: number, end: number): { value: number; next: number } | null {
  if (at >= end) return null;
  let byte = buf[at++]!;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    if (at >= end || value > 0xffffff) return null;
    byte = buf[at++]!;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: at };
}

/** Whether the extensions after the entries hold `link`: most entries then live in another file. */
function splitIndex(buf: Buffer, at: number, end: number): boolean {
  while (at + 8 <= end) {
    if (buf.toString('latin1', at, at + 4) === 'link') return true;
    at += 8 + buf.readUInt32BE(at + 4);
  }
  return false;
}
