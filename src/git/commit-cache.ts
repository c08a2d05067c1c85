// Remembers bounded walks, so `status`, `next` and `doctor` called again on an unchanged HEAD
// answer without walking (an agent asks them at every step). History below a commit never
// changes, so (HEAD, shallow boundary, since, change scope) fully determines the answer. Each
// distinct question (change scope) has its own slot, so status/next (subjects only) and doctor
// (its generated files) never evict each other; the slots are few and the oldest are pruned.
// Anything unusual about the repository, or a cache file that is not exactly ours, is a miss.
// Stored per clone in the git dir, never in the work tree.
import { lstatSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, cacheWrite, pruneCacheDir, readCacheJson, writeCacheJson } from './cache-files.js';
import { readHeadFiles, type HeadFiles } from './head-files.js';
import { gitRunCount } from './git-sync.js';
import { fastForward, firstParentLine, type FastForward, type FirstParentGain } from './fast-forward.js';
import { newestByGraph } from './normalize.js';
import type { CommitInfo } from './types.js';

const WALKS_DIR = 'walks';
/** Distinct scopes in use at once: status/next, doctor, and a few for checkpoints that changed. */
const MAX_WALK_SLOTS = 6;
const SLOT_NAME = /^walk-[0-9a-f]{16}\.json$/;
/**
 * Bumped when an engine's answers change, so an answer cached before is a miss: 2, commit
 * messages decoded by their `encoding` header; 3, commitsNaming finds ASCII tokens in either
 * case ("plat-7" in a branch name); 4, commits of one second ordered by the graph (newestByGraph);
 * 5, of a path's removals in one second the descendant, however far apart (renames.ts newestRemovals).
 */
const FORMAT = 5;

interface CacheEntry {
  format: number;
  head: string;
  shallow: string;
  since: number;
  /** The walk's change scope (GitHistory.commitsSince), sorted; [] for subjects only. */
  scope: string[];
  commits: CommitInfo[];
}

interface RepoKey {
  commonDir: string;
  head: string;
  shallow: string;
}

/** Roots inside an atOneHead span: HEAD's files as read there, and the git run count they were read at. */
const pinned = new Map<string, { depth: number; files?: HeadFiles | null; at?: number }>();

/**
 * Runs `ask` with HEAD's files read once for every question it asks about `root` (doctor asks
 * about HEAD for each cache it reads): read again only after a git process of ours ran, as
 * one may have moved HEAD. What is stored is keyed by HEAD read afresh (storeKey).
 */
export async function atOneHead<T>(root: string, ask: () => Promise<T>): Promise<T> {
  let pin = pinned.get(root);
  if (!pin) pinned.set(root, (pin = { depth: 0 }));
  pin.depth++;
  try {
    return await ask();
  } finally {
    if (--pin.depth === 0) pinned.delete(root);
  }
}

/** readHeadFiles(root), once per atOneHead span (see there). */
export function headFiles(root: string): HeadFiles | null {
  const pin = pinned.get(root);
  if (!pin) return readHeadFiles(root);
  if (pin.files === undefined || pin.at !== gitRunCount()) {
    pin.at = gitRunCount();
    pin.files = readHeadFiles(root);
  }
  return pin.files;
}

/**
 * How every entry keyed by `key` starts as writeCacheJson writes it (JSON.stringify keeps the
 * order the writers below build their entries in): anything else is a miss without parsing.
 */
const entryPrefix = (key: RepoKey) => `{"format":${FORMAT},"head":${JSON.stringify(key.head)},"shallow":${JSON.stringify(key.shallow)},`;

const keyOf = (files: HeadFiles | null): RepoKey | null => (files?.sha ? { commonDir: files.commonDir, head: files.sha, shallow: files.shallowKey } : null);

/** HEAD's commit and shallow state from the files (head-files.ts); null when unsure or unborn. */
export function repoKey(root: string): RepoKey | null {
  return keyOf(headFiles(root));
}

/**
 * The key to store an answer under: HEAD read afresh, and only when it is still the HEAD the
 * answer was worked out at (repoKey), so an answer is never kept for a HEAD that moved meanwhile.
 */
