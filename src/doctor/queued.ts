// When each queued action entered next_actions: from the checkpoint file's own revisions
// (never a repository-wide walk), so an action kept across a re-save is still dated by when it
// was queued, and work that landed between the queueing and the re-save is still seen.
import type { Checkpoint } from '../protocol/types.js';
import { readActionText } from '../protocol/repairable.js';
import type { FileRevision, GitHistory } from '../git/types.js';
import { cachedAtHead, storeAtHead } from '../git/commit-cache.js';
import { toSeconds } from './instants.js';

const REVISIONS_FILE = 'file-revisions.json';
import { readBlobCache, writeBlobCache, type BlobSummary } from '../git/blob-cache.js';


/** A checkpoint blob larger than this is not read for dating (a hostile history may hold anything). */
const MAX_BLOB_BYTES = 1 << 20;

/** Texts a checkpoint queues: next_actions and blocker resolutions (what `landed` checks). */
export function queuedTexts(cp: Partial<Checkpoint>): string[] {
  // An action written {"action": …} reads by its words, as the read side shows it: a fix's re-save keeps its date.
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions.map(readActionText) : [];
  const blockers = Array.isArray(cp.blockers) ? cp.blockers.map((b) => (b && typeof b.proposed_resolution === 'string' ? b.proposed_resolution : '')) : [];
  return [...actions, ...blockers].filter(Boolean);
}

export function summarize(text: string): BlobSummary {
  try {
    const doc = JSON.parse(text) as Partial<Checkpoint>;
    return { updated_at: typeof doc.updated_at === 'string' ? doc.updated_at : null, queued: queuedTexts(doc) };
  } catch {
    return { updated_at: null, queued: [] };
  }
}

/** The shape fileRevisions returns: a cache file holding anything else is a miss. */
function isRevisionList(value: unknown): value is FileRevision[] {
  return Array.isArray(value) && value.every((r: Partial<FileRevision> | null) =>
    !!r && typeof r.sha === 'string' && /^[0-9a-f]{40}$/.test(r.sha) && typeof r.time === 'number' && typeof r.path === 'string' && (r.blob === null || (typeof r.blob === 'string' && /^[0-9a-f]{40}$/.test(r.blob))));
}

/** Per checkpoint path (repo-relative): seconds at which each of its queued texts was queued. */
export type QueuedDates = Map<string, Map<string, number>>;

/**
 * Dates each text the current checkpoint queues by the oldest revision of an unbroken run
 * (newest first) that queued it too, using that revision's updated_at (its commit time when
 * unreadable). A text the committed file does not hold yet is dated by the current updated_at.
 */
export async function dateQueuedActions(root: string, history: GitHistory, files: readonly { rel: string; cp: Checkpoint }[]): Promise<QueuedDates> {
  const dates: QueuedDates = new Map();
  if (!files.length) return dates;
  const paths = files.map((f) => f.rel);
  // A file's revisions below HEAD never change: asked of git once per HEAD.
  const key = JSON.stringify(paths);
  let revisions = cachedAtHead<FileRevision[]>(root, REVISIONS_FILE, key);
  if (!isRevisionList(revisions)) {
    revisions = await history.fileRevisions(paths);
    storeAtHead(root, REVISIONS_FILE, key, revisions);
  }
  const cache = readBlobCache(root);
  const missing = [...new Set(revisions.flatMap((r) => (r.blob && !cache.has(r.blob) ? [r.blob] : [])))];
  if (missing.length) {
    const texts = await history.readBlobs(missing, MAX_BLOB_BYTES);
    for (const oid of missing) cache.set(oid, texts.has(oid) ? summarize(texts.get(oid)!) : { updated_at: null, queued: [] });
    writeBlobCache(root, cache);
  }
  for (const { rel, cp } of files) {
    const own = revisions.filter((r) => r.path === rel);
    const current = toSeconds(cp.updated_at);
    const byText = new Map<string, number>();
    for (const text of queuedTexts(cp)) {
      let at = current;
      for (const r of own) {
        const summary = r.blob ? cache.get(r.blob) : undefined;
        if (!summary?.queued.includes(text)) break;
        const written = summary.updated_at ? toSeconds(summary.updated_at) : NaN;
        at = Math.min(at, Number.isFinite(written) ? written : r.time);
      }
      byText.set(text, at);
    }
    dates.set(rel, byText);
  }
  return dates;
}
