// The merge of two merge bases that git makes for a criss-cross history (the "virtual ancestor"
// of merge-ort and recursive): the base the real merge is then judged against. Each record either
// base holds is in it, so a record one side later removed stays removed; where the bases
// themselves disagree, it holds a stand-in equal to no real value, so the real merge sees both
// sides as changed there and asks (a conflict) instead of taking one side's value silently.
// A conflicting run of a queue is left out: what either side holds of it then reads as its own,
// and is kept. Pure: the merged value and its conflicts in, a copy with no conflicts out.

import type { JsonValue } from '../protocol/types.js';
import type { Conflict } from './conflict.js';
import { putAt } from './settle.js';

/** The stand-in's one key: no checkpoint field is named so, so it never equals a side's value. */
export const VIRTUAL_BASE_KEY = '(checkpoint: the merge bases disagree here)';

export function virtualBase(value: JsonValue, conflicts: readonly Conflict[]): JsonValue {
  // The merged value shares subtrees with the parsed sides: changed on a copy.
  let root = structuredClone(value);
  for (let k = conflicts.length - 1; k >= 0; k--) {
    const c = conflicts[k]!;
    root = putAt(root, c, c.span !== undefined ? [] : { [VIRTUAL_BASE_KEY]: c.display });
  }
  return root;
}
