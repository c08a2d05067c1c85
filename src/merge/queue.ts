// next_actions: a queue popped from the front, appended at the back, sometimes edited in
// place. Each side is aligned to the base and described as hunks (base range -> side
// items); overlapping hunks of the two sides form a region, resolved as follows:
//  - one side left the region as in base, or both made it alike: take the changed one;
//  - only removals and insertions: every item removed by either side is gone (pops
//    union), and both sides' inserted items are kept, an item inserted by both once;
//  - an in-place edit against a removal or a different edit: a conflict on that run.
// A side that replaced its whole queue (every base item gone, new items after) is read as
// pops + appends, not as an edit: that is what `done` + append does on a short queue. The
// new items stay in front only when they replace the old item for item.
//
// Where both sides insert at the same place (typically both append at the end), each
// side's block keeps its own order. Items already queued in base (a side moved them there:
// a reprioritised queue) come before items new to the queue, so an action one side appended
// stays behind every older one. Between the two sides, the block of the side saved earlier
// (its `updated_at`; a side without a valid one after) comes first, equal times by canonical
// JSON. "Ours first" cannot be symmetric: merging (O,A,B) and (O,B,A) must give the same
// queue, so the order may not depend on which side is checked out. An action both sides
// moved, to different places, stands once, at the first of them.

import type { JsonValue } from '../protocol/types.js';
import { alignToBase } from './align.js';
import type { MergeContext, PathSegment, SideTimes } from './conflict.js';
import { canonicalJson } from '../protocol/identity.js';
import { compareStrings } from './json-value.js';

/** base[start, end) became `items` on one side; start === end is a pure insertion. */
interface Hunk {
  start: number;
  end: number;
  items: JsonValue[];
}

/** The base queue, whether a canonical key is one of its items, and the sides' save times. */
interface QueueSides {
  base: readonly JsonValue[];
  inBase: (key: string) => boolean;
  times: SideTimes;
  /** Keeps the first place of a base item both sides moved (to different places): drops its later copies from a resolved run. */
  once: (run: JsonValue[]) => JsonValue[];
}

/** Canonical keys of the base items among a side's hunks' items: the items that side moved. */
function movedKeys(hunks: readonly Hunk[], inBase: (key: string) => boolean): Set<string> {
  const keys = new Set<string>();
  for (const h of hunks) for (const item of h.items) {
    const key = canonicalJson(item);
    if (inBase(key)) keys.add(key);
  }
  return keys;
}

const isInsertion = (h: Hunk): boolean => h.start === h.end;
const isEdit = (h: Hunk): boolean => h.start < h.end && h.items.length > 0;

function sideHunks(base: readonly JsonValue[], baseKeys: readonly string[], side: readonly JsonValue[]): Hunk[] {
  const match = alignToBase(baseKeys, side.map(canonicalJson));
  const hunks: Hunk[] = [];
  let start = 0;
  let sideFrom = 0;
  for (let i = 0; i <= base.length; i++) {
    if (i < base.length && match[i]! < 0) continue;
    const sideTo = i < base.length ? match[i]! : side.length;
    if (start < i || sideFrom < sideTo) hunks.push({ start, end: i, items: side.slice(sideFrom, sideTo) });
    start = i + 1;
    sideFrom = sideTo + 1;
  }
  const only = hunks.length === 1 ? hunks[0]! : undefined;
  if (only && only.start === 0 && only.end === base.length && isEdit(only)) {
    // Item for item (the same count), it reads as an edit: the new items stand where the old
    // ones did, so the next action keeps its place. Otherwise pops + appends at the back.
    const at = only.items.length === base.length ? 0 : base.length;
    const insert = { start: at, end: at, items: only.items };
    const remove = { start: 0, end: base.length, items: [] };
    return at === 0 ? [insert, remove] : [remove, insert];
  }
  return hunks;
}

/** Hunks sorted by start; at equal start an insertion (before the base item) comes first. */
function hunkOrder(a: Hunk, b: Hunk): number {
  return a.start - b.start || Number(!isInsertion(a)) - Number(!isInsertion(b));
}

function overlapsRegion(h: Hunk, start: number, end: number): boolean {
  if (start === end) return isInsertion(h) && h.start === start;
  return isInsertion(h) ? start < h.start && h.start < end : h.start < end;
}

/** push(...items) without spreading: arrays here may be far longer than an argument list. */
function append(out: JsonValue[], items: readonly JsonValue[], from = 0, to = items.length): void {
  for (let k = from; k < to; k++) out.push(items[k]!);
}

function applyHunks(base: readonly JsonValue[], start: number, end: number, hunks: readonly Hunk[]): JsonValue[] {
  const out: JsonValue[] = [];
  let at = start;
  for (const h of hunks) {
    append(out, base, at, h.start);
    append(out, h.items);
    at = h.end;
  }
  append(out, base, at, end);
  return out;
}

/** Whether ours' block goes first at a shared place: the side saved earlier, a known time before an unknown, else by canonical JSON. */
function oursFirst(times: SideTimes, ours: readonly JsonValue[], theirs: readonly JsonValue[]): boolean {
  const [o, t] = [times.ours, times.theirs];
  if (o !== undefined && t !== undefined && o !== t) return o < t;
  if ((o === undefined) !== (t === undefined)) return o !== undefined;
  return compareStrings(canonicalJson(ours as JsonValue[]), canonicalJson(theirs as JsonValue[])) <= 0;
}

/** Where a block's moved base items end: the block's part up to and including its last base item. */
function movedPart(block: readonly JsonValue[], inBase: (key: string) => boolean): number {
  for (let k = block.length - 1; k >= 0; k--) if (inBase(canonicalJson(block[k]!))) return k + 1;
  return 0;
}

