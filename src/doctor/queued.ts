// When each queued action entered next_actions: from the checkpoint file's own revisions
// (never a repository-wide walk), so an action kept across a re-save is still dated by when it
// was queued, and work that landed between the queueing and the re-save is still seen.
import { join, posix } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import { readActionText } from '../protocol/repairable.js';
import { blockersAsRead } from '../protocol/blocker-ids.js';
import { mayAwaitWork } from './blocker-waits.js';
import type { FileRevision, GitHistory } from '../git/types.js';
import type { Within } from './after.js';
import { cachedAtHead, carriedAtHead, repoKey, storeAtHead } from '../git/commit-cache.js';
import { blobTexts, storedAuthorTime, storedFolderFiles } from '../git/fast-forward.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { skillFromFileName } from '../store/skill-name.js';
import { withNewRevisions } from '../git/file-lives.js';
import { cacheDir, readCacheJson, writeCacheJson } from '../git/cache-files.js';
import { toSeconds } from './instants.js';
import { instantMs } from '../protocol/instant.js';
import { MAX_FUTURE_SKEW_MS } from '../protocol/validate.js';
import { readBlobCache, writeBlobCache, type BlobSummary } from '../git/blob-cache.js';

const REVISIONS_FILE = 'file-revisions.json';
/** Where merges took a checkpoint file's save from (SourceLines), kept per clone: a commit's history never changes. */
const MERGED_LINES_FILE = 'merged-lines-2.json';
/** Where a checkpoint file that first appeared beside another's deletion took its queued texts from (RenamedFrom), kept per clone. */
const RENAMED_LINES_FILE = 'renamed-lines-1.json';
/** Files' first commits kept in that cache (oldest dropped first), and the old file's revisions kept for each. */
const MAX_RENAMED = 256;
const MAX_RENAMED_REVISIONS = 256;
/** Merges kept in that cache (oldest dropped first), and revisions kept per merge: a save's run and the texts it queues lie near the top. */
const MAX_MERGED_LINES = 256;
const MAX_LINE_REVISIONS = 32;
/** How many merges deep the commit that recorded an instant is looked for (a branch merged into a branch merged into main). */
const MAX_MERGE_HOPS = 8;


/** A checkpoint blob larger than this is not read for dating (a hostile history may hold anything). */
const MAX_BLOB_BYTES = 1 << 20;

/**
 * Texts a checkpoint queues: next_actions, blocker resolutions and the descriptions of blockers
 * waiting on work (what `landed` checks). A blocker written as a string reads as its description,
 * as every reader reads it: rewriting it as an object (the repair note's fix) keeps its date.
 */
export function queuedTexts(cp: Partial<Checkpoint>): string[] {
  // An action written {"action": …} reads by its words, as the read side shows it: a fix's re-save keeps its date.
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions.map(readActionText) : [];
  const blockers = blockersAsRead(cp.blockers);
  const resolutions = blockers.map((b) => (b && typeof b.proposed_resolution === 'string' ? b.proposed_resolution : ''));
  // Dated like an action, so a re-save that keeps the blocker does not hide work that landed before it.
  const waits = blockers.map((b) => (b && mayAwaitWork(b.description) ? (b.description as string) : ''));
  return [...actions, ...resolutions, ...waits].filter(Boolean);
}

/**
 * Whether a revision's updated_at, as written there, is the save `saved` stands for. The checks
 * read a hand-written stamp repaired (`2026-11-16T17:30:12` as `…Z`, the UTC it is read as): the
 * same instant is the same save, or the commit that recorded it is never found and a file changed
 * back since (a revert) reads as drift.
 */
function sameSave(written: string | null | undefined, saved: string): boolean {
  if (written === saved) return true;
  if (typeof written !== 'string') return false;
  const at = instantMs(written);
  return Number.isFinite(at) && at === instantMs(saved);
}

