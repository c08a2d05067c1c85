// Append-only logs (recently_done, eval_scores, run_history, ...), merged as multisets of
// whole records: a record's identity is its canonical JSON, never its `id` (two different
// runs may share an id, one run may be logged twice), plus the exact value of any number in it
// its double misreads (log-texts.ts: two runs' nanosecond times one double apart are two runs;
// only a log holding such a number pays for it). For each identity:
//   merged count = base count - the larger removal + the larger addition of the two sides,
// so each side's additions survive as often as it made them, an addition both sides made
// alike appears once, and a removal stands when the other side left the record alone. An
// edit is a removal plus an addition, so a record edited on one side and removed (rotated
// out) on the other keeps the edited version; nothing either side wrote is ever dropped. Where
// the policy says `editsConflict` (key_decisions), a base record both sides replaced in place
// (log-places.ts) with different records is the one exception: a conflict at that entry.
//
// Order: base records that survive, in base order, but for those a side moved (held out of the
// base's order there): such a record stands where that side put it, placed as an addition of
// that side is (both moved it: once, at the earlier of the two places, as the queue does). A
// move is no edit: a record the other side removed stays removed. An addition a side put between records it
// kept, or in place of the base's first (last) record it removed (an edit: a removal plus an
// addition there), stays at that place among the surviving ones; additions both sides put at one
// place go in the base's time order. The other additions, at the end or in front
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
import { replacedInPlace, sidePlaces, type SidePlaces } from './log-places.js';

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

/** Where a side put its additions: before every entry it kept, after every one, or neither. */
type Place = 'front' | 'end';

/**
 * An added entry, and the gap among the merged log's kept middle entries it is anchored to (none:
 * it goes with the block at the front or end). `base`: a base entry the side moved, or replaced in
 * place where the other side replaced it too (a conflict), its index among the middle entries;
 * such an entry stands at its gap, never in a block.
 */
interface Added extends Keyed {
  gap?: number;
  base?: number;
  /** A session's own copy (sessionsApart): the record's identity, `key` being that side's own. */
  identity?: string;
}

const identityOf = (k: Added): string => k.identity ?? k.key;

/** Keys of a base entry a side moved, and of a base entry both sides replaced in place differently: one key on both sides, never a record's (JSON text starts with no control character). */
const movedKey = (j: number): string => `\u0001moved ${j}`;
const contestedKey = (j: number): string => `\u0001contested ${j}`;

/** A side's added entries by identity, each identity's copies in the side's order. */
function copiesByKey(list: readonly Added[]): Map<string, Added[]> {
  const map = new Map<string, Added[]>();
  for (const k of list) {
    const same = map.get(k.key);
    if (same) same.push(k);
    else map.set(k.key, [k]);
  }
  return map;
}

/**
 * The side's entries beyond the base's count of each identity, in the side's order, and where
 * the side's block of them sits among the entries it kept (`keptBefore`/`keptAfter`: kept entries
 * outside `side`, the untouched head and tail): the ends its unanchored additions are at, in
 * front of every one and/or behind; none where the side kept none to say.
 * An addition is anchored where it stands instead (`gap`: after the `gap`th of the merged kept
 * middle entries, `survivorAt` naming each base entry's place there, -1 when the merge does not
 * keep it there) when it sits between entries the side kept, or where the side removed the base's
 * first (last) middle entry in front of (behind) all it kept: an entry inserted or edited there
 * stays there. So is a base entry the side moved (`moved`, per base entry) and one of its
 * replacements the other side contests (`contested`: side index to base index).
 */