/**
 * Both sides inserted at one place: each block in its own order, the moved base items of both
 * blocks before the new items of both, the earlier side first within each; an item both
 * inserted once.
 */
function combineInsertions(times: SideTimes, inBase: (key: string) => boolean, ours: readonly JsonValue[], theirs: readonly JsonValue[]): JsonValue[] {
  if (ours.length === 0) return [...theirs];
  if (theirs.length === 0) return [...ours];
  const [first, second] = oursFirst(times, ours, theirs) ? [ours, theirs] : [theirs, ours];
  const [m1, m2] = [movedPart(first, inBase), movedPart(second, inBase)];
  const out: JsonValue[] = [];
  // An item one block already put out is, in the other block, the same insertion: kept once.
  const putBy = new Map<string, 1 | 2>();
  const put = (block: readonly JsonValue[], side: 1 | 2, from: number, to: number): void => {
    for (let k = from; k < to; k++) {
      const key = canonicalJson(block[k]!);
      if ((putBy.get(key) ?? side) !== side) continue;
      putBy.set(key, side);
      out.push(block[k]!);
    }
  };
  put(first, 1, 0, m1);
  put(second, 2, 0, m2);
  put(first, 1, m1, first.length);
  put(second, 2, m2, second.length);
  return out;
}

/** Removals and insertions only: drop what either side removed, keep what either inserted. */
function combineWithoutEdits(q: QueueSides, start: number, end: number, ours: readonly Hunk[], theirs: readonly Hunk[]): JsonValue[] {
  const base = q.base;
  const removed = new Set<number>();
  for (const h of [...ours, ...theirs]) for (let i = h.start; i < h.end; i++) removed.add(i);
  const insertions = (hunks: readonly Hunk[]): Map<number, JsonValue[]> => new Map(hunks.filter(isInsertion).map((h) => [h.start, h.items]));
  const oursAt = insertions(ours);
  const theirsAt = insertions(theirs);
  const out: JsonValue[] = [];
  for (let gap = start; gap <= end; gap++) {
    append(out, combineInsertions(q.times, q.inBase, oursAt.get(gap) ?? [], theirsAt.get(gap) ?? []));
    if (gap < end && !removed.has(gap)) out.push(base[gap]!);
  }
  return out;
}

export function mergeQueue(
  ctx: MergeContext,
  path: PathSegment[],
  base: readonly JsonValue[],
  ours: readonly JsonValue[],
  theirs: readonly JsonValue[],
  times: SideTimes,
): JsonValue[] {
  const baseKeys = base.map(canonicalJson);
  let baseSet: Set<string> | undefined;
  const inBase = (key: string): boolean => (baseSet ??= new Set(baseKeys)).has(key);
  const oursHunks = sideHunks(base, baseKeys, ours);
  const theirsHunks = sideHunks(base, baseKeys, theirs);
  const hasItems = (hunks: readonly Hunk[]): boolean => hunks.some((h) => h.items.length > 0);
  let movedTwice: Set<string> | undefined;
  if (hasItems(oursHunks) && hasItems(theirsHunks)) {
    const theirsMoved = movedKeys(theirsHunks, inBase);
    movedTwice = new Set([...movedKeys(oursHunks, inBase)].filter((key) => theirsMoved.has(key)));
  }
  const placed = new Set<string>();
  const once = (run: JsonValue[]): JsonValue[] => {
    if (!movedTwice?.size) return run;
    return run.filter((item) => {
      const key = canonicalJson(item);
      if (!movedTwice.has(key)) return true;
      if (placed.has(key)) return false;
      placed.add(key);
      return true;
    });
  };
  const q: QueueSides = { base, times, inBase, once };
  const out: JsonValue[] = [];
  let at = 0;
  let i = 0;
  let j = 0;
  while (i < oursHunks.length || j < theirsHunks.length) {
    const takeOurs = j === theirsHunks.length || (i < oursHunks.length && hunkOrder(oursHunks[i]!, theirsHunks[j]!) <= 0);
    const first = takeOurs ? oursHunks[i++]! : theirsHunks[j++]!;
    const regionOurs = takeOurs ? [first] : [];
    const regionTheirs = takeOurs ? [] : [first];
    const start = first.start;
    let end = first.end;
    for (let grew = true; grew; ) {
      grew = false;
      if (i < oursHunks.length && overlapsRegion(oursHunks[i]!, start, end)) {
        end = Math.max(end, oursHunks[i]!.end);
        regionOurs.push(oursHunks[i++]!);
        grew = true;
      }
      if (j < theirsHunks.length && overlapsRegion(theirsHunks[j]!, start, end)) {
        end = Math.max(end, theirsHunks[j]!.end);
        regionTheirs.push(theirsHunks[j++]!);
        grew = true;
      }
    }
    append(out, base, at, start);
    append(out, resolveRegion(ctx, path, out.length, q, start, end, regionOurs, regionTheirs));
    at = end;
  }
  append(out, base, at);
  return out;
}

function resolveRegion(
  ctx: MergeContext,
  path: PathSegment[],
  index: number,
  q: QueueSides,
  start: number,
  end: number,
  ours: readonly Hunk[],
  theirs: readonly Hunk[],
): JsonValue[] {
  const base = q.base;
  const o = applyHunks(base, start, end, ours);
  const t = applyHunks(base, start, end, theirs);
  const b = base.slice(start, end);
  const [ko, kt, kb] = [canonicalJson(o), canonicalJson(t), canonicalJson(b)];
  if (ko === kt || kt === kb) return q.once(o);
  if (ko === kb) return q.once(t);
  if (!ours.some(isEdit) && !theirs.some(isEdit)) return q.once(combineWithoutEdits(q, start, end, ours, theirs));
  return ctx.sliceConflict([...path, index], b, o, t);
}