/**
 * The updated_at the file writes, for a checkpoint datedSanely dates from a sane instant instead
 * (a year typed wrong): its revisions hold that value, so it is what finds the commit that
 * recorded the save, and a commit in that commit's second is ordered by the graph (after.ts), as
 * for any other save.
 */
const writtenSaves = new WeakMap<Checkpoint, string>();

/** `cp` dated from second `at` instead of its updated_at (evidence.ts datedSanely), its written value kept for its revisions. */
export function redated(cp: Checkpoint, at: number): Checkpoint {
  const out = { ...cp, updated_at: new Date(at * 1000).toISOString() };
  writtenSaves.set(out, writtenSaves.get(cp) ?? cp.updated_at);
  return out;
}

export function summarize(text: string): BlobSummary {
  try {
    // A BOM (a Windows editor's save) is the file's, as every reader takes it: JSON.parse refuses it.
    const doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as Partial<Checkpoint>;
    return { updated_at: typeof doc.updated_at === 'string' ? doc.updated_at : null, queued: queuedTexts(doc) };
  } catch {
    return { updated_at: null, queued: [] };
  }
}

/** The shape fileRevisions returns: a cache file holding anything else is a miss. */
function isRevisionList(value: unknown): value is FileRevision[] {
  return Array.isArray(value) && value.every((r: Partial<FileRevision> | null) =>
    !!r && typeof r.sha === 'string' && /^[0-9a-f]{40}$/.test(r.sha) && typeof r.time === 'number' && typeof r.path === 'string' && (r.blob === null || (typeof r.blob === 'string' && /^[0-9a-f]{40}$/.test(r.blob)))
    && Array.isArray(r.parents) && r.parents.every((p) => typeof p === 'string' && /^[0-9a-f]{40}$/.test(p)));
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
  const read = await readRevisions(root, () => Promise.resolve(history), files);
  for (const { rel, cp } of files) {
    const own = read.revisions.filter((r) => r.path === rel);
    const texts = new Map<string, number>();
    for (const text of queuedTexts(cp)) texts.set(text, (await recordedBy(read, own, cp, text)).at);
    dates.set(rel, texts);
  }
  return dates;
}

interface ReadRevisions {
  revisions: FileRevision[];
  cache: Map<string, BlobSummary>;
  lines: SourceLines;
  renamed: RenamedFrom;
  /** A commit's author time, seconds (NaN when unknown). */
  authored(sha: string): Promise<number>;
}

/**
 * The checkpoint files' revisions along HEAD's first parents and what each blob queues: asked
 * of git once per HEAD (a file's revisions below HEAD never change), a blob read once ever.
 */
async function readRevisions(root: string, history: () => Promise<GitHistory>, files: readonly { rel: string }[]): Promise<ReadRevisions> {
  const paths = files.map((f) => f.rel);
  let revisions = keptRevisions(root, paths);
  if (revisions === null) {
    revisions = await (await history()).fileRevisions(paths);
    storeAtHead(root, REVISIONS_FILE, JSON.stringify(paths), revisions);
  }
  // Untracked checkpoints have no revisions: nothing to read.
  const cache = revisions.length ? readBlobCache(root) : new Map<string, BlobSummary>();
  await summarizeBlobs(root, history, revisions, cache);
  return { revisions, cache, lines: new SourceLines(root, history, cache), renamed: new RenamedFrom(root, history, cache), authored: (sha) => authorTime(root, history, sha) };
}

/** Read from the object store (no git process); git where it cannot. */
async function authorTime(root: string, history: () => Promise<GitHistory>, sha: string): Promise<number> {
  const commonDir = repoKey(root)?.commonDir;
  const stored = commonDir ? storedAuthorTime(commonDir, sha) : null;
  if (stored !== null) return stored;
  const [commit] = await (await history()).changesOf([sha]);
  return commit?.authorTime ?? NaN;
}

