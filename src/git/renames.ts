// Exact-rename pairing, shared by both engines. git's own rename detection is
// similarity-based and configurable; pairing a deletion with an addition of the very same
// blob in one commit is a rule both engines can apply identically to their raw tree diffs.
// A rename with edits is paired only where a listed file was deleted (edited-renames.ts).
import { newestByGraph } from './normalize.js';
import type { CommitInfo, PathChange } from './types.js';

/** One entry of a raw tree diff. `oid` is the blob on the side that exists: old for D, new for A and M. */
export interface RawChange {
  status: 'A' | 'M' | 'D';
  path: string;
  oid: string;
  /** The mode on that side ("100644", "120000" for a link...), where the reader has it: edited-renames.ts compares regular files only. */
  mode?: string;
}

/** Empty files carry no identity: pairing them would turn unrelated files into renames. */
const EMPTY_BLOB_OID = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

/**
 * Turns each D and A of the same non-empty blob into one R. When several deletions and
 * additions share a blob, they pair in path order. Result is sorted by path.
 */
export function pairExactRenames(raw: readonly RawChange[]): PathChange[] {
  const deletedPathsByOid = new Map<string, string[]>();
  for (const change of [...raw].sort(byPath)) {
    if (change.status !== 'D' || change.oid === EMPTY_BLOB_OID) continue;
    const paths = deletedPathsByOid.get(change.oid);
    if (paths) paths.push(change.path);
    else deletedPathsByOid.set(change.oid, [change.path]);
  }

  const renamedFrom = new Set<string>();
  const changes: PathChange[] = [];
  for (const change of [...raw].sort(byPath)) {
    if (change.status === 'A') {
      const from = deletedPathsByOid.get(change.oid)?.shift();
      if (from === undefined) changes.push({ status: 'A', path: change.path });
      else {
        renamedFrom.add(from);
        changes.push({ status: 'R', path: change.path, from });
      }
    } else if (change.status === 'M') changes.push({ status: 'M', path: change.path });
  }
  for (const change of raw) {
    if (change.status === 'D' && !renamedFrom.has(change.path)) changes.push({ status: 'D', path: change.path });
  }
  return changes.sort(byPath);
}

/**
 * `changes` with each deletion `renamed` names (old path -> new path) turned into the rename it
 * was, where `changes` hold both: one R in place of the D and the A. Result is sorted by path.
 */
export function withRenames(changes: readonly PathChange[], renamed: ReadonlyMap<string, string>): PathChange[] {
  const has = (status: 'A' | 'D', path: string) => changes.some((ch) => ch.status === status && ch.path === path);
  const pairs = new Map([...renamed].filter(([from, to]) => has('D', from) && has('A', to)));
  const to = new Set(pairs.values());
  const kept = changes.filter((ch) => !(ch.status === 'D' && pairs.has(ch.path)) && !(ch.status === 'A' && to.has(ch.path)));
  const paired = [...pairs].map(([from, path]): PathChange => ({ status: 'R', path, from }));
  return [...kept, ...paired].sort(byPath);
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/** Whether a commit's changes delete `path` or rename it away. */
export function removes(commit: Pick<CommitInfo, 'changes'>, path: string): boolean {
  return commit.changes.some((ch) => (ch.status === 'D' && ch.path === path) || (ch.status === 'R' && ch.from === path));
}

/**
 * The commits among `candidates` whose newest removal of a path may share its second with
 * another removal of it (a removal, the file added back, removed again, by a script or a
 * rebase): sets of two or more, of one time each. Which of them is newer only the graph can say,
 * and `candidates` need not hold the commits between them (newestByGraph sees only direct
 * parents), so each engine asks its own graph (`descends` of newestRemovals).
 */
export function sameSecondRemovals(candidates: readonly CommitInfo[], paths: readonly string[]): CommitInfo[][] {
  const out = new Map<string, CommitInfo[]>();
  for (const path of paths) {
    const hits = candidates.filter((c) => removes(c, path));
    const newest = Math.max(...hits.map((c) => c.time));
    const tie = hits.filter((c) => c.time === newest);
    if (tie.length > 1) out.set(tie.map((c) => c.sha).sort().join(' '), tie);
  }
  return [...out.values()];
}

/**
 * GitHistory.lastRemovals from candidate commits: per path the newest that removes it, by time,
 * then within one second a descendant before its ancestor: `descends(a, b)`, whether commit `a`
 * has `b` among its ancestors, asked of the sets sameSecondRemovals gives (else newestByGraph's order).
 */
export function newestRemovals(candidates: readonly CommitInfo[], paths: readonly string[], descends: (a: string, b: string) => boolean = () => false): CommitInfo[] {
  const sorted = newestByGraph(candidates);
  const picked = new Map<string, CommitInfo>();
  for (const path of paths) {
    let best: CommitInfo | undefined;
    for (const c of sorted) {
      if (!removes(c, path)) continue;
      if (best === undefined) best = c;
      else if (c.time !== best.time) break;
      // One pass finds the latest: an ancestor's descendants descend from what it descends from.
      else if (descends(c.sha, best.sha)) best = c;
    }
    if (best) picked.set(best.sha, best);
  }
  return sorted.filter((c) => picked.has(c.sha));
}

/** `descends` for newestRemovals from the pairs found: each `[descendant, ancestor]`. */
export function descendsFrom(pairs: readonly (readonly [string, string])[]): (a: string, b: string) => boolean {
  const set = new Set(pairs.map(([a, b]) => `${a} ${b}`));
  return (a, b) => set.has(`${a} ${b}`);
}
