// A commit that changes only a listed file's whitespace at line ends (whitespace.ts: line endings,
// trailing whitespace, final newlines) changes nothing a next session must re-read: no drift.
// Asked only about commits already found to change a listed file, each such change compared with
// its first parent's blob: so a real change beside a cosmetic one is the one named.
import type { CommitInfo, GitHistory } from '../git/types.js';
import { filesAt, folderOf } from './net-change.js';
import { sameTexts } from './whitespace.js';
import { repoKey } from '../git/commit-cache.js';
import { KeptAnswers } from '../git/cache-files.js';
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
export async function cosmeticChanges(root: string, history: GitHistory, asks: readonly { commit: Pick<CommitInfo, 'sha' | 'parents'>; path: string }[], keep = false): Promise<Cosmetic> {
  if (!keep) {
    const found = await askedNow(root, history, asks);
    return found.size ? (sha, path) => found.has(key(sha, path)) : NOTHING_COSMETIC;
  }
  // A commit's edit is what it is for good: answers are kept (.git/checkpoint), so a warm doctor
  // reads no blob. Not for an engine asked for by name (`keep` false): that one is exercised.
  const kept = KeptAnswers.read(repoKey(root)?.commonDir, COSMETIC_FILE, MAX_KEPT, (v): v is boolean => typeof v === 'boolean', (k) => /^[0-9a-f]{40,64} ./.test(k));
  const known = new Set<string>();
  const unknown = asks.filter((a) => {
    const k = keptKey(a.commit.sha, a.path);
    const answer = kept.get(k);
    if (answer === true) known.add(key(a.commit.sha, a.path));
    return answer === undefined;
  });
  const fresh = await askedNow(root, history, unknown);
  for (const a of unknown) kept.set(keptKey(a.commit.sha, a.path), fresh.has(key(a.commit.sha, a.path)));
  kept.save();
  for (const k of fresh) known.add(k);
  return known.size ? (sha, path) => known.has(key(sha, path)) : NOTHING_COSMETIC;
}

/** The kept answers: `${commit} ${path}` to whether that commit's edit of it was cosmetic. */
const COSMETIC_FILE = 'cosmetic-edits.json';
/** Answers kept at most (~100 bytes each): the last asked stay. */
const MAX_KEPT = 2000;
const keptKey = (sha: string, path: string) => `${sha} ${path}`;


/** The cosmetic ones of `asks`, read from the repository (cosmeticChanges without the kept answers). */
async function askedNow(root: string, history: GitHistory, asks: readonly { commit: Pick<CommitInfo, 'sha' | 'parents'>; path: string }[]): Promise<Set<string>> {
  const live = asks.filter((a) => a.commit.parents.length > 0);
  if (!live.length) return new Set();
  const revs = [...new Set(live.flatMap((a) => [a.commit.sha, a.commit.parents[0]!]))];
  const listed = await filesAt(root, history, revs, [...new Set(live.map((a) => folderOf(a.path)))]);
  const at = new Map(revs.map((rev, i) => [rev, listed[i]]));
  const pairs = live.flatMap(({ commit, path }) => {
    const before = at.get(commit.parents[0]!)?.get(path);
    const after = at.get(commit.sha)?.get(path);
    return before !== undefined && after !== undefined && before !== after ? [{ commit, path, before, after }] : [];
  });
  if (!pairs.length) return new Set();
  const same = await sameTexts(root, history, pairs.map((p) => [p.before, p.after] as const));
  return new Set(pairs.filter((p) => same(p.before, p.after)).map((p) => key(p.commit.sha, p.path)));
}

/** Whether `ch` is an edit in place (no rename, addition or deletion): the only change cosmeticChanges weighs. */
export const editsInPlace = (ch: CommitInfo['changes'][number]) => ch.status === 'M' && ch.from === undefined;

/** The files generated-file findings call changed by a commit (not missing, not notes): what is worth weighing. */
export const changedFiles = (findings: readonly Finding[]) => findings.filter(isChange).map((f) => f.evidence!.file!);

/** Rounds of weighCosmeticChanges at most: a file's cosmetic edits in a row, one a round, and a glob's other matches. */
const ROUNDS = MAX_ASKED_PER_FILE + 4;

/** What weighCosmeticChanges asked and found, kept across calls in one run. */
export interface CosmeticState {
  /** `${sha}\0${path}` pairs asked about. */
  asked: Set<string>;
  /** Per checkpoint and file, how many of its edits were asked about. */
  perFile: Map<string, number>;
  found: Cosmetic[];
}

export const newCosmeticState = (): CosmeticState => ({ asked: new Set(), perFile: new Map(), found: [] });

/** Every answer `state` holds, as one predicate. */
export const cosmeticOf = (state: CosmeticState): Cosmetic => (state.found.length ? (sha, path) => state.found.some((f) => f(sha, path)) : NOTHING_COSMETIC);

/**
 * The work tree's generated-file findings `found` (per checkpoint) weighed for cosmetic edits: the
 * edit each finding names (the newest since the save) is asked about, all findings' at once, and
 * when one was cosmetic `recheck` runs that checkpoint's file checks again, which name the next
 * edit, asked in the next round. So a file changed for real costs one pair of blobs, not its whole
 * history's (a warm doctor on a long-lived repository names dozens of changed files); at most
 * MAX_ASKED_PER_FILE edits of a file are asked about, an older one taken as real.
 */
export async function weighCosmeticChanges(
  root: string,
  evidence: Pick<Evidence, 'history' | 'commits'>,
  found: Finding[][],
  state: CosmeticState,
  recheck: (i: number, cosmetic: Cosmetic) => Finding[],
  keep: boolean,
): Promise<void> {
  if (!evidence.history) return;
  let bySha: Map<string, CommitInfo> | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const asks: { commit: CommitInfo; path: string }[] = [];
    const asking = new Set<number>();
    found.forEach((findings, i) => {
      for (const f of findings) {
        if (!isChange(f)) continue;
        const { sha, file } = f.evidence as { sha: string; file: string };
        const pair = `${sha}\0${file}`;
        const perFile = `${i}\0${file}`;
        const n = state.perFile.get(perFile) ?? 0;
        if (state.asked.has(pair) || n >= MAX_ASKED_PER_FILE) continue;
        bySha ??= new Map(evidence.commits.map((c) => [c.sha, c]));
        const commit = bySha.get(sha);
        if (commit === undefined || !commit.changes.some((ch) => ch.path === file && editsInPlace(ch))) continue;
        state.asked.add(pair);
        state.perFile.set(perFile, n + 1);
        asks.push({ commit, path: file });
        asking.add(i);
      }
    });
    if (!asks.length) return;
    const answer = await cosmeticChanges(root, evidence.history, asks, keep);
    if (answer === NOTHING_COSMETIC) return;
    state.found.push(answer);
    for (const i of asking) found[i] = recheck(i, cosmeticOf(state));
  }
}

/** A generated-file finding that a commit changed a file (not missing, not a note): what is worth weighing. */
const isChange = (f: Finding) => f.check === 'generated_files' && f.level !== 'info' && f.evidence?.sha !== undefined && f.evidence.missing !== true && f.evidence.file !== undefined;