function additions(side: readonly Keyed[], places: SidePlaces, keptBefore: boolean, keptAfter: boolean, survivorAt: Int32Array, moved: Uint8Array, contested: ReadonlyMap<number, number> | undefined): { added: Added[]; places: Place[] } {
  const { at, toBase } = places;
  const gapAfter: number[] = [];
  // The gap after the last entry so far the side kept and the merge keeps (0: none yet).
  let lastGap = 0;
  let [firstKept, lastKept] = [-1, -1];
  side.forEach((_, i) => {
    const j = toBase[i]!;
    if (j >= 0) {
      if (firstKept < 0) firstKept = i;
      lastKept = i;
      if (survivorAt[j]! >= 0) lastGap = survivorAt[j]! + 1;
    }
    gapAfter.push(lastGap);
  });
  // Did the side remove the base's first (last) middle entry?
  const frontReplaced = at.length > 0 && at[0]! < 0;
  const endReplaced = at.length > 0 && at[at.length - 1]! < 0;
  const added: Added[] = [];
  let [blockFront, blockEnd, blockElse] = [false, false, false];
  side.forEach((item, i) => {
    const j = toBase[i]!;
    if (j >= 0) {
      if (moved[j]) added.push({ ...item, key: movedKey(j), gap: gapAfter[i]!, base: j });
      return;
    }
    const c = contested?.get(i);
    if (c !== undefined) return void added.push({ ...item, key: contestedKey(c), gap: gapAfter[i]!, base: c });
    const before = keptBefore || (firstKept >= 0 && firstKept < i);
    const after = keptAfter || lastKept > i;
    if (before && after) added.push({ ...item, gap: gapAfter[i]! });
    else if (!before && after && frontReplaced) added.push({ ...item, gap: 0 });
    else if (before && !after && endReplaced) added.push({ ...item, gap: gapAfter[i]! });
    else {
      added.push(item);
      if (!before && after) blockFront = true;
      else if (before && !after) blockEnd = true;
      else blockElse = true;
    }
  });
  // (A side that added at both ends, say newer entries in front and older behind, says both.)
  const ends: Place[] = blockElse ? [] : [...(blockFront ? ['front' as const] : []), ...(blockEnd ? ['end' as const] : [])];
  return { added, places: ends };
}

/**
 * Both sides' additions as one multiset (per identity, the larger count), in a side-independent
 * order that keeps each side's own: the two lists are merged as sorted runs are, at each step the
 * earlier of their two next entries (by time, untimed after timed, then by canonical JSON) going
 * first. Sides that wrote in time order come out in time order; entries without a time (or with one
 * time) keep the order their side wrote them in, never re-sorted by their text.
 */
