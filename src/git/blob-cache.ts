// What doctor read from a checkpoint blob, kept per clone by blob id: a blob never changes,
// so a file's old revisions are parsed once, whatever later commits do.
import { join } from 'node:path';
import { cacheDir, readCacheJson, writeCacheJson } from './cache-files.js';
import { resolveGitDirsSync } from './locate.js';

// -2: an action object without text is summarized by its words (readActionText); older summaries lack them.
// -3: a blocker waiting on work is summarized by its description (queued.ts queuedTexts).
// -4: a blob saved with a BOM is read (older caches hold it as queuing nothing).
// -5: a blocker waiting on "o/r#20" is summarized by its description (blocker-waits.ts mayAwaitWork).
const CACHE_FILE = 'queued-by-blob-5.json';
/** Old entries beyond this are dropped (oldest first): the cache stays small in a long-lived clone. */
const MAX_ENTRIES = 5000;

export interface BlobSummary {
  /** updated_at written in that revision, or null when unreadable. */
  updated_at: string | null;
  /** Texts of its queued actions, blocker resolutions and waiting blockers (queuedTexts). */
  queued: string[];
}

function cachePath(root: string, create = false): string | null {
  try {
    const dir = cacheDir(resolveGitDirsSync(root).commonDir, '', create);
    return dir && join(dir, CACHE_FILE);
  } catch {
    return null;
  }
}

export function readBlobCache(root: string): Map<string, BlobSummary> {
  const path = cachePath(root);
  if (!path) return new Map();
  const raw = readCacheJson(path);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return new Map();
  return new Map(Object.entries(raw as Record<string, BlobSummary>).filter(([, v]) => v && Array.isArray(v.queued) && v.queued.every((t) => typeof t === 'string') && (v.updated_at === null || typeof v.updated_at === 'string')));
}

/** Best effort, like the commit cache: a read-only git dir only costs the next run a read. */
export function writeBlobCache(root: string, cache: Map<string, BlobSummary>): void {
  const path = cachePath(root, true);
  if (path) writeCacheJson(join(path, '..'), CACHE_FILE, Object.fromEntries([...cache].slice(-MAX_ENTRIES)));
}