/** The files' revisions kept at HEAD, or carried over new commits on top (fast-forward.ts); null: git must be asked. */
function keptRevisions(root: string, paths: readonly string[]): FileRevision[] | null {
  const key = JSON.stringify(paths);
  const kept = cachedAtHead<FileRevision[]>(root, REVISIONS_FILE, key);
  if (isRevisionList(kept)) return kept;
  // The earlier HEAD's revisions with what the new commits on the first-parent line did to the
  // files (a pull's merges included: each against its first parent, as the revisions are read).
  const carried = carriedAtHead<FileRevision[]>(root, REVISIONS_FILE, key, { alongFirstParents: (value, gained) => {
    const added = gained.revisionsOf(paths);
    return added && isRevisionList(value) ? withNewRevisions(added, value) : null;
  } });
  return isRevisionList(carried) ? carried : null;
}

/** Whether dating `files`' queued actions needs no walk of their history (their revisions kept or carried). */
export function revisionsAtHand(root: string, files: readonly { rel: string }[]): boolean {
  return keptRevisions(root, files.map((f) => f.rel)) !== null;
}

/** What the blobs of `revisions` hold, into `cache`: each blob not summarized yet is read once (kept per clone). */
async function summarizeBlobs(root: string, history: () => Promise<GitHistory>, revisions: readonly FileRevision[], cache: Map<string, BlobSummary>): Promise<void> {
  const missing = [...new Set(revisions.flatMap((r) => (r.blob && !cache.has(r.blob) ? [r.blob] : [])))];
  if (!missing.length) return;
  // Read from the object store (no git process, each blob once per clone); git where it cannot.
  const commonDir = repoKey(root)?.commonDir;
  const texts = (commonDir && blobTexts(commonDir, missing, MAX_BLOB_BYTES)) || (await (await history()).readBlobs(missing, MAX_BLOB_BYTES));
  for (const oid of missing) cache.set(oid, texts.has(oid) ? summarize(texts.get(oid)!) : { updated_at: null, queued: [] });
  writeBlobCache(root, cache);
}

/**
 * Where a merge on the first-parent line took a checkpoint file's save, or a queued text, from:
 * the file's revisions along the line of its first other parent whose tree holds the merge's blob,
 * or a blob holding the same updated_at (the merge driver's result: both sides' edits, that side's
 * save), or, for a text, a blob queuing it (the branch queued it; main's later save kept); null
 * when the merge made it itself, or it is no merge. Two small questions to git per merge and
 * parent, kept per clone (the shallow state in the key: a deepened clone reads a line further).
 */
class SourceLines {
  private kept: Map<string, MergeSource> | null = null;

  constructor(
    private readonly root: string,
    private readonly history: () => Promise<GitHistory>,
    private readonly cache: Map<string, BlobSummary>,
  ) {}

  async of(merge: FileRevision, text: string | null): Promise<FileRevision[] | null> {
    if (merge.parents.length < 2 || merge.blob === null) return null;
    this.kept ??= readKept(this.root, MERGED_LINES_FILE, isMergeSource);
    const key = `${merge.sha}:${repoKey(this.root)?.shallow ?? '-'}:${merge.path}`;
    let source = this.kept.get(key);
    if (source === undefined) {
      const h = await this.history();
      const dir = posix.dirname(merge.path);
      const blobs = await Promise.all(merge.parents.slice(1).map(async (p) => (await h.filesIn(p, [dir === '.' ? '' : dir])).get(merge.path) ?? null));
      source = { blobs, lines: blobs.map(() => null) };
      this.kept.set(key, source);
      writeSourceLines(this.root, this.kept);
    }
    await summarizeBlobs(this.root, this.history, [merge, ...source.blobs.map(blobOnly)], this.cache);
    const saved = this.cache.get(merge.blob)?.updated_at;
    for (const [i, blob] of source.blobs.entries()) {
      if (blob === null) continue;
      const theirs = this.cache.get(blob);
      const took = blob === merge.blob || (typeof saved === 'string' && theirs?.updated_at === saved) || (text !== null && theirs?.queued.includes(text) === true);
      if (!took) continue;
      let line = source.lines[i];
      if (!line) {
        line = (await (await this.history()).fileRevisions([merge.path], merge.parents[i + 1])).filter((r) => r.path === merge.path).slice(0, MAX_LINE_REVISIONS);
        source.lines[i] = line;
        writeSourceLines(this.root, this.kept);
      }
      await summarizeBlobs(this.root, this.history, line, this.cache);
      return line;
    }
    return null;
  }
}

