// The paths git's index holds like `*/.checkpoints/*.checkpoint.json`: what `git ls-files` with
// such a pathspec lists, read from the index file in place, with no process. status and doctor
// ask it on every run, so the file is searched before it is walked, and a walk allocates nothing
// per entry: a name is looked at in its last bytes, in place (versions 2 and 3) or rebuilt in one
// buffer (version 4, whose names share prefixes), and decoded only when it matches. A split
// index's shared file is walked too (its bitmaps are not followed: a path they delete may be
// named); a sparse index's folded folders hide the files in them.
import { closeSync, readSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { openPlainGitFile } from './git-file.js';
import { IndexEntries } from './index-entries.js';
import { readIndex, readOpenIndex } from './index-status.js';
import { resolveGitDirsSync } from './locate.js';
import { usesSha256 } from './object-format.js';
import { mayBeSplit, splitLink } from './unmerged.js';
import { cacheDir, readCacheJson, writeCacheJson } from './cache-files.js';

/**
 * Of the paths the index of the work tree at `root` holds, those with `holding` in them and
 * ending with `ending` (`/.checkpoints/`, `.checkpoint.json`); none where there is no git dir, or
 * an index this reader cannot follow. Versions 2 and 3 keep each name whole, so an index file
 * without `holding` in its bytes holds no such path and is not walked: one search in native code,
 * the answer in most repositories. A version 4 index (names cut into suffixes) or a split one
 * (most names in its shared file) is walked.
 */
export function indexPathsLike(root: string, { holding, ending }: { holding: string; ending: string }): string[] {
  let dirs;
  try {
    dirs = resolveGitDirsSync(root);
  } catch {
    return [];
  }
  // Opened once: its stat data name the kept answer, and its bytes are read only on a miss.
  const file = openPlainGitFile(join(dirs.gitdir, 'index'));
  if (file === null) return [];
  // The answer kept for this very index file: a large one (a v4 one walked whole) is not searched again.
  const key = indexKey(file.stats, `${dirs.gitdir}\0${holding}\0${ending}`);
  const cache = key === null ? null : cacheDir(dirs.commonDir);
  const kept = cache === null ? undefined : (readCacheJson(join(cache, KEPT_FILE), 1 << 20) as { key?: unknown; paths?: unknown } | undefined);
  if (kept?.key === key && Array.isArray(kept.paths) && kept.paths.every((p) => typeof p === 'string')) {
    closeSync(file.fd);
    return kept.paths as string[];
  }
  const paths = searchIndex(dirs, file, holding, ending);
  if (key !== null && paths !== null) {
    const dir = cacheDir(dirs.commonDir, '', true);
    if (dir) writeCacheJson(dir, KEPT_FILE, { key, paths });
  }
  return paths ?? [];
}

const KEPT_FILE = 'index-paths.json';
/** A smaller index (~12,000 entries) is searched in less time than the kept answer takes to read. */
const KEPT_FROM_BYTES = 1 << 20;

/**
 * What names one write of an index file large enough to keep its answer: git writes it whole to a new file renamed into place,
 * so a rewrite has a new inode, size or time. Null while it is less than two seconds old, by the
 * file system's clock (coarse timestamps: a rewrite in the same tick could keep all three).
 */
function indexKey(st: BigIntStats, question: string): string | null {
  if (st.size < KEPT_FROM_BYTES) return null;
  const now = BigInt(Date.now()) * 1_000_000n;
  if (st.mtimeNs > now - 2_000_000_000n || st.ctimeNs > now - 2_000_000_000n) return null;
  return `${question}\0${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** indexPathsLike's answer read from the open index file (closed here) and a shared file it links to; null when they cannot be read so. */
function searchIndex(dirs: { gitdir: string; commonDir: string }, file: OpenFile, holding: string, ending: string): string[] | null {
  const main = readIfHolding(file, Buffer.from(holding, 'utf8'), mayBeSplit(dirs.gitdir));
  if (main === 'no') return [];
  const oidBytes = usesSha256(dirs.commonDir) ? 32 : 20;
  const tail = Buffer.from(ending, 'utf8');
  const found = new Set<string>();
  const own = pathsEnding(main, tail, oidBytes, found);
  if (own === null) return null;
  if (own.link !== null && !/^0+$/.test(own.link)) {
    const shared = pathsEnding(readIndex(join(dirs.gitdir, `sharedindex.${own.link}`))?.buf ?? null, tail, oidBytes, found);
    if (shared === null || shared.link !== null) return null;
  }
  return [...found].filter((path) => path.includes(holding));
}

type OpenFile = { fd: number; stats: BigIntStats };

/** Bytes an index file is searched in at a time: one buffer, reused (a fresh one the file's size costs more in page faults than the read). */
const SEARCH_CHUNK = 256 * 1024;

/**
 * The bytes of the open index file (closed here) when they may hold a name with `part` in it:
 * `part` is in them, or it is a version 4 index or maybe split (or cannot be searched: the walk
 * decides); 'no' when they cannot; null when they cannot be read whole. A version 4 index is known
 * by its first chunk, which is then not read again; a file within one chunk is read once.
 */
function readIfHolding(file: OpenFile, part: Buffer, split: boolean): Buffer | null | 'no' {
  const size = Number(file.stats.size);
  const buf = Buffer.allocUnsafe(Math.min(SEARCH_CHUNK, size + part.length));
  try {
    // Each read after the first keeps the last bytes of the one before: a match across the cut is found.
    for (let kept = 0, pos = 0; ; ) {
      const n = readSync(file.fd, buf, kept, buf.length - kept, pos);
      if (n <= 0) break;
      if (pos === 0 && (split || (n >= 8 && buf.readUInt32BE(4) === 4))) return readOpenIndex(file, buf.subarray(0, n))?.buf ?? null;
      pos += n;
      const end = kept + n;
      if (buf.subarray(0, end).includes(part)) {
        if (pos === end && pos === size) {
          closeSync(file.fd);
          return buf.subarray(0, end);
        }
        return readOpenIndex(file)?.buf ?? null;
      }
      kept = Math.min(part.length - 1, end);
      buf.copy(buf, 0, end - kept, end);
    }
  } catch {
    return readOpenIndex(file)?.buf ?? null;
  }
  closeSync(file.fd);
  return 'no';
}
/** Adds to `found` the names in one index file ending with `tail`; the shared index it links to; null when its entries do not fit its bytes. */
function pathsEnding(buf: Buffer | null, tail: Buffer, oidBytes: number, found: Set<string>): { link: string | null } | null {
  const entries = buf && IndexEntries.of(buf, oidBytes);
  if (!entries) return null;
  while (entries.step()) {
    if (endsWith(entries.name, entries.nameStart + entries.nameLength, entries.nameLength, tail)) found.add(entries.path());
  }
  if (entries.broken) return null;
  const link = splitLink(buf!, entries.next, entries.end, oidBytes);
  return link === undefined ? null : { link: link?.base ?? null };
}

/** Whether the `length` bytes of `buf` ending at `stop` end with `tail`, compared from the last byte (most names differ there). */
function endsWith(buf: Buffer, stop: number, length: number, tail: Buffer): boolean {
  if (length < tail.length) return false;
  for (let k = 1; k <= tail.length; k++) if (buf[stop - k] !== tail[tail.length - k]) return false;
  return true;
}
