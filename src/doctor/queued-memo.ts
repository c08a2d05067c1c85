// Remembered action dates for next, status and resume: on an unchanged HEAD, with the same
// queued texts and updated_at, the dates are the same, so they are answered without git.
// Stored per clone in the git dir beside the blob cache; any doubt is a miss.
import { join } from 'node:path';
import { cacheDir, readCacheJson, writeCacheJson } from '../git/cache-files.js';
import { repoKey, storeKey } from '../git/commit-cache.js';
import { firstParentLine, topFolders } from '../git/fast-forward.js';
import type { Checkpoint } from '../protocol/types.js';
import { queuedTexts, type QueuedDates } from './queued.js';

// -2: dates from summaries that read an action object without text by its words (blob-cache.ts).
// -3: a revision's updated_at more than a day after its own commit is read as unreadable (queued.ts).
// -5: a text queued since its file's first revision is dated on in a checkpoint file deleted there (queued.ts RenamedFrom).
const MEMO_FILE = 'queued-dates-5.json';
/**
 * Entries of this many HEADs at most, the newest: one is all a line of commits needs (each run
 * moves or replaces it), a few more serve switching branches. More would be read and written
 * again on every run that dates anew, an agent's every checkpoint commit.
 */
const MAX_HEADS = 4;
/** And this many entries at most, whatever the number of checkpoint files. */
const MAX_ENTRIES = 200;

type Memo = Record<string, Record<string, number>>;

/**
 * What a file's dates depend on besides HEAD: its path, updated_at and queued texts, written
 * out whole (exact, and no node:crypto to load: that alone costs next and status a few ms).
 */
function entryKey(head: string, shallow: string, rel: string, cp: Checkpoint): string {
  return `${head}:${shallow}:${JSON.stringify([rel, cp.updated_at, queuedTexts(cp)])}`;
}

function memoPath(root: string, create = false): { dir: string; path: string; head: string; shallow: string; commonDir: string } | null {
  const key = create ? storeKey(root) : repoKey(root);
  const dir = key && cacheDir(key.commonDir, '', create);
  return key && dir ? { dir, path: join(dir, MEMO_FILE), head: key.head, shallow: key.shallow, commonDir: key.commonDir } : null;
}

function readMemo(path: string): Memo {
  const raw = readCacheJson(path);
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Memo) : {};
}

/** The dates of every file, when all are remembered for this HEAD; else null. */
export function rememberedDates(root: string, files: readonly { rel: string; cp: Checkpoint }[]): QueuedDates | null {
  const at = memoPath(root);
  if (!at) return null;
  const memo = readMemo(at.path);
  const found = datesAt(memo, at.head, at.shallow, files);
  if (found) return found;
  // HEAD moved on by commits that left the checkpoint files alone on its first-parent line (a
  // pull's merges included): their history, and so the dates, are the earlier HEAD's (the newest
  // head remembered; fast-forward.ts says when).
  const keys = Object.keys(memo);
  const earlier = keys.length ? keys[keys.length - 1]!.slice(0, keys[keys.length - 1]!.indexOf(':')) : '';
  const dirs = topFolders(files.map(({ rel }) => rel));
  if (!/^[0-9a-f]{40}$/.test(earlier) || earlier === at.head || dirs.includes('')) return null;
  const gained = firstParentLine(at.commonDir, at.head, earlier);
  if (!gained || dirs.some((dir) => gained.touches(dir))) return null;
  const dates = datesAt(memo, earlier, at.shallow, files);
  // Moved to HEAD: left at the earlier HEAD, every later run would read all the commits since
  // it again (two objects each), a cost growing with each commit an agent makes. Moved, not
  // copied: the memo stays one entry per file on a line of commits.
  const to = dates && memoPath(root, true);
  if (to && to.head === at.head && to.shallow === at.shallow) {
    for (const { rel, cp } of files) {
      const from = entryKey(earlier, at.shallow, rel, cp);
      const entry = memo[from]!;
      delete memo[from];
      put(memo, entryKey(at.head, at.shallow, rel, cp), entry);
    }
    writeCacheJson(to.dir, MEMO_FILE, newest(memo));
  }
  return dates;
}

function datesAt(memo: Memo, head: string, shallow: string, files: readonly { rel: string; cp: Checkpoint }[]): QueuedDates | null {
  const dates: QueuedDates = new Map();
  for (const { rel, cp } of files) {
    const entry = memo[entryKey(head, shallow, rel, cp)];
    if (!entry || typeof entry !== 'object') return null;
    const byText = new Map<string, number>();
    for (const text of queuedTexts(cp)) {
      const t = entry[text];
      if (typeof t !== 'number' || !Number.isFinite(t)) return null;
      byText.set(text, t);
    }
    dates.set(rel, byText);
  }
  return dates;
}

/** Best effort, like the other caches: a read-only git dir only costs the next run a dating. */
export function rememberDates(root: string, files: readonly { rel: string; cp: Checkpoint }[], dates: QueuedDates): void {
  const at = memoPath(root, true);
  if (!at) return;
  const memo = readMemo(at.path);
  for (const { rel, cp } of files) {
    const byText = dates.get(rel);
    if (byText) put(memo, entryKey(at.head, at.shallow, rel, cp), Object.fromEntries(byText));
  }
  writeCacheJson(at.dir, MEMO_FILE, newest(memo));
}

/** Sets an entry as the newest: last in the memo's order, whether or not it was there. */
function put(memo: Memo, key: string, entry: Record<string, number>): void {
  delete memo[key];
  memo[key] = entry;
}

/** The entries of the newest MAX_HEADS heads (the memo keeps insertion order), at most MAX_ENTRIES. */
function newest(memo: Memo): Memo {
  const entries = Object.entries(memo);
  const heads = new Set<string>();
  let from = entries.length;
  while (from > 0) {
    const key = entries[from - 1]![0];
    heads.add(key.slice(0, key.indexOf(':')));
    if (heads.size > MAX_HEADS) break;
    from--;
  }
  return Object.fromEntries(entries.slice(Math.max(from, entries.length - MAX_ENTRIES)));
}
