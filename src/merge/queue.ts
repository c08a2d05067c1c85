// next_actions: a queue popped from the front, appended at the back, sometimes edited in
// place. Each side is aligned to the base and described as hunks (base range -> side
// items); overlapping hunks of the two sides form a region, resolved as follows:
//  - one side left the region as in base, or both made it alike: take the changed one;
//  - only removals and insertions: every item removed by either side is gone (pops
//    union), and both sides' inserted items are kept, an item inserted by both once;
//  - an in-place edit against a removal or a different edit: a conflict on that run.
// A side that replaced its whole queue (every base item gone, new items after) is read as
// pops + appends, not as an edit: that is what `done` + append does on a short queue. The
// new items stay in front only when they replace the old item for item. Item for item with
// each action's `text` kept, it is an edit (a priority changed), as in a longer queue. Where
// the side did (logged done) or moved some of the actions, not all, the rest is an edit.
//
// Where both sides insert at the same place (typically both append at the end), each
// side's block keeps its own order. Items already queued in base (a side moved them there:
// a reprioritised queue) come before items new to the queue, so an action one side appended
// stays behind every older one. Between the two sides, the block of the side saved earlier
// (its `updated_at`; a side without a valid one after) comes first, equal times by canonical
// JSON. "Ours first" cannot be symmetric: merging (O,A,B) and (O,B,A) must give the same
// queue, so the order may not depend on which side is checked out. No action stands more
// often than the side holding it most often holds it: one both sides moved to different
// places, or added at different places, stands once, at the first of them.
//
// A conflict is a run of the queue, unless `resolve` (which merges again the sides its
// markers hold, the rest of the queue in all three) would read that run otherwise: then the
// conflict is the whole queue (see mergeQueue), and taking a side of it takes that side's runs
// where the sides conflict, the rest as merged. Either way a conflict holds what the sides
// contest and no more: a side's run of removals is a pop of each action, and an edit beside
// actions the side did or moved elsewhere an edit of the others alone.

import type { JsonValue } from '../protocol/types.js';
import { alignToBase } from './align.js';
import type { MergeContext, PathSegment, SideTimes } from './conflict.js';
import { canonicalJson, isJsonObject } from '../protocol/identity.js';
import { compareStrings } from './json-value.js';
import { actionWords, marksDone } from '../protocol/marked-done.js';
import { unwrapped, wrapRequeued } from './requeued.js';

/** base[start, end) became `items` on one side; start === end is a pure insertion. */
interface Hunk {
  start: number;
  end: number;
  items: JsonValue[];
}

/** Which side's block goes first where both insert at one place: the one saved earlier, or (equal or unknown times) by canonical JSON. */
type Order = 'ours' | 'theirs' | 'canonical';

/** The base queue, whether a canonical key is one of its items, and the order of the sides' blocks. */
interface QueueSides {
  base: readonly JsonValue[];
  inBase: (key: string) => boolean;
  /** Each base item's wordsKey, and how many items with each wordsKey every side holds. */
  baseWords: readonly string[];
  baseWordCounts: ReadonlyMap<string, number>;
  oursWords: ReadonlyMap<string, number>;
  theirsWords: ReadonlyMap<string, number>;
  order: Order;
  /** Set once the order decided something (both sides inserted at one place): else every order gives the same merge. */
  ordered: boolean;
  /** Each side's items, by canonical JSON. */
  oursTexts: ReadonlySet<string>;
  theirsTexts: ReadonlySet<string>;
  /** Edits of actions the other side moved, by wordsKey: the edited item, and the moved copy's text as in base. */
  carried: Map<string, { item: JsonValue; was: string }>;
}

/** The actions each side logged done since the base, by their words (requeued.ts doneSinceBase). */
type SidesDone = { ours: ReadonlyMap<string, number>; theirs: ReadonlyMap<string, number> };

/** A merged queue before its conflicts are recorded: resolved runs (`chosen`: a conflicting run taken from the side preferred) and the conflicting runs of each side. */
type Piece = { run: JsonValue[]; chosen?: true } | { base: JsonValue[]; ours: JsonValue[]; theirs: JsonValue[] };

type Side = 'ours' | 'theirs';

const isInsertion = (h: Hunk): boolean => h.start === h.end;
const isEdit = (h: Hunk): boolean => h.start < h.end && h.items.length > 0;

/**
 * What makes an item one action across the sides: its words (a string, or an object's `text`,
 * a tick taken off), so an action given a priority or an owner, made an object, or ticked off
 * by hand is still that action; any other item its canonical JSON.
 */
function wordsKey(item: JsonValue, canonical: string): string {
  const words = actionWords(item);
  return words === undefined ? `\u0000${canonical}` : `\u0001${words}`;
}

function countKeys(keys: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return counts;
}

