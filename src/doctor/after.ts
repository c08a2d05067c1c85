// When a commit counts as made after a checkpoint's instant (its save, or when a queued text was
// queued): by its date (instants.ts), or by the commit graph where the commit that recorded that
// instant (its anchor) is known. Dates lie (a clock behind, a rebase that kept them); the graph
// does not: a commit that descends from the anchor was made after it, and so after the instant
// it recorded. Pure: takes the walk's commits, returns predicates.
//
// What the graph proves, over the walk's commits R (the date-bounded walk, completed past skew by
// skew-walk.ts; every commit it lists `pastAnchor` is outside the history of the anchor that walk
// was given, B):
//  - c descends from anchor A through commits of R: c is after A (a DAG has no cycle);
//  - c is marked, and A does not reach c through commits of R: c is not in A's history either.
//    A path from A to c leaving R passes a commit n the walk left out, which lies in B's history
//    (the walk stopped there, proven below B) or below the walk_days bound (counted so), so c
//    would be in B's history too; it is not.
// Neither rule ever calls a commit "before" that its date calls "after", but two: the tie, and a
// rewrite after the recording (below).
// Commit dates are whole seconds, and a commit in the instant's own second counts as after by
// date (instants.ts). When A reaches c through commits of R, c was made before A: an agent that
// commits a file and records it in the checkpoint, or merges a PR and queues a follow-up naming
// it, within one second, made c first. So a tie that is a proper ancestor of the anchor is before.
// A commit the graph says nothing about keeps its date.
//
// The rewrite: one after the save was recorded (a rebase, or an amend of the commit
// that recorded it). It gives every commit it re-makes a new committer date, so an edit made
// before the save and rebased with it is dated after it; the author date is kept. Such a commit c
// counts as before the instant when all of these hold (recordedBefore):
//  - c is a proper ancestor of the first commit that recorded the instant (F) through the walk:
//    F's tree holds c's change;
//  - c's author date is at or before the instant's second: its change was authored before it;
//  - F's author date is at or after that second (F recorded the save, so was first made after
//    it), and c's committer date is after F's author date: c, in F's history, was re-made after
//    F was first made, so its committer date is that rewrite's, not when its change was made.
// The last keeps every case where the save was committed after c was made: saved, then an edit
// committed (or amended into an older commit, cherry-picked, applied with `git am`, or committed
// with `--date` in the past), then the save committed: c is older than F, so dated as before.
// Its limits, where nothing git keeps tells the history from a plain rebase: such a c once the
// rewrite re-made it and F alike (its own committer date, the evidence, is gone), and what the
// rewrite changed in c itself (a fixup squashed into it, an `edit` stop, a conflict resolved on the
// file). A commit without an author time (an old cache: a miss, never read) keeps its date.
// Cost: only a commit committed after the instant yet authored at or before it looks at the graph
// (none on a history no rewrite crossed); the work tree then reads F from the file's revisions
// (evidence.ts), as the pushed tips always do.
//
// Cost: nothing on an honest history without a tie. The descendant rules can only differ from the
// date when R holds a mark or an edge whose child is dated before its parent, or when an anchor is
// dated before its instant (`ahead`: a save stamped by a clock ahead of the commit recording it,
// which the caller knows); otherwise an anchor is dated no earlier than its instant and dates grow
// along every other path, so the answer is the date's, without looking at an anchor. The tie rule looks at an anchor's ancestors only
// for a commit dated in the instant's own second, once per anchor.
import type { CommitInfo } from '../git/types.js';
import { committedAfter } from './instants.js';

/**
 * Whether `c` counts as made after instant `sec` (seconds), which commit `anchor` recorded (null:
 * none known). `first` (default: the anchor) is a commit at or below the first commit that held
 * the instant: a tie that is a proper ancestor of it is before (an anchor found as the newest
 * commit touching the file may be a later one than that first, which its descendants rule needs
 * no more than). `ahead`: the anchor is dated before the instant (a save stamped by a clock ahead
 * of the commit that recorded it), so its descendants dated between the two are after it too.
 * `within`: a merge that brought the anchor in from another branch (queued.ts recordedBy): a
 * commit in its history the anchor does not reach was made on another line, beside the save. The
 * completed walk marks it (it is outside the anchor's history), yet it is after the save only when
 * dated after the anchor's commit, as the save was made before that commit: on an honest clock the
 * save's own date would say the same of it.
 */
