// A list no field policy names and whose items are not records with ids (a skill's own
// checklist of strings, tasks without ids, a matrix), changed on both sides: merged item by item
// as git's own line merge would merge the lines of a list written one item a line, so a driver
// never makes a conflict of what the driver-less merge settled (one branch ticking the first
// item, the other the last). Each side's changes against the base are runs (hunks); runs of the
// two sides that touch no common base item combine; the same run on both sides is taken once; a
// container item both sides changed in place merges inside (so a conflict there is marked at
// that item alone). Anything else (two insertions at one place, overlapping different runs) is
// no merge here: the caller conflicts on the whole list, as before. Pure, and symmetric in the
// two sides.

import type { JsonValue } from '../protocol/types.js';
import { canonicalJson } from '../protocol/identity.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { alignToBase } from './align.js';

/** One side's change: base items [from, to) replaced by `items` (from === to: an insertion before base[from]). */
interface Hunk {
  from: number;
  to: number;
  items: readonly JsonValue[];
  keys: readonly string[];
}

/** A side's hunks against the base, in base order, never overlapping. */
function hunks(base: readonly string[], sideValues: readonly JsonValue[], side: readonly string[]): Hunk[] {
  const match = alignToBase(base, side);
  const out: Hunk[] = [];
  let baseFrom = 0;
  let sideFrom = 0;
  for (let b = 0; b <= base.length; b++) {
    if (b < base.length && match[b]! < 0) continue;
    const sideTo = b < base.length ? match[b]! : side.length;
    const keys = side.slice(sideFrom, sideTo);
    // A gap whose items are the base's own (an alignment that left equal items unmatched) is no change.
    const same = b - baseFrom === keys.length && keys.every((k, i) => k === base[baseFrom + i]);
    if (same) {
      // nothing changed here
    } else if (b - baseFrom === keys.length) {
      // As many items as the base had there: each edited in place (a task ticked beside its neighbour's note).
      for (let i = 0; i < keys.length; i++) out.push({ from: baseFrom + i, to: baseFrom + i + 1, items: [sideValues[sideFrom + i]!], keys: [keys[i]!] });
    } else out.push({ from: baseFrom, to: b, items: sideValues.slice(sideFrom, sideTo), keys });
    baseFrom = b + 1;
    sideFrom = sideTo + 1;
  }
  return out;
}

const sameHunk = (a: Hunk, b: Hunk): boolean => a.from === b.from && a.to === b.to && a.keys.length === b.keys.length && a.keys.every((k, i) => k === b.keys[i]);

/**
 * Whether two hunks of different sides cannot both apply: they replace a common base item, or
 * both insert at one place (which goes first is a choice), or one inserts inside the other's run.
 */
function collide(a: Hunk, b: Hunk): boolean {
  if (a.from < b.to && b.from < a.to) return true;
  if (a.from === a.to && b.from === b.to) return a.from === b.from;
  const [ins, run] = a.from === a.to ? [a, b] : [b, a];
  return ins.from === ins.to && run.from < ins.from && ins.from < run.to;
}

const isContainer = (v: JsonValue | undefined): boolean => v !== null && typeof v === 'object';

/**
 * The merged list, or undefined where the sides' changes collide (the caller's conflict).
 * Called only where both sides changed the list, differently.
 */
export function mergePlainArray(ctx: MergeContext, path: PathSegment[], policyPath: string[], base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[]): JsonValue[] | undefined {
  const baseKeys = base.map(canonicalJson);
  const oh = hunks(baseKeys, ours, ours.map(canonicalJson));
  const th = hunks(baseKeys, theirs, theirs.map(canonicalJson));
  // Per base place, the hunk (of either side, or both alike) that starts there; an insertion and a run may share a place.
  const inserts = new Map<number, Hunk | { ours: Hunk; theirs: Hunk }>();
  const runs = new Map<number, Hunk | { ours: Hunk; theirs: Hunk }>();
  // Each of our hunks against their hunks that reach it (both lists run in base order).
  let first = 0;
  for (const o of oh) {
    while (first < th.length && th[first]!.to < o.from) first++;
    for (let k = first; k < th.length && th[k]!.from <= o.to; k++) {
      const t = th[k]!;
      if (!collide(o, t) || sameHunk(o, t)) continue;
      // One item replaced in place by each side, a container on all three: merged inside it.
      const inPlace = o.from === t.from && o.to === o.from + 1 && t.to === o.to && o.items.length === 1 && t.items.length === 1;
      if (!inPlace || !isContainer(base[o.from]) || !isContainer(o.items[0]) || !isContainer(t.items[0])) return undefined;
    }
  }
  for (const [side, list] of [['ours', oh], ['theirs', th]] as const) {
    for (const h of list) {
      const at = h.from === h.to ? inserts : runs;
      const there = at.get(h.from);
      if (there === undefined) at.set(h.from, h);
      else if ('ours' in there) continue;
      else if (sameHunk(there, h)) continue;
      else at.set(h.from, side === 'theirs' ? { ours: there, theirs: h } : { ours: h, theirs: there });
    }
  }
  const result: JsonValue[] = [];
  for (let b = 0; b <= base.length; ) {
    const ins = inserts.get(b);
    // (Two different insertions at one place collided above.) A loop, not push(...): a list may be long.
    if (ins !== undefined && !('ours' in ins)) for (const item of ins.items) result.push(item);
    if (b === base.length) break;
    const run = runs.get(b);
    if (run === undefined) {
      result.push(base[b]!);
      b++;
    } else if ('ours' in run) {
      const merged = ctx.node([...path, result.length], policyPath, base[b], run.ours.items[0], run.theirs.items[0]);
      if (merged !== undefined) result.push(merged);
      b = run.ours.to;
    } else {
      for (const item of run.items) result.push(item);
      b = run.to;
    }
  }
  return result;
}