function sideHunks(base: readonly JsonValue[], baseKeys: readonly string[], baseWords: readonly string[], side: readonly JsonValue[], sideKeys: readonly string[], sideWords: readonly string[], done?: ReadonlyMap<string, number>, wholeQueue = true): Hunk[] {
  // Items unique on both sides and left exactly as they were anchor the alignment. Between them,
  // actions are matched by their words, so one whose other keys a side edited stays in its
  // place, an edit of that action alone; and repeated ones from the end: a queue is popped from
  // the front, so of two "Run tests" the one a side still holds is the later one (red team,
  // 12-06: matched from the front, one side's pop of the first read as a pop of the second, and
  // the union lost both).
  const match = alignToBase(baseKeys, sideKeys, 'none');
  let [b0, s0] = [0, 0];
  for (let i = 0; i <= base.length; i++) {
    if (i < base.length && match[i]! < 0) continue;
    const sTo = i < base.length ? match[i]! : side.length;
    if (i > b0 && sTo > s0) {
      const [was, now] = [baseWords.slice(b0, i), sideWords.slice(s0, sTo)];
      alignToBase(was, now, appendedOnly(was, now) ? 'first' : 'last').forEach((m, k) => m >= 0 && (match[b0 + k] = s0 + m));
    }
    [b0, s0] = [i + 1, sTo + 1];
  }
  const hunks: Hunk[] = [];
  let start = 0;
  let sideFrom = 0;
  for (let i = 0; i <= base.length; i++) {
    if (i < base.length && match[i]! < 0) continue;
    const sideTo = i < base.length ? match[i]! : side.length;
    if (start < i || sideFrom < sideTo) hunks.push({ start, end: i, items: side.slice(sideFrom, sideTo) });
    // The same action, its other keys edited: an edit of it in place.
    if (i < base.length && baseKeys[i] !== sideKeys[sideTo]) hunks.push({ start: i, end: i + 1, items: [side[sideTo]!] });
    start = i + 1;
    sideFrom = sideTo + 1;
  }
  const only = hunks.length === 1 ? hunks[0]! : undefined;
  // Item for item with the same actions (an action's priority or owner changed, or a tick): an edit in
  // place, as it is in a longer queue, never a pop and an append that would keep the action
  // twice beside the other side's edit of it (red team, 12-05).
  const edited = only !== undefined && only.items.length === base.length && only.items.every((item, k) => sameAction(item, base[k]!));
  const [held, was] = [countKeys(sideWords), countKeys(baseWords)];
  // Where it did or moved some of the actions, not all, the rest is an edit of those alone
  // (movedOut). Where a side is preferred (`wholeQueue` false: preferring), only a queue whose
  // every action it did or moved reads as replaced: a rewrite read so would stand beside the
  // preferred side's version of the same actions, as an append.
  const part = only !== undefined && isEdit(only) ? editedPart(only, baseWords, held, was, done) : undefined;
  const peeled = part !== undefined && part[0] < part[1] && part[1] - part[0] < base.length;
  const allGone = part !== undefined && part[0] === part[1];
  if ((wholeQueue || allGone) && only && only.start === 0 && only.end === base.length && isEdit(only) && !edited && !peeled) {
    // Item for item (the same count), it reads as an edit: the new items stand where the old
    // ones did, so the next action keeps its place. Otherwise pops + appends at the back.
    const at = only.items.length === base.length ? 0 : base.length;
    const insert = { start: at, end: at, items: only.items };
    const remove = oneByOne({ start: 0, end: base.length, items: [] });
    return at === 0 ? [insert, ...remove] : [...remove, insert];
  }
  return hunks.flatMap((h) => itemByItem(base, h)).flatMap((h) => movedOut(h, baseWords, held, was, done)).flatMap(oneByOne);
}

/** A removal of a run, one removal per action: the other side's edit of one of them meets that one alone. */
function oneByOne(h: Hunk): Hunk[] {
  if (h.items.length > 0 || h.end - h.start < 2) return [h];
  return Array.from({ length: h.end - h.start }, (_, k) => ({ start: h.start + k, end: h.start + k + 1, items: [] }));
}

/**
 * A run of actions the side moved elsewhere (each still held as often as in base) or did (logged
 * in recently_done), new actions standing in their place: a removal and an insertion, not an edit of them, so the other
 * side's tick or pop of a moved action meets a removal (red team, 12-06: a move to the front
 * beside a tick of the action moved conflicted). Where an action's words are gone from the side
 * (reworded, or popped), it stays an edit; only of those, so the moved or done actions at its
 * ends are removals apart from it (red team rt51a 11: `done` of "Run tests" beside a reword of the
 * "Deploy" after it was one edit of both, and the other side's reword of "Deploy" made both one
 * conflict, whose side taken brought "Run tests" back).
 */