export type MadeAfter = (sec: number, anchor: string | null, first?: string | null | (() => string | null), ahead?: boolean, within?: Within) => (c: Dated) => boolean;

/** What the rule reads of a commit (author time: a rewrite keeps it, see above). */
export type Dated = Pick<CommitInfo, 'sha' | 'time'> & { authorTime?: number };

/** A merge that brought an anchor in from another branch, and the anchor's commit date (seconds): see MadeAfter. */
export interface Within {
  merge: string;
  recorded: number;
}

/** The date rule alone (instants.ts): what a walk without skew, or without an anchor, answers. */
export const byDate: MadeAfter = (sec) => (c) => committedAfter(c.time, sec);

/** Whether the graph of `commits` can answer anything the date does not (see above). */
export function graphCanTell(commits: readonly CommitInfo[]): boolean {
  const times = new Map<string, number>();
  for (const c of commits) {
    if (c.pastAnchor) return true;
    times.set(c.sha, c.time);
  }
  for (const c of commits) {
    for (const p of c.parents) {
      const t = times.get(p);
      if (t !== undefined && c.time < t) return true;
    }
  }
  return false;
}

/**
 * Proper ancestors of a commit through `commits` (empty for one not among them), worked out once
 * per commit and only when asked: the tie rule (see above).
 */
export function ancestorsIn(commits: readonly Pick<CommitInfo, 'sha' | 'parents'>[]): (sha: string) => ReadonlySet<string> {
  let bySha: Map<string, Pick<CommitInfo, 'sha' | 'parents'>> | null = null;
  const memo = new Map<string, Set<string>>();
  return (sha) => {
    let known = memo.get(sha);
    if (known) return known;
    bySha ??= new Map(commits.map((c) => [c.sha, c]));
    known = new Set<string>();
    const pending = [...(bySha.get(sha)?.parents ?? [])];
    while (pending.length) {
      const p = pending.pop()!;
      const c = bySha.get(p);
      if (!c || known.has(p)) continue;
      known.add(p);
      pending.push(...c.parents);
    }
    memo.set(sha, known);
    return known;
  };
}

/**
 * Descendants of a commit through `commits` (from its children among them on; empty for one with
 * none), worked out once per commit and only when asked: the descendants rule (see above).
 */
export function descendantsIn(commits: readonly Pick<CommitInfo, 'sha' | 'parents'>[]): (sha: string) => ReadonlySet<string> {
  let children: Map<string, string[]> | null = null;
  const memo = new Map<string, Set<string>>();
  return (sha) => {
    let known = memo.get(sha);
    if (known) return known;
    if (children === null) {
      children = new Map();
      for (const c of commits) {
        for (const p of c.parents) {
          const list = children.get(p);
          if (list) list.push(c.sha);
          else children.set(p, [c.sha]);
        }
      }
    }
    known = new Set<string>();
    const pending = [...(children.get(sha) ?? [])];
    while (pending.length) {
      const s = pending.pop()!;
      if (known.has(s)) continue;
      known.add(s);
      pending.push(...(children.get(s) ?? []));
    }
    memo.set(sha, known);
    return known;
  };
}

/**
 * The rule over `commits` (a completed walk): an anchor is looked at only for a commit its date
 * calls "before" or ties, and each anchor's descendants and ancestors in the walk are worked out once.
 */
export function madeAfterIn(commits: readonly CommitInfo[]): MadeAfter {
  const below = ancestorsIn(commits);
  let bySha: Map<string, CommitInfo> | null = null;
  // A commit dated at or after the instant that the first recording commit reaches was made before
  // it: in the instant's own second (the tie), or re-made by a rewrite after it (recordedBefore).
  const tieRule = (sec: number, anchor: string | null, first: Parameters<MadeAfter>[2]) => {
    let floor: string | null | undefined = typeof first === 'function' ? undefined : first === undefined ? anchor : first;
    return (c: Dated): boolean => {
      if (!maybeBefore(c, sec)) return true;
      if (floor === undefined) floor = (first as () => string | null)();
      if (floor === null) return true;
      return !recordedBefore(sec, (bySha ??= new Map(commits.map((x) => [x.sha, x]))).get(floor), c, below);
    };
  };
  const byDateAlone = !graphCanTell(commits);
  let graph: MadeAfter | null = null;
  return (sec, anchor, first, ahead, within) => {
    if (byDateAlone && !(ahead && anchor !== null)) {
      const tie = tieRule(sec, anchor, first);
      return (c) => committedAfter(c.time, sec) && tie(c);
    }
    return (graph ??= graphRule(commits, below, tieRule))(sec, anchor, first, ahead, within);
  };
}

