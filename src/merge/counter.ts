// Spend counters (cost.total_usd, cost.by_phase.*, ...): each branch's session adds its own
// spend, so two branches merge as base + (ours - base) + (theirs - base), each session's
// spend counted once. Pure.

import type { JsonValue } from '../protocol/types.js';

const isCount = (v: JsonValue | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Decimal places of a number as JSON would write it (`0.25` -> 2, `1e-7` -> 7, `1.5e+3` -> 0). */
function decimals(n: number): number {
  const [mantissa, exponent] = String(n).split('e');
  const fraction = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/**
 * Both sides changed a counter (or both added it, base absent = 0): their summed deltas,
 * rounded to the most decimals any side has so binary float noise (0.1 + 0.2) never reaches
 * the file. `(ours + theirs) - base` is the same sum either way round, bit for bit.
 * Undefined, so the plain rules apply (a conflict: a person decides), when a side is not a
 * non-negative number or is below the base: a side that lowered the counter reset it (a new
 * budget period) or corrected it, and a decrease is not spend; adding it to the other side's
 * spend (5 -> 0 and 5 -> 7 giving 2) means neither.
 */
export function mergeCounter(base: JsonValue | undefined, ours: JsonValue | undefined, theirs: JsonValue | undefined): number | undefined {
  if (!isCount(ours) || !isCount(theirs) || (base !== undefined && !isCount(base))) return undefined;
  const b = base ?? 0;
  if (ours < b || theirs < b) return undefined;
  const sum = ours + theirs - b;
  if (!(sum >= 0) || !Number.isFinite(sum)) return undefined;
  const places = Math.max(decimals(b), decimals(ours), decimals(theirs));
  return places <= 100 ? Number(sum.toFixed(places)) : sum;
}

/**
 * For a counter's conflict line, where one side lowered the counter while the other spent more:
 * the case a sum of increments used to take silently. Undefined otherwise (the values say it all).
 */
export function resetWhy(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue): string | undefined {
  if (!isCount(base) || !isCount(ours) || !isCount(theirs)) return undefined;
  const lowered = ours < base && theirs > base ? 'ours' : theirs < base && ours > base ? 'theirs' : undefined;
  return lowered && `${lowered} lowered it (a reset or a correction), and a decrease is not spend`;
}