function movedOut(h: Hunk, baseWords: readonly string[], held: ReadonlyMap<string, number>, was: ReadonlyMap<string, number>, done?: ReadonlyMap<string, number>): Hunk[] {
  if (!isEdit(h)) return [h];
  const [from, to] = editedPart(h, baseWords, held, was, done);
  if (from === to) return [{ start: h.start, end: h.start, items: h.items }, { start: h.start, end: h.end, items: [] }];
  const removed = (start: number, end: number): Hunk[] => (start < end ? [{ start, end, items: [] }] : []);
  return [...removed(h.start, from), { start: from, end: to, items: h.items }, ...removed(to, h.end)];
}

/**
 * The base range [from, to) an edit hunk edited: its range less the actions at either end the
 * side moved elsewhere or logged done (an action whose words the new items hold is edited, not
 * gone). Empty when every action of it is gone.
 */
function editedPart(h: Hunk, baseWords: readonly string[], held: ReadonlyMap<string, number>, was: ReadonlyMap<string, number>, done?: ReadonlyMap<string, number>): [number, number] {
  const words = new Set(h.items.map((item) => wordsKey(item, canonicalJson(item))));
  const gone = (i: number) => {
    const w = baseWords[i]!;
    return !words.has(w) && ((held.get(w) ?? 0) >= (was.get(w) ?? 0) || (w.startsWith('\u0001') && (done?.get(w.slice(1)) ?? 0) > 0));
  };
  let [from, to] = [h.start, h.end];
  while (from < to && gone(from)) from++;
  while (to > from && gone(to - 1)) to--;
  return [from, to];
}

/**
 * Whether a side holds every action of a stretch of the base at least as often as the base did
 * there: copies added, none popped, so the base's copies are the first ones and the new ones
 * were appended behind them (red team, 12-06: a tick of the one "Deploy" landed on a second
 * "Deploy" the other side queued after it). Otherwise the side popped copies from the front
 * and the ones it holds are the last.
 */
function appendedOnly(was: readonly string[], now: readonly string[]): boolean {
  const held = countKeys(now);
  return [...countKeys(was)].every(([key, n]) => (held.get(key) ?? 0) >= n);
}

/**
 * An edit that keeps each action, item for item (priorities added, strings made objects, ticks):
 * one edit per action it changed, so the other side's pop of one of them meets that action
 * alone, not the whole run (red team, 12-06).
 */
function itemByItem(base: readonly JsonValue[], h: Hunk): Hunk[] {
  if (!isEdit(h) || h.items.length === 1 || h.items.length !== h.end - h.start || !h.items.every((item, k) => sameAction(item, base[h.start + k]!))) return [h];
  return h.items.flatMap((item, k) => (canonicalJson(item) === canonicalJson(base[h.start + k]!) ? [] : [{ start: h.start + k, end: h.start + k + 1, items: [item] }]));
}

/** `now` is the action `was`: its words kept with other keys edited, or ticked off by hand. */
const sameAction = (now: JsonValue, was: JsonValue): boolean => sameWords(now, was) || marksDone(now, was);

