// Arrays of records with an `id` (blockers, progress_table), merged per id:
// kept on both sides -> merged key by key; added on one side -> kept; removed on one
// side -> removed if the other left it alone, a conflict if the other changed it.
//
// Order, chosen so that swapping ours and theirs gives the same array:
//  - records present on all three sides keep base order, unless exactly one side (or
//    both alike) reordered them, then that order;
//  - every other record goes right after its nearest surviving predecessor on the side
//    that has it (for a record added on both sides, the smaller of the two anchors);
//    records sharing an anchor are sorted by id, and each keeps its own followers
//    right behind it, so a run added by one side stays contiguous.
//
// Rows sharing an id (hand-written tables repeat one) are told apart, not given up on: each
// side's row of a repeated id takes the key of the base row of that id it stands for
// (matchGroup), so disjoint edits merge and a real conflict is marked at that row alone.
// Each side is keyed against base alone, so the keys (and the merge) stay symmetric.

import type { JsonValue } from '../protocol/types.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { canonicalJson } from '../protocol/identity.js';
import { alignToBase } from './align.js';
import { compareStrings, jsonEqual, recordId } from './json-value.js';

interface RecordIndex {
  order: string[];
  byId: Map<string, JsonValue>;
}

/** The ids of `entries`, or null when some entry has no usable id: then the array is not a record set. */
function idsOf(entries: readonly JsonValue[]): string[] | null {
  const ids: string[] = [];
  for (const entry of entries) {
    const id = recordId(entry);
    if (id === undefined) return null;
    ids.push(id);
  }
  return ids;
}

function addRepeats(ids: readonly string[], repeated: Set<string>): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) repeated.add(id);
    seen.add(id);
  }
}

/** The key of the `n`th row of repeated id `id` (record ids are keyed "id:...", so none collides). */
const rowKey = (id: string, n: number) => `dup:${n}:${id}`;

/**
 * Which base row of a repeated id each of a side's rows of that id is (-1: a row the side
 * added). As many rows as base: row by row (edits in place), unless the side only reordered
 * them. Otherwise rows equal to base rows, in order, pair up (align.ts), and between those
 * pairs the rest pair row by row; what is left over was added or removed.
 */
function matchGroup(base: readonly string[], side: readonly string[]): number[] {
  const toBase = new Array<number>(side.length).fill(-1);
  if (side.length === base.length) {
    const sorted = (xs: readonly string[]) => [...xs].sort(compareStrings).join('\n');
    if (sorted(side) !== sorted(base)) return toBase.map((_, i) => i);
    const free = new Map<string, { at: number; rows: number[] }>();
    base.forEach((text, n) => (free.get(text) ?? free.set(text, { at: 0, rows: [] }).get(text)!).rows.push(n));
    return side.map((text) => {
      const same = free.get(text)!;
      return same.rows[same.at++]!;
    });
  }
  const match = alignToBase(base, side);
  let sideFrom = 0;
  let baseFrom = 0;
  for (let n = 0; n <= base.length; n++) {
    if (n < base.length && match[n]! < 0) continue;
    const sideTo = n < base.length ? match[n]! : side.length;
    for (let k = 0; baseFrom + k < n && sideFrom + k < sideTo; k++) toBase[sideFrom + k] = baseFrom + k;
    if (n < base.length) toBase[sideTo] = n;
    baseFrom = n + 1;
    sideFrom = sideTo + 1;
  }
  return toBase;
}

/**
 * Keys for one side's rows: its id, or for a repeated id the key of the base row it is
 * (matchGroup); rows the side added get keys past base's, in order. Base itself (`baseRows`
 * null) keys its repeated rows by position.
 */
function keyRows(entries: readonly JsonValue[], ids: readonly string[], repeated: ReadonlySet<string>, baseRows: Map<string, string[]> | null): RecordIndex {
  const keys: string[] = ids.slice();
  const groups = new Map<string, number[]>();
  ids.forEach((id, i) => {
    if (repeated.has(id)) (groups.get(id) ?? groups.set(id, []).get(id)!).push(i);
  });
  for (const [id, mine] of groups) {
    const rows = baseRows?.get(id) ?? [];
    const toBase = baseRows ? matchGroup(rows, mine.map((i) => canonicalJson(entries[i]!))) : mine.map((_, n) => n);
    let extra = rows.length;
    mine.forEach((i, n) => (keys[i] = rowKey(id, toBase[n]! >= 0 ? toBase[n]! : extra++)));
  }
  const byId = new Map<string, JsonValue>();
  keys.forEach((key, i) => byId.set(key, entries[i]!));
  return { order: keys, byId };
}

