// A date-bounded walk that a commit with a clock behind cannot cut short.
//
// commitsSince stops at a commit older than `since`, as `git log --max-age` does: on honest
// clocks every commit behind it is older too. A commit dated in the past (a wrong clock, a
// rebase or cherry-pick that kept an old date) sitting after the checkpoint breaks that, and
// hides the newer commits behind it. The checkpoint's own commit (`anchor`: the revision that
// recorded the instant `since` stands for) gives an exact topological bound instead: a commit
// that is not in the anchor's history came after it, whatever its date says. So an older commit
// stops the walk only when it is in the anchor's history (an honest "before"); one that is not
// is walked through (git's SLOP guesses; this is exact for a walk that has its anchor).
//
// What it lists past the stops: every commit there that is not in the anchor's history, dated
// before `since` or not (the skewed commit itself, and a side branch merged after the
// checkpoint), each marked `pastAnchor` (made after the anchor: the checks judge it so rather
// than by its date); and from the anchor's history behind them, the commits dated since,
// walked on by the usual rule (unmarked, judged by date as any walked commit).
//
// Cost: on an honest history the walk's own commits prove that every commit it stopped at is
// in the anchor's history (they lie below the anchor in the walked graph), so nothing more is
// asked. Only an unproven stop costs one `log <stops> --not <anchor>` (the commits after the
// anchor behind them, described as the walk describes its own), and a bounded walk from behind
// them only when something in the anchor's history there is dated since. The walk_days bound
// stays explicit: a commit dated before it counts as before the anchor (`floor`, git's
// --max-age in a limited walk), so that question never paints history older than the bound.
import type { CommitInfo } from './types.js';

/** A commit's place in the graph: what `between` answers. */
export interface GraphCommit {
  sha: string;
  parents: string[];
  time: number;
}

export interface SkewSteps {
  /** Commits reachable from `tips` without passing one older than `since` (commitsSince's rule), with changes. */
  walkFrom(tips: readonly string[], since: number): Promise<CommitInfo[]>;
  /**
   * Commits reachable from `tips` and not from `excluded`, with the changes the walk lists, and
   * the boundary: their parents that are reachable from `excluded` (`git log --boundary tips
   * --not excluded`).
   */
  between(tips: readonly string[], excluded: readonly string[]): Promise<{ region: CommitInfo[]; boundary: Omit<GraphCommit, 'parents'>[] }>;
}

/**
 * `walked` (commitsSince's walk from `head` back to `since`) completed past every commit it
 * stopped at that is not in `anchor`'s history: the commits there after the anchor (marked
 * `pastAnchor`, whatever their dates; a walked commit among them is marked too), and the
 * commits of the anchor's history behind them dated `since` or later, and so on behind those.
 * Newest-first order is the caller's to restore.
 */
export async function pastSkew(head: string, walked: readonly CommitInfo[], since: number, anchor: string, steps: SkewSteps): Promise<CommitInfo[]> {
  const stops = unprovenStops(head, walked, anchor);
  if (!stops.length) return [...walked];
  const { region, boundary } = await steps.between(stops, [anchor]);
  const after = new Map(region.map((c) => [c.sha, c]));
  const out = walked.map((c): CommitInfo => (after.has(c.sha) ? { ...c, pastAnchor: true } : c));
  const known = new Set(walked.map((c) => c.sha));
  for (const c of region) {
    if (known.has(c.sha)) continue;
    known.add(c.sha);
    out.push({ ...c, pastAnchor: true });
  }
  // Behind them, in the anchor's history: the commits dated since, walked on by the usual rule.
  const tips = boundary.filter((c) => c.time >= since && !known.has(c.sha)).map((c) => c.sha);
  if (!tips.length) return out;
  for (const c of await steps.walkFrom(tips, since)) {
    if (known.has(c.sha)) continue;
    known.add(c.sha);
    out.push(c);
  }
  return out;
}

/**
 * The commits the walk stopped at (older than its bound: parents of walked commits it did not
 * walk, or HEAD itself) that the walked graph does not show to be in `anchor`'s history.
 */
export function unprovenStops(head: string, walked: readonly Pick<CommitInfo, 'sha' | 'parents'>[], anchor: string): string[] {
  const bySha = new Map(walked.map((c) => [c.sha, c]));
  if (!bySha.has(head)) return head === anchor ? [] : [head];
  // The anchor's history as far as the walk saw it: the anchor, and everything below it through walked commits.
  const below = new Set<string>([anchor]);
  const pending = [anchor];
  while (pending.length) {
    const c = bySha.get(pending.pop()!);
    if (!c) continue;
    for (const p of c.parents) {
      if (below.has(p)) continue;
      below.add(p);
      pending.push(p);
    }
  }
  const stops = new Set<string>();
  for (const c of walked) for (const p of c.parents) if (!bySha.has(p) && !below.has(p)) stops.add(p);
  return [...stops];
}
