// A log record's identity is its value (log.ts), but a value holds doubles, and two texts may
// read as one double though they are different numbers: two runs' nanosecond times
// (1733450000123456789 and ...790), two underflowing measures (1e-400 and 2e-400). Two such
// records are two records. So where a side's log holds a number text whose exact value is not
// its double's (a respelling such as 8.0 or 1E2 is its double's), each of that side's entries is
// named by its value plus the exact value of each such number in it (`exactSuffixes`), and the
// merged log says which entry of each side each of its entries is (`LogSource`): equal doubles
// no longer tell literal-texts.ts which text belongs where. A log without such a number, the
// usual one (a Python file's 8.0 included), costs one look-up per side. Pure.

import { sortedBelow } from '../protocol/format.js';
import { itemKeys, type LiteralTexts } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import type { PathSegment } from './conflict.js';
import { withoutTrailing } from '../text-ends.js';

export type LogSide = 'base' | 'ours' | 'theirs';

/** Where one entry of a merged log stands in each side that holds it (indices into the side's whole log). */
export type EntrySources = Partial<Record<LogSide, number>>;

/** A log the merge named by exact numbers: the merged array at `path`, and each entry's sources. */
export interface LogSource {
  path: PathSegment[];
  value: JsonValue[];
  entries: EntrySources[];
}

/** Each side's exact suffix per entry of its whole log ('' for an entry without such a number). */
export type ExactSuffixes = Record<LogSide, string[]>;

/**
 * The exact value of a JSON number text, written one way: sign, significant digits, exponent
 * (`8.0`, `8`, `80e-1` all `8e0`; `-0` and `0` both `0`, one identity as elsewhere).
 */
export function exactNumber(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return text;
  const fraction = m[3] ?? '';
  const all = (m[2]! + fraction).replace(/^0+/, '');
  if (all === '') return '0';
  const digits = withoutTrailing(all, '0');
  const exponent = BigInt(m[4] ?? '0') - BigInt(fraction.length) + BigInt(all.length - digits.length);
  return `${m[1]}${digits}e${exponent}`;
}

/**
 * Is `text` a number whose exact value is not its double's (as JSON writes the double)? A decimal
 * of fewer than 16 characters without an exponent is always its double's: the shortest text of
 * the double recovers its (at most 15) digits, and it is within the doubles' range.
 */
function otherThanItsDouble(text: string): boolean {
  if (text.charCodeAt(0) === 34) return false;
  if (text.length < 16 && !/[eE]/.test(text)) return false;
  return exactNumber(text) !== exactNumber(JSON.stringify(Number(text)));
}

/** A side's content keys whose text is otherThanItsDouble, sorted, with those texts. */
interface OddTexts {
  keys: string[];
  texts: string[];
}

const NONE: OddTexts = { keys: [], texts: [] };
const oddCache = new WeakMap<LiteralTexts, OddTexts>();

function oddTexts(texts: LiteralTexts | undefined): OddTexts {
  if (!texts?.size) return NONE;
  let known = oddCache.get(texts);
  if (known) return known;
  const found: Array<[string, string]> = [];
  for (const [key, list] of texts) {
    // Content keys only: positions (`#...`) name the same literals again.
    if (key.charCodeAt(0) === 35) continue;
    const odd = list.filter(otherThanItsDouble);
    if (odd.length) found.push([key, odd.join(' ')]);
  }
  found.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  known = found.length ? { keys: found.map((f) => f[0]), texts: found.map((f) => f[1]) } : NONE;
  oddCache.set(texts, known);
  return known;
}

/** The odd texts at or below `key`, as `<key below it>=<exact value>` parts, each after a NUL (JSON text never holds one raw). */
function suffixBelow(odd: OddTexts, key: string, from: number): string {
  let out = '';
  for (let i = from; i < odd.keys.length && odd.keys[i]!.startsWith(key); i++) {
    const rest = odd.keys[i]!.slice(key.length);
    // `key` is an item's (it ends in `]`): what lies below it goes on with `.`, `[` or the name suffix, or is the item itself.
    if (rest !== '' && rest[0] !== '.' && rest[0] !== '[' && rest[0] !== ':') continue;
    out += `\u0000${rest}=${odd.texts[i]!.split(' ').map(exactNumber).join(' ')}`;
  }
  return out;
}

/**
 * Per side, each entry's exact suffix for the log whose content key (literalKey) is `logKey`,
 * the sides' entries `logs` (the whole logs) and their texts `texts`; undefined when no side holds
 * a number text below the log whose value is not its double's: the log's entries are then their values.
 */
export function exactSuffixes(logKey: string, logs: Record<LogSide, readonly JsonValue[]>, texts: Partial<Record<LogSide, LiteralTexts>> | undefined): ExactSuffixes | undefined {
  if (!texts) return undefined;
  const prefix = `${logKey}[`;
  let any = false;
  const out = {} as ExactSuffixes;
  for (const side of ['base', 'ours', 'theirs'] as const) {
    const entries = logs[side];
    const odd = oddTexts(texts[side]);
    const first = odd.keys.length ? sortedBelow(odd.keys, prefix) : 0;
    if (!odd.keys[first]?.startsWith(prefix)) {
      out[side] = entries.map(() => '');
      continue;
    }
    any = true;
    out[side] = itemKeys(logKey, entries).map((key) => suffixBelow(odd, key, sortedBelow(odd.keys, key)));
  }
  return any ? out : undefined;
}