/**
 * Whether `c` may count as before second `sec` though dated at or after it: a tie, or authored at
 * or before it (else the date stands without looking at the graph: an honest commit's author and
 * committer dates agree, so this costs nothing on an honest history).
 */
function maybeBefore(c: Dated, sec: number): boolean {
  return c.time === sec || (c.authorTime !== undefined && c.authorTime <= sec);
}

/**
 * Whether `c`, dated at or after second `sec`, was made before that instant all the same, by the
 * graph: `floor` (at or below the first commit that recorded the instant; undefined when not among
 * the commits `below` knows) reaches it, and it is a tie or a commit a rewrite after the recording
 * re-made (see above). One rule for the work tree (madeAfterIn) and the pushed tips (pushed-tips.ts).
 */
export function recordedBefore(sec: number, floor: Pick<CommitInfo, 'sha' | 'authorTime'> | undefined, c: Dated, below: (sha: string) => ReadonlySet<string>): boolean {
  if (floor === undefined || c.sha === floor.sha || !maybeBefore(c, sec) || !below(floor.sha).has(c.sha)) return false;
  if (c.time === sec) return true;
  return c.authorTime !== undefined && c.authorTime <= sec && floor.authorTime >= sec && c.time > floor.authorTime;
}

/** madeAfterIn's rule where the graph can tell more than the dates (see above). */
function graphRule(commits: readonly CommitInfo[], below: (sha: string) => ReadonlySet<string>, tieRule: (sec: number, anchor: string | null, first: Parameters<MadeAfter>[2]) => (c: Dated) => boolean): MadeAfter {
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const later = descendantsIn(commits);
  // Ancestors only where the anchor is in the walk: one outside it lies in B's history (see above).
  const around = (anchor: string) => ({ later: later(anchor), below: below(anchor) });
  return (sec, anchor, first, _ahead, within) => {
    const tie = tieRule(sec, anchor, first);
    return (c) => {
      if (committedAfter(c.time, sec)) return tie(c);
      if (anchor === null || c.sha === anchor) return false;
      const known = around(anchor);
      if (known.later.has(c.sha)) return true;
      if (within !== undefined && below(within.merge).has(c.sha)) return !known.below.has(c.sha) && c.time > within.recorded;
      return bySha.get(c.sha)?.pastAnchor === true && !known.below.has(c.sha);
    };
  };
}

/** The commits a walk lists, by sha, and each one's proper ancestors through them (ancestorsIn): worked out on first asking. */
export interface WalkGraph {
  commit(sha: string): CommitInfo | undefined;
  below(sha: string): ReadonlySet<string>;
}

export function walkGraph(commits: readonly CommitInfo[]): WalkGraph {
  let bySha: Map<string, CommitInfo> | null = null;
  return { commit: (sha) => (bySha ??= new Map(commits.map((c) => [c.sha, c]))).get(sha), below: ancestorsIn(commits) };
}

/**
 * A queued text's rule: `after` (madeAfter's for its queueing in second `sec`), but the graph
 * decides where the text's date cannot be true: the history of the commit that first put the text
 * in the checkpoint file (`queuedIn`, queued.ts) lies wholly in the walk and holds nothing dated at
 * or before it (a year typed wrong: the save would predate every commit it was written on). Then a
 * commit in that history, made before the queuing commit was authored, came before the queueing:
 * the text was committed on top of it, so its landing is what the text follows up. Elsewhere the
 * date stands: a text saved before its PR landed and committed after it (on top of the merge,
 * squashed in with its branch, cherry-picked) has a commit its save could be written on.
 * Worked out only for a commit `after` calls after that the queuing commit reaches.
 */
