// What doctor read from a checkpoint blob, kept per clone by blob id: a blob never changes,
// so a file's old revisions are parsed once, whatever later commits do.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveGitDirsSync } from './locate.js';

const CACHE_FILE = 'checkpoint/queued-by-blob.json';
/** Old entries beyond this are dropped (oldest first): the cache stays small in a long-lived clone. */
const MAX_ENTRIES = 5000;

export interface BlobSummary {
  /** updated_at written in that revision, or null when unreadable. */
  updated_at: string | null;
  /** Texts of its queued actions and blocker resolutions. */
  queued: string[];
}

function cachePath(root: string): string | null {
  try {
    return join(resolveGitDirsSync(root).commonDir, CACHE_FILE);
  } catch {
    return null;
  }
}

export function readBlobCache(root: string): Map<string, BlobSummary> {
  const path = cachePath(root);
  if (!path) return new Map();
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Record<string, BlobSummary>;
    return new Map(Object.entries(raw).filter(([, v]) => v && Array.isArray(v.queued)));
  } catch {
    return new Map();
  }
}

/** Best effort, like the commit cache: a read-only git dir only costs the next run a read. */
export function writeBlobCache(root: string, cache: Map<string, BlobSummary>): void {
  const path = cachePath(root);
  if (!path) return;
  try {
    mkdirSync(join(path, '..'), { recursive: true });
    const entries = [...cache].slice(-MAX_ENTRIES);
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(Object.fromEntries(entries)));
    renameSync(tmp, path);
  } catch {
    // see above
  }
}
