// Formatting of a checkpoint file, detected on read and reproduced on write, so a
// rewrite (update, merge, rotate) changes only the lines whose data changed.

import { addLiteralText, denotes, itemKeys, literalKey, literalPlace, NAME_SUFFIX, POSITION_ROOT, positionKey, type ItemKeyCache, type LiteralTexts } from './json.js';
import type { JsonValue } from './types.js';

export interface TextFormat {
  /** Indent unit ("  ", "    ", "\t"), or "" for single-line JSON. */
  indent: string;
  /** The line end: LF, CRLF, or a lone CR (classic Mac OS) in a file that has no LF. */
  eol: '\n' | '\r\n' | '\r';
  finalNewline: boolean;
  bom: boolean;
  /** Source texts of literals a plain rewrite would change (from parseJson): written back where the value is unchanged. */
  texts?: LiteralTexts;
}

export const DEFAULT_FORMAT: TextFormat = { indent: '  ', eol: '\n', finalNewline: true, bom: false };

export function detectFormat(text: string): TextFormat {
  const bom = text.charCodeAt(0) === 0xfeff;
  // A CR outside a string is a line end (a string holds one only as `\r`); lone ones only when there is no LF.
  const eol = text.includes('\r\n') ? '\r\n' : text.includes('\n') || !text.includes('\r') ? '\n' : '\r';
  const last = eol === '\r' ? '\r' : '\n';
  const finalNewline = text.endsWith(last);
  // The first indented line that opens a key or value gives the unit.
  const m = (eol === '\r' ? /\r([ \t]+)\S/ : /\n([ \t]+)\S/).exec(text);
  const indent = m ? (m[1]!.startsWith('\t') ? '\t' : m[1]!) : text.trim().includes(last) ? '  ' : '';
  return { indent, eol, finalNewline, bom };
}

/**
 * How a file writes characters past ASCII when it writes each as a `\u` escape and none raw
 * (Python's json.dump does by default): 'lower' or 'upper' hex as its escapes are; else null. A
 * rewrite then escapes what it adds the same way, so a Python agent's next save leaves those
 * lines as they are.
 */
export function nonAsciiEscapes(text: string): 'lower' | 'upper' | null {
  // A leading BOM is the file's, not a character of a string.
  if (/[^\x00-\x7f]/.test(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)) return null;
  // An escape of a code unit past 0x7f (not a literal backslash before "u": an even run of backslashes before it).
  // The case is the first such escape's that has a letter in it (\u2014 has none).
  let found: 'lower' | 'upper' | null = null;
  for (const m of text.matchAll(/(?<!\\)(?:\\\\)*\\u(00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/g)) {
    if (/[A-F]/.test(m[1]!)) return 'upper';
    if (/[a-f]/.test(m[1]!)) return 'lower';
    found = 'lower';
  }
  return found;
}

/** Each UTF-16 code unit of `chars` as a JSON `\u` escape (a character past U+FFFF as its two halves, as JSON writes it). */
export function unicodeEscapes(chars: string, hex: 'lower' | 'upper' = 'lower'): string {
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const code = chars.charCodeAt(i).toString(16).padStart(4, '0');
    out += `\\u${hex === 'upper' ? code.toUpperCase() : code}`;
  }
  return out;
}

/** `text` with every character past ASCII written as a `\u` escape (in JSON, such a character stands only inside a string). */
export function escapeNonAscii(text: string, hex: 'lower' | 'upper'): string {
  const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  const body = bom ? text.slice(1) : text;
  return bom + body.replace(/[^\x00-\x7f]+/g, (run) => unicodeEscapes(run, hex));
}

export function formatJson(value: unknown, format: TextFormat = DEFAULT_FORMAT): string {
  let out = format.texts?.size ? stringifyKeepingTexts(value as JsonValue, format.indent, format.texts) : JSON.stringify(value, null, format.indent || undefined);
  if (format.eol !== '\n') out = out.replace(/\n/g, format.eol);
  if (format.finalNewline) out += format.eol;
  return (format.bom ? '\uFEFF' : '') + out;
}

/**
 * JSON.stringify, but a number, string or object key whose key (literalKey, below `rootKey`: where `value` stands) has a recorded
 * source text that still denotes the same value is written as that text (`8.0`, `1e-400`, `"Caf\u00e9"`); failing that, the text
 * recorded at its position (positionKey below `rootPosition`; null: position unknown), if it denotes the same value.
 * The replacer swaps such literals for placeholder strings (an object with such keys for a copy keyed by placeholders),
 * replaced by the texts afterwards; the placeholder's marker is chosen so that no string in the document contains it.
 */
// An object key JavaScript lists before the others (an array index: up to 2^32 - 2, no leading zero).
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/** Whether any recorded text is an object key's: stringifyKeepingTexts asks it, and a caller writing many values of one texts map asks it once. */
export function hasNameTexts(texts: LiteralTexts): boolean {
  for (const k of texts.keys()) if (k.endsWith(NAME_SUFFIX)) return true;
  return false;
}

