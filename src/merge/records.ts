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
// (matchGroup), so disjoint edits merge and a real conflict is marked at that row alone. A row
// both sides added alike is one row, whatever else either side added under that id.
// Each side is keyed against base alone, so the keys (and the merge) stay symmetric.

import { ROW_NAME_KEYS } from '../protocol/row-names.js';
import type { JsonValue } from '../protocol/types.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { canonicalJson } from '../protocol/identity.js';
import { alignToBase } from './align.js';
import { compareStrings, jsonEqual, recordId } from './json-value.js';

interface RecordIndex {
  order: string[];
  byId: Map<string, JsonValue>;
}

/**
 * The ids of `entries`, or null when some entry has no usable id: then the array is not a record
 * set. `byLabel` (the protocol's progress_table): a row written without an id is known by its
 * label, as readers show it, so one such row does not make the whole table one value. `byText`
 * (the protocol's blockers): a blocker written as a string (as people write one) is known by its
 * text, so adding one on a branch and resolving another on the other merge (red team, 12-05).
 */
function idsOf(entries: readonly JsonValue[], byLabel: boolean, byText: boolean): string[] | null {
  const ids: string[] = [];
  for (const entry of entries) {
    const id = recordId(entry) ?? (byLabel ? labelId(entry) : undefined) ?? (byText && typeof entry === 'string' ? `text:${entry}` : undefined);
    if (id === undefined) return null;
    ids.push(id);
  }
  return ids;
}

/**
 * A row's identity by its label when it has no id (never equal to an id's identity: "id:…"), or
 * without a label by the name it is written with ({"name": "Auth"}: red team, 12-06, such rows
 * made the whole table one value), one identity with the label it is repaired to.
 */
function labelId(entry: JsonValue): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || Object.prototype.hasOwnProperty.call(entry, 'id')) return undefined;
  const row = entry as Record<string, unknown>;
  const named = (v: unknown) => typeof v === 'string' && v.trim() !== '';
  if (Object.prototype.hasOwnProperty.call(row, 'label')) return named(row.label) ? `label:${row.label as string}` : undefined;
  const key = ROW_NAME_KEYS.find((k) => Object.prototype.hasOwnProperty.call(row, k) && named(row[k]));
  return key === undefined ? undefined : `label:${row[key] as string}`;
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

/** A side's rows of each repeated id: their indices, and which base row each is (matchGroup; -1 added). */
type Groups = Map<string, { rows: number[]; toBase: number[]; texts: string[] }>;

function groupRows(entries: readonly JsonValue[], ids: readonly string[], repeated: ReadonlySet<string>, baseRows: Map<string, string[]> | null): Groups {
  const groups: Groups = new Map();
  ids.forEach((id, i) => {
    if (repeated.has(id)) (groups.get(id) ?? groups.set(id, { rows: [], toBase: [], texts: [] }).get(id)!).rows.push(i);
  });
  for (const [id, group] of groups) {
    group.texts = group.rows.map((i) => canonicalJson(entries[i]!));
    group.toBase = baseRows ? matchGroup(baseRows.get(id) ?? [], group.texts) : group.rows.map((_, n) => n);
  }
  return groups;
}

/** How often each row text was added (not matched to a base row) to each repeated id. */
function addedTexts(groups: Groups): Map<string, Map<string, number>> {
  const added = new Map<string, Map<string, number>>();
  for (const [id, { toBase, texts }] of groups) {
    const counts = new Map<string, number>();
    toBase.forEach((b, n) => b < 0 && counts.set(texts[n]!, (counts.get(texts[n]!) ?? 0) + 1));
    added.set(id, counts);
  }
  return added;
}

/**
 * The rows both sides added alike, per repeated id and text, as many times as the side adding
 * it fewer times did: one row, not two (taking either side of a conflict beside it must not
 * double it). Symmetric in the two sides, as the keys must be.
 */
function addedAlike(ours: Groups, theirs: Groups): Map<string, Map<string, number>> {
  const o = addedTexts(ours);
  const t = addedTexts(theirs);
  const alike = new Map<string, Map<string, number>>();
  for (const [id, counts] of o) {
    const other = t.get(id);
    if (!other) continue;
    const both = new Map<string, number>();
    for (const [text, n] of counts) if (other.has(text)) both.set(text, Math.min(n, other.get(text)!));
    alike.set(id, both);
  }
  return alike;
}

/**
 * Keys for one side's rows: its id, or for a repeated id the key of the base row it is
 * (matchGroup); a row both sides added alike its text's key; other added rows keys past
 * base's, in order. Base itself (`alike` null) keys its repeated rows by position.
 */
function keyRows(entries: readonly JsonValue[], ids: readonly string[], groups: Groups, baseRows: Map<string, string[]> | null, alike: Map<string, Map<string, number>> | null): RecordIndex {
  const keys: string[] = ids.slice();
  for (const [id, { rows, toBase, texts }] of groups) {
    let extra = baseRows?.get(id)?.length ?? 0;
    const shared = new Map(alike?.get(id));
    const seen = new Map<string, number>();
    rows.forEach((i, n) => {
      if (toBase[n]! >= 0) return void (keys[i] = rowKey(id, toBase[n]!));
      const k = seen.get(texts[n]!) ?? 0;
      seen.set(texts[n]!, k + 1);
      keys[i] = k < (shared.get(texts[n]!) ?? 0) ? `same:${k}:${id}\0${texts[n]}` : rowKey(id, extra++);
    });
  }
  const byId = new Map<string, JsonValue>();
  keys.forEach((key, i) => byId.set(key, entries[i]!));
  return { order: keys, byId };
}

/** The three sides keyed alike, or null when some side is not a record set. */
function indexSides(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], byLabel: boolean, byText: boolean): [RecordIndex, RecordIndex, RecordIndex] | null {
  const [b, o, t] = [idsOf(base, byLabel, byText), idsOf(ours, byLabel, byText), idsOf(theirs, byLabel, byText)];
  if (!b || !o || !t) return null;
  const repeated = new Set<string>();
  for (const list of [b, o, t]) addRepeats(list, repeated);
  if (repeated.size === 0) return [keyRows(base, b, new Map(), null, null), keyRows(ours, o, new Map(), null, null), keyRows(theirs, t, new Map(), null, null)];
  const baseRows = new Map<string, string[]>([...repeated].map((id) => [id, []]));
  b.forEach((id, i) => baseRows.get(id)?.push(canonicalJson(base[i]!)));
  const [og, tg] = [groupRows(ours, o, repeated, baseRows), groupRows(theirs, t, repeated, baseRows)];
  const alike = addedAlike(og, tg);
  return [keyRows(base, b, groupRows(base, b, repeated, null), null, null), keyRows(ours, o, og, baseRows, alike), keyRows(theirs, t, tg, baseRows, alike)];
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
  opts: { byLabel?: boolean; byText?: boolean } = {},
): JsonValue[] | undefined {
  const sides = indexSides(base, ours, theirs, opts.byLabel === true, opts.byText === true);
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
