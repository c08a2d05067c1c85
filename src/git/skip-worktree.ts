// What git's index marks skip-worktree: what a sparse checkout leaves out of the work tree on
// purpose. `git status` does not compare such a path with the work tree, doctor does not call
// it missing, and the embedded engine (which otherwise compares HEAD with the disk) follows git.
// Read from the index file itself (versions 2 to 4, sparse-folder entries, a split index's
// shared file); an index this reader cannot follow (a damaged file) names nothing, which leaves
// every answer as it would be without a sparse checkout. Its submodules' gitlinks are read with
// them: a submodule never initialised (a clone without --recurse-submodules) leaves its folder empty.
import { join } from 'node:path';
import { ASSUME_UNCHANGED, IndexEntries, SKIP_WORKTREE } from './index-entries.js';
import { readIndex } from './index-status.js';
import { splitLink } from './unmerged.js';
import { resolveGitDirsSync } from './locate.js';

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
  const entries = buf && IndexEntries.of(buf);
  if (!entries) return null;
  const files = new Set<string>();
  const folders: string[] = [];
  const held = new Map<string, string>();
  const assumed = new Set<string>();
  const gitlinks: string[] = [];
  while (entries.step()) {
    if (wanted?.size) {
      const entry = entries.path();
      if (wanted.has(entry)) held.set(entry, held.has(entry) ? '' : entries.oid());
    }
    if (entries.flags & ASSUME_UNCHANGED) assumed.add(entries.path());
    // A submodule: mode 160000, once however many stages it has.
    if ((entries.mode & 0o170000) === GITLINK && gitlinks.at(-1) !== entries.path()) gitlinks.push(entries.path());
    if (!(entries.extended & SKIP_WORKTREE)) continue;
    const text = entries.path();
    // A sparse index folds a whole folder outside the sparse set into one entry ending in `/`.
    if (text.endsWith('/')) folders.push(text);
    else if (text) files.add(text);
  }
  if (entries.broken) return null;
  // The shared index a split index links to (sha-1 ids, as this reader reads entries).
  const link = splitLink(buf!, entries.next, entries.end, 20);
  return link === undefined ? null : { files, folders, gitlinks, link: link?.base ?? null, held, assumed };
}

