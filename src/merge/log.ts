// Append-only logs (recently_done, eval_scores, run_history, ...), merged as multisets of
// whole records: a record's identity is its canonical JSON, never its `id` (two different
// runs may share an id, one run may be logged twice), plus the exact value of any number in it
// its double misreads (log-texts.ts: two runs' nanosecond times one double apart are two runs;
// only a log holding such a number pays for it). For each identity:
//   merged count = base count - the larger removal + the larger addition of the two sides,
// so each side's additions survive as often as it made them, an addition both sides made
// alike appears once, and a removal stands when the other side left the record alone. An
// edit is a removal plus an addition, so a record edited on one side and removed (rotated
// out) on the other keeps the edited version; nothing either side wrote is ever dropped.
//
// Order: base records that survive, in base order; then the additions, at the end or in front
// where the sides that added put theirs (a newest-first log kept oldest-first grows at its end;
// the field's declared order, front for `newest-first`, when they differ or do not say). When
// only one side added, its own order; when both did, an order that ignores which side is "ours"
// and keeps each side's own: the two merged as sorted runs, by the entry's time (fields.ts
// logEntryTime, the same one rotate keeps the newest by; ascending at the end, descending in
// front), untimed after timed, ties by canonical JSON.

import { logEntryTime, type LogPolicy } from '../protocol/fields.js';
import type { JsonValue } from '../protocol/types.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { canonicalJson } from '../protocol/identity.js';
import { compareStrings, jsonEqual } from './json-value.js';
import type { EntrySources, ExactSuffixes } from './log-texts.js';

interface Keyed {
  key: string;
  entry: JsonValue;
  /** Where the entry stands in its side's whole log. */
  index: number;
}

/**
 * Identity keys for the three sides. canonicalJson of every entry is the definition, but it
 * is slow cold, inside `git merge`, on a log of thousands: so an entry whose exact text
 * (JSON.stringify) is on all three sides, the usual untouched entry, keys by that text, and
 * only the rest pay for the canonical form. One key space serves both: a canonical form is
 * itself the JSON.stringify text of the same value, so equal keys always mean equal records.
 */
function keyedSides(sides: ReadonlyArray<readonly JsonValue[]>, offsets: readonly number[], suffixes?: ReadonlyArray<readonly string[]>): Keyed[][] {
  const texts = sides.map((entries) => entries.map((entry) => JSON.stringify(entry)));
  const sets = texts.map((list) => new Set(list));
  const everywhere = (text: string): boolean => sets.every((set) => set.has(text));
  return sides.map((entries, s) =>
    entries.map((entry, i) => {
      const text = texts[s]![i]!;
      const index = offsets[s]! + i;
      // The exact value of a number its double misreads (log-texts.ts) is part of what the entry is.
      return { key: (everywhere(text) ? text : canonicalJson(entry)) + (suffixes?.[s]![index] ?? ''), entry, index };
    }),
  );
}

function counts(entries: readonly Keyed[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const { key } of entries) map.set(key, (map.get(key) ?? 0) + 1);
  return map;
}

/** Where a side put its additions: before every entry it kept, after every one, or neither. */
type Place = 'front' | 'end';

/**
 * The side's entries beyond the base's count of each identity, in the side's order, and where
 * they sit among the entries it kept (`keptBefore`/`keptAfter`: kept entries outside `side`, the
 * untouched head and tail). Undefined when they sit among them, or nothing kept says where.
 */
function additions(side: readonly Keyed[], baseCounts: ReadonlyMap<string, number>, keptBefore: boolean, keptAfter: boolean): { added: Keyed[]; place?: Place } {
  const seen = new Map<string, number>();
  const added: Keyed[] = [];
  let [firstAdded, lastAdded, firstKept, lastKept] = [-1, -1, -1, -1];
  side.forEach((item, i) => {
    const n = (seen.get(item.key) ?? 0) + 1;
    seen.set(item.key, n);
    if (n > (baseCounts.get(item.key) ?? 0)) {
      added.push(item);
      if (firstAdded < 0) firstAdded = i;
      lastAdded = i;
    } else {
      if (firstKept < 0) firstKept = i;
      lastKept = i;
    }
  });
  if (added.length === 0) return { added };
  const keptHere = firstKept >= 0;
  const atEnd = !keptAfter && (keptHere ? lastKept < firstAdded : keptBefore);
  const atFront = !keptBefore && (keptHere ? lastAdded < firstKept : keptAfter);
  return { added, place: atEnd === atFront ? undefined : atEnd ? 'end' : 'front' };
}