export function storeKey(root: string): RepoKey | null {
  const asked = repoKey(root);
  const now = pinned.has(root) ? keyOf(readHeadFiles(root)) : asked;
  return asked && now && asked.head === now.head && asked.shallow === now.shallow && asked.commonDir === now.commonDir ? now : null;
}

const scopeKey = (scope: readonly string[]) => [...new Set(scope)].sort().join('\0');
/**
 * A slot's file name: two 32-bit FNV-1a hashes of the scope (node:crypto would cost status and
 * next a few ms of start-up). A collision only costs a miss: the entry records its scope.
 */
const slotName = (scope: readonly string[]) => {
  const key = scopeKey(scope);
  return `walk-${fnv1a(key, 0x811c9dc5)}${fnv1a(key, 0x01000193)}.json`;
};

function fnv1a(text: string, seed: number): string {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The cached answer for commitsSince(since) with this change scope, or null on a miss. */
export function cachedCommitsSince(root: string, since: number, scope: readonly string[] = []): CommitInfo[] | null {
  const key = repoKey(root);
  const dir = key && cacheDir(key.commonDir, WALKS_DIR);
  if (!key || !dir) return null;
  // Read once: a walk kept at another HEAD is what extendedWalk carries forward.
  const entry = readCacheJson(join(dir, slotName(scope))) as Partial<CacheEntry> | undefined;
  if (!isWalkFor(entry, key, since, scope)) return null;
  if (entry.head !== key.head) return extendedWalk(root, key, entry, since, scope);
  return entry.since === since ? entry.commits : cutWalk(entry.commits, key.head, since);
}

/**
 * The commits of a walk kept at `head` (any change scope) that started at or after `since`: each
 * is in `head`'s history, reached from it through commits none older than `since`. Null when no
 * such walk is kept.
 */
export function walkedAt(root: string, head: string, since: number): ReadonlySet<string> | null {
  const key = repoKey(root);
  const dir = key && cacheDir(key.commonDir, WALKS_DIR);
  if (!key || !dir) return null;
  // Read once per process: this run's own walk at HEAD then takes the slot, and a later question
  // (doctor's bare names) still meets the earlier HEAD's walk here.
  const memoKey = `${key.commonDir}\0${key.shallow}\0${head}`;
  let walks = walkedMemo.get(memoKey);
  if (walks === undefined) {
    walks = [];
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((name) => SLOT_NAME.test(name));
    } catch {
      // no walks kept
    }
    for (const name of names) {
      const entry = readCacheJson(join(dir, name)) as Partial<CacheEntry> | undefined;
      if (!entry || entry.format !== FORMAT || entry.head !== head || entry.shallow !== key.shallow || typeof entry.since !== 'number' || !isCommitList(entry.commits)) continue;
      // A walk carried past a commit dated before its start (skew-walk.ts) reached some of its commits otherwise.
      if (entry.commits.some((c) => c.pastAnchor)) continue;
      walks.push({ since: entry.since, shas: new Set(entry.commits.map((c) => c.sha)) });
    }
    walkedMemo.set(memoKey, walks);
  }
  return walks.find((w) => w.since >= since)?.shas ?? null;
}

const walkedMemo = new Map<string, { since: number; shas: ReadonlySet<string> }[]>();

/** A kept walk (of any HEAD: the caller compares) that answers a walk back to `since` in `scope`. */
function isWalkFor(entry: Partial<CacheEntry> | undefined, key: RepoKey, since: number, scope: readonly string[]): entry is CacheEntry {
  return !!entry && entry.format === FORMAT && typeof entry.head === 'string' && SHA.test(entry.head) && entry.shallow === key.shallow && typeof entry.since === 'number' && entry.since <= since &&
    Array.isArray(entry.scope) && scopeKey(entry.scope) === scopeKey(scope) && isCommitList(entry.commits);
}

/**
 * The walk of an earlier HEAD carried forward, when HEAD has since gained a plain line of
 * commits (fast-forward.ts): a walk from HEAD meets those, then exactly the earlier HEAD's walk
 * (git drops a commit older than `since` without going on past it, and none of the new ones
 * is), sorted as commitsSince sorts; the new commits described within the walk's scope. Kept
 * under HEAD, so the next run reads it directly.
 */
