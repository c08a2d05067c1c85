// A push of many refs at once (`git push --tags`, a first push to a new remote): the commits
// each ref sends, found with one walk per base instead of one per ref. Both engines use it. Pure.
import { newestByGraph } from './normalize.js';
import type { CommitInfo } from './types.js';

/** A range's ends as the engine found them: the tip's commit (null: none, nothing sent) and the base's (null: none). */
export interface FoundRange {
  tip: string | null;
  base: string | null;
}

/** The tips to walk together, by base ('' for none): ranges with one base exclude the same history. */
export function tipsByBase(ranges: readonly FoundRange[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { tip, base } of ranges) {
    if (tip === null) continue;
    const tips = groups.get(base ?? '') ?? [];
    if (!tips.includes(tip)) tips.push(tip);
    groups.set(base ?? '', tips);
  }
  return groups;
}

/**
 * What `tip` alone sends, newest first, out of `walked`: the commits reachable from a set of tips
 * holding it and not from the excluded history (the base's and the remotes': closed under
 * parents). Exactly those `walked` reaches from `tip` through parents: a path from the tip to a
 * commit not excluded runs through none that is excluded (everything below an excluded commit is).
 */
export function sentFrom(tip: string, walked: ReadonlyMap<string, CommitInfo>): CommitInfo[] {
  const out: CommitInfo[] = [];
  const seen = new Set<string>();
  const stack = [tip];
  while (stack.length) {
    const sha = stack.pop()!;
    if (seen.has(sha)) continue;
    seen.add(sha);
    const commit = walked.get(sha);
    if (commit === undefined) continue;
    out.push(commit);
    stack.push(...commit.parents);
  }
  return newestByGraph(out);
}

/** `ranges`' sent commits, each from its base's walk (`walks`, keyed as tipsByBase keys them). */
export function sentByRange(ranges: readonly FoundRange[], walks: ReadonlyMap<string, ReadonlyMap<string, CommitInfo>>): CommitInfo[][] {
  return ranges.map(({ tip, base }) => (tip === null ? [] : sentFrom(tip, walks.get(base ?? '') ?? new Map())));
}