export function queuedAfter(after: (c: Dated) => boolean, sec: number, queuedIn: string | undefined, walk: WalkGraph): (c: Dated) => boolean {
  const q = queuedIn === undefined ? undefined : walk.commit(queuedIn);
  if (q === undefined) return after;
  let dateCannotBe: boolean | undefined;
  return (c) => {
    if (!after(c)) return false;
    if (c.time > q.authorTime || !walk.below(q.sha).has(c.sha)) return true;
    return !(dateCannotBe ??= predatesHistory(q, sec, walk));
  };
}

/** Whether every proper ancestor of `q` is in the walk and dated after second `sec`. */
function predatesHistory(q: CommitInfo, sec: number, walk: WalkGraph): boolean {
  const history = walk.below(q.sha);
  if (q.parents.some((p) => !history.has(p))) return false;
  for (const sha of history) {
    const c = walk.commit(sha)!;
    if (c.time <= sec || c.parents.some((p) => !history.has(p))) return false;
  }
  return true;
}

/**
 * For each of `rels`, the newest commit on HEAD's first-parent line, walked through `commits`,
 * whose changes touch it: the commit that recorded the checkpoint file as HEAD holds it (absent
 * when the line leaves the walk first). When the work tree's file is HEAD's, its save was
 * recorded there or in that commit's history, so a commit descending from it is after the save:
 * an anchor for the graph rule, found without asking git. One pass down the line for all of them.
 */
export function lastRecorded(head: string, commits: readonly CommitInfo[], rels: readonly string[]): Map<string, CommitInfo> {
  const wanted = new Set(rels);
  const found = new Map<string, CommitInfo>();
  if (!wanted.size) return found;
  const bySha = new Map<string, CommitInfo>();
  for (const c of commits) bySha.set(c.sha, c);
  for (let c = bySha.get(head); c !== undefined && found.size < wanted.size; c = c.parents.length ? bySha.get(c.parents[0]!) : undefined) {
    for (const ch of c.changes) {
      if (wanted.has(ch.path) && !found.has(ch.path)) found.set(ch.path, c);
      if (ch.from !== undefined && wanted.has(ch.from) && !found.has(ch.from)) found.set(ch.from, c);
    }
  }
  return found;
}

/**
 * The oldest commit on HEAD's first-parent line, walked through `commits`, whose changes touch
 * `rel` and that is dated `sec` or later: at or below the first commit that recorded an instant
 * of `rel` in second `sec` (that commit is on the line, touches the file and, as an anchor, is
 * dated no earlier than its instant; on an honest line every commit down to it is walked). Its
 * ancestors are the tie rule's (see above). undefined when the line touches `rel` nowhere so dated.
 */
export function firstRecorded(head: string, commits: readonly CommitInfo[], rel: string, sec: number): CommitInfo | undefined {
  const bySha = new Map<string, CommitInfo>();
  for (const c of commits) bySha.set(c.sha, c);
  let found: CommitInfo | undefined;
  for (let c = bySha.get(head); c !== undefined; c = c.parents.length ? bySha.get(c.parents[0]!) : undefined) {
    if (c.time >= sec && c.changes.some((ch) => ch.path === rel || ch.from === rel)) found = c;
  }
  return found;
}

/**
 * Whether `commit` descends from `ancestor` through `commits` (the walk's graph): made after it,
 * whatever either's date says. Walks the parents of `commit` within the walk only.
 */
export function descendsFrom(commits: readonly CommitInfo[], commit: CommitInfo, ancestor: string): boolean {
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  const seen = new Set<string>();
  const pending = [...commit.parents];
  while (pending.length) {
    const sha = pending.pop()!;
    if (sha === ancestor) return true;
    if (seen.has(sha)) continue;
    seen.add(sha);
    pending.push(...(bySha.get(sha)?.parents ?? []));
  }
  return false;
}

/** Whether merge `merge` brought commit `sha` in from a side it merged (the history of a parent after its first): that change is the merge's on HEAD's line. */
export function broughtInBy(commits: readonly CommitInfo[], merge: CommitInfo, sha: string): boolean {
  return merge.parents.length > 1 && descendsFrom(commits, { ...merge, parents: merge.parents.slice(1) }, sha);
}
