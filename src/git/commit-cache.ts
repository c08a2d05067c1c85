// Remembers the last bounded walk, so `status` and `next` called again on an unchanged HEAD
// answer without starting git at all (an agent asks them at every step). History below a
// commit never changes, so (HEAD, shallow boundary, since) fully determines the answer;
// anything unusual about the repository simply means a miss. Stored per clone in the git
// dir, never in the work tree.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveGitDirsSync } from './locate.js';
import type { CommitInfo } from './types.js';

const CACHE_FILE = 'checkpoint/commits-since.json';
const SHA = /^[0-9a-f]{40}$/;

interface CacheEntry {
  head: string;
  shallow: string;
  since: number;
  commits: CommitInfo[];
}

interface RepoKey {
  commonDir: string;
  head: string;
  shallow: string;
}

/** HEAD's commit read from the files (loose ref, then packed-refs); null when unsure. */
export function repoKey(root: string): RepoKey | null {
  try {
    const { gitdir, commonDir } = resolveGitDirsSync(root);
    const head = readFileSync(join(gitdir, 'HEAD'), 'utf8').trim();
    let sha: string | null = SHA.test(head) ? head : null;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (ref) {
      try {
        sha = readFileSync(join(commonDir, ref), 'utf8').trim();
      } catch {
        const packed = readFileSync(join(commonDir, 'packed-refs'), 'utf8');
        sha = new RegExp(`^([0-9a-f]{40}) ${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(packed)?.[1] ?? null;
      }
    }
    if (!sha || !SHA.test(sha)) return null;
    let shallow = '';
    try {
      const st = statSync(join(commonDir, 'shallow'));
      shallow = `${st.size}:${st.mtimeMs}`;
    } catch {
      // not shallow
    }
    return { commonDir, head: sha, shallow };
  } catch {
    return null;
  }
}

/** The cached answer for commitsSince(since), or null on a miss. */
export function cachedCommitsSince(root: string, since: number): CommitInfo[] | null {
  const key = repoKey(root);
  if (!key) return null;
  try {
    const entry = JSON.parse(readFileSync(join(key.commonDir, CACHE_FILE), 'utf8')) as CacheEntry;
    if (entry.head !== key.head || entry.shallow !== key.shallow || entry.since > since || !Array.isArray(entry.commits)) return null;
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
export function storeCommitsSince(root: string, since: number, commits: CommitInfo[]): void {
  const key = repoKey(root);
  if (!key) return;
  try {
    const path = join(key.commonDir, CACHE_FILE);
    mkdirSync(join(key.commonDir, 'checkpoint'), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ head: key.head, shallow: key.shallow, since, commits } satisfies CacheEntry));
    renameSync(tmp, path);
  } catch {
    // see above
  }
}
