// A commit that changes only a listed file's whitespace at line ends (whitespace.ts: line endings,
// trailing whitespace, final newlines) changes nothing a next session must re-read: no drift.
// Asked only about commits already found to change a listed file, each such change compared with
// its first parent's blob: so a real change beside a cosmetic one is the one named.
import type { CommitInfo, GitHistory } from '../git/types.js';
import { filesAt, folderOf } from './net-change.js';
import { sameTexts } from './whitespace.js';
import type { Evidence } from './evidence.js';
import type { Finding } from './types.js';

/** Whether commit `sha`'s change of `path` (an edit in place) only touches line endings or trailing whitespace. */
export type Cosmetic = (sha: string, path: string) => boolean;

export const NOTHING_COSMETIC: Cosmetic = () => false;

/**
 * Commits one file's question asks about at most (the newest first): a file whose newest changes
 * are all cosmetic beyond this is taken as changed for real, rather than reading a long history's blobs.
 */
export const MAX_ASKED_PER_FILE = 32;

const key = (sha: string, path: string) => `${sha}\0${path}`;

/**
 * Of `asks` (a commit and a path it edits in place), the cosmetic ones: the path's blob in the
 * commit and in its first parent, from one listing of their folders at those commits and one read
 * of the blobs (the object store where it can answer, else one `cat-file --batch`), never a git
 * process per file. A rename, an addition or a deletion is never asked about: it is no edit in place.
 */
export async function cosmeticChanges(root: string, history: GitHistory, asks: readonly { commit: Pick<CommitInfo, 'sha' | 'parents'>; path: string }[]): Promise<Cosmetic> {
  const live = asks.filter((a) => a.commit.parents.length > 0);
  if (!live.length) return NOTHING_COSMETIC;
  const revs = [...new Set(live.flatMap((a) => [a.commit.sha, a.commit.parents[0]!]))];
  const listed = await filesAt(root, history, revs, [...new Set(live.map((a) => folderOf(a.path)))]);
  const at = new Map(revs.map((rev, i) => [rev, listed[i]]));
  const pairs = live.flatMap(({ commit, path }) => {
    const before = at.get(commit.parents[0]!)?.get(path);
    const after = at.get(commit.sha)?.get(path);
    return before !== undefined && after !== undefined && before !== after ? [{ commit, path, before, after }] : [];
  });
  if (!pairs.length) return NOTHING_COSMETIC;
  const same = await sameTexts(root, history, pairs.map((p) => [p.before, p.after] as const));
  const found = new Set(pairs.filter((p) => same(p.before, p.after)).map((p) => key(p.commit.sha, p.path)));
  return found.size ? (sha, path) => found.has(key(sha, path)) : NOTHING_COSMETIC;
}

/** Whether `ch` is an edit in place (no rename, addition or deletion): the only change cosmeticChanges weighs. */
export const editsInPlace = (ch: CommitInfo['changes'][number]) => ch.status === 'M' && ch.from === undefined;

/** The files generated-file findings call changed by a commit (not missing, not notes): what is worth weighing. */
export const changedFiles = (findings: readonly Finding[]) =>
  findings.filter((f) => f.check === 'generated_files' && f.level !== 'info' && f.evidence?.sha !== undefined && f.evidence.missing !== true && f.evidence.file !== undefined).map((f) => f.evidence!.file!);

/** Rounds of weighCosmeticChanges at most: each asks only about files the last one's recheck newly names (a glob's other match). */
const ROUNDS = 4;

/** What weighCosmeticChanges asked and found, kept across calls in one run. */
export interface CosmeticState {
  asked: Set<string>;
  found: Cosmetic[];
}

export const newCosmeticState = (): CosmeticState => ({ asked: new Set(), found: [] });

/** Every answer `state` holds, as one predicate. */
export const cosmeticOf = (state: CosmeticState): Cosmetic => (state.found.length ? (sha, path) => state.found.some((f) => f(sha, path)) : NOTHING_COSMETIC);

/**
 * The work tree's generated-file findings `found` (per checkpoint, saved at `saves[i]`) weighed
 * for cosmetic edits: for each file a finding names as changed, every edit of it in place since
 * the save (newest MAX_ASKED_PER_FILE) is asked about at once, and `recheck` runs that
 * checkpoint's file checks again when one was cosmetic. A file asked about once a run is not asked again.
 */
export async function weighCosmeticChanges(
  root: string,
  evidence: Pick<Evidence, 'history' | 'commits' | 'madeAfter'>,
  saves: readonly { rel: string; sec: number }[],
  found: Finding[][],
  state: CosmeticState,
  recheck: (i: number, cosmetic: Cosmetic) => Finding[],
): Promise<void> {
  if (!evidence.history) return;
  for (let round = 0; round < ROUNDS; round++) {
    const asks: { commit: CommitInfo; path: string }[] = [];
    const asking = new Set<number>();
    found.forEach((findings, i) => {
      const { rel, sec } = saves[i]!;
      let after: ((c: CommitInfo) => boolean) | undefined;
      for (const file of changedFiles(findings)) {
        const k = `${i}\0${file}`;
        if (state.asked.has(k)) continue;
        state.asked.add(k);
        after ??= evidence.madeAfter(rel, null, sec);
        const edits = evidence.commits.filter((c) => after!(c) && !c.changes.some((ch) => ch.path === rel) && c.changes.some((ch) => ch.path === file && editsInPlace(ch)));
        for (const commit of edits.slice(0, MAX_ASKED_PER_FILE)) asks.push({ commit, path: file });
        if (edits.length) asking.add(i);
      }
    });
    if (!asks.length) return;
    const answer = await cosmeticChanges(root, evidence.history, asks);
    if (answer === NOTHING_COSMETIC) return;
    state.found.push(answer);
    for (const i of asking) found[i] = recheck(i, cosmeticOf(state));
  }
}