/** Per non-first parent of a merge: its blob at the file's path (null: none), and the file's line from it once read. */
interface MergeSource {
  blobs: (string | null)[];
  lines: (FileRevision[] | null)[];
}

/** A blob as summarizeBlobs takes it. */
const blobOnly = (blob: string | null): FileRevision => ({ sha: '', parents: [], time: 0, path: '', blob });

const SHA_TEXT = /^[0-9a-f]{40}$/;

function isMergeSource(v: unknown): v is MergeSource {
  if (!v || typeof v !== 'object') return false;
  const { blobs, lines } = v as Partial<MergeSource>;
  return Array.isArray(blobs) && Array.isArray(lines) && blobs.length === lines.length
    && blobs.every((b) => b === null || (typeof b === 'string' && SHA_TEXT.test(b)))
    && lines.every((l) => l === null || isRevisionList(l));
}

/** A per-clone cache file of this module's (`name`) in the repository's cache folder; null where there is none. */
function keptPath(root: string, name: string, create = false): string | null {
  const repo = repoKey(root);
  const dir = repo && cacheDir(repo.commonDir, '', create);
  return dir && join(dir, name);
}

/** Such a file's entries that `valid` accepts (a damaged or foreign one reads as empty). */
function readKept<T>(root: string, name: string, valid: (v: unknown) => v is T): Map<string, T> {
  const path = keptPath(root, name);
  const kept = path ? readCacheJson(path) : null;
  if (!kept || typeof kept !== 'object' || Array.isArray(kept)) return new Map();
  return new Map(Object.entries(kept).filter(([, v]) => valid(v)) as [string, T][]);
}

/** Best effort, like the blob cache. */
function writeSourceLines(root: string, kept: Map<string, MergeSource>): void {
  const path = keptPath(root, MERGED_LINES_FILE, true);
  if (path) writeCacheJson(join(path, '..'), MERGED_LINES_FILE, Object.fromEntries([...kept].slice(-MAX_MERGED_LINES)));
}

/**
 * Where a checkpoint file's queued text came from when the file's current life began beside the
 * deletion of another checkpoint file of its folder holding that text: a skill renamed by writing
 * its file anew (a move and a re-serialisation in one commit, which git pairs as no rename). That
 * file's revisions along the first parent's line, or null. Asked only about a file's first
 * revision, under a .checkpoints folder; the folders are read from the object store (git where it
 * cannot), the old file's revisions from git only when it held the text. Kept per clone.
 */
class RenamedFrom {
  private kept: Map<string, RenamedSource> | null = null;

  constructor(
    private readonly root: string,
    private readonly history: () => Promise<GitHistory>,
    private readonly cache: Map<string, BlobSummary>,
  ) {}