/** One action with its other keys edited: the same words, as a string or an object's `text` (`"a"` and `{"text": "a", "priority": 1}`). */
function sameWords(a: JsonValue, b: JsonValue): boolean {
  const text = (v: JsonValue) => (typeof v === 'string' ? v : typeof v === 'object' && v !== null && !Array.isArray(v) && typeof v.text === 'string' ? v.text : undefined);
  const t = text(a);
  return t !== undefined && t === text(b);
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

/** The order of the sides' blocks their save times give: the side saved earlier first, a known time before an unknown. */
function orderOf(times: SideTimes): Order {
  const [o, t] = [times.ours, times.theirs];
  if (o !== undefined && t !== undefined && o !== t) return o < t ? 'ours' : 'theirs';
  if ((o === undefined) !== (t === undefined)) return o !== undefined ? 'ours' : 'theirs';
  return 'canonical';
}

/** Whether ours' block goes first at a shared place. */
function oursFirst(order: Order, ours: readonly JsonValue[], theirs: readonly JsonValue[]): boolean {
  if (order !== 'canonical') return order === 'ours';
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
function combineInsertions(q: QueueSides, inBase: (key: string) => boolean, ours: readonly JsonValue[], theirs: readonly JsonValue[]): JsonValue[] {
  if (ours.length === 0) return [...theirs];
  if (theirs.length === 0) return [...ours];
  q.ordered = true;
  const [first, second] = oursFirst(q.order, ours, theirs) ? [ours, theirs] : [theirs, ours];
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
    append(out, combineInsertions(q, q.inBase, oursAt.get(gap) ?? [], theirsAt.get(gap) ?? []));
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
  done?: SidesDone,
): JsonValue[] {
  const order = orderOf(times);
  // An action a side did and queued again is a new one there (requeued.ts).
  if (done) [ours, theirs] = [wrapRequeued(base, ours, done.ours), wrapRequeued(base, theirs, done.theirs)];
  const { pieces: merged, dropped } = mergePieces(base, ours, theirs, order, done);
  // `resolve` merges again what the markers hold: each side is the merged queue with the
  // conflicts cut to that side, and (updated_at merged) both sides saved at one time. Those
  // sides must give back these very conflicts, else resolve would quietly settle them some
  // other way (the alignment of repeated actions and the whole-queue reading depend on the
  // items around a run). Where they do not, the conflict is the whole queue: its sides are
  // then the sides themselves, which merge again to the same. So too where an action of a
  // run stands elsewhere as well (entangled): one side taken would then hold it twice, or
  // lose it where the other side's copy was dropped as a pop. The markers carry no side's save
  // time, so resolve merges them again with the sides tied: the test holds in every order the
  // blocks can take, else a conflict named here would be named elsewhere there.
  const whole = merged.some(isConflict) && (!cutsCleanly(merged, dropped, ours, theirs) || !cutsCleanlyInEveryOrder(base, ours, theirs, order, done) || !stable(base, ours, theirs, done));
  const pieces = whole ? [{ base: [...base], ours: [...ours], theirs: [...theirs] }] : merged;
  // A side taken of the whole queue settles the runs the sides contest, no more: what the merge
  // settled around them (pops, actions done, appends) stays (red team rt51a 11: --theirs brought
  // back an action done, --ours dropped one the other side queued).
  const settled = whole ? { ours: preferring(base, ours, theirs, order, done, 'ours'), theirs: preferring(base, ours, theirs, order, done, 'theirs') } : undefined;
  const out: JsonValue[] = [];
  for (const p of pieces) {
    if (isConflict(p)) append(out, ctx.sliceConflict([...path, out.length], p.base, p.ours.map(unwrapped), p.theirs.map(unwrapped), settled));
    else append(out, p.run.map(unwrapped));
  }
  return out;
}

/**
 * The queue with every conflicting run taken from `side` and the rest merged (a side's rewrite of
 * a whole short queue read as edits, not as pops and appends: sideHunks). The side's own queue
 * where that merge holds an action more often than either side, or less often than both.
 */
function preferring(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], order: Order, done: SidesDone | undefined, side: Side): JsonValue[] {
  const { pieces } = mergePieces(base, ours, theirs, order, done, side);
  const queue = sideOf(pieces, side);
  // Counted as items and as actions (an action with a tick or a priority is still that action).
  const held = holdsSides(queue, ours, theirs) && holdsSides(queue, ours, theirs, (item) => wordsKey(item, canonicalJson(item)));
  return (pieces.some(isConflict) || !held ? (side === 'ours' ? ours : theirs) : queue).map(unwrapped);
}

/**
 * Whether an action of a conflicting run also stands in another piece, or was dropped from a
 * resolved run (atMostAsOften): then taking one side of the markers is not that side's choice.
 */
function entangled(pieces: readonly Piece[], dropped: ReadonlySet<string>): boolean {
  const seenIn = new Map<string, number>();
  let clash = false;
  pieces.forEach((p, n) => {
    const items = isConflict(p) ? [...p.base, ...p.ours, ...p.theirs] : p.run;
    for (const item of items) {
      const key = canonicalJson(item);
      const first = seenIn.get(key);
      if (first === undefined) seenIn.set(key, n);
      else if (first !== n && (isConflict(p) || isConflict(pieces[first]!))) clash = true;
      if (isConflict(p) && dropped.has(wordsKey(item, key))) clash = true;
    }
  });
  return clash;
}

/** Whether the conflicting runs can be taken apart from the rest: no action of one stands elsewhere, and each side taken holds every action as often as the sides do. */
function cutsCleanly(pieces: readonly Piece[], dropped: ReadonlySet<string>, ours: readonly JsonValue[], theirs: readonly JsonValue[]): boolean {
  return !pieces.some(isConflict) || (!entangled(pieces, dropped) && cutsHoldSides(pieces, ours, theirs));
}

/** cutsCleanly for the merge in each order other than `tried` (where the order decided nothing, every order gives that one merge). */
function cutsCleanlyInEveryOrder(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], tried: Order, done?: SidesDone): boolean {
  for (const order of ORDERS) {
    if (order === tried) continue;
    const { pieces, dropped, ordered } = mergePieces(base, ours, theirs, order, done);
    if (!ordered) return true;
    if (!cutsCleanly(pieces, dropped, ours, theirs)) return false;
  }
  return true;
}