/**
 * Both sides' additions as one multiset (per identity, the larger count), in a side-independent
 * order that keeps each side's own: the two lists are merged as sorted runs are, at each step the
 * earlier of their two next entries (by time, untimed after timed, then by canonical JSON) going
 * first. Sides that wrote in time order come out in time order; entries without a time (or with one
 * time) keep the order their side wrote them in, never re-sorted by their text.
 */
function unionOfAdditions(ours: readonly Keyed[], theirs: readonly Keyed[], policy: LogPolicy, place: Place): Keyed[] {
  const direction = place === 'front' ? -1 : 1;
  const times = new Map<string, number | undefined>();
  const timeOf = (item: Keyed): number | undefined => {
    if (!times.has(item.key)) times.set(item.key, logEntryTime(item.entry, policy));
    return times.get(item.key);
  };
  const before = (a: Keyed, b: Keyed): boolean => {
    const [ta, tb] = [timeOf(a), timeOf(b)];
    if (ta !== undefined && tb !== undefined && ta !== tb) return direction * (ta - tb) < 0;
    if ((ta === undefined) !== (tb === undefined)) return ta !== undefined;
    return compareStrings(a.key, b.key) < 0;
  };
  const order: Keyed[] = [];
  const placed = new Set<string>();
  let [i, j] = [0, 0];
  for (;;) {
    while (i < ours.length && placed.has(ours[i]!.key)) i++;
    while (j < theirs.length && placed.has(theirs[j]!.key)) j++;
    const [a, b] = [ours[i], theirs[j]];
    if (a === undefined && b === undefined) break;
    const next = a === undefined ? b! : b === undefined || a.key === b.key || before(a, b) ? a : b;
    placed.add(next.key);
    order.push(next);
  }
  // Each copy as its side wrote it (of the side with more copies, ours on a tie): copies of one
  // identity may differ still (-0 and 0 are one identity), and each keeps its own literal texts.
  const byKey = (list: readonly Keyed[]): Map<string, Keyed[]> => {
    const map = new Map<string, Keyed[]>();
    for (const k of list) {
      const same = map.get(k.key);
      if (same) same.push(k);
      else map.set(k.key, [k]);
    }
    return map;
  };
  const [oursCopies, theirsCopies] = [byKey(ours), byKey(theirs)];
  const out: Keyed[] = [];
  for (const item of order) {
    const mine = oursCopies.get(item.key) ?? [];
    const other = theirsCopies.get(item.key) ?? [];
    out.push(...(mine.length >= other.length ? mine : other));
  }
  return out;
}

