// The base a merge is judged against when git's base is no JSON (a broken file committed, both
// branches repairing it): what the two sides hold alike, as an add/add merge (base absent) reads
// everything else. A log's records both hold in front (the base's, kept by both) are its base, so
// what each appended is an addition, both kept. A spend counter the sides hold apart stands in
// the base as a value neither holds: the spend since an unknown base cannot be told, so it asks
// (a conflict), never sums both sides' whole totals from 0. Pure.

import { policyFor, type PolicyRule } from '../protocol/fields.js';
import { isJsonObject, ownValue, safeKeys } from '../protocol/identity.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { jsonEqual } from './json-value.js';
import { VIRTUAL_BASE_KEY } from './virtual-base.js';

export function agreedBase(ours: JsonValue, theirs: JsonValue, extra: readonly PolicyRule[] = [], path: string[] = []): JsonValue | undefined {
  if (jsonEqual(ours, theirs)) return ours;
  if (isJsonObject(ours) && isJsonObject(theirs)) {
    const out: JsonObject = {};
    for (const key of safeKeys(ours)) {
      const other = ownValue(theirs, key);
      if (other === undefined) continue;
      const agreed = agreedBase(ours[key]!, other, extra, [...path, key]);
      if (agreed !== undefined) out[key] = agreed;
    }
    return out;
  }
  if (Array.isArray(ours) && Array.isArray(theirs)) {
    let n = 0;
    while (n < ours.length && n < theirs.length && jsonEqual(ours[n], theirs[n])) n++;
    return ours.slice(0, n);
  }
  return typeof ours === 'number' && typeof theirs === 'number' && policyFor(path, extra).kind === 'counter' ? { [VIRTUAL_BASE_KEY]: path.join('.') } : undefined;
}