/**
 * Whether taking one side of every conflicting run gives a queue holding each action no more
 * often than a side holds it, and at least as often as both sides hold it (neither popped it):
 * a run aligned around a repeated action (moved on one side) may otherwise leave it out of both.
 */
function cutsHoldSides(pieces: readonly Piece[], ours: readonly JsonValue[], theirs: readonly JsonValue[]): boolean {
  return holdsSides(sideOf(pieces, 'ours'), ours, theirs) && holdsSides(sideOf(pieces, 'theirs'), ours, theirs);
}

/** Whether `queue` holds each item (by canonical JSON, or by `key`) no more often than a side holds it, and at least as often as both do. */
function holdsSides(queue: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], key: (item: JsonValue) => string = canonicalJson): boolean {
  const count = (items: readonly JsonValue[]): Map<string, number> => countKeys(items.map(key));
  const [o, t, n] = [count(ours), count(theirs), count(queue)];
  for (const k of new Set([...o.keys(), ...t.keys(), ...n.keys()])) {
    const [held, no, nt] = [n.get(k) ?? 0, o.get(k) ?? 0, t.get(k) ?? 0];
    if (held > Math.max(no, nt) || held < Math.min(no, nt)) return false;
  }
  return true;
}

const ORDERS: readonly Order[] = ['ours', 'theirs', 'canonical'];
const isConflict = (p: Piece): p is Exclude<Piece, { run: JsonValue[] }> => !('run' in p);

/** One side of merged pieces: the resolved runs with each conflict cut to that side. */
function sideOf(pieces: readonly Piece[], side: 'base' | 'ours' | 'theirs'): JsonValue[] {
  const out: JsonValue[] = [];
  for (const p of pieces) append(out, isConflict(p) ? p[side] : p.run);
  return out;
}

/**
 * Whether the merge's conflicts, whatever order the sides' blocks take, merge again from their
 * own sides (in any order) to the same pieces. Not a matter of the save times, so the sides
 * themselves merged again decide the same.
 */
function stable(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], done?: SidesDone): boolean {
  const tried = new Set<string>();
  for (const order of ORDERS) {
    const { pieces, ordered } = mergePieces(base, ours, theirs, order, done);
    const key = canonicalJson(pieces as JsonValue);
    if (!tried.has(key)) {
      tried.add(key);
      const [b, o, t] = [sideOf(pieces, 'base'), sideOf(pieces, 'ours'), sideOf(pieces, 'theirs')];
      // What the sides logged done reaches resolve only for the base it was logged against (merge.ts sidesDone).
      const logged = canonicalJson(b as JsonValue[]) === canonicalJson(base as JsonValue[]) ? done : undefined;
      for (const again of ORDERS) {
        const merged = mergePieces(b, o, t, again, logged);
        if (canonicalJson(merged.pieces as JsonValue) !== key) return false;
        if (!merged.ordered) break;
      }
    }
    if (!ordered) break;
  }
  return true;
}

/**
 * The merge as resolved runs and conflicting runs. No action stands more often than the side
 * holding it most often holds it (an action both sides moved, or both added at different
 * places, stands once, at the first of its places).
 */
function mergePieces(base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[], order: Order, done?: SidesDone, prefer?: Side): { pieces: Piece[]; ordered: boolean; dropped: Set<string> } {
  const baseKeys = base.map(canonicalJson);
  let baseSet: Set<string> | undefined;
  const inBase = (key: string): boolean => (baseSet ??= new Set(baseKeys)).has(key);
  const [oursKeys, theirsKeys] = [ours.map(canonicalJson), theirs.map(canonicalJson)];
  const words = (items: readonly JsonValue[], keys: readonly string[]) => items.map((item, k) => wordsKey(item, keys[k]!));
  const [baseWords, oursWords, theirsWords] = [words(base, baseKeys), words(ours, oursKeys), words(theirs, theirsKeys)];
  const oursHunks = sideHunks(base, baseKeys, baseWords, ours, oursKeys, oursWords, done?.ours, !prefer);
  const theirsHunks = sideHunks(base, baseKeys, baseWords, theirs, theirsKeys, theirsWords, done?.theirs, !prefer);
  const q: QueueSides = { base, order, inBase, ordered: false, baseWords, baseWordCounts: countKeys(baseWords), oursWords: countKeys(oursWords), theirsWords: countKeys(theirsWords), oursTexts: new Set(oursKeys), theirsTexts: new Set(theirsKeys), carried: new Map() };
  const pieces: Piece[] = [];
  let run: JsonValue[] = [];
  const resolved = (items: readonly JsonValue[]): void => append(run, items);
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
    resolved(base.slice(at, start));
    const region = resolveRegion(q, start, end, regionOurs, regionTheirs);
    if (Array.isArray(region)) resolved(region);
    else {
      pieces.push({ run }, prefer ? { run: [...region[prefer]], chosen: true } : region);
      run = [];
    }
    at = end;
  }
  resolved(base.slice(at));
  pieces.push({ run });
  const dropped = new Set<string>();
  const capped = carryEdits(q, atMostAsOften(pieces, baseKeys, baseWords, oursWords, theirsWords, dropped));
  // Two edits of one action, each side's copy moved to its own place: the one copy left cannot
  // hold both, so the whole queue is the conflict (red team, 12-06: one side's priority was lost).
  return { pieces: capped ?? [{ base: [...base], ours: [...ours], theirs: [...theirs] }], ordered: q.ordered, dropped };
}

