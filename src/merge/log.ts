// Append-only logs (recently_done, eval_scores, run_history, ...): the base entries that
// both sides kept, plus every entry either side added, each identity once.
//
// Added entries are ordered by a rule that ignores which side is "ours", so swapping the
// sides gives the same log: by the policy's timeKey instant (ascending for `append`,
// descending and in front for `newest-first`), entries without a time after timed ones,
// ties by identity (the id, or the canonical JSON).

import type { MergePolicy } from '../protocol/fields.js';
import type { JsonValue } from '../protocol/types.js';
import type { MergeContext, PathSegment } from './conflict.js';
import { entryIdentity, ownValue } from '../protocol/identity.js';
import { compareStrings, isIdentifiedByContent, jsonEqual } from './json-value.js';

type LogPolicy = Extract<MergePolicy, { kind: 'log' }>;

interface Addition {
  identity: string;
  ours: JsonValue | undefined;
  theirs: JsonValue | undefined;
  time: number | undefined;
}

/** First entry per identity, in array order. */
function byIdentity(entries: readonly JsonValue[]): Map<string, JsonValue> {
  const map = new Map<string, JsonValue>();
  for (const entry of entries) {
    const identity = entryIdentity(entry);
    if (!map.has(identity)) map.set(identity, entry);
  }
  return map;
}

function entryTime(entry: JsonValue | undefined, timeKey: string | undefined): number | undefined {
  if (timeKey === undefined) return undefined;
  const raw = ownValue(entry, timeKey);
  const t = typeof raw === 'string' ? Date.parse(raw) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}

function additionOrder(direction: 1 | -1) {
  return (a: Addition, b: Addition): number => {
    if (a.time !== undefined && b.time !== undefined && a.time !== b.time) return direction * (a.time - b.time);
    if ((a.time === undefined) !== (b.time === undefined)) return a.time === undefined ? 1 : -1;
    return compareStrings(a.identity, b.identity);
  };
}

export function mergeLog(
  ctx: MergeContext,
  path: PathSegment[],
  policyPath: string[],
  policy: LogPolicy,
  base: readonly JsonValue[],
  ours: readonly JsonValue[],
  theirs: readonly JsonValue[],
): JsonValue[] {
  const baseIds = byIdentity(base);
  const oursIds = byIdentity(ours);
  const theirsIds = byIdentity(theirs);

  const kept: string[] = [];
  for (const identity of baseIds.keys()) if (oursIds.has(identity) && theirsIds.has(identity)) kept.push(identity);

  const additions = new Map<string, Addition>();
  const addFrom = (entries: Map<string, JsonValue>, side: 'ours' | 'theirs'): void => {
    for (const [identity, entry] of entries) {
      if (baseIds.has(identity)) continue;
      const addition = additions.get(identity) ?? { identity, ours: undefined, theirs: undefined, time: undefined };
      addition[side] = entry;
      // The earliest time of both versions keeps the order symmetric when they differ.
      addition.time = earliest(addition.time, entryTime(entry, policy.timeKey));
      additions.set(identity, addition);
    }
  };
  addFrom(oursIds, 'ours');
  addFrom(theirsIds, 'theirs');

  const newestFirst = policy.order === 'newest-first';
  const sorted = [...additions.values()].sort(additionOrder(newestFirst ? -1 : 1));
  const result: JsonValue[] = [];
  const mergeKept = (): void => {
    for (const identity of kept) {
      const entry = baseIds.get(identity)!;
      const ours = oursIds.get(identity);
      const theirs = theirsIds.get(identity);
      // Most kept entries are untouched (and one identified by content always is): no need to recurse.
      const untouched = isIdentifiedByContent(identity) || (jsonEqual(entry, ours) && jsonEqual(entry, theirs));
      const merged = untouched ? entry : ctx.node([...path, result.length], policyPath, entry, ours, theirs);
      if (merged !== undefined) result.push(merged);
    }
  };
  const mergeAdded = (): void => {
    for (const a of sorted) {
      const merged = ctx.node([...path, result.length], policyPath, undefined, a.ours, a.theirs);
      if (merged !== undefined) result.push(merged);
    }
  };
  if (newestFirst) {
    mergeAdded();
    mergeKept();
  } else {
    mergeKept();
    mergeAdded();
  }
  return result;
}