function extendedWalk(root: string, key: RepoKey, entry: CacheEntry, since: number, scope: readonly string[]): CommitInfo[] | null {
  // The new commits at or after the kept walk's start: carried as far back as it went, then cut like a cached walk.
  const gained = fastForward(key.commonDir, key.head, entry.head, entry.since);
  const added = gained && (scope.length === 0 ? gained.commits : gained.describedIn(scope));
  if (!added) return null;
  const commits = newestByGraph([...added, ...entry.commits]);
  storeCommitsSince(root, entry.since, commits, scope);
  return entry.since === since ? commits : cutWalk(commits, key.head, since);
}

/**
 * A walk back to an earlier instant holds the walk to a later one: redo it inside the cached
 * commits (from HEAD, never through a commit older than `since`), so clock skew cuts alike.
 */
function cutWalk(commits: readonly CommitInfo[], head: string, since: number): CommitInfo[] {
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const reached = new Set<string>();
  const queue = [head];
  while (queue.length) {
    const c = bySha.get(queue.pop()!);
    if (!c || c.time < since || reached.has(c.sha)) continue;
    reached.add(c.sha);
    queue.push(...c.parents);
  }
  return commits.filter((c) => reached.has(c.sha));
}

/**
 * The commit a walk started from: in a walk from one tip, every other commit was reached as a
 * parent of one in the walk, so the tip is the one commit no other names as parent. null for an
 * empty walk, undefined when that does not single one out (not one tip's walk).
 */
export function walkTip(commits: readonly CommitInfo[]): string | null | undefined {
  if (!commits.length) return null;
  const parents = new Set<string>();
  for (const c of commits) for (const p of c.parents) parents.add(p);
  const tips = commits.filter((c) => !parents.has(c.sha));
  return tips.length === 1 ? tips[0]!.sha : undefined;
}

/**
 * Best effort: a read-only git dir or a race with another writer only costs the next run a walk.
 * Kept only under the HEAD it walked from: HEAD read before and after the walk may agree while
 * git walked another commit in between (moved there and back meanwhile).
 */
export function storeCommitsSince(root: string, since: number, commits: CommitInfo[], scope: readonly string[] = []): void {
  const key = storeKey(root);
  const dir = key && cacheDir(key.commonDir, WALKS_DIR, true);
  if (!key || !dir) return;
  const tip = walkTip(commits);
  if (tip === undefined || (tip !== null && tip !== key.head)) return;
  const name = slotName(scope);
  writeCacheJson(dir, name, { format: FORMAT, head: key.head, shallow: key.shallow, since, scope: [...new Set(scope)].sort(), commits } satisfies CacheEntry);
  pruneCacheDir(dir, (file) => SLOT_NAME.test(file), MAX_WALK_SLOTS, name);
  // The single slot of earlier versions: no longer read.
  cacheWrite(() => {
    try {
      unlinkSync(join(key.commonDir, 'checkpoint', 'commits-since.json'));
    } catch {
      // absent
    }
  });
}

const SHA = /^[0-9a-f]{40}$/;
const isString = (v: unknown): v is string => typeof v === 'string';

/**
 * Exactly the shape commitsSince returns: anything else in the file is a miss, never an answer
 * (a walk kept before commits carried their author time included: the rule after.ts needs it).
 * Indexed loops: a walk's hundreds of commits are checked on every cached run, and a callback
 * per commit, parent and change (every) cost about a quarter more.
 */
export function isCommitList(value: unknown): value is CommitInfo[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as Partial<CommitInfo> | null;
    if (!c || !isSha(c.sha) || !Array.isArray(c.parents) || !isString(c.subject) || !isString(c.body) || typeof c.time !== 'number' || !Number.isFinite(c.time) || typeof c.authorTime !== 'number' || !Number.isFinite(c.authorTime) || !Array.isArray(c.changes)) return false;
    const { parents, changes } = c;
    for (let j = 0; j < parents.length; j++) if (!isSha(parents[j])) return false;
    for (let j = 0; j < changes.length; j++) {
      const ch = changes[j] as Partial<CommitInfo['changes'][number]> | null;
      if (!ch || !isString(ch.path)) return false;
      const s = ch.status;
      if (s === 'R' ? !isString(ch.from) : (s !== 'A' && s !== 'M' && s !== 'D') || ch.from !== undefined) return false;
    }
  }
  return true;
}