/**
 * Drops from the resolved runs the later copies of an action beyond the most either side holds,
 * and beyond what the two sides' changes to its count leave (base + each side's change): an
 * action one side popped and the other only moved (a reprioritised queue) is gone, as a pop is.
 * Actions are counted by their words (wordsKey): one given a priority is still that action, and
 * two copies made equal by an edit are still two (red team, 12-06). Each key it drops goes into
 * `dropped`. Where no side popped the action, a dropped copy's edit (a side moved it and gave it a
 * priority) is kept: it takes the place of a kept copy as in base; null when the kept copies
 * hold other edits already, which is the conflict.
 */
function atMostAsOften(pieces: Piece[], baseKeys: readonly string[], baseWords: readonly string[], ours: readonly string[], theirs: readonly string[], dropped: Set<string>): Piece[] | null {
  const [b, o, t] = [countKeys(baseWords), countKeys(ours), countKeys(theirs)];
  const most = (key: string): number => {
    const [nb, no, nt] = [b.get(key) ?? 0, o.get(key) ?? 0, t.get(key) ?? 0];
    // Both sides popped copies of a repeated action: the pops may be of the same copy (each
    // did the first "Run tests"), so as many stay as the side keeping fewer keeps; where the
    // alignment reads them as pops of different copies, the run holds fewer already.
    return Math.min(Math.max(no, nt), Math.max(0, no + nt - nb, Math.min(no, nt, nb)));
  };
  // Every copy in the resolved runs, by action, in queue order.
  const copies = new Map<string, { run: JsonValue[]; at: number; text: string }[]>();
  // A run taken from the side preferred stands as that side has it, as a conflict does.
  for (const p of pieces) {
    if (isConflict(p) || p.chosen) continue;
    p.run.forEach((item, at) => {
      const text = canonicalJson(item);
      const key = wordsKey(item, text);
      const list = copies.get(key);
      if (list) list.push({ run: p.run, at, text });
      else copies.set(key, [{ run: p.run, at, text }]);
    });
  }
  const drop = new Map<JsonValue[], Set<number>>();
  for (const [key, list] of copies) {
    const n = Math.max(0, most(key));
    if (list.length <= n) continue;
    dropped.add(key);
    const [kept, extra] = [list.slice(0, n), list.slice(n)];
    for (const c of extra) (drop.get(c.run) ?? drop.set(c.run, new Set()).get(c.run)!).add(c.at);
    if (Math.min(o.get(key) ?? 0, t.get(key) ?? 0) < (b.get(key) ?? 0)) continue; // popped: done is done
    const asInBase = new Set(baseKeys.filter((_, i) => baseWords[i] === key));
    const keptTexts = new Set(kept.map((c) => c.text));
    const lost = extra.filter((c) => !asInBase.has(c.text) && !keptTexts.has(c.text));
    if (lost.length === 0) continue;
    const plain = kept.filter((c) => asInBase.has(c.text));
    if (new Set(lost.map((c) => c.text)).size > 1 || lost.length > plain.length) return null;
    lost.forEach((c, k) => (plain[k]!.run[plain[k]!.at] = c.run[c.at]!));
  }
  for (const p of pieces) {
    if (isConflict(p)) continue;
    const gone = drop.get(p.run);
    if (gone) p.run = p.run.filter((_, at) => !gone.has(at));
  }
  return pieces.filter((p) => isConflict(p) || p.run.length > 0);
}