  async of(first: FileRevision, text: string): Promise<FileRevision[] | null> {
    const dir = posix.dirname(first.path);
    const parent = first.parents[0];
    if (posix.basename(dir) !== CHECKPOINTS_DIR || first.blob === null || parent === undefined) return null;
    const repo = repoKey(this.root);
    this.kept ??= readKept(this.root, RENAMED_LINES_FILE, isRenamedSource);
    const key = `${first.sha}:${repo?.shallow ?? '-'}:${first.path}`;
    let source = this.kept.get(key);
    if (source === undefined) {
      let listed = repo && storedFolderFiles(repo.commonDir, [parent, first.sha], dir);
      try {
        listed ||= await (await this.history()).filesInEach([parent, first.sha], [dir]);
      } catch {
        // The parent unreadable here (a shallow clone's boundary): nothing to follow, asked again next time.
        return null;
      }
      const [before, after] = listed as [Map<string, string>, Map<string, string>];
      // Gone beside the file's first appearance (not a file that was there before: a shallow boundary).
      const gone = before.has(first.path) ? [] : [...before].filter(([path]) => !after.has(path) && skillFromFileName(posix.basename(path)) !== null).sort(([a], [b]) => (a < b ? -1 : 1));
      source = { gone, lines: gone.map(() => null) };
      this.remember(key, source);
    }
    if (!source.gone.length) return null;
    await summarizeBlobs(this.root, this.history, source.gone.map(([, blob]) => blobOnly(blob)), this.cache);
    const i = source.gone.findIndex(([, blob]) => this.cache.get(blob)?.queued.includes(text) === true);
    if (i < 0) return null;
    let line = source.lines[i];
    if (!line) {
      const old = source.gone[i]![0];
      line = (await (await this.history()).fileRevisions([old], parent)).filter((r) => r.path === old).slice(0, MAX_RENAMED_REVISIONS);
      source.lines[i] = line;
      this.remember(key, source);
    }
    await summarizeBlobs(this.root, this.history, line, this.cache);
    return line;
  }

  /** Best effort, like the blob cache: the newest MAX_RENAMED kept. */
  private remember(key: string, source: RenamedSource): void {
    const kept = this.kept!;
    kept.delete(key);
    kept.set(key, source);
    const path = keptPath(this.root, RENAMED_LINES_FILE, true);
    if (path) writeCacheJson(join(path, '..'), RENAMED_LINES_FILE, Object.fromEntries([...kept].slice(-MAX_RENAMED)));
  }
}

/** The checkpoint files a file's first commit deleted from its folder (path, blob), and each one's line once read. */
interface RenamedSource {
  gone: [string, string][];
  lines: (FileRevision[] | null)[];
}

function isRenamedSource(v: unknown): v is RenamedSource {
  if (!v || typeof v !== 'object') return false;
  const { gone, lines } = v as Partial<RenamedSource>;
  return Array.isArray(gone) && Array.isArray(lines) && gone.length === lines.length
    && gone.every((g) => Array.isArray(g) && g.length === 2 && typeof g[0] === 'string' && typeof g[1] === 'string' && SHA_TEXT.test(g[1]))
    && lines.every((l) => l === null || isRevisionList(l));
}

/**
 * datedBy, where the revision it finds is a merge that took the file's save (or, for a text, the
 * text) from another parent: that merge only brought it in, whatever its date. The commit that
 * recorded it is on that parent's line (the oldest holding the same stamp, or queuing the text, as
 * on HEAD's line), so the instant is dated along it instead, and so on for a merge there. Without
 * such a merge git is asked nothing more.
 */
async function recordedBy(read: ReadRevisions, own: readonly FileRevision[], cp: Checkpoint, text: string | null): Promise<{ at: number; by: FileRevision | null; first?: FileRevision; via?: Within }> {
  let line = own;
  let found = datedBy(line, read.cache, cp, text);
  let merge: string | undefined;
  for (let hop = 0; hop < MAX_MERGE_HOPS; hop++) {
    const by = found.by;
    if (by === null) break;
    const source = await read.lines.of(by, text);
    if (source !== null) {
      merge ??= by.sha;
      line = [...line.slice(0, line.indexOf(by)), ...source];
    } else {
      // Queued since the file's first revision: in a checkpoint file that revision replaced (a renamed skill)?
      const oldest = line[line.length - 1];
      const before = text !== null && oldest !== undefined && found.first === oldest ? await read.renamed.of(oldest, text) : null;
      if (before === null) break;
      line = [...line, ...before];
    }
    found = datedBy(line, read.cache, cp, text);
  }
  if (found.unstamped && found.by) {
    // Its author date, kept by a cherry-pick, a rebase or an amend, where the commit date is when it was made.
    const authored = await read.authored(found.by.sha);
    if (authored > 0) found = { ...found, at: Math.min(found.at, authored) };
  }
  return merge === undefined || found.by === null ? found : { ...found, via: { merge, recorded: found.by.time } };
}

