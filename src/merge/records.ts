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

import type { JsonValue } from '../protocol/types.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { compareStrings, jsonEqual, recordId } from './json-value.js';

interface RecordIndex {
  order: string[];
  byId: Map<string, JsonValue>;
}

/** Null when some entry has no usable id or an id repeats: then the array is not a record set. */
function indexRecords(entries: readonly JsonValue[]): RecordIndex | null {
  const byId = new Map<string, JsonValue>();
  for (const entry of entries) {
    const id = recordId(entry);
    if (id === undefined || byId.has(id)) return null;
    byId.set(id, entry);
  }
  return { order: [...byId.keys()], byId };
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

/** Undefined when some side is not a record set (then the caller applies the plain value rules). */
export function mergeRecords(
  ctx: MergeContext,
  path: PathSegment[],
  policyPath: string[],
  base: readonly JsonValue[],
  ours: readonly JsonValue[],
  theirs: readonly JsonValue[],
): JsonValue[] | undefined {
  const b = indexRecords(base);
  const o = indexRecords(ours);
  const t = indexRecords(theirs);
  if (!b || !o || !t) return undefined;
  const result: JsonValue[] = [];
  for (const id of orderSurvivors(b, o, t)) {
    const [inBase, inOurs, inTheirs] = [b.byId.get(id), o.byId.get(id), t.byId.get(id)];
    const untouched = inBase !== undefined && jsonEqual(inBase, inOurs) && jsonEqual(inBase, inTheirs);
    const merged = untouched ? inBase : ctx.node([...path, result.length], policyPath, inBase, inOurs, inTheirs);
    if (merged !== undefined) result.push(merged);
  }
  return result;
}