/** A region's merged items, or its conflict. */
function resolveRegion(q: QueueSides, start: number, end: number, ours: readonly Hunk[], theirs: readonly Hunk[]): JsonValue[] | Exclude<Piece, { run: JsonValue[] }> {
  const base = q.base;
  const o = applyHunks(base, start, end, ours);
  const t = applyHunks(base, start, end, theirs);
  const b = base.slice(start, end);
  const [ko, kt, kb] = [canonicalJson(o), canonicalJson(t), canonicalJson(b)];
  if (ko === kt || kt === kb) return o;
  if (ko === kb) return t;
  if (!ours.some(isEdit) && !theirs.some(isEdit)) return combineWithoutEdits(q, start, end, ours, theirs);
  // Actions one side ticked off by hand (`"done": true`, `[x] …`), or gave a priority or an owner
  // keeping their words, where the other popped them (`checkpoint done`): done is done, so the
  // tick or the edit reads as the pop (red team, 12-06).
  const [oursPops, theirsPops] = [editsAsPops(q, ours, theirs, q.theirsWords), editsAsPops(q, theirs, ours, q.oursWords)];
  if (oursPops || theirsPops) return resolveRegion(q, start, end, oursPops ?? ours, theirsPops ?? theirs);
  const carry = new Map<string, { item: JsonValue; was: string }>();
  const [oursMoved, theirsMoved] = [editsFollowMoves(q, ours, theirs, q.oursWords, q.theirsWords, q.theirsTexts, carry), editsFollowMoves(q, theirs, ours, q.theirsWords, q.oursWords, q.oursTexts, carry)];
  if (oursMoved || theirsMoved) {
    // Kept only where the region then resolves: a conflict shows each side's edit where it made it.
    const again = resolveRegion(q, start, end, oursMoved ?? ours, theirsMoved ?? theirs);
    if (Array.isArray(again)) {
      for (const [w, c] of carry) q.carried.set(w, c);
      return again;
    }
  }
  const ticked = oneTick(q, ours, theirs) ?? keyByKey(q, ours, theirs);
  if (ticked) return resolveRegion(q, start, end, ticked, ticked);
  return { base: b, ours: o, theirs: t };
}

/**
 * Both sides edited the same action, each its own keys (one ticked it, the other gave it a
 * priority; or both ticked it and one also gave it an owner): the action with both edits, key
 * by key, when no key was set two ways (red team, 12-06: a tick beside a tick and a priority
 * conflicted). Objects only (a string is its text alone); the text itself kept by both.
 */
