// The multiset rule for one log record's copies, as docs/merge-driver.md states it: the base's
// copies both sides kept, plus the larger addition of the two sides; in a log of sessions'
// records (fields.ts `sessions`) merged from two saves (two `updated_at`s), each side's own
// additions, both kept, but for copies a side wrote in place of a record it removed (an edit,
// which both sides may make alike once). Property tests check a merge against these bounds.
import { policyFor } from '../../src/protocol/fields.js';
import { instantMs } from '../../src/protocol/instant.js';
import type { JsonValue } from '../../src/protocol/types.js';

/** Whether two documents are two saves: each a valid `updated_at`, at two instants. */
export function twoSaves(ours: JsonValue, theirs: JsonValue): boolean {
  const at = (doc: JsonValue) => {
    const v = doc && typeof doc === 'object' && !Array.isArray(doc) ? doc.updated_at : undefined;
    const t = typeof v === 'string' ? instantMs(v) : NaN;
    return Number.isFinite(t) ? t : undefined;
  };
  const [o, t] = [at(ours), at(theirs)];
  return o !== undefined && t !== undefined && o !== t;
}

/** Whether the log at `path` keeps both sessions' records added alike. */
export function sessionsLog(path: readonly string[]): boolean {
  const policy = policyFor([...path]);
  return policy.kind === 'log' && policy.sessions === true;
}

/**
 * The fewest and most copies of one record the merge may keep: base, ours and theirs holding
 * `nb`, `no`, `nt` copies. `exact`: neither side removed any record of the log, so no addition is
 * an edit and the count is `most`.
 */
export function loggedCopies(nb: number, no: number, nt: number, sessions: boolean): { least: number; most: number } {
  const kept = nb - Math.max(0, nb - no, nb - nt);
  const [ao, at] = [Math.max(0, no - nb), Math.max(0, nt - nb)];
  return { least: kept + Math.max(ao, at), most: kept + (sessions ? ao + at : Math.max(ao, at)) };
}

/** Whether a side's log holds every copy of every record the base's does. */
export function removedNone(base: ReadonlyMap<string, number>, side: ReadonlyMap<string, number>): boolean {
  return [...base].every(([id, n]) => (side.get(id) ?? 0) >= n);
}