export function stringifyKeepingTexts(value: JsonValue, indent: string, texts: LiteralTexts, rootKey = '', rootPosition: string | null = POSITION_ROOT, anyName = hasNameTexts(texts)): string {
  const plain = JSON.stringify(value);
  let marker = '~#n';
  while (plain.includes(marker)) marker += '#';
  const keys = new WeakMap<object, string>();
  // An array's item keys (itemKeys: a repeated item named by its order among its equals), made on
  // its first item, with the key they were made below: one object may stand twice in a value (a
  // merge repeats an entry), each time under another key.
  const items = new WeakMap<object, { parent: string; keys: string[] }>();
  const positions = new WeakMap<object, string | null>();
  // A copy keyed by placeholders: each placeholder's real name.
  const names = new WeakMap<object, Map<string, string>>();
  const out: string[] = [];
  const placeholder = (text: string): string => `${marker}${out.push(text) - 1}${marker}`;
  const rendered = JSON.stringify(
    value,
    function (this: unknown, key: string, v: JsonValue) {
      const holder = this as object;
      const parentKey = keys.get(holder);
      const inArray = Array.isArray(holder);
      const name = names.get(holder)?.get(key) ?? key;
      let own: string;
      if (parentKey === undefined) own = rootKey;
      else if (inArray) {
        let named = items.get(holder);
        if (named?.parent !== parentKey) items.set(holder, (named = { parent: parentKey, keys: itemKeys(parentKey, holder as JsonValue[]) }));
        own = named.keys[Number(key)]!;
      } else own = literalKey(parentKey, false, name);
      const parentPosition = positions.get(holder);
      const position = parentKey === undefined ? rootPosition : parentPosition == null ? null : positionKey(parentPosition, inArray ? Number(key) : name);
      if (v !== null && typeof v === 'object') {
        if (anyName && !Array.isArray(v)) v = withNameTexts(v, own, position);
        keys.set(v, own);
        positions.set(v, position);
      } else if (typeof v === 'number' || typeof v === 'string') {
        const text = recordedText(texts, own, position, v);
        if (text !== undefined) return placeholder(text);
      }
      return v;
    },
    indent || undefined,
  );
  /** `obj`, or a copy whose keys with a recorded text are placeholders for it (in the same order). */
  function withNameTexts(obj: { [k: string]: JsonValue }, own: string, position: string | null): { [k: string]: JsonValue } {
    const members = Object.keys(obj);
    const found = members.map((k) => recordedText(texts, literalKey(own, false, k) + NAME_SUFFIX, position === null ? null : positionKey(position, k) + NAME_SUFFIX, k));
    if (found.every((text) => text === undefined)) return obj;
    const map = new Map<string, string>();
    const copy: { [k: string]: JsonValue } = {};
    members.forEach((k, i) => {
      // Index-like keys ("1") are listed first by any object: each becomes a placeholder too, so the copy keeps the order.
      const text = found[i] ?? (INDEX_KEY.test(k) ? JSON.stringify(k) : undefined);
      const p = text === undefined ? k : placeholder(text);
      if (text !== undefined) map.set(p, k);
      // defineProperty: a `__proto__` member stays an own data property of the copy.
      Object.defineProperty(copy, p, { value: obj[k], enumerable: true, writable: true, configurable: true });
    });
    names.set(copy, map);
    return copy;
  }
  return rendered.replace(new RegExp(`"${marker}(\\d+)${marker}"`, 'g'), (_, k: string) => out[Number(k)]!);
}

/** The text the file writes a number with, given its value and path (see numberTextIn). */
export type NumberText = (v: number, path: ReadonlyArray<string | number>) => string;

/**
 * The text the file `doc` was parsed from writes the number at `path` with (`8.0`, `1.10`, `1E5`,
 * `-0`: the literal texts parseJson records; `texts` is asked only when a number is shown), else
 * JSON's: a message quotes, and a fix carries, what the user wrote, not what the double prints as.
 */
export const numberTextIn = (doc: unknown, texts: (() => LiteralTexts | undefined) | undefined): NumberText => (v, path) => {
  const known = texts?.();
  return (known?.size && recordedText(known, ...literalPlace(doc as JsonValue, path), v)) || String(v);
};

/** The recorded source text a writer gives the literal `v` standing at `key` (else at `position`): one that still denotes `v`. */
export function recordedText(texts: LiteralTexts | undefined, key: string, position: string | null, v: number | string): string | undefined {
  const same = (t: string): boolean => denotes(t, v);
  return texts?.get(key)?.find(same) ?? (position === null ? undefined : texts?.get(position)?.find(same));
}

/**
 * Copies into `into` (may be `texts`) each text recorded at or below `from` (a literalKey), re-keyed below `to`:
 * a value a command moves (done: an action into recently_done; rotate: entries into history/) keeps its texts.
 */