function keyByKey(q: QueueSides, ours: readonly Hunk[], theirs: readonly Hunk[]): Hunk[] | null {
  const one = oneActionEdited(q, ours, theirs);
  if (one === null) return null;
  const { at, was, a, b } = one;
  const before = isJsonObject(was) ? was : typeof was === 'string' ? { text: was } : null;
  if (before === null || !isJsonObject(a) || !isJsonObject(b) || typeof before.text !== 'string' || a.text !== before.text || b.text !== before.text) return null;
  const same = (x: JsonValue | undefined, y: JsonValue | undefined) => (x === undefined || y === undefined ? x === y : canonicalJson(x) === canonicalJson(y));
  const merged: { [key: string]: JsonValue } = {};
  const keys = [...Object.keys(before), ...[...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => !Object.hasOwn(before, k)).sort(compareStrings)];
  for (const key of keys) {
    const [vb, va, vt] = [Object.hasOwn(before, key) ? before[key] : undefined, Object.hasOwn(a, key) ? a[key] : undefined, Object.hasOwn(b, key) ? b[key] : undefined];
    let v: JsonValue | undefined;
    if (same(va, vt) || same(vt, vb)) v = va;
    else if (same(va, vb)) v = vt;
    else return null; // set two ways
    if (v !== undefined) Object.defineProperty(merged, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return [{ start: at, end: at + 1, items: [merged] }];
}

/** The region is both sides' edit of one and the same action, each to one item: that action and the two items; else null. */
function oneActionEdited(q: QueueSides, ours: readonly Hunk[], theirs: readonly Hunk[]): { at: number; was: JsonValue; a: JsonValue; b: JsonValue } | null {
  if (ours.length !== 1 || theirs.length !== 1) return null;
  const [ho, ht] = [ours[0]!, theirs[0]!];
  if (ho.start !== ht.start || ho.end !== ho.start + 1 || ht.end !== ho.end || ho.items.length !== 1 || ht.items.length !== 1) return null;
  return { at: ho.start, was: q.base[ho.start]!, a: ho.items[0]!, b: ht.items[0]! };
}

/**
 * `side`'s in-place edits (a priority, an owner, a tick) of actions `other` moved elsewhere,
 * unchanged or edited alike: each made a removal here, its edited item put in `carry` for the moved copy
 * (carryEdits); null when there is none. Only an action each of the three holds once, so the
 * moved copy is the one item with its words (red team, 12-06: such a move beside a priority
 * was a conflict).
 */
function editsFollowMoves(q: QueueSides, side: readonly Hunk[], other: readonly Hunk[], sideWords: ReadonlyMap<string, number>, otherWords: ReadonlyMap<string, number>, otherTexts: ReadonlySet<string>, carry: Map<string, { item: JsonValue; was: string }>): Hunk[] | null {
  const base = q.base;
  let changed = false;
  const out = side.map((h) => {
    const i = h.start;
    if (h.end !== i + 1 || h.items.length !== 1 || !sameAction(h.items[0]!, base[i]!)) return h;
    const w = q.baseWords[i]!;
    const was = canonicalJson(base[i]!);
    const once = q.baseWordCounts.get(w) === 1 && sideWords.get(w) === 1 && otherWords.get(w) === 1;
    const removedThere = other.some((o) => o.start <= i && i < o.end && !o.items.some((item) => canonicalJson(item) === was));
    // The moved copy as in base, or made the same edit.
    const moved = otherTexts.has(was) || otherTexts.has(canonicalJson(h.items[0]!));
    if (!once || !removedThere || !moved || q.carried.has(w) || carry.has(w)) return h;
    carry.set(w, { item: h.items[0]!, was });
    changed = true;
    return { start: i, end: i + 1, items: [] };
  });
  return changed ? out : null;
}

/**
 * The carried edits put on the moved copies: each action's one copy in the resolved runs, as in
 * base (or edited alike), becomes the edited item. Null (the whole queue a conflict) where that copy is
 * not there as in base, so no edit is ever dropped.
 */
function carryEdits(q: QueueSides, pieces: Piece[] | null): Piece[] | null {
  if (pieces === null || q.carried.size === 0) return pieces;
  for (const [w, { item, was }] of q.carried) {
    const at: [JsonValue[], number][] = [];
    for (const p of pieces) if (!isConflict(p)) p.run.forEach((x, k) => wordsKey(x, canonicalJson(x)) === w && at.push([p.run, k]));
    const copy = at.length === 1 ? canonicalJson(at[0]![0][at[0]![1]]!) : undefined;
    if (copy !== was && copy !== canonicalJson(item)) return null;
    at[0]![0][at[0]![1]] = item;
  }
  return pieces;
}

/**
 * Both sides ticked off the same action by hand, each with its own mark and nothing else
 * changed (`[x] A` and `A ✅`, or `{"text": "A", "done": true}`): both say it is done, so one
 * tick stands, the later-saved side's (equal or unknown times: the canonical first). Null
 * unless the region is that and only that (red team, 12-06: it was a conflict).
 */
function oneTick(q: QueueSides, ours: readonly Hunk[], theirs: readonly Hunk[]): Hunk[] | null {
  const one = oneActionEdited(q, ours, theirs);
  if (one === null || !onlyTicks(one.a, one.was) || !onlyTicks(one.b, one.was)) return null;
  const theirsStands = q.order === 'canonical' ? compareStrings(canonicalJson(one.b), canonicalJson(one.a)) < 0 : q.order === 'ours';
  return [theirsStands ? theirs[0]! : ours[0]!];
}

const TICK_KEYS = new Set(['text', 'done', 'completed', 'status', 'state']);

/** `now` is `was` ticked off and nothing more: its words the same, no key changed but the tick's. */
function onlyTicks(now: JsonValue, was: JsonValue): boolean {
  if (!marksDone(now, was)) return false;
  const rest = (v: JsonValue): string => (isJsonObject(v) ? canonicalJson(Object.fromEntries(Object.entries(v).filter(([k]) => !TICK_KEYS.has(k)))) : '{}');
  return rest(now) === rest(was);
}

/**
 * `side`'s hunks with each edit that only ticks off, or edits keeping their words, actions
 * `other` popped made those pops; null when there is none. An edit that changes an action's
 * words, or touches an action the other side kept, stays an edit.
 */
function editsAsPops(q: QueueSides, side: readonly Hunk[], other: readonly Hunk[], otherWords: ReadonlyMap<string, number>): Hunk[] | null {
  const base = q.base;
  // Popped: removed there, and the other side holds fewer actions with its words than the base
  // did (an action it moved elsewhere is still queued: red team, 12-06).
  const popped = (i: number) => {
    const w = q.baseWords[i]!;
    return other.some((h) => h.items.length === 0 && h.start <= i && i < h.end) && (otherWords.get(w) ?? 0) < (q.baseWordCounts.get(w) ?? 0);
  };
  let changed = false;
  const out: Hunk[] = [];
  for (const h of side) {
    const ticks = isEdit(h) && h.items.length === h.end - h.start ? h.items.map((item, k) => sameAction(item, base[h.start + k]!) && popped(h.start + k)) : [];
    if (!ticks.some(Boolean) || !h.items.every((item, k) => ticks[k] || canonicalJson(item) === canonicalJson(base[h.start + k]!))) {
      out.push(h);
      continue;
    }
    changed = true;
    ticks.forEach((tick, k) => {
      if (tick) out.push({ start: h.start + k, end: h.start + k + 1, items: [] });
    });
  }
  return changed ? out : null;
}
