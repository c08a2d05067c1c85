// A record both sides added under one id, which the base has no record of, is merged member by
// member (records.ts), so its conflicts are members' conflicts. Marked one member at a time, the
// base's block of each would hold the record with the conflicted members left out: a record the
// base never had (`{"id": "p2"}`). So the renderers mark such a record as one conflict: each
// side's block that side's record (the merged record with that side's values in place, what
// `resolve --ours/--theirs` gives), the base's block empty. An object both sides added under one
// key the base lacks is marked the same way (merge.ts), and shown so. Pure.

import type { JsonValue } from '../protocol/types.js';
import { ownValue } from '../protocol/identity.js';
import { formatPath, type Conflict, type PathSegment } from './conflict.js';
import { putAt } from './settle.js';

type Side = 'base' | 'ours' | 'theirs';

/**
 * `conflicts` with those under a record the base lacks (Conflict.baseLacks, and any other conflict
 * inside that record, a number's text) made one conflict at that record, where the first of them
 * stood; `conflicts` itself when none is.
 */
export function wholeRecords(value: JsonValue, conflicts: readonly Conflict[]): readonly Conflict[] {
  const records = new Map<string, { path: PathSegment[]; under: Conflict[] }>();
  for (const c of conflicts) {
    // (One at the record itself is such a record's conflict already.)
    if (c.baseLacks === undefined || c.baseLacks >= c.path.length) continue;
    const path = c.path.slice(0, c.baseLacks);
    const key = JSON.stringify(path);
    if (!records.has(key)) records.set(key, { path, under: [] });
  }
  if (records.size === 0) return conflicts;
  const recordOver = (c: Conflict) => {
    for (let k = c.path.length - 1; k > 0; k--) {
      const record = records.get(JSON.stringify(c.path.slice(0, k)));
      if (record) return record;
    }
    return undefined;
  };
  const out: (Conflict | { path: PathSegment[]; under: Conflict[] })[] = [];
  for (const c of conflicts) {
    const record = recordOver(c);
    if (!record) out.push(c);
    else if (record.under.push(c) === 1) out.push(record);
  }
  const whole: Conflict[] = [];
  for (const entry of out) {
    if (!('under' in entry)) {
      whole.push(entry);
      continue;
    }
    const record = recordConflict(value, entry.path, entry.under);
    // A record not where its conflicts say (never from the merge): its conflicts as they are.
    if (record === null) return conflicts;
    whole.push(record);
  }
  return whole;
}

/** The conflict over the record at `path`: each side's block the merged record with that side's values put in; no base. */
function recordConflict(value: JsonValue, path: readonly PathSegment[], under: readonly Conflict[]): Conflict | null {
  let item: JsonValue | undefined = value;
  for (const seg of path) item = item !== null && typeof item === 'object' ? (item as Record<string | number, JsonValue>)[seg] : undefined;
  if (item === undefined || item === null || typeof item !== 'object') return null;
  const side = (s: Side): JsonValue => {
    let record: JsonValue = structuredClone(item);
    // Last first, as settle puts them: a run may change the length of its array, and the indices after it.
    for (let k = under.length - 1; k >= 0; k--) {
      const c = under[k]!;
      record = putAt(record, { ...c, path: c.path.slice(path.length) }, structuredClone(c[s]));
    }
    return record;
  };
  return { path: [...path], display: formatPath(path), base: undefined, ours: side('ours'), theirs: side('theirs'), baseLacks: path.length };
}

/**
 * Conflict.baseLacks for a conflict the value merge did not record (a number both sides spelled
 * their own way, literal-texts.ts), as merge.ts marks its own: the outermost record around `path`
 * in `merged` whose id the base's list there has no record of, or object under a key the base
 * lacks. Undefined where every record and object around it is the base's, or a record has no id
 * to tell.
 */
export function baseLacksById(base: JsonValue | undefined, merged: JsonValue, path: readonly PathSegment[]): number | undefined {
  let [b, m] = [base, merged as JsonValue | undefined];
  for (let k = 0; k < path.length - 1; k++) {
    const seg = path[k]!;
    if (typeof seg === 'string') {
      [b, m] = [ownValue(b, seg), ownValue(m, seg)];
      if (b === undefined) return k + 1;
      continue;
    }
    const item = Array.isArray(m) ? m[seg] : undefined;
    const id = ownValue(item, 'id');
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    const own = Array.isArray(b) ? b.find((x) => ownValue(x, 'id') === id) : undefined;
    if (own === undefined) return k + 1;
    [b, m] = [own, item];
  }
  return undefined;
}