function unionOfAdditions(ours: readonly Added[], theirs: readonly Added[], policy: LogPolicy, direction: 1 | -1): Added[] {
  const times = new Map<string, number | undefined>();
  const timeOf = (item: Keyed): number | undefined => {
    if (!times.has(item.key)) times.set(item.key, logEntryTime(item.entry, policy));
    return times.get(item.key);
  };
  const before = (a: Keyed, b: Keyed): boolean => {
    const [ta, tb] = [timeOf(a), timeOf(b)];
    if (ta !== undefined && tb !== undefined && ta !== tb) return direction * (ta - tb) < 0;
    if ((ta === undefined) !== (tb === undefined)) return ta !== undefined;
    return compareStrings(identityOf(a), identityOf(b)) < 0;
  };
  const order: Keyed[] = [];
  const placed = new Set<string>();
  let [i, j] = [0, 0];
  for (;;) {
    while (i < ours.length && placed.has(ours[i]!.key)) i++;
    while (j < theirs.length && placed.has(theirs[j]!.key)) j++;
    const [a, b] = [ours[i], theirs[j]];
    if (a === undefined && b === undefined) break;
    // Two sessions' copies of one record (sessionsApart) go together, whichever side is ours.
    if (a !== undefined && b !== undefined && a.key !== b.key && identityOf(a) === identityOf(b)) {
      placed.add(a.key).add(b.key);
      order.push(a, b);
      continue;
    }
    const next = a === undefined ? b! : b === undefined || a.key === b.key || before(a, b) ? a : b;
    placed.add(next.key);
    order.push(next);
  }
  // Each copy as its side wrote it (of the side with more copies, ours on a tie): copies of one
  // identity may differ still (-0 and 0 are one identity), and each keeps its own literal texts.
  const [oursCopies, theirsCopies] = [copiesByKey(ours), copiesByKey(theirs)];
  const out: Added[] = [];
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
  // Where each side holds the base's entries (its n-th copy of an identity is the base's n-th).
  const [oursPlaces, theirsPlaces] = [sidePlaces(b, o), sidePlaces(b, t)];
  // An entry both sides kept, out of the base's order on a side, was moved there: it stands where
  // that side put it, as an addition anchored there (both moved it: one copy, the earlier place).
  const movedBy = (side: SidePlaces, other: SidePlaces): Uint8Array => Uint8Array.from(side.at, (i, j) => (i >= 0 && other.at[j]! >= 0 && !side.inOrder[j] ? 1 : 0));
  const [oursMoved, theirsMoved] = [movedBy(oursPlaces, theirsPlaces), movedBy(theirsPlaces, oursPlaces)];
  // Of each base identity, as many as the side that removed more left, in base order, less the moved ones.
  const kept: Keyed[] = [];
  const survivorAt = new Int32Array(b.length).fill(-1);
  b.forEach((item, j) => {
    if (oursPlaces.at[j]! < 0 || theirsPlaces.at[j]! < 0 || oursMoved[j] || theirsMoved[j]) return;
    survivorAt[j] = kept.length;
    kept.push(item);
  });
  const contested = policy.editsConflict ? contestedEdits(o, t, oursPlaces, theirsPlaces, policy.order === 'newest-first' ? 'front' : 'end', head > 0, tail > 0) : undefined;
  const fromOurs = additions(o, oursPlaces, head > 0, tail > 0, survivorAt, oursMoved, contested?.ours);
  const fromTheirs = additions(t, theirsPlaces, head > 0, tail > 0, survivorAt, theirsMoved, contested?.theirs);
  // Additions not anchored go where the sides put them (a newest-first log written oldest-first
  // grows at its end); the field's declared order decides only when the sides disagree or do not say.
  const places = new Set([...fromOurs.places, ...fromTheirs.places]);
  const place: Place = places.size === 1 ? [...places][0]! : policy.order === 'newest-first' ? 'front' : 'end';
  const [oursAdded, theirsAdded] = policy.sessions && ctx.twoSaves ? sessionsApart(fromOurs.added, fromTheirs.added, [oursPlaces, o.length], [theirsPlaces, t.length], head) : [fromOurs.added, fromTheirs.added];
  // In time order: newest first in front, oldest first behind (entries between kept ones: below).
  // Sides at opposite ends: the log's own time direction, when it runs in time order (below).
  let runs: { direction: 1 | -1 | undefined } | undefined;
  const runsOf = (): 1 | -1 | undefined => (runs ??= { direction: logDirection(base, ours, theirs, policy) }).direction;
  const direction0 = places.size === 2 ? runsOf() : undefined;
  const firstKept = head > 0 ? base[0] : (kept[0]?.entry ?? (tail > 0 ? base[base.length - tail] : undefined));
  const keptTime = firstKept === undefined ? undefined : logEntryTime(firstKept, policy);

  // Each added copy's gap: -1 the front block, kept.length + 1 the end block; a copy both sides
  // added in different places takes the earlier, whichever side is ours.
  const blockGap = place === 'front' ? -1 : kept.length + 1;
  // The sides put theirs at opposite ends (one restored older records in front of an oldest-first
  // log, the other logged a new one behind): each record goes to the end its time puts it at
  // beside the first entry kept, when the log runs in time order and both say when; else to the
  // field's usual end. Decided by the record, never by which side is ours.
  const firstTime = direction0 === undefined ? undefined : keptTime;
  const blockOf = (k: Added): number => {
    const t = firstTime === undefined ? undefined : logEntryTime(k.entry, policy);
    return t === undefined ? blockGap : direction0! * (t - firstTime!) < 0 ? -1 : kept.length + 1;
  };
  // An entry anchored in front of every kept one (or behind) where the block goes too is in the block: one run, in time order.
  const gapOf = (k: Added): number => (k.gap === undefined ? blockOf(k) : k.base === undefined && ((k.gap === 0 && head === 0 && place === 'front') || (k.gap === kept.length && tail === 0 && place === 'end')) ? blockGap : k.gap);
  // Both sides' additions as one list, the block's entries in one run (blockRun).
  const inBlock = (): Added[] => [...oursAdded, ...theirsAdded].filter((k) => gapOf(k) === blockGap);
  const added = oursAdded.length === 0 ? theirsAdded : theirsAdded.length === 0 ? oursAdded : unionOfAdditions(oursAdded, theirsAdded, policy, direction0 ?? blockRun(place, keptTime, inBlock(), policy) ?? runsOf() ?? (place === 'front' ? -1 : 1));
  const [oursCopies, theirsCopies] = [copiesByKey(oursAdded), copiesByKey(theirsAdded)];
  const copyNumber = new Map<string, number>();
  const placed = added.map((item) => {
    const c = copyNumber.get(item.key) ?? 0;
    copyNumber.set(item.key, c + 1);
    const [mine, other] = [oursCopies.get(item.key)?.[c], theirsCopies.get(item.key)?.[c]];
    const gap = Math.min(...[mine, other].filter((k) => k !== undefined).map(gapOf));
    const source: EntrySources = {};
    if (mine) source.ours = mine.index;
    if (other) source.theirs = other.index;
    // A moved (or contested) base entry: where it stands in the base, and in a side that left it in place.
    if (item.base !== undefined) {
      source.base = head + item.base;
      if (oursPlaces.at[item.base]! >= 0) source.ours ??= head + oursPlaces.at[item.base]!;
      if (theirsPlaces.at[item.base]! >= 0) source.theirs ??= head + theirsPlaces.at[item.base]!;
    }
    return { item, gap, source };
  });
  const byGap = new Map<number, typeof placed>();
  for (const p of placed) {
    const same = byGap.get(p.gap);
    if (same) same.push(p);
    else byGap.set(p.gap, [p]);
  }
  // Entries both sides put between the same two kept ones: in the time order the base's entries are in (stable: ties and untimed as above).
  const direction = byGap.size > 1 || !byGap.has(blockGap) ? runsOf() : undefined;
  if (direction !== undefined)
    for (const [g, list] of byGap) {
      if (g === -1 || g === kept.length + 1 || list.length < 2) continue;
      // Records a side moved keep the order and the places that side gave them; the rest are sorted around them.
      const free = list.filter((p) => p.item.base === undefined);
      if (free.length < 2) continue;
      const time = (p: (typeof placed)[number]) => logEntryTime(p.item.entry, policy);
      free.sort((x, y) => {
        const [tx, ty] = [time(x), time(y)];
        return tx === undefined || ty === undefined ? 0 : direction * (tx - ty);
      });
      let k = 0;
      list.forEach((p, i) => p.item.base === undefined && (list[i] = free[k++]!));
    }

  const merged: JsonValue[] = [];
  const sources: EntrySources[] = [];
  const put = (entry: JsonValue, source: EntrySources): void => {
    merged.push(entry);
    sources.push(source);
  };
  const putAdded = (g: number): void => {
    for (const p of byGap.get(g) ?? []) {
      const j = p.item.base;
      // One base entry both sides replaced in place, differently: an edit two ways, as a value's.
      if (j !== undefined && p.item.key === contestedKey(j)) put(ctx.conflict([...path, merged.length], b[j]!.entry, oursCopies.get(p.item.key)![0]!.entry, theirsCopies.get(p.item.key)![0]!.entry)!, p.source);
      else put(p.item.entry, p.source);
    }
  };
  putAdded(-1);
  for (let k = 0; k < head; k++) put(base[k]!, { base: k, ours: k, theirs: k });
  putAdded(0);
  kept.forEach(({ entry, index }, g) => {
    put(entry, { base: index, ours: head + oursPlaces.at[index - head]!, theirs: head + theirsPlaces.at[index - head]! });
    putAdded(g + 1);
  });
  const [oursEnd, theirsEnd] = [ours.length - tail, theirs.length - tail];
  for (let k = 0; k < tail; k++) put(base[base.length - tail + k]!, { base: base.length - tail + k, ours: oursEnd + k, theirs: theirsEnd + k });
  putAdded(kept.length + 1);
  if (suffixes) ctx.logSource({ path: [...path], value: merged, entries: sources });
  return merged;
}