export function mergeLog(
  ctx: MergeContext,
  path: PathSegment[],
  _policyPath: string[],
  policy: LogPolicy,
  base: readonly JsonValue[],
  ours: readonly JsonValue[],
  theirs: readonly JsonValue[],
  exactness?: ExactSuffixes,
): JsonValue[] {
  // Numbers that read as doubles of other values name entries apart (log-texts.ts); usually there are none.
  const exact = exactness ?? ctx.logExactness(path, base, ours, theirs);
  const suffixes = exact && [exact.base, exact.ours, exact.theirs];
  const alike = (kb: number, ko: number, kt: number): boolean =>
    jsonEqual(base[kb], ours[ko]) && jsonEqual(base[kb], theirs[kt]) && (!suffixes || (suffixes[0]![kb] === suffixes[1]![ko] && suffixes[0]![kb] === suffixes[2]![kt]));
  // Entries equal on all three sides at the start or the end (the untouched bulk of an
  // append-only log) are kept as they are; only the rest needs identity keys. The counts
  // come out the same: such an entry adds one to every side's count of its identity.
  const max = Math.min(base.length, ours.length, theirs.length);
  let head = 0;
  while (head < max && alike(head, head, head)) head++;
  let tail = 0;
  const last = (list: readonly JsonValue[]): number => list.length - 1 - tail;
  while (tail < max - head && alike(last(base), last(ours), last(theirs))) tail++;
  const middle = (list: readonly JsonValue[]): JsonValue[] => list.slice(head, list.length - tail);
  const [b, o, t] = keyedSides([middle(base), middle(ours), middle(theirs)], [head, head, head], suffixes) as [Keyed[], Keyed[], Keyed[]];
  const [baseCounts, oursCounts, theirsCounts] = [counts(b), counts(o), counts(t)];

  // Of each base identity, keep as many as the side that removed more left in place.
  const keepLeft = new Map<string, number>();
  for (const [key, n] of baseCounts) keepLeft.set(key, Math.min(n, oursCounts.get(key) ?? 0, theirsCounts.get(key) ?? 0));
  const kept: Keyed[] = [];
  for (const item of b) {
    const left = keepLeft.get(item.key)!;
    if (left === 0) continue;
    keepLeft.set(item.key, left - 1);
    kept.push(item);
  }

  const fromOurs = additions(o, baseCounts, head > 0, tail > 0);
  const fromTheirs = additions(t, baseCounts, head > 0, tail > 0);
  // Additions go where the sides put them (a newest-first log written oldest-first grows at its
  // end); the field's declared order decides only when the sides disagree or do not say.
  const places = new Set([fromOurs.place, fromTheirs.place].filter((p) => p !== undefined));
  const place: Place = places.size === 1 ? [...places][0]! : policy.order === 'newest-first' ? 'front' : 'end';
  const [oursAdded, theirsAdded] = [fromOurs.added, fromTheirs.added];
  const added = oursAdded.length === 0 ? theirsAdded : theirsAdded.length === 0 ? oursAdded : unionOfAdditions(oursAdded, theirsAdded, policy, place);
  const keptAll = [...base.slice(0, head), ...kept.map((k) => k.entry), ...base.slice(base.length - tail)];
  const merged = place === 'front' ? [...added.map((k) => k.entry), ...keptAll] : [...keptAll, ...added.map((k) => k.entry)];
  if (suffixes) {
    const sources = entrySources(base.length, head, tail, kept, added, [o, t], [oursAdded, theirsAdded]);
    ctx.logSource({ path: [...path], value: merged, entries: place === 'front' ? [...sources.added, ...sources.kept] : [...sources.kept, ...sources.added] });
  }
  return merged;
}

/**
 * For a log named by exact numbers: which entry of each side each merged entry is, the kept ones
 * (head, kept middle, tail: in base order) and the added ones (in merged order). A kept entry is,
 * in ours and theirs, the next of its identity they kept; an added one, the next of its identity
 * each side added.
 */
function entrySources(
  baseLength: number,
  head: number,
  tail: number,
  kept: readonly Keyed[],
  added: readonly Keyed[],
  sides: readonly [readonly Keyed[], readonly Keyed[]],
  sidesAdded: readonly [readonly Keyed[], readonly Keyed[]],
): { kept: EntrySources[]; added: EntrySources[] } {
  const queues = (list: readonly Keyed[]): Map<string, number[]> => {
    const map = new Map<string, number[]>();
    for (const { key, index } of list) {
      const same = map.get(key);
      if (same) same.push(index);
      else map.set(key, [index]);
    }
    return map;
  };
  const whole = (k: number, o: number, t: number): EntrySources => ({ base: k, ours: o, theirs: t });
  const [oursAll, theirsAll] = [queues(sides[0]), queues(sides[1])];
  const keptSources: EntrySources[] = [];
  for (let k = 0; k < head; k++) keptSources.push(whole(k, k, k));
  for (const { key, index } of kept) keptSources.push({ base: index, ours: oursAll.get(key)!.shift(), theirs: theirsAll.get(key)!.shift() });
  const [oursEnd, theirsEnd] = [sides[0].length + head, sides[1].length + head];
  for (let k = tail; k > 0; k--) keptSources.push(whole(baseLength - k, oursEnd + tail - k, theirsEnd + tail - k));
  const [oursAdded, theirsAdded] = [queues(sidesAdded[0]), queues(sidesAdded[1])];
  const addedSources = added.map(({ key }) => {
    const source: EntrySources = {};
    const [o, t] = [oursAdded.get(key)?.shift(), theirsAdded.get(key)?.shift()];
    if (o !== undefined) source.ours = o;
    if (t !== undefined) source.theirs = t;
    return source;
  });
  return { kept: keptSources, added: addedSources };
}