const isSha = (v: unknown): v is string => isString(v) && SHA.test(v);

/**
 * Identity of the objects an abbreviated name could resolve among: the loose-object folder of
 * its first two hex digits and the pack folder (a new object lands in one of them). null when
 * unsure (alternates, or no HEAD to key on): the caller asks git.
 */
export function objectsStamp(root: string, name: string): string | null {
  const repo = repoKey(root);
  if (!repo || !/^[0-9a-f]{2}/i.test(name)) return null;
  const objects = join(repo.commonDir, 'objects');
  if (lstatSync(join(objects, 'info/alternates'), { throwIfNoEntry: false })) return null;
  const pack = lstatSync(join(objects, 'pack'), { throwIfNoEntry: false });
  const loose = lstatSync(join(objects, name.slice(0, 2).toLowerCase()), { throwIfNoEntry: false });
  if (!pack) return null;
  return `${pack.mtimeMs}:${pack.ino}:${loose ? `${loose.mtimeMs}:${loose.ino}` : '-'}`;
}

/**
 * Any other answer fully determined by HEAD (and the shallow boundary) plus `key`, such as a
 * file's revisions: read back while HEAD is unchanged, null on a miss. Callers check the
 * value's shape.
 */
export function cachedAtHead<T>(root: string, file: string, key: string): T | null {
  const repo = repoKey(root);
  const dir = repo && cacheDir(repo.commonDir);
  if (!repo || !dir) return null;
  const entry = readCacheJson(join(dir, file), undefined, entryPrefix(repo)) as { format?: unknown; head?: unknown; shallow?: unknown; key?: unknown; value?: T } | undefined;
  return entry && entry.format === FORMAT && entry.head === repo.head && entry.shallow === repo.shallow && entry.key === key && entry.value !== undefined ? entry.value : null;
}

/**
 * cachedAtHead's answer kept at an earlier HEAD, brought up to HEAD (null: it cannot): by
 * `adjust`, from a plain line of new commits (fast-forward.ts); by `alongFirstParents`, for an
 * answer about HEAD's first-parent line alone, from what that line's new commits did (merges among
 * them); by `fromHead`, by the caller from the earlier HEAD's name. Kept under HEAD, so the next
 * run reads it directly.
 */
export function carriedAtHead<T>(root: string, file: string, key: string, how: { adjust: (value: T, gained: FastForward) => T | null } | { alongFirstParents: (value: T, gained: FirstParentGain) => T | null } | { fromHead: (value: T, head: string) => T | null }): T | null {
  const repo = repoKey(root);
  const dir = repo && cacheDir(repo.commonDir);
  if (!repo || !dir) return null;
  const entry = readCacheJson(join(dir, file)) as { format?: unknown; head?: unknown; shallow?: unknown; key?: unknown; value?: T } | undefined;
  if (!entry || entry.format !== FORMAT || typeof entry.head !== 'string' || !SHA.test(entry.head) || entry.shallow !== repo.shallow || entry.key !== key || entry.value === undefined) return null;
  const value = entry.value as T;
  let adjusted: T | null;
  if ('fromHead' in how) {
    adjusted = entry.head === repo.head ? null : how.fromHead(value, entry.head);
  } else if ('alongFirstParents' in how) {
    const line = firstParentLine(repo.commonDir, repo.head, entry.head);
    adjusted = line && how.alongFirstParents(value, line);
  } else {
    const gained = fastForward(repo.commonDir, repo.head, entry.head);
    adjusted = gained && how.adjust(value, gained);
  }
  if (adjusted === null) return null;
  storeAtHead(root, file, key, adjusted);
  return adjusted;
}

/** Best effort, like storeCommitsSince. */
export function storeAtHead(root: string, file: string, key: string, value: unknown): void {
  const repo = storeKey(root);
  const dir = repo && cacheDir(repo.commonDir, '', true);
  if (!repo || !dir) return;
  writeCacheJson(dir, file, { format: FORMAT, head: repo.head, shallow: repo.shallow, key, value });
}