/**
 * Two saves' additions to a log of sessions' records (policy.sessions; the documents' `updated_at`s
 * differ): a record both sides added alike is each session's own (two runs that both logged
 * `{"ok": 1}`), so each side's copies take a key of that side's own and the merge keeps them all,
 * as a spend counter counts both sessions' spend (merge.ts twoSaves). A copy standing in place of
 * a base record the side removed (an edit, log-places.ts) keeps the record's key: one fix both
 * made alike is one record. A cherry-picked save carries one `updated_at` on both sides: once.
 */
function sessionsApart(ours: Added[], theirs: Added[], oursSide: [SidePlaces, number], theirsSide: [SidePlaces, number], head: number): [Added[], Added[]] {
  const keys = (list: readonly Added[]) => new Set(list.filter((k) => k.base === undefined).map((k) => k.key));
  const [mine, other] = [keys(ours), keys(theirs)];
  if (![...mine].some((k) => other.has(k))) return [ours, theirs];
  const apart = (list: Added[], [places, length]: [SidePlaces, number], tag: string): Added[] => {
    // Edits: every removal with a record in its place, an end of the log counting as a neighbour.
    const edits = new Set(replacedInPlace(places, length, 'end', true, true).values());
    return list.map((k) => (k.base === undefined && mine.has(k.key) && other.has(k.key) && !edits.has(k.index - head) ? { ...k, key: `${k.key}\u0002${tag}`, identity: k.key } : k));
  };
  return [apart(ours, oursSide, 'ours'), apart(theirs, theirsSide, 'theirs')];
}

