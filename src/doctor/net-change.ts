// A listed file that commits after the save changed and then changed back (a revert, a delete
// and restore, a rename away and back) is what the checkpoint saw: drift is its content at the
// commit that recorded the save against its content now, not the commits that touched it.
// Asked only once a change is found, about the files such commits touched: one listing of their
// folders in both trees, from the object store (git only where the store cannot answer). Changed
// back with other line endings or trailing whitespace (whitespace.ts) is changed back too.
import type { CommitInfo, GitHistory } from '../git/types.js';
import { ancestorsIn } from './after.js';
import { repoKey } from '../git/commit-cache.js';
import { storedFilesIn } from '../git/fast-forward.js';
import { KeptAnswers } from '../git/cache-files.js';
import { headBlobsFromIndex } from '../git/head-tree.js';
import { sameTexts, type SameText } from './whitespace.js';

/** Whether `file` holds, now, the very blob it held at the save (false when either side lacks it). */
export type SameAsSaved = (file: string) => boolean;

export const NEVER_SAME: SameAsSaved = () => false;

/** The folder filesIn lists a file's entry in. */
export const folderOf = (file: string) => (file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '');

/**
 * The files in `dirs` of each of `revs` (filesInEach), read from the object store where it can
 * answer (no git process: doctor runs on every push), else asked of git.
 */
export async function filesAt(root: string, history: GitHistory, revs: readonly string[], dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>[]> {
  const repo = repoKey(root);
  return (repo && storedFilesIn(repo.commonDir, revs, dirs, opts.recursive === true)) || history.filesInEach(revs, dirs, opts);
}

/**
 * For each ask (the commit that recorded a save and the files changed since), whether each file's
 * blob there is its blob at `now` (HEAD's commit), or one holding the same text but for
 * whitespace at line ends (whitespace.ts: changed back, in CRLF say), read once for all asks.
 * `keep`: the whitespace answers are kept in the git dir (sameTexts).
 */
export async function sameAsSaved(root: string, history: GitHistory, now: string, asks: readonly { saved: string; files: readonly string[] }[], keep = false): Promise<SameAsSaved[]> {
  const live = asks.filter((a) => a.files.length);
  if (!live.length) return asks.map(() => NEVER_SAME);
  const files = [...new Set(live.flatMap((a) => a.files))];
  const at = await keptBlobs(root, history, [...new Set(live.map((a) => a.saved))].filter((rev) => rev !== now), files);
  // Right after a commit git's index holds HEAD's tree: no tree read for HEAD then.
  const current = (await headBlobsFromIndex(root, now, files)) ?? (await blobsAt(root, history, now, files));
  at.set(now, current);
  const text = await sameTexts(root, history, live.flatMap(({ saved, files }) => files.flatMap((f) => {
    const then = at.get(saved)!.get(f);
    const blob = current.get(f);
    return then !== undefined && blob !== undefined ? [[then, blob] as const] : [];
  })), keep);
  return asks.map(({ saved, files }) => (files.length ? sameInText(at.get(saved)!, current, text) : NEVER_SAME));
}

/** The kept blobs of files at the commits that recorded saves: `${commit} ${path}` to the file's blob there, '' where it has none. */
const SAVED_BLOBS_FILE = 'saved-blobs.json';
/** Blobs kept at most (~100 bytes each; the file is read on every run that asks): the last used stay. */
const MAX_SAVED_BLOBS = 1000;

/**
 * Each of `files`' blob at each of `revs` (the commits that recorded saves, old as a checkpoint
 * is): kept in the git dir, since a commit's tree never changes, so each is looked up once. An
 * old commit's trees sit deep in delta chains in a pack: listing a dozen saves' folders cost a
 * warm doctor ~20-25% of its time on the real-shaped bench fixture when read on every run. HEAD's
 * blobs are not kept: HEAD moves with every commit, and each would leave its entries behind.
 */
async function keptBlobs(root: string, history: GitHistory, revs: readonly string[], files: readonly string[]): Promise<Map<string, ReadonlyMap<string, string>>> {
  const found = new Map<string, Map<string, string>>(revs.map((rev) => [rev, new Map()]));
  const kept = KeptAnswers.read(repoKey(root)?.commonDir, SAVED_BLOBS_FILE, MAX_SAVED_BLOBS, isBlobOrNone);
  const missing = new Map<string, string[]>();
  for (const rev of revs) {
    for (const path of files) {
      const blob = kept.get(`${rev} ${path}`);
      if (blob === undefined) missing.set(rev, [...(missing.get(rev) ?? []), path]);
      else if (blob !== '') found.get(rev)!.set(path, blob);
    }
  }
  for (const [rev, wanted] of missing) {
    const listed = await blobsAt(root, history, rev, wanted);
    for (const path of wanted) {
      const blob = listed.get(path);
      if (blob !== undefined) found.get(rev)!.set(path, blob);
      kept.set(`${rev} ${path}`, blob ?? '');
    }
  }
  kept.save();
  return found;
}

const isBlobOrNone = (v: unknown): v is string => typeof v === 'string' && (v === '' || /^[0-9a-f]{40,64}$/.test(v));

/** Each of `files`' blob at commit `rev` (absent where it has none): one listing of their folders. */
async function blobsAt(root: string, history: GitHistory, rev: string, files: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const [listed] = await filesAt(root, history, [rev], [...new Set(files.map(folderOf))]);
  return listed!;
}

/** Whether the file has a blob in both listings, the same or (`text`: sameTexts over them) of the same text but for whitespace at line ends. */
const sameInText = (then: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>, text: SameText): SameAsSaved => (file) => text(then.get(file), now.get(file));

/**
 * `sameAsSaved` for tree listings already at hand (a pushed tip's and its save's), a blob of the
 * same text but for whitespace at line ends counting as the same: the texts of `files` read at once.
 */
export async function sameInTexts(root: string, history: GitHistory, then: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>, files: readonly string[]): Promise<SameAsSaved> {
  const text = await sameTexts(root, history, files.flatMap((f) => {
    const a = then.get(f);
    const b = now.get(f);
    return a !== undefined && b !== undefined ? [[a, b] as const] : [];
  }));
  return sameInText(then, now, text);
}

/**
 * The files commits made after a save touched (a rename's both names), leaving out the session's
 * own commits, those that change its checkpoint `rel` too: the ones checkGeneratedFiles may call
 * changed after the checkpoint, so the only ones worth asking about.
 */
export function touchedAfterSave(commits: readonly CommitInfo[], madeAfter: (c: CommitInfo) => boolean, rel: string): string[] {
  const files = new Set<string>();
  for (const c of commits) {
    if (!madeAfter(c) || c.changes.some((ch) => ch.path === rel)) continue;
    for (const ch of c.changes) {
      files.add(ch.path);
      if (ch.from !== undefined) files.add(ch.from);
    }
  }
  return [...files];
}

/**
 * Of the files touchedAfterSave names, those the tree of `saved` (the commit that recorded the
 * save) cannot vouch for: changed after the save by a commit in that commit's own history (an edit
 * committed before the checkpoint was, a rebase or amend, a side branch a merge brought in with
 * the save). Such a change is in that tree: the tree is not what the save saw, and the change stands.
 */
export function unvouched(commits: readonly CommitInfo[], madeAfter: (c: CommitInfo) => boolean, rel: string, saved: string): Set<string> {
  const before = ancestorsIn(commits)(saved);
  return new Set(touchedAfterSave(commits.filter((c) => c.sha === saved || before.has(c.sha)), madeAfter, rel));
}