/**
 * When `text` was queued (see dateQueuedActions), and the revision that recorded it (null: none
 * committed did); for a text, `first`: the oldest revision of the run queuing it, the commit that put it in the file.
 */
function datedBy(own: readonly FileRevision[], cache: ReadonlyMap<string, BlobSummary>, cp: Checkpoint, text: string | null): { at: number; by: FileRevision | null; first?: FileRevision; unstamped?: true } {
  const summaryOf = (r: FileRevision) => (r.blob ? cache.get(r.blob) : undefined);
  // The current save: recorded by the oldest revision of the newest run that holds its updated_at.
  const written = writtenSaves.get(cp) ?? cp.updated_at;
  let found: { at: number; by: FileRevision | null } = { at: toSeconds(cp.updated_at), by: null };
  for (const r of own) {
    if (!sameSave(summaryOf(r)?.updated_at, written)) break;
    found.by = r;
  }
  if (text === null) return found;
  let run = 0;
  for (const r of own) {
    const summary = summaryOf(r);
    if (!summary?.queued.includes(text)) break;
    run++;
    const written = summary.updated_at ? toSeconds(summary.updated_at) : NaN;
    // A save is made before the commit that records it: one dated more than validate's future skew
    // after that commit is a clock ahead (or a typo in the year), read as unreadable.
    const at = Number.isFinite(written) && (written - r.time) * 1000 <= MAX_FUTURE_SKEW_MS ? written : r.time;
    if (at <= found.at) found = { at, by: r };
  }
  // Queued by a hand edit that kept the save's updated_at (the revision before it has the same one
  // without the text): that stamp is older than the text, which was written after the revision
  // before it and at the latest when the commit holding it was authored (recordedBy reads that).
  // So work that landed before the edit (a PR whose follow-up it queues) is not read as landed
  // since, while a text queued before a landing and cherry-picked after it still is.
  const [added, before] = [own[run - 1], own[run]];
  const stamp = added ? summaryOf(added)?.updated_at : written;
  if (before && summaryOf(before)?.updated_at != null && typeof stamp === 'string' && sameSave(summaryOf(before)!.updated_at, stamp)) {
    // Not committed yet: written after the newest revision, by no commit (dated, never anchored).
    return added ? { at: added.time, by: added, first: added, unstamped: true } : { at: Math.max(found.at, before.time), by: null };
  }
  return added ? { ...found, first: added } : found;
}

/** An instant the checks judge a checkpoint from, and the commit that recorded it. */
export interface RecordedInstant {
  rel: string;
  /** null: the checkpoint's save (updated_at); else the queued text whose queueing this is. */
  text: string | null;
  /** Seconds (queuedAt's value for the text). */
  at: number;
  /** The revision of the checkpoint file that recorded it (skew-walk.ts's anchor). */
  anchor: string;
  /**
   * That revision is dated before the instant (a save stamped by a clock ahead, or a local time
   * written with `Z`, within validate's tolerance): the date says nothing of what came between,
   * the graph does (after.ts).
   */
  ahead: boolean;
  /**
   * For a queued text: the commit that first put it in the file (the oldest revision of the run
   * queuing it, on the line recordedBy followed). What that commit has in its history was made
   * before the text was committed, so landed before it was queued, whatever the text's date says.
   */
  queuedIn?: string;
  /**
   * The merge on HEAD's first-parent line that brought `anchor`'s revision in from another
   * branch (recordedBy followed it), and the anchor's commit date: a commit in the merge's
   * history that does not descend from the anchor was made on another line, beside the save,
   * and is after it only when dated after that commit (after.ts `within`).
   */
  via?: Within;
}

