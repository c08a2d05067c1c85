// What a merge reports where it cannot decide, and the contract between the merge
// dispatcher (merge.ts) and the per-policy mergers (log, records, queue).

import type { JsonValue } from '../protocol/types.js';
import type { ExactSuffixes, LogSource } from './log-texts.js';
import { canonicalJson } from '../protocol/identity.js';
import { compareStrings } from './json-value.js';

/** An object key, or an index into the MERGED array. */
export type PathSegment = string | number;

export interface Conflict {
  path: PathSegment[];
  /** `phase`, `skill_state.scores.final`, `next_actions[1]`. */
  display: string;
  /** `undefined` = the key or element is absent on that side. */
  base: JsonValue | undefined;
  ours: JsonValue | undefined;
  theirs: JsonValue | undefined;
  /**
   * Set when the conflict covers a run of array elements (a queue region): base, ours
   * and theirs are then arrays of the run's elements, and the merged array holds `span`
   * elements of one side's run from the index in `path`.
   */
  span?: number;
  /**
   * What the run becomes when one side is taken (`resolve --ours/--theirs`), where that is more
   * than the side's run: a conflict marked around a whole queue, whose runs the merge settled
   * around the contested ones stay as merged (queue.ts).
   */
  settled?: { ours: JsonValue[]; theirs: JsonValue[] };
  /** Why the sides do not combine, where a merge rule stepped back (a counter reset, a currency switch): shown after the values. */
  why?: string;
  /** A side's source text of its number value where it differs from JSON's (`8.0`, `1e-400`): shown instead of the value. */
  texts?: Partial<Record<'base' | 'ours' | 'theirs', string>>;
  /**
   * Set when the conflict lies inside an array item or object member both sides hold and the base
   * has none of (a record both added under one id, an object both added under one key):
   * `path.slice(0, baseLacks)` is that value, the outermost such
   * (the whole path: the conflict is that item's own, as base-records.ts makes one of them). The
   * base's block then holds no item there at all, never the item with the conflicted members left
   * out: that is a record the base never had.
   */
  baseLacks?: number;
}

/** Each side's document time (its top-level `updated_at`, in ms), where it has a valid one. */
export interface SideTimes {
  ours: number | undefined;
  theirs: number | undefined;
}

/** Callbacks the per-policy mergers use to recurse into items and to record conflicts. */
export interface MergeContext {
  /** 3-way merge of one node; `undefined` in and out means absent. */
  node(path: PathSegment[], policyPath: string[], base: JsonValue | undefined, ours: JsonValue | undefined, theirs: JsonValue | undefined): JsonValue | undefined;
  /** Records a conflict (with why the rule for its field did not apply, if it says) and returns the value that stands in for it in the merged document. */
  conflict(path: PathSegment[], base: JsonValue | undefined, ours: JsonValue | undefined, theirs: JsonValue | undefined, why?: string): JsonValue | undefined;
  /** Records a conflict over a run of array elements; returns the run that stands in for it. */
  sliceConflict(path: PathSegment[], base: JsonValue[], ours: JsonValue[], theirs: JsonValue[], settled?: Conflict['settled']): JsonValue[];
  /** How many conflicts are recorded so far; `dropConflictsFrom(n)` forgets those after the first n. */
  conflictCount(): number;
  dropConflictsFrom(n: number): void;
  /**
   * Each side's exact suffix per entry of the log at `path` (log-texts.ts), where a side's log holds
   * a number text that reads as a double of another value (two runs' nanosecond times); else undefined.
   */
  logExactness(path: readonly PathSegment[], base: readonly JsonValue[], ours: readonly JsonValue[], theirs: readonly JsonValue[]): ExactSuffixes | undefined;
  /** Records which entry of each side each entry of a log merged by exact numbers is (for its texts). */
  logSource(source: LogSource): void;
  /**
   * Whether the sides are two saves (two `updated_at`s), so a record both added alike to a log of
   * sessions' records is each session's own (log.ts); false where the sides are cut from one file's markers.
   */
  twoSaves?: boolean;
  /** The actions each side logged done since the base (requeued.ts), for the top-level queue. */
  queueDone?: () => { ours: ReadonlyMap<string, number>; theirs: ReadonlyMap<string, number> };
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === '' ? '(document)' : out;
}

/**
 * The value kept in the merged document at a conflict: the side that has one, else the
 * one whose canonical JSON sorts first. Never "ours by default", so swapping the sides
 * gives the same merged value; the markers show both versions anyway.
 */
export function standIn<T extends JsonValue>(ours: T | undefined, theirs: T | undefined, isEmpty: (v: T) => boolean = () => false): T | undefined {
  if (ours === undefined || isEmpty(ours)) return theirs === undefined || isEmpty(theirs) ? ours : theirs;
  if (theirs === undefined || isEmpty(theirs)) return ours;
  return compareStrings(canonicalJson(ours), canonicalJson(theirs)) <= 0 ? ours : theirs;
}