export function rebaseTexts(texts: LiteralTexts, from: string, to: string, into: LiteralTexts): void {
  rebaseSiblings(texts, [[from, to]], into);
}

/** How many of `sorted` (ascending by `<`) are below `key`, or at most `key` when `orEqual`: a binary search. */
export function sortedBelow(sorted: readonly string[], key: string, orEqual = false): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key || (orEqual && sorted[mid] === key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * rebaseTexts for the entries of one list moved at once, in one pass over `texts` (rotate and
 * restore move thousands: a pass per entry took seconds). Sibling literalKeys are none a prefix of
 * another (each ends in `]` after a whole JSON value or id), so the one `from` a key can start with
 * is the greatest not above it.
 */
export function rebaseSiblings(texts: LiteralTexts, moves: Iterable<readonly [from: string, to: string]>, into: LiteralTexts): void {
  const target = new Map(moves);
  const froms = [...target.keys()].sort();
  for (const [key, known] of [...texts]) {
    const from = froms[sortedBelow(froms, key, true) - 1];
    if (from === undefined || !key.startsWith(from)) continue;
    for (const text of known) addLiteralText(into, target.get(from)! + key.slice(from.length), text);
  }
}

/** Where an array (or any value) stands, as LiteralTexts names it: its content key and its position key (literalPlace). */
export type TextPlace = readonly [key: string, position: string];

/** itemKeys of `items` standing at `parent`, from `cache` when worked out before (the array unchanged since). */
function keysOf(parent: string, items: readonly JsonValue[], cache?: ItemKeyCache): string[] {
  const known = cache?.get(items);
  if (known?.parent === parent) return known.keys;
  const keys = itemKeys(parent, items);
  cache?.set(items, { parent, keys });
  return keys;
}

/** The moves (content key and position of each) of items `fromAt[m]` of `from` to items `toAt[m]` of `to`. */
function itemMoves(from: TextPlace, fromItems: readonly JsonValue[], fromAt: readonly number[], to: TextPlace, toItems: readonly JsonValue[], toAt: readonly number[], cache?: ItemKeyCache): Array<[string, string]> {
  const fromKeys = keysOf(from[0], fromItems, cache);
  const toKeys = keysOf(to[0], toItems, cache);
  return fromAt.flatMap((i, m): Array<[string, string]> => [
    [fromKeys[i]!, toKeys[toAt[m]!]!],
    [positionKey(from[1], i), positionKey(to[1], toAt[m]!)],
  ]);
}

/**
 * Copies into `into` the texts (from `texts`) of the items `fromAt[m]` of the array `fromItems`
 * standing at `from`, each under the item `toAt[m]` of the array `toItems` standing at `to`, by
 * content key and by position: rotate's entries into a rotation file, restore's back. Each copy of
 * a repeated entry (`[8.0, 8]`) takes its own text, not its twin's. `cache`: item keys worked out
 * before, for arrays unchanged since (naming a long log's entries costs their canonical JSON).
 */
export function copyItemTexts(
  texts: LiteralTexts,
  from: TextPlace,
  fromItems: readonly JsonValue[],
  fromAt: readonly number[],
  into: LiteralTexts,
  to: TextPlace,
  toItems: readonly JsonValue[],
  toAt: readonly number[],
  cache?: ItemKeyCache,
): void {
  if (texts.size) rebaseSiblings(texts, itemMoves(from, fromItems, fromAt, to, toItems, toAt, cache), into);
}

/**
 * Re-keys the texts of the items of an array a command rebuilt in place (rotate took entries out,
 * restore put some back, done popped the first action): `after[j]` is `before[from[j]]`, or new
 * (undefined: the caller adds its texts). An item keeps its texts under its new key and position;
 * the texts of an item no longer there leave with it (copy them first if they go elsewhere).
 * Without this a survivor would meet a stale text at its new place: `[8.0, 8]` losing its first
 * entry leaves `[8]`, whose key and position were the 8.0's. Mutates `texts`.
 */
export function rekeyItems(texts: LiteralTexts, at: TextPlace, before: readonly JsonValue[], after: readonly JsonValue[], from: ReadonlyArray<number | undefined>, cache?: ItemKeyCache): void {
  const [key, position] = at;
  const below = new Map<string, string[]>();
  for (const [k, known] of texts) {
    if (!k.startsWith(`${key}[`) && !k.startsWith(`${position}[`)) continue;
    below.set(k, known);
    texts.delete(k);
  }
  if (!below.size) return;
  const fromAt: number[] = [];
  const toAt: number[] = [];
  from.forEach((i, j) => {
    if (i === undefined) return;
    fromAt.push(i);
    toAt.push(j);
  });
  rebaseSiblings(below, itemMoves(at, before, fromAt, at, after, toAt, cache), texts);
}
