// Remembers the last bounded walk, so `status` and `next` called again on an unchanged HEAD
// answer without starting git at all (an agent asks them at every step). History below a
// commit never changes, so (HEAD, shallow boundary, since) fully determines the answer;
// anything unusual about the repository simply means a miss. Stored per clone in the git
// dir, never in the work tree.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHeadFiles } from './head-files.js';
import type { CommitInfo } from './types.js';

const CACHE_FILE = 'checkpoint/commits-since.json';

interface CacheEntry {
  head: string;
  shallow: string;
  since: number;
  /** The walk's change scope (GitHistory.commitsSince), sorted; [] for subjects only. */
  scope?: string[];
  commits: CommitInfo[];
}

interface RepoKey {
  commonDir: string;
  head: string;
  shallow: string;
}

/** HEAD's commit and shallow state from the files (head-files.ts); null when unsure or unborn. */
export function repoKey(root: string): RepoKey | null {
  const files = readHeadFiles(root);
  return files?.sha ? { commonDir: files.commonDir, head: files.sha, shallow: files.shallowKey } : null;
}

/** The cached answer for commitsSince(since), or null on a miss. */
export function cachedCommitsSince(root: string, since: number, scope: readonly string[] = []): CommitInfo[] | null {
  const key = repoKey(root);
  if (!key) return null;
  try {
    const entry = JSON.parse(readFileSync(join(key.commonDir, CACHE_FILE), 'utf8')) as CacheEntry;
    if (entry.head !== key.head || entry.shallow !== key.shallow || entry.since > since || !Array.isArray(entry.commits)) return null;
    if (scopeKey(entry.scope ?? []) !== scopeKey(scope)) return null;
    return entry.since === since ? entry.commits : cutWalk(entry.commits, key.head, since);
  } catch {
    return null;
  }
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

/** Best effort: a read-only git dir or a race with another writer only costs the next run a walk. */
export function storeCommitsSince(root: string, since: number, commits: CommitInfo[], scope: readonly string[] = []): void {
  const key = repoKey(root);
  if (!key) return;
  try {
    const path = join(key.commonDir, CACHE_FILE);
    mkdirSync(join(key.commonDir, 'checkpoint'), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ head: key.head, shallow: key.shallow, since, scope: [...new Set(scope)].sort(), commits } satisfies CacheEntry));
    renameSync(tmp, path);
  } catch {
    // see above
  }
}

const scopeKey = (scope: readonly string[]) => [...new Set(scope)].sort().join('\0');

/**
 * Any other answer fully determined by HEAD (and the shallow boundary) plus `key`, such as a
 * file's revisions: read back while HEAD is unchanged, null on a miss.
 */
export function cachedAtHead<T>(root: string, file: string, key: string): T | null {
  const repo = repoKey(root);
  if (!repo) return null;
  try {
    const entry = JSON.parse(readFileSync(join(repo.commonDir, 'checkpoint', file), 'utf8')) as { head: string; shallow: string; key: string; value: T };
    return entry.head === repo.head && entry.shallow === repo.shallow && entry.key === key ? entry.value : null;
  } catch {
    return null;
  }
}

/** Best effort, like storeCommitsSince. */
export function storeAtHead(root: string, file: string, key: string, value: unknown): void {
  const repo = repoKey(root);
  if (!repo) return;
  try {
    mkdirSync(join(repo.commonDir, 'checkpoint'), { recursive: true });
    const path = join(repo.commonDir, 'checkpoint', file);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ head: repo.head, shallow: repo.shallow, key, value }));
    renameSync(tmp, path);
  } catch {
    // see storeCommitsSince
  }
}
