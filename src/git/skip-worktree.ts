// What git's index marks skip-worktree: what a sparse checkout leaves out of the work tree on
// purpose. `git status` does not compare such a path with the work tree, doctor does not call
// it missing, and the embedded engine (which otherwise compares HEAD with the disk) follows git.
// Read from the index file itself (versions 2 to 4, sparse-folder entries, a split index's
// shared file); an index this reader cannot follow (a damaged file) names nothing, which leaves
// every answer as it would be without a sparse checkout. Its submodules' gitlinks are read with
// them: a submodule never initialised (a clone without --recurse-submodules) leaves its folder empty.
import { join } from 'node:path';
import { readIndex } from './index-status.js';
import { readVarint } from './index-varint.js';
import { splitLink } from './unmerged.js';
import { resolveGitDirsSync } from './locate.js';

const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;
/** CE_VALID: `git update-index --assume-unchanged`; git status takes the file as unchanged. */
const ASSUME_UNCHANGED = 0x8000;
/** An index entry's object type bits for a submodule's commit (a gitlink). */
const GITLINK = 0o160000;

/** Files the index keeps out of the work tree, and folders a sparse index folds whole (each ending in `/`). */
export interface OutsideCheckout {
  files: Set<string>;
  folders: string[];
  /** The submodules the index records (gitlinks: "vendor/lib"), checked out here or not: their files are theirs, never this index's. */
  gitlinks?: string[];
}

/** A checkout with nothing kept out (or an index that could not be read). */
export const NOTHING_OUTSIDE: OutsideCheckout = { files: new Set(), folders: [] };

/** Whether `path` (repo-relative, `/`-separated) is kept out of the work tree by the index. */
export function isOutside(outside: OutsideCheckout, path: string): boolean {
  return outside.files.has(path) || outside.folders.some((folder) => path.startsWith(folder));
}

/** Of `paths`, those the index in `gitdir` keeps out of the work tree. */
export function skipWorktreePaths(gitdir: string, paths: readonly string[]): Set<string> {
  if (!paths.length) return new Set();
  const outside = readOutsideCheckout(gitdir);
  return new Set(paths.filter((path) => isOutside(outside, path)));
}

/**
 * Of `paths`, those git status never compares with the work tree: kept out of it
 * (skip-worktree) or marked assume-unchanged. git lists such a path as nothing, edited,
 * deleted or clean; the embedded engine follows (an unreadable index marks none).
 */
export function uncheckedPaths(gitdir: string, paths: readonly string[]): Set<string> {
  if (!paths.length) return new Set();
  const read = (file: string) => entriesOutside(readIndex(join(gitdir, file))?.buf ?? null);
  const main = read('index');
  if (main === null) return new Set();
  const shared = main.link === null ? null : read(`sharedindex.${main.link}`);
  if (main.link !== null && (shared === null || shared.link !== null)) return new Set();
  const outside: OutsideCheckout = { files: new Set([...(shared?.files ?? []), ...main.files]), folders: [...(shared?.folders ?? []), ...main.folders] };
  const assumed = new Set([...(shared?.assumed ?? []), ...main.assumed]);
  return new Set(paths.filter((path) => assumed.has(path) || isOutside(outside, path)));
}

/**
 * The index's skip-worktree entries (none when it has none, or cannot be read). A split index
 * keeps most entries in a shared file: both files' entries are read (the split file's own
 * replace and delete bitmaps are not followed, so a path deleted from the index may still be
 * named: doctor asks git status about such a path first).
 */
export function readOutsideCheckout(gitdir: string): OutsideCheckout {
  const main = entriesOutside(readIndex(join(gitdir, 'index'))?.buf ?? null);
  if (main === null) return NOTHING_OUTSIDE;
  if (main.link === null) return { files: main.files, folders: main.folders, gitlinks: main.gitlinks };
  const shared = entriesOutside(readIndex(join(gitdir, `sharedindex.${main.link}`))?.buf ?? null);
  if (shared === null || shared.link !== null) return NOTHING_OUTSIDE;
  return { files: new Set([...shared.files, ...main.files]), folders: [...shared.folders, ...main.folders], gitlinks: [...new Set([...shared.gitlinks, ...main.gitlinks])] };
}

/**
 * Of `names` (repo-relative paths), those the index in `gitdir` holds, whatever its flags: git
 * knows them as files even when the work tree lost them. An index this reader cannot follow holds none.
 */
export function indexHolds(gitdir: string, names: readonly string[]): Set<string> {
  return new Set(indexBlobIds(gitdir, names).keys());
}

/**
 * Of `names`, those the index in `gitdir` holds, each with its staged blob id ('' when the
 * index holds it more than once: a conflict's stages). An index this reader cannot follow holds none.
 */