/**
 * Every instant of `files` the checks judge from (each save, each queued text's queueing) that a
 * commit recorded, with that commit: the walk's exact lower bound in the graph (skew-walk.ts,
 * after.ts). Left out when none did (an uncommitted save, a text queued since the last commit).
 * A commit dated before the instant it recorded is kept, marked `ahead`: whatever the clocks said,
 * the save was made before that commit, and a commit descending from it after the save. Read from
 * the checkpoint files' revisions (kept per HEAD, as dateQueuedActions reads them).
 */
export async function recordedInstants(root: string, history: () => Promise<GitHistory>, files: readonly { rel: string; cp: Checkpoint }[]): Promise<RecordedInstant[]> {
  if (!files.length) return [];
  const read = await readRevisions(root, history, files);
  const out: RecordedInstant[] = [];
  for (const { rel, cp } of files) {
    const own = read.revisions.filter((r) => r.path === rel);
    for (const text of [null, ...queuedTexts(cp)]) {
      const { at, by, first, via } = await recordedBy(read, own, cp, text);
      // Same second counts (instants.ts): a save at 12:00:00.5 committed at 12:00:00.
      if (Number.isFinite(at) && by !== null) out.push({ rel, text, at, anchor: by.sha, ahead: by.time < Math.floor(at), ...(text !== null && first ? { queuedIn: first.sha } : {}), ...(via === undefined ? {} : { via }) });
    }
  }
  return out;
}

/** What a checkpoint whose updated_at is too far ahead is dated from instead (saneSaves). */
export interface SaneSave {
  /** Seconds. */
  at: number;
  /** What it is, for the warning: "the commit that recorded it (abc1234, <date>)" or "its previous save (<date>)". */
  from: string;
}

/**
 * For each of `files` whose updated_at lies beyond `limit` (ms: validate's future skew past now),
 * a sane instant to date its drift checks from, else none: the commit that recorded that save (the
 * oldest revision of the newest run holding it, as dateQueuedActions reads it) when that commit's
 * date is within the limit, else the newest earlier save within it (the save no commit recorded yet,
 * or a commit dated as far ahead). The recording commit came after the save (what lies between is
 * the session's own work, its ancestors: before, as the tie rule has it); an earlier save came
 * before it, so nothing after the save is missed. Read from the checkpoint files' revisions, kept
 * per HEAD: asked only when a checkpoint is that far ahead.
 */
export async function saneSaves(root: string, history: () => Promise<GitHistory>, files: readonly { rel: string; cp: Checkpoint }[], limit: number): Promise<Map<string, SaneSave>> {
  const out = new Map<string, SaneSave>();
  const ahead = files.filter(({ cp }) => instantMs(cp.updated_at) > limit);
  if (!ahead.length) return out;
  const { revisions, cache } = await readRevisions(root, history, ahead);
  const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
  for (const { rel, cp } of ahead) {
    const own = revisions.filter((r) => r.path === rel);
    let i = 0;
    let by: FileRevision | null = null;
    for (; i < own.length && sameSave((own[i]!.blob ? cache.get(own[i]!.blob!) : undefined)?.updated_at, cp.updated_at); i++) by = own[i]!;
    if (by !== null && by.time * 1000 <= limit) {
      out.set(rel, { at: by.time, from: `the commit that recorded it (${by.sha.slice(0, 7)}, ${iso(by.time)})` });
      continue;
    }
    for (; i < own.length; i++) {
      const saved = own[i]!.blob ? cache.get(own[i]!.blob!)?.updated_at : undefined;
      const t = saved ? Date.parse(saved) : NaN;
      if (Number.isFinite(t) && t <= limit) {
        out.set(rel, { at: Math.floor(t / 1000), from: `its previous save (${saved}, in ${own[i]!.sha.slice(0, 7)})` });
        break;
      }
    }
  }
  return out;
}