/**
 * The time direction of one block of additions at one end, by their times beside the first kept
 * entry's: new entries in front run newest first, behind oldest first (a log growing at that
 * end); entries all older than the kept ones (an old entry edited, one restored) the other way,
 * so they meet the kept ones in time order. Undefined where the times do not say.
 */
function blockRun(place: Place, keptTime: number | undefined, added: readonly Added[], policy: LogPolicy): 1 | -1 | undefined {
  if (keptTime === undefined) return undefined;
  let [newer, older] = [false, false];
  for (const k of added) {
    const t = logEntryTime(k.entry, policy);
    if (t !== undefined && t > keptTime) newer = true;
    if (t !== undefined && t < keptTime) older = true;
  }
  if (newer === older) return undefined;
  return (place === 'front') === newer ? -1 : 1;
}

/**
 * The direction the base's entries run in time; where the base cannot say (no two times), the
 * one the sides' logs run in, each that says, where they agree. A rebase replays a branch one
 * commit at a time, so its base is often a log of one (red team, 12-06: a rebased `done` put the
 * other machine's older entries in front of it, where a merge of the same commits did not).
 */
function logDirection(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], policy: LogPolicy): 1 | -1 | undefined {
  const own = timeDirection(base, policy);
  if (own !== undefined) return own;
  const [o, t] = [timeDirection(ours, policy), timeDirection(theirs, policy)];
  return o === undefined ? t : t === undefined || t === o ? o : undefined;
}

/** -1 where the log's first and last timed entries say it is newest first, 1 where oldest first; undefined where they do not say. */
function timeDirection(log: readonly JsonValue[], policy: LogPolicy): 1 | -1 | undefined {
  if (policy.timeKey === undefined) return undefined;
  let first: number | undefined;
  for (let i = 0; i < log.length && first === undefined; i++) first = logEntryTime(log[i], policy);
  let last: number | undefined;
  for (let i = log.length - 1; i >= 0 && last === undefined; i--) last = logEntryTime(log[i], policy);
  return first === undefined || last === undefined || first === last ? undefined : first > last ? -1 : 1;
}

/**
 * The base entries both sides replaced in place (log-places.ts) with different entries: per side,
 * the replacing entry's index to the base entry's; undefined when there is none. Told by places
 * alone, never by what else a log holds: `resolve` merges the markers' sides again, each the
 * merged log but for that entry, and must find the same conflict there.
 */
function contestedEdits(o: readonly Keyed[], t: readonly Keyed[], oursPlaces: SidePlaces, theirsPlaces: SidePlaces, growing: Place, startKept: boolean, endKept: boolean): { ours: Map<number, number>; theirs: Map<number, number> } | undefined {
  const oursReplaced = replacedInPlace(oursPlaces, o.length, growing, startKept, endKept);
  if (oursReplaced.size === 0) return undefined;
  const theirsReplaced = replacedInPlace(theirsPlaces, t.length, growing, startKept, endKept);
  const out = { ours: new Map<number, number>(), theirs: new Map<number, number>() };
  for (const [j, oi] of oursReplaced) {
    const ti = theirsReplaced.get(j);
    if (ti === undefined || o[oi]!.key === t[ti]!.key) continue;
    out.ours.set(oi, j);
    out.theirs.set(ti, j);
  }
  return out.ours.size === 0 ? undefined : out;
}
