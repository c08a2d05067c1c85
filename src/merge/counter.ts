// Spend counters (cost.total_usd, cost.by_phase.*, ...): each branch's session adds its own
// spend, so two branches merge as base + (ours - base) + (theirs - base), each session's
// spend counted once. Money amounts (total_usd, by_phase.*, by_model.* and the plain value
// budget_usd; not tokens.*) are in the document's cost.currency: a side that switched currency
// makes the other side's amounts another unit, which no sum or pick may mix silently. Pure.

import type { JsonValue } from '../protocol/types.js';
import { ownValue } from '../protocol/identity.js';
import { compareStrings, jsonEqual } from './json-value.js';
import { quoted } from '../one-line.js';

const isCount = (v: JsonValue | undefined): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Decimal places a number text writes (`0.25` -> 2, `6.00` -> 2, `1e-7` -> 7, `1.5e+3` -> 0). */
function writtenDecimals(text: string): number {
  const [mantissa, exponent] = text.toLowerCase().split('e');
  const fraction = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/** Decimal places of a number as JSON would write it. */
const decimals = (n: number): number => writtenDecimals(String(n));

/**
 * Of two spellings of one exact number (`6.0` and `6`, two tools re-saving a file's `6.00`), the
 * one a merge keeps, whichever side is ours: the one with more decimals (what a writer chose to
 * show, which JSON's own spelling drops), at equal decimals the smaller text.
 */
export function keptSpelling(a: string, b: string): string {
  const [da, db] = [writtenDecimals(a), writtenDecimals(b)];
  if (da !== db) return da > db ? a : b;
  return compareStrings(a, b) <= 0 ? a : b;
}

/**
 * Both sides changed a counter (or both added it, base absent = 0): their summed deltas, as
 * doubles, rounded to the most decimals any side has so binary float noise (0.1 + 0.2) never
 * reaches the file (merge.ts first adds the sides' texts exactly, exactSum, and comes here only
 * where it cannot). `(ours + theirs) - base` is the same sum either way round, bit for bit.
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

/** A counter's texts in base (undefined: absent), ours and theirs. */
export type CounterTexts = readonly [base: string | undefined, ours: string, theirs: string];

/**
 * base + (ours - base) + (theirs - base) added on the texts as the files write them (base absent:
 * 0), decimals aligned: the sum and the text it is written with (sumSpelling). Undefined when a
 * text is not a non-negative decimal number exactDecimal reads, or a side is below the base.
 */
export function exactSum(base: string | undefined, ours: string, theirs: string): { value: number; text: string } | undefined {
  const aligned = alignedDecimals(base, ours, theirs);
  if (!aligned) return undefined;
  const [bb, oo, tt] = aligned.digits;
  if (oo < bb || tt < bb) return undefined;
  const text = sumSpelling(oo + tt - bb, aligned.scale, [base, ours, theirs]);
  return { value: Number(text), text };
}

/**
 * Whether both sides' texts are one amount above base's, read exactly (past 2^53 one double
 * holds several counts, so the doubles cannot say): the same spend on both sides. A counter
 * both left at base's amount spent nothing and keeps its text (a sum would respell 1e3 as 1000).
 */
export function spentAlike(base: string | undefined, ours: string, theirs: string): boolean {
  const aligned = alignedDecimals(base, ours, theirs);
  if (!aligned) return false;
  const [bb, oo, tt] = aligned.digits;
  return oo === tt && oo > bb;
}

/**
 * The text of a counter's sum, which no side holds, from the sides' texts of that counter (base
 * absent: undefined): exactSum's, where it is the sum the merge took (merge.ts adds the same
 * texts); else undefined, and JSON's text of the sum stands.
 */
export function sumText(sum: number, [base, ours, theirs]: readonly (string | undefined)[]): string | undefined {
  if (ours === undefined || theirs === undefined) return undefined;
  const exact = exactSum(base, ours, theirs);
  return exact?.value === sum ? exact.text : undefined;
}

/**
 * Whether a counter must be added on its digits: a side, or ours and theirs together, past
 * Number.MAX_SAFE_INTEGER, where a double no longer holds every integer (9007199254740993 reads
 * as ...992, and 12345678901234567000, ...7100 and ...7200 are one double).
 */
export function pastSafe(base: JsonValue | undefined, ours: number, theirs: number): boolean {
  return ours > Number.MAX_SAFE_INTEGER || theirs > Number.MAX_SAFE_INTEGER || ours + theirs > Number.MAX_SAFE_INTEGER || (typeof base === 'number' && base > Number.MAX_SAFE_INTEGER);
}

/** An exact decimal: digits x 10^-scale. */
interface Decimal {
  digits: bigint;
  scale: number;
}

/** A number's text as an exact decimal (`12.50` -> 1250n, 2; `1e21` -> 10n ** 21n, 0); undefined for a negative or another text. */
function exactDecimal(text: string): Decimal | undefined {
  const m = NUMBER_TEXT.exec(text);
  if (!m || text.charCodeAt(0) === 45) return undefined;
  const fraction = m[1] ?? '';
  const whole = text.slice(0, /[.eE]/.exec(text)?.index ?? text.length);
  const scale = fraction.length - Number(m[2] ?? 0);
  // Beyond what any counter holds either way (a double ends near 1e308): not added exactly.
  if (scale > MAX_EXACT_DECIMALS || scale < -MAX_EXACT_SHIFT) return undefined;
  const digits = BigInt(whole + fraction);
  return scale >= 0 ? { digits, scale } : { digits: digits * 10n ** BigInt(-scale), scale: 0 };
}

const MAX_EXACT_DECIMALS = 100;
const MAX_EXACT_SHIFT = 400;

/** The texts' exact decimals (base absent: 0) as digits at one scale, the most decimals any of them has. */
function alignedDecimals(...texts: CounterTexts): { digits: [bigint, bigint, bigint]; scale: number } | undefined {
  const [b, o, t] = [texts[0] === undefined ? { digits: 0n, scale: 0 } : exactDecimal(texts[0]), exactDecimal(texts[1]), exactDecimal(texts[2])];
  if (!b || !o || !t) return undefined;
  const scale = Math.max(b.scale, o.scale, t.scale);
  const at = (d: Decimal): bigint => d.digits * 10n ** BigInt(scale - d.scale);
  return { digits: [at(b), at(o), at(t)], scale };
}

/**
 * How a counter's exact sum (digits x 10^-scale, `scale` the most decimals a side's text has) is
 * written: JSON's text of its double where that text is the sum exactly and drops no spelling a
 * side chose, else its digits with those decimals. So `0.25` + `0.75` is `1` (every side as JSON
 * writes it); `5.0`, `6.0`, `7.0` give `8.0` and `5.00`, `6.5`, `7.0` give `8.50` (a side wrote
 * decimals JSON drops); `1e-7` + `2e-7` is `3e-7` (an exponent where a side wrote one, never where
 * none did); and a sum no double holds (more digits than its 17, past 2^53) keeps every digit the
 * sides wrote, with none invented.
 */
function sumSpelling(digits: bigint, scale: number, texts: readonly (string | undefined)[]): string {
  const padded = digits.toString().padStart(scale + 1, '0');
  const plain = scale === 0 ? padded : `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  const json = JSON.stringify(Number(plain));
  const read = exactDecimal(json);
  if (!read || read.scale > scale || read.digits * 10n ** BigInt(scale - read.scale) !== digits) return plain;
  const written = texts.filter((x): x is string => x !== undefined);
  if (json.includes('e')) return written.some((x) => /[eE]/.test(x)) ? json : plain;
  return written.some((x) => x !== JSON.stringify(Number(x))) ? plain : json;
}

/** What a counter past 2^53 merges to: the value and the exact text to write it with; or a conflict, with why. */
export type ExactCount = { value: number; text: string } | { conflict: string | undefined };

/**
 * A counter past 2^53 (pastSafe), merged on the sides' texts (`base` absent: 0) as mergeCounter
 * merges doubles: one side changed it, that side's; both the same, that; else base + each
 * side's increment, added exactly (BigInt on the digits, decimals aligned: as many as the most
 * precise side wrote, the decimal rule of sums below 2^53). A conflict when a side lowered it,
 * or a text is not a non-negative decimal number (so it cannot be added exactly).
 */
export function exactCount(base: string | undefined, ours: string, theirs: string): ExactCount {
  const side = (text: string): ExactCount => ({ value: Number(text), text });
  if (ours === theirs || theirs === base) return side(ours);
  if (ours === base) return side(theirs);
  const aligned = alignedDecimals(base, ours, theirs);
  if (!aligned) return { conflict: 'past 2^53 (Number.MAX_SAFE_INTEGER) and not a plain non-negative number, so it cannot be added exactly' };
  const [bb, oo, tt] = aligned.digits;
  // Both rewrote it. A side that changed the amount wins over one that only respelled it; two
  // spellings of one amount keep one, whichever side is ours, as for any number (literal-texts.ts).
  if (tt === bb && oo !== bb) return side(ours);
  if (oo === bb && tt !== bb) return side(theirs);
  if (oo === tt) return side(keptSpelling(ours, theirs));
  if (oo < bb || tt < bb) return { conflict: oo < bb && tt > bb ? loweredWhy('ours') : tt < bb && oo > bb ? loweredWhy('theirs') : undefined };
  const text = sumSpelling(oo + tt - bb, aligned.scale, [base, ours, theirs]);
  return { value: Number(text), text };
}

const currencyField = (doc: JsonValue | undefined): JsonValue | undefined => ownValue(ownValue(doc, 'cost'), 'currency');

/** The money unit a cost.currency value names (the protocol's default USD when absent), case-blind. */
function unitOf(currency: JsonValue | undefined): string {
  if (currency === undefined) return 'USD';
  // Not a string (an invalid file): a unit of its own, equal only to the same value (lower case: no string's key).
  return typeof currency === 'string' ? currency.trim().toUpperCase() : `json ${JSON.stringify(currency)}`;
}

/** Each side's money unit and the merged document's (undefined where cost.currency itself conflicts). */
export interface Currencies {
  base: string;
  ours: string;
  theirs: string;
  merged: string | undefined;
}

/** The sides' units when they are not all one (a side switched currency), else undefined: the usual case. */
export function mixedCurrencies(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue): Currencies | undefined {
  const [b, o, t] = [currencyField(base), currencyField(ours), currencyField(theirs)];
  const c = { base: unitOf(b), ours: unitOf(o), theirs: unitOf(t) };
  if (c.base === c.ours && c.ours === c.theirs) return undefined;
  // As the field itself merges (one side changed it: that side's), so a conflicted currency leaves every unit open.
  const merged = jsonEqual(o, t) || jsonEqual(b, t) ? c.ours : jsonEqual(b, o) ? c.theirs : undefined;
  return { ...c, merged };
}

const MONEY_MAPS = new Set(['by_phase', 'by_model']);

/**
 * Amounts in cost.currency: cost.total_usd, cost.budget_usd, cost.by_phase.<name>,
 * cost.by_model.<name>, and the two maps themselves (one side may add or drop a whole map).
 */
export function isMoneyPath(policyPath: readonly string[]): boolean {
  if (policyPath[0] !== 'cost') return false;
  if (policyPath.length === 2) return policyPath[1] === 'total_usd' || policyPath[1] === 'budget_usd' || MONEY_MAPS.has(policyPath[1]!);
  return policyPath.length === 3 && MONEY_MAPS.has(policyPath[1]!);
}

/**
 * Whether merging an amount would put a side's money into the merged document under another
 * currency: a side's change is in that side's currency, and a sum also carries the base's
 * amount in the base's. Then the amount conflicts (both values shown), even where only one side
 * changed it: theirs' 5 -> 7 USD taken into a document ours switched to EUR is silently wrong.
 */
export function mixesCurrencies(c: Currencies, base: JsonValue | undefined, ours: JsonValue | undefined, theirs: JsonValue | undefined): boolean {
  if (jsonEqual(ours, theirs)) return false; // the same amount either way: the merge adds nothing
  if (c.merged === undefined) return true;
  const oursChanged = !jsonEqual(base, ours);
  const theirsChanged = !jsonEqual(base, theirs);
  if ((oursChanged && c.ours !== c.merged) || (theirsChanged && c.theirs !== c.merged)) return true;
  // Both spent in the merged currency, from a base amount in another: 0 is 0 in any currency.
  return oursChanged && theirsChanged && c.base !== c.merged && base !== undefined && base !== 0;
}

const NUMBER_TEXT = /^-?\d+(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** For a currency conflict's line: each side's unit (the values alone would read as a plain disagreement). */
export function currenciesWhy(c: Currencies): string {
  const show = (key: string): string => (key.startsWith('json ') ? `${key.slice(5, 25)}${key.length > 25 ? '…' : ''}` : quoted(key, 20));
  return `amounts in different currencies (base ${show(c.base)}, ours ${show(c.ours)}, theirs ${show(c.theirs)})`;
}

/**
 * For a counter's conflict line, where one side lowered the counter while the other spent more:
 * the case a sum of increments used to take silently. Undefined otherwise (the values say it all).
 */
export function resetWhy(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue): string | undefined {
  if (!isCount(base) || !isCount(ours) || !isCount(theirs)) return undefined;
  const lowered = ours < base && theirs > base ? 'ours' : theirs < base && ours > base ? 'theirs' : undefined;
  return lowered && loweredWhy(lowered);
}

const loweredWhy = (side: 'ours' | 'theirs'): string => `${side} lowered it (a reset or a correction), and a decrease is not spend`;
