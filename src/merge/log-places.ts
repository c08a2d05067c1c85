// Where a side of a log holds the base's records: which it kept, which it moved (held, but out of
// the base's order), and which it replaced in place (removed, a new record standing where it was,
// between the same records kept). log.ts reads a move as the record put where that side has it,
// and a record two sides replaced in place with different records as one record edited two ways.
// Linear in the log but for one longest increasing run (O(n log n)), and only over the part of
// the log the three sides do not share at their ends.

import { longestIncreasing } from './align.js';

export interface SidePlaces {
  /** Per base record: its index in the side (the side's n-th copy of an identity is the base's n-th), -1 where the side holds fewer copies. */
  at: Int32Array;
  /** Per side record: the base record it is, -1 for one the side added. */
  toBase: Int32Array;
  /** Per base record the side holds: 1 where it stands in the base's order (the longest such run); a held record outside it was moved. */
  inOrder: Uint8Array;
}

/** The places of the base's records in one side, both keyed by identity (log.ts keys). */
export function sidePlaces(base: readonly { key: string }[], side: readonly { key: string }[]): SidePlaces {
  const copies = new Map<string, number[]>();
  side.forEach(({ key }, i) => {
    const list = copies.get(key);
    if (list) list.push(i);
    else copies.set(key, [i]);
  });
  const at = new Int32Array(base.length).fill(-1);
  const toBase = new Int32Array(side.length).fill(-1);
  const taken = new Map<string, number>();
  base.forEach(({ key }, j) => {
    const n = taken.get(key) ?? 0;
    taken.set(key, n + 1);
    const i = copies.get(key)?.[n];
    if (i === undefined) return;
    at[j] = i;
    toBase[i] = j;
  });
  const inOrder = new Uint8Array(base.length);
  let last = -1;
  let sorted = true;
  for (let j = 0; j < base.length && sorted; j++) {
    if (at[j]! < 0) continue;
    sorted = at[j]! > last;
    last = at[j]!;
  }
  // The usual side moved nothing: every record it holds is in order, no search.
  if (sorted) at.forEach((i, j) => i >= 0 && (inOrder[j] = 1));
  else {
    const pairs: Array<[number, number]> = [];
    at.forEach((i, j) => i >= 0 && pairs.push([j, i]));
    for (const [j] of longestIncreasing(pairs)) inOrder[j] = 1;
  }
  return { at, toBase, inOrder };
}

/**
 * The base records the side replaced in place, each with the side record standing in its place:
 * between two records the side kept in order (or an end of the log that counts as one), it
 * removed as many records as it added, and the k-th added stands for the k-th removed. An end
 * where new records are written (`growing`) is no neighbour: a record removed there and one
 * appended is a removal and an addition, as `update --…+=` after a removal makes them.
 * `startKept`/`endKept`: a record all three sides share stands before (after) the part given.
 */
export function replacedInPlace(places: SidePlaces, sideLength: number, growing: 'front' | 'end', startKept: boolean, endKept: boolean): Map<number, number> {
  const { at, toBase, inOrder } = places;
  const replaced = new Map<number, number>();
  const startIsNeighbour = startKept || growing !== 'front';
  const endIsNeighbour = endKept || growing !== 'end';
  // Consecutive neighbours as [base index, side index]; the ends as -1 and the lengths.
  let from: [number, number] | undefined = startIsNeighbour ? [-1, -1] : undefined;
  const span = (to: [number, number]): void => {
    if (from === undefined) return;
    const removed: number[] = [];
    for (let j = from[0] + 1; j < to[0]; j++) if (at[j]! < 0) removed.push(j);
    if (removed.length === 0) return;
    const added: number[] = [];
    for (let i = from[1] + 1; i < to[1]; i++) if (toBase[i]! < 0) added.push(i);
    if (added.length === removed.length) removed.forEach((j, k) => replaced.set(j, added[k]!));
  };
  for (let j = 0; j < at.length; j++) {
    if (!inOrder[j]) continue;
    const to: [number, number] = [j, at[j]!];
    span(to);
    from = to;
  }
  if (endIsNeighbour) span([at.length, sideLength]);
  return replaced;
}