/** The three sides keyed alike, or null when some side is not a record set. */
function indexSides(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[]): [RecordIndex, RecordIndex, RecordIndex] | null {
  const [b, o, t] = [idsOf(base), idsOf(ours), idsOf(theirs)];
  if (!b || !o || !t) return null;
  const repeated = new Set<string>();
  for (const list of [b, o, t]) addRepeats(list, repeated);
  let baseRows: Map<string, string[]> | null = null;
  if (repeated.size > 0) {
    const rows = new Map<string, string[]>([...repeated].map((id) => [id, []]));
    b.forEach((id, i) => rows.get(id)?.push(canonicalJson(base[i]!)));
    baseRows = rows;
  }
  return [keyRows(base, b, repeated, null), keyRows(ours, o, repeated, baseRows), keyRows(theirs, t, repeated, baseRows)];
}

function sameSequence(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** For each id in `order`: the nearest preceding id that is in `survivors` ('' = at the start). */
function anchorsIn(order: readonly string[], survivors: ReadonlySet<string>): Map<string, string> {
  const anchors = new Map<string, string>();
  let previous = '';
  for (const id of order) {
    anchors.set(id, previous);
    if (survivors.has(id)) previous = id;
  }
  return anchors;
}

function orderOfCommon(base: RecordIndex, ours: RecordIndex, theirs: RecordIndex): string[] {
  const common = base.order.filter((id) => ours.byId.has(id) && theirs.byId.has(id));
  const commonSet = new Set(common);
  const oursOrder = ours.order.filter((id) => commonSet.has(id));
  const theirsOrder = theirs.order.filter((id) => commonSet.has(id));
  const oursMoved = !sameSequence(oursOrder, common);
  const theirsMoved = !sameSequence(theirsOrder, common);
  if (oursMoved && !theirsMoved) return oursOrder;
  if (theirsMoved && !oursMoved) return theirsOrder;
  if (oursMoved && sameSequence(oursOrder, theirsOrder)) return oursOrder;
  return common;
}

function survives(id: string, base: RecordIndex, ours: RecordIndex, theirs: RecordIndex): boolean {
  const b = base.byId.get(id);
  const o = ours.byId.get(id);
  const t = theirs.byId.get(id);
  if (o !== undefined && t !== undefined) return true;
  if (b === undefined) return true; // added on one side
  // Removed on one side: it stays (as a conflict) only if the other side changed it.
  return o !== undefined ? !jsonEqual(b, o) : t !== undefined && !jsonEqual(b, t);
}

function orderSurvivors(base: RecordIndex, ours: RecordIndex, theirs: RecordIndex): string[] {
  const all = new Set([...base.order, ...ours.order, ...theirs.order]);
  const survivors = new Set([...all].filter((id) => survives(id, base, ours, theirs)));
  const main = orderOfCommon(base, ours, theirs);
  const inMain = new Set(main);

  const oursAnchors = anchorsIn(ours.order, survivors);
  const theirsAnchors = anchorsIn(theirs.order, survivors);
  const baseAnchors = anchorsIn(base.order, survivors);
  const followers = new Map<string, string[]>();
  for (const id of survivors) {
    if (inMain.has(id)) continue;
    const candidates = [oursAnchors.get(id), theirsAnchors.get(id)].filter((a): a is string => a !== undefined);
    const anchor = candidates.length > 0 ? candidates.sort(compareStrings)[0]! : (baseAnchors.get(id) ?? '');
    const list = followers.get(anchor) ?? [];
    list.push(id);
    followers.set(anchor, list);
  }
  for (const list of followers.values()) list.sort(compareStrings);

  const result: string[] = [];
  const emitted = new Set<string>();
  // Depth-first with an explicit stack: a 50k-long chain of additions must not recurse.
  const emitWithFollowers = (root: string): void => {
    const stack = [root];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (emitted.has(id)) continue;
      emitted.add(id);
      if (id !== '') result.push(id);
      const next = followers.get(id) ?? [];
      for (let i = next.length - 1; i >= 0; i--) stack.push(next[i]!);
    }
  };
  emitWithFollowers('');
  for (const id of main) emitWithFollowers(id);
  // Anchors chosen from two sides can form a cycle; whatever it cut off goes last, by id.
  for (const id of [...survivors].sort(compareStrings)) emitWithFollowers(id);
  return result;
}

/** Undefined when some entry has no usable id (then the caller applies the plain value rules). */
export function mergeRecords(
  ctx: MergeContext,
  path: PathSegment[],
  policyPath: string[],
  base: readonly JsonValue[],
  ours: readonly JsonValue[],
  theirs: readonly JsonValue[],
): JsonValue[] | undefined {
  const sides = indexSides(base, ours, theirs);
  if (!sides) return undefined;
  const [b, o, t] = sides;
  const result: JsonValue[] = [];
  for (const id of orderSurvivors(b, o, t)) {
    const [inBase, inOurs, inTheirs] = [b.byId.get(id), o.byId.get(id), t.byId.get(id)];
    const untouched = inBase !== undefined && jsonEqual(inBase, inOurs) && jsonEqual(inBase, inTheirs);
    const merged = untouched ? inBase : ctx.node([...path, result.length], policyPath, inBase, inOurs, inTheirs);
    if (merged !== undefined) result.push(merged);
  }
  return result;
}
