// Which elements of a side's array are the base's elements, left in place. Patience
// style: elements unique on both sides anchor the alignment through a longest increasing
// subsequence (so a moved item reads as removed + added, not as everything else moved),
// and the gaps between anchors are matched greedily. O(n log n), no quadratic table.

/**
 * Indices into `side` of the anchored elements, one per base index, or -1 (strictly increasing
 * where set). Between anchors, a repeated element is matched to its `first` place there, its
 * `last` (a queue popped from the front keeps the later of two equal items), or left unmatched
 * (`none`: only elements unique on both sides are matched).
 */
export function alignToBase(base: readonly string[], side: readonly string[], repeats: 'first' | 'last' | 'none' = 'first'): Int32Array {
  const match = new Int32Array(base.length).fill(-1);
  const baseCount = countKeys(base);
  const sideCount = countKeys(side);
  const sidePosition = new Map<string, number>();
  side.forEach((key, i) => sidePosition.set(key, i));

  const pairs: Array<[number, number]> = [];
  base.forEach((key, i) => {
    if (baseCount.get(key) === 1 && sideCount.get(key) === 1) pairs.push([i, sidePosition.get(key)!]);
  });
  const anchors = longestIncreasing(pairs);
  for (const [b, s] of anchors) match[b] = s;
  if (repeats === 'none') return match;

  let baseFrom = 0;
  let sideFrom = 0;
  for (const [b, s] of [...anchors, [base.length, side.length] as [number, number]]) {
    (repeats === 'first' ? matchGreedily : matchGreedilyFromEnd)(base, side, baseFrom, b, sideFrom, s, match);
    baseFrom = b + 1;
    sideFrom = s + 1;
  }
  return match;
}

function countKeys(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

/** The longest subsequence of `pairs` (sorted by [0]) whose [1] strictly increases. */
export function longestIncreasing(pairs: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const tails: number[] = []; // tails[k]: index into pairs of the smallest tail of an increasing run of length k+1
  const previous = new Int32Array(pairs.length).fill(-1);
  pairs.forEach(([, s], i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]!]![1] < s) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  });
  const run: Array<[number, number]> = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) run.push(pairs[i]!);
  return run.reverse();
}

function matchGreedily(
  base: readonly string[],
  side: readonly string[],
  baseFrom: number,
  baseTo: number,
  sideFrom: number,
  sideTo: number,
  match: Int32Array,
): void {
  if (baseFrom >= baseTo || sideFrom >= sideTo) return;
  const positions = new Map<string, number[]>();
  for (let s = sideFrom; s < sideTo; s++) {
    const list = positions.get(side[s]!) ?? [];
    list.push(s);
    positions.set(side[s]!, list);
  }
  const cursor = new Map<string, number>();
  let next = sideFrom;
  for (let b = baseFrom; b < baseTo; b++) {
    const list = positions.get(base[b]!);
    if (!list) continue;
    let k = cursor.get(base[b]!) ?? 0;
    while (k < list.length && list[k]! < next) k++;
    cursor.set(base[b]!, k);
    if (k === list.length) continue;
    match[b] = list[k]!;
    next = list[k]! + 1;
  }
}

/** matchGreedily walking both ranges back from their ends: each base element takes the last free place of its key. */
function matchGreedilyFromEnd(
  base: readonly string[],
  side: readonly string[],
  baseFrom: number,
  baseTo: number,
  sideFrom: number,
  sideTo: number,
  match: Int32Array,
): void {
  const [backBase, backSide] = [base.slice(baseFrom, baseTo).reverse(), side.slice(sideFrom, sideTo).reverse()];
  const back = new Int32Array(backBase.length).fill(-1);
  matchGreedily(backBase, backSide, 0, backBase.length, 0, backSide.length, back);
  back.forEach((s, k) => {
    if (s >= 0) match[baseTo - 1 - k] = sideTo - 1 - s;
  });
}