export function indexBlobIds(gitdir: string, names: readonly string[]): Map<string, string> {
  return names.length ? indexEntries(gitdir, names).held : new Map();
}

/** indexBlobIds's answer with the submodules (gitlinks) the index records, from one read of it. */
function indexEntries(gitdir: string, names: readonly string[]): { held: Map<string, string>; gitlinks: string[] } {
  const none = { held: new Map<string, string>(), gitlinks: [] };
  const wanted = new Set(names);
  const main = entriesOutside(readIndex(join(gitdir, 'index'))?.buf ?? null, wanted);
  if (main === null) return none;
  if (main.link === null) return main;
  const shared = entriesOutside(readIndex(join(gitdir, `sharedindex.${main.link}`))?.buf ?? null, wanted);
  return shared === null || shared.link !== null ? none : { held: new Map([...shared.held, ...main.held]), gitlinks: [...new Set([...shared.gitlinks, ...main.gitlinks])] };
}

/** Of `names`, those the index of the work tree at `root` holds (none where there is no git dir there). */
export function indexNames(root: string, names: readonly string[]): Set<string> {
  return indexNamesAndGitlinks(root, names).held;
}

/** indexNames's answer, and the submodules (gitlinks) the index records: "vendor/lib". */
export function indexNamesAndGitlinks(root: string, names: readonly string[]): { held: Set<string>; gitlinks: string[] } {
  try {
    const { held, gitlinks } = indexEntries(resolveGitDirsSync(root).gitdir, names);
    return { held: new Set(held.keys()), gitlinks };
  } catch {
    return { held: new Set(), gitlinks: [] };
  }
}

/**
 * One index file's skip-worktree entries, those of `wanted` it holds, and the shared index it
 * links to; null when its entries and extensions do not fit its bytes (index-damage.ts).
 */
export function entriesOutside(buf: Buffer | null, wanted?: ReadonlySet<string>): (OutsideCheckout & { gitlinks: string[]; link: string | null; held: Map<string, string>; assumed: Set<string> }) | null {
  if (buf === null || buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const files = new Set<string>();
  const folders: string[] = [];
  const held = new Map<string, string>();
  const assumed = new Set<string>();
  const gitlinks: string[] = [];
  const count = buf.readUInt32BE(8);
  const end = buf.length - 20; // the trailing checksum
  let at = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    if (at + 62 > end) return null;
    const start = at;
    const flags = buf.readUInt16BE(at + 60);
    // skip-worktree lives in v3's extended flags
    const hasExtended = version >= 3 && (flags & EXTENDED) !== 0;
    const extended = hasExtended ? buf.readUInt16BE(at + 62) : 0;
    const nameAt = at + (hasExtended ? 64 : 62);
    let name: Buffer;
    if (version === 4) {
      // The previous name less `strip` bytes, then a NUL-ended suffix; no padding.
      const strip = readVarint(buf, nameAt, end);
      if (strip === null || strip.value > previous.length) return null;
      const nul = buf.indexOf(0, strip.next);
      if (nul < 0 || nul >= end) return null;
      name = Buffer.concat([previous.subarray(0, previous.length - strip.value), buf.subarray(strip.next, nul)]);
      at = nul + 1;
    } else {
      let length = flags & 0xfff;
      if (length === 0xfff) length = buf.indexOf(0, nameAt) - nameAt;
      if (length < 0 || nameAt + length >= end) return null;
      name = buf.subarray(nameAt, nameAt + length);
      // Entries are padded with NULs to a multiple of 8 bytes.
      at += (nameAt - at + length + 8) & ~7;
    }
    previous = name;
    if (wanted?.size) {
      const entry = name.toString('utf8');
      if (wanted.has(entry)) held.set(entry, held.has(entry) ? '' : buf.toString('hex', start + 40, start + 60));
    }
    if (flags & ASSUME_UNCHANGED) assumed.add(name.toString('utf8'));
    // A submodule: mode 160000 (after ctime, mtime, dev and ino), once however many stages it has.
    if ((buf.readUInt32BE(start + 24) & 0o170000) === GITLINK && gitlinks.at(-1) !== name.toString('utf8')) gitlinks.push(name.toString('utf8'));
    if (!(extended & SKIP_WORKTREE)) continue;
    const text = name.toString('utf8');
    // A sparse index folds a whole folder outside the sparse set into one entry ending in `/`.
    if (text.endsWith('/')) folders.push(text);
    else if (text) files.add(text);
  }
  // The shared index a split index links to (sha-1 ids, as this reader reads entries).
  const link = splitLink(buf, at, end, 20);
  return link === undefined ? null : { files, folders, gitlinks, link: link?.base ?? null, held, assumed };
}

