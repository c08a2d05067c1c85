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
// side's block keeps its own order and the two blocks are ordered by their canonical
// JSON. "Ours first" cannot be symmetric: merging (O,A,B) and (O,B,A) must give the same
// queue, so the order may not depend on which side is checked out.

import type { JsonValue } from '../protocol/types.js';
import { alignToBase } from './align.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { canonicalJson } from '../protocol/identity.js';
import { compareStrings } from './json-value.js';

/** base[start, end) became `items` on one side; start === end is a pure insertion. */
interface Hunk {
  start: number;
  end: number;
  items: JsonValue[];
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

/** Both sides inserted at one place: each block in its own order, blocks by canonical JSON, shared items once. */
function combineInsertions(ours: readonly JsonValue[], theirs: readonly JsonValue[]): JsonValue[] {
  if (ours.length === 0) return [...theirs];
  if (theirs.length === 0) return [...ours];
  const [first, second] = compareStrings(canonicalJson(ours as JsonValue[]), canonicalJson(theirs as JsonValue[])) <= 0 ? [ours, theirs] : [theirs, ours];
  const inFirst = new Set(first.map(canonicalJson));
  return [...first, ...second.filter((item) => !inFirst.has(canonicalJson(item)))];
}

/** Removals and insertions only: drop what either side removed, keep what either inserted. */
function combineWithoutEdits(base: readonly JsonValue[], start: number, end: number, ours: readonly Hunk[], theirs: readonly Hunk[]): JsonValue[] {
  const removed = new Set<number>();
  for (const h of [...ours, ...theirs]) for (let i = h.start; i < h.end; i++) removed.add(i);
  const insertions = (hunks: readonly Hunk[]): Map<number, JsonValue[]> => new Map(hunks.filter(isInsertion).map((h) => [h.start, h.items]));
  const oursAt = insertions(ours);
  const theirsAt = insertions(theirs);
  const out: JsonValue[] = [];
  for (let gap = start; gap <= end; gap++) {
    append(out, combineInsertions(oursAt.get(gap) ?? [], theirsAt.get(gap) ?? []));
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
): JsonValue[] {
  const baseKeys = base.map(canonicalJson);
  const oursHunks = sideHunks(base, baseKeys, ours);
  const theirsHunks = sideHunks(base, baseKeys, theirs);
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
    append(out, resolveRegion(ctx, path, out.length, base, start, end, regionOurs, regionTheirs));
    at = end;
  }
  append(out, base, at);
  return out;
}

function resolveRegion(
  ctx: MergeContext,
  path: PathSegment[],
  index: number,
  base: readonly JsonValue[],
  start: number,
  end: number,
  ours: readonly Hunk[],
  theirs: readonly Hunk[],
): JsonValue[] {
  const o = applyHunks(base, start, end, ours);
  const t = applyHunks(base, start, end, theirs);
  const b = base.slice(start, end);
  const [ko, kt, kb] = [canonicalJson(o), canonicalJson(t), canonicalJson(b)];
  if (ko === kt || kt === kb) return o;
  if (ko === kb) return t;
  if (!ours.some(isEdit) && !theirs.some(isEdit)) return combineWithoutEdits(base, start, end, ours, theirs);
  return ctx.sliceConflict([...path, index], b, o, t);
}
