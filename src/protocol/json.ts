// A strict JSON reader for checkpoint files. JSON.parse alone is not enough: it keeps
// the last of duplicate keys silently, gives only a byte position, and has no depth
// bound. This parser reports line:column, refuses duplicates, prototype-pollution keys
// and absurd nesting, and tolerates (but reports) a UTF-8 BOM.

import { FORBIDDEN_KEYS } from './fields.js';
import { quoted } from '../one-line.js';
import { canonicalJsonSigned, ownValue } from './identity.js';
import type { JsonValue } from './types.js';
import { joinPath } from './validate.js';

/** Deeper than this is refused: checkpoints are shallow documents, and recursion must stay bounded. */
export const MAX_JSON_DEPTH = 256;

const CONFLICT_MARKER = /^(<{7}|={7}|>{7}|\|{7})/;
/** A JsonSyntaxError's reason when the text holds a conflict marker (the merge driver tells that apart). */
export const CONFLICT_REASON = 'conflict marker (resolve the merge first: `checkpoint resolve`)';
/** What a file that ends mid-value most often is: a write cut off (a crash, a full disk, a bad paste). */
const CUT = '(cut short?)';

export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`${reason} at line ${line}, column ${column}`);
    this.name = 'JsonSyntaxError';
  }
}

/**
 * Valid JSON this reader still refuses: a number (1e400) past what a double holds. Reading it
 * would silently turn it into Infinity, which no later write could give back.
 */
export class JsonNumberRangeError extends JsonSyntaxError {
  /** What the number is and where, without the advice (a file whose values are settings, not data, advises otherwise). */
  readonly what: string;
  constructor(text: string, path: readonly (string | number)[], line: number, column: number) {
    const at = path.reduce<string>((base, key) => joinPath(base, key), '') || 'the top level';
    const what = `number ${text} at ${at} is beyond what a JSON number can hold here (it would read as Infinity)`;
    super(`${what}; write it as a string`, line, column);
    this.what = what;
    this.name = 'JsonNumberRangeError';
  }
}

/**
 * Valid JSON this reader still refuses: a key JavaScript gives a meaning of its own (`__proto__`
 * sets an object's prototype; `prototype` and `constructor` are refused with it everywhere, so no
 * reader, merge or write can ever mistake one for an inherited member).
 */
export class JsonUnsafeKeyError extends JsonSyntaxError {
  constructor(key: string, line: number, column: number) {
    super(`forbidden key ${JSON.stringify(key)} (no checkpoint may hold __proto__, prototype or constructor as a key: rename it, e.g. ${JSON.stringify(`${key.replace(/^_+|_+$/g, '')}_`)})`, line, column);
    this.name = 'JsonUnsafeKeyError';
  }
}

export interface ParseOptions {
  /** Refuse `__proto__`, `prototype` and `constructor` keys (default true). */
  rejectUnsafeKeys?: boolean;
  /**
   * Record the exact text of number and string literals JSON.stringify would rewrite (default true).
   * Readers that never write the file back skip it: recording needs the character-level scan.
   */
  texts?: boolean;
}

export interface Parsed {
  value: JsonValue;
  hadBom: boolean;
  /** Literals JSON.stringify would not write back as they were (see LiteralTexts); absent when there are none. */
  texts?: LiteralTexts;
  /** The text (after a BOM) is exactly `JSON.stringify(value, null, 2)`, with or without a final newline: formatJson's own layout. */
  canonical?: true;
}

/**
 * The source text of literals a plain rewrite would change: numbers (`8.0`, `1E5`, `-0`,
 * `12345678901234567890`, not exact as a double, `1e-400`, which underflows to 0) and strings
 * or object keys with escapes JSON.stringify does not write (`"Caf\u00e9"`, `"a\/b"`,
 * `"\ud83d\ude00"`: a Python `json.dump` writes every non-ASCII character so). Keyed by
 * where the literal stands (`literalKey`), with array items named by their content (their
 * `id`, else their canonical JSON) rather than their index, so a literal keeps its text
 * when the merge or a command moves the item it sits in. Equal items in one array (`[8.0, 8]`,
 * two runs alike but for how a score is spelled) are told apart by their order among
 * themselves (`itemKeys`): the second is `[8#1]`, so it never takes its twin's text; an object key's text is keyed by
 * its member's key plus NAME_SUFFIX. A literal below an array is also recorded by its
 * position (positionKey), the fallback for an item without an `id` whose other content
 * changed (its content key changed with it). A writer puts the text back wherever the value
 * there still equals it (`denotes`); a changed value is written as usual.
 */
export type LiteralTexts = Map<string, string[]>;

/** Adds a literal's text at `key` (several when the sides of a merge wrote different literals there). */
export function addLiteralText(texts: LiteralTexts, key: string, text: string): void {
  const known = texts.get(key);
  if (!known) texts.set(key, [text]);
  else if (!known.includes(text)) known.push(text);
}

/**
 * Appended to a member's key (content or position) to name the text of the member's own name.
 * No segment starts with it (members start with `.`, items with `[`), so it names nothing else.
 */
export const NAME_SUFFIX = ':';

/** Does the literal `text` (a number's, or a string's with its quotes) stand for `v`? Numbers and strings never mistake each other. */
export function denotes(text: string, v: number | string): boolean {
  if (typeof v === 'number') return text.charCodeAt(0) !== 34 && Object.is(Number(text), v);
  return text.charCodeAt(0) === 34 && JSON.parse(text) === v;
}

/** The positional key of the root: positional keys live apart from content keys in one LiteralTexts. */
export const POSITION_ROOT = '#';

/** The key of a child of the value positioned `parent`: an object member by name, an array item by index. */
export function positionKey(parent: string, keyOrIndex: string | number): string {
  return typeof keyOrIndex === 'number' ? `${parent}[${keyOrIndex}]` : `${parent}.${JSON.stringify(keyOrIndex)}`;
}

/**
 * The key of a child of the value keyed `parent`: an object member by name, an array item by
 * content. `occurrence`: how many items of that array before it have the same name (itemKeys).
 */
export function literalKey(parent: string, inArray: boolean, keyOrItem: string | JsonValue, occurrence = 0): string {
  if (!inArray) return `${parent}.${JSON.stringify(keyOrItem)}`;
  return `${parent}[${itemName(keyOrItem as JsonValue)}${occurrence ? `#${occurrence}` : ''}]`;
}

/**
 * An array item's name in a key: its `id`, else its canonical JSON, -0 apart from 0 (their texts
 * differ, and a writer tells them apart). `#` never stands outside a string in either.
 */
function itemName(item: JsonValue): string {
  const id = ownValue(item, 'id');
  return typeof id === 'string' || typeof id === 'number' ? `id:${JSON.stringify(id)}` : canonicalJsonSigned(item);
}

/**
 * The keys (literalKey) of every item of the array keyed `parent`: an item equal to one before it
 * is named by its order among its equals (`[8]`, `[8#1]`, `[8#2]`), so each copy keeps its own text.
 * The first of its kind has the key it would have alone: a list without repeats is keyed as by content.
 */
export function itemKeys(parent: string, items: readonly JsonValue[]): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const name = itemName(item);
    const n = seen.get(name) ?? 0;
    seen.set(name, n + 1);
    return `${parent}[${name}${n ? `#${n}` : ''}]`;
  });
}

/** True when JSON.stringify writes this literal back byte for byte. */
function isCanonicalNumber(literal: string): boolean {
  return JSON.stringify(Number(literal)) === literal;
}

// Cheap screen for literals that may not be canonical (a trailing fractional zero, an
// exponent, 16+ digits with or without a point in them, wherever it stands: a literal's last 16
// characters, a fixed width so a long run of digits costs no backtracking (8.000000000000001 is
// another double's text, 168.630000000000011 one JSON writes 168.63000000000002), a plain decimal under 1e-6 (JSON writes 1e-7), a negative zero), each followed by what may follow a number in
// JSON (a delimiter, or the end of a document that is just a number): so the ".000Z" of every ISO timestamp does not set it off. Prose inside a string
// ("v1.0, then") can; then the exact scan runs and finds nothing, which only costs time.
const SUSPECT_NUMBER = /(?:\.\d*0|\d[eE][+-]?\d+|[\d.]{16}|\.0{6}\d*|-0)\s*(?:[,\]}]|$)/;
// Strings (skipped whole, unrolled so a long one is one step) or number literals.
const STRING_OR_NUMBER = /"[^"\\]*(?:\\.[^"\\]*)*"|-?\d[\d.eE+-]*/g;

/**
 * Can a string in the text be written otherwise by JSON.stringify? Only a `\u` or `\/` escape can
 * (it writes `\"`, `\\`, `\n` and the other short ones alike). Two native substring searches
 * (several times faster than a regex over the text), so a file without them never pays the exact scan.
 */
const hasOddEscape = (body: string): boolean => body.includes('\\u') || body.includes('\\/');

/**
 * May the JSON `text` hold a literal JSON.stringify would write otherwise (a number's or a string's:
 * LiteralTexts)? False only when it holds none; true may be a string escape written alike after all.
 */
export function mayHoldOddLiteral(text: string): boolean {
  return hasOddNumber(text) || hasOddEscape(text);
}

/** Does the text hold a number literal JSON.stringify would not write back as it is? */
function hasOddNumber(body: string): boolean {
  // The screen first: most files have nothing that even looks odd, and then no scan runs.
  if (!SUSPECT_NUMBER.test(body)) return false;
  STRING_OR_NUMBER.lastIndex = 0;
  for (let m = STRING_OR_NUMBER.exec(body); m !== null; m = STRING_OR_NUMBER.exec(body)) {
    if (m[0].charCodeAt(0) !== 34 && !isCanonicalNumber(m[0])) return true;
  }
  return false;
}

/**
 * Parses `text` strictly. The common case (a well-formed file) takes the native JSON.parse
 * plus cheap checks for what it lets through; anything suspicious goes to the character-level
 * parser, which is authoritative and produces the located error. Cold start matters here:
 * the merge driver and every read command run this once per file in a fresh process.
 */
export function parseJson(text: string, options: ParseOptions = {}): Parsed {
  const hadBom = text.charCodeAt(0) === 0xfeff;
  const body = hadBom ? text.slice(1) : text;
  let value: JsonValue;
  try {
    value = JSON.parse(body) as JsonValue;
  } catch {
    return parseJsonStrict(text, options);
  }
  const rejectUnsafe = options.rejectUnsafeKeys ?? true;
  if (writtenByStringify(body, value, rejectUnsafe)) return { value, hadBom, canonical: true };
  if (!plainText(body, value, rejectUnsafe)) {
    // Fewer keys in the value than key tokens in the text means JSON.parse folded duplicates.
    const keys = checkParsed(value, rejectUnsafe);
    if (keys < 0 || keys !== countKeyTokens(body)) return parseJsonStrict(text, options);
  }
  // A literal JSON.parse would round (8.0, 1e-400) or a string escape JSON.stringify does not
  // write (\u00e9, \/) keeps its text: located by a scan of the tokens (the value is JSON.parse's).
  if ((options.texts ?? true) && (hasOddNumber(body) || hasOddEscape(body))) {
    const raw = oddLiterals(body);
    return raw.length > 0 ? { value, hadBom, texts: keyTexts(value, raw) } : { value, hadBom };
  }
  return { value, hadBom };
}

/**
 * The literals parseJsonStrict records (same paths, same order) in a text JSON.parse read and
 * parseJson checked: one pass over its characters that only tracks where it stands, without
 * building the value again (a Python json.dump file records every float, and the strict parser's
 * second parse of it cost several times JSON.parse). true, false, null and blanks change no path.
 */
function oddLiterals(body: string): RawText[] {
  const raw: RawText[] = [];
  const path: Array<string | number> = [];
  // Per open container: 0 an array, 1 an object before its first key, 2 an object with a key on `path`.
  const open: number[] = [];
  let keyNext = false;
  // The next backslash at or after the scan (-1: none left), found once per backslash, not per
  // string; first looked for at the first string. Never searched before the loop: written that
  // way, once the scan was optimized (Node 20, a few parses into one process: the MCP server, a
  // rotate) every string scanned on to the end of the text, as if the search ran at its use, and
  // a 1.8 MB Python-written file took ~30 s to read instead of ~40 ms (bench section 5).
  let slash = 0;
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body.charCodeAt(i);
    if (c === 34) {
      if (slash !== -1 && slash <= i) slash = body.indexOf('\\', i);
      let end = body.indexOf('"', i + 1);
      const escaped = slash !== -1 && slash < end;
      if (escaped) end = stringEnd(body, i);
      // Only a `\u` or `\/` escape can be written otherwise by JSON.stringify (parseJsonStrict's test).
      const t = escaped ? body.slice(i, end + 1) : '';
      const odd = escaped && hasWidthEscape(t) && JSON.stringify(JSON.parse(t)) !== t;
      if (keyNext) {
        path.push(escaped ? (JSON.parse(t) as string) : body.slice(i + 1, end));
        open[open.length - 1] = 2;
        keyNext = false;
        if (odd) raw.push({ path: [...path], text: t, name: true });
      } else if (odd) raw.push({ path: [...path], text: t });
      i = end;
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      // Digits alone (no sign, point or exponent), fewer than 16: JSON writes them back alike.
      let plain = c !== 45;
      let j = i + 1;
      for (; j < n; j++) {
        const d = body.charCodeAt(j);
        if (d >= 48 && d <= 57) continue;
        if (d !== 46 && d !== 101 && d !== 69 && d !== 43 && d !== 45) break;
        plain = false;
      }
      if (!plain || j - i > 15) {
        const t = body.slice(i, j);
        if (!isCanonicalNumber(t)) raw.push({ path: [...path], text: t });
      }
      i = j - 1;
    } else if (c === 123) {
      open.push(1);
      keyNext = true;
    } else if (c === 91) {
      open.push(0);
      path.push(0);
    } else if (c === 44) {
      if (open[open.length - 1] === 0) (path[path.length - 1] as number)++;
      else {
        path.pop();
        keyNext = true;
      }
    } else if (c === 125 || c === 93) {
      if (open.pop() !== 1) path.pop();
      keyNext = false;
    }
  }
  return raw;
}

/** The index of the quote closing the string literal opened at `at` (escapes skipped). */
function stringEnd(body: string, at: number): number {
  let k = at + 1;
  for (let c = body.charCodeAt(k); c !== 34; c = body.charCodeAt(k)) k += c === 92 ? 2 : 1;
  return k;
}

/** Whether a string literal holds a `\u` or `\/` escape, the two JSON.stringify may write otherwise (parseJsonStrict's test). */
function hasWidthEscape(literal: string): boolean {
  for (let k = literal.indexOf('\\'); k !== -1; k = literal.indexOf('\\', k + 2)) {
    const e = literal.charCodeAt(k + 1);
    if (e === 117 || e === 47) return true;
  }
  return false;
}

// Lines indented this deep hold a container nested past MAX_JSON_DEPTH (two spaces a level).
const TOO_DEEP_INDENT = `\n${'  '.repeat(MAX_JSON_DEPTH)}`;

/**
 * The usual checkpoint, as JSON.stringify(value, null, 2) wrote it: the text is what writing its
 * value back gives, byte for byte, so it holds no folded duplicate, no non-finite number and no
 * literal with a text of its own (LiteralTexts). One native write and compare, the cheapest
 * answer for the merge driver's three sides; the depth and forbidden keys are read off the text.
 * False when it cannot tell (another layout): plainText and checkParsed decide.
 */
function writtenByStringify(body: string, value: JsonValue, rejectUnsafe: boolean): boolean {
  if (!body.startsWith('{\n  "') || body.includes(TOO_DEEP_INDENT)) return false;
  if (rejectUnsafe) for (const k of FORBIDDEN_KEYS) if (body.includes(`"${k}"`)) return false;
  let out: string;
  try {
    out = JSON.stringify(value, null, 2);
  } catch {
    return false; // nested too deep for the stack, on fewer lines than the check above reads
  }
  // Compared as whole strings (a native memory compare; startsWith walks 20 KiB a character at a time).
  if (body.length === out.length) return body === out;
  return body.length === out.length + 1 && body.charCodeAt(out.length) === 10 && body.slice(0, out.length) === out;
}

const occurrences = (text: string, part: string): number => text.split(part).length - 1;

/**
 * checkParsed's answer without visiting the value from script, for the common text: every
 * check is a native pass over a string (a dozen files, cold, cost several milliseconds as a
 * walk). Without `\u` escapes and blanks before colons, a text and JSON.stringify of its value
 * write every string alike, so:
 *  - each `":` is a key's end or sits inside a string both write alike; a folded duplicate
 *    leaves the text with more of them than the re-serialization;
 *  - a non-finite number (1e400) is re-serialized as `null`, one more than the text holds;
 *  - a forbidden key is in the text as written;
 *  - fewer than MAX_JSON_DEPTH brackets in the text cannot nest that deep.
 * False when it cannot tell; checkParsed then decides.
 */
function plainText(body: string, value: JsonValue, rejectUnsafe: boolean): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (body.includes('\\u') || SPACED_KEY.test(body)) return false;
  if (rejectUnsafe) for (const k of FORBIDDEN_KEYS) if (body.includes(`"${k}"`)) return false;
  // Before JSON.stringify, which would overflow the stack on a value nested 10,000 deep.
  if (occurrences(body, '{') + occurrences(body, '[') >= MAX_JSON_DEPTH) return false;
  const out = JSON.stringify(value);
  return occurrences(out, '":') === occurrences(body, '":') && occurrences(out, 'null') === occurrences(body, 'null');
}

/**
 * Where `value` nests deeper than a reader accepts (parseJson refuses a container opened at
 * MAX_JSON_DEPTH): the path to the first such container, else null. A writer asks this before
 * it serializes, so it never writes what it cannot read back. Recursion stops at the limit.
 */
export function tooDeepAt(value: JsonValue, depth = 0): Array<string | number> | null {
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_JSON_DEPTH) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const below = tooDeepAt(value[i]!, depth + 1);
      if (below) return [i, ...below];
    }
    return null;
  }
  for (const k in value) {
    const below = tooDeepAt(value[k]!, depth + 1);
    if (below) return [k, ...below];
  }
  return null;
}

/** Key count of a parsed value, or -1 when it is too deep, has a forbidden key or a non-finite number. */
function checkParsed(value: JsonValue, rejectUnsafe: boolean): number {
  if (typeof value === 'number') return Number.isFinite(value) ? 0 : -1;
  return typeof value === 'object' && value !== null ? checkContainer(value, rejectUnsafe, 0) : 0;
}

/**
 * checkParsed of an object or array. Runs cold on every file a command reads, over every value:
 * scalars are judged in the loop, so only containers cost a call (fewer calls, less to compile).
 */
function checkContainer(value: JsonValue[] | { [k: string]: JsonValue }, rejectUnsafe: boolean, depth: number): number {
  // Recursion stops at the depth limit, so it stays shallow whatever JSON.parse accepted.
  if (depth >= MAX_JSON_DEPTH) return -1;
  let keys = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i]!;
      if (typeof v === 'object') {
        if (v === null) continue;
        const inner = checkContainer(v, rejectUnsafe, depth + 1);
        if (inner < 0) return -1;
        keys += inner;
      } else if (typeof v === 'number' && !Number.isFinite(v)) return -1;
    }
    return keys;
  }
  for (const k in value) {
    if (rejectUnsafe && FORBIDDEN_KEYS.has(k)) return -1;
    keys++;
    const v = value[k]!;
    if (typeof v === 'object') {
      if (v === null) continue;
      const inner = checkContainer(v, rejectUnsafe, depth + 1);
      if (inner < 0) return -1;
      keys += inner;
    } else if (typeof v === 'number' && !Number.isFinite(v)) return -1;
  }
  return keys;
}

// A key written with blanks before its colon (`"a" : 1`): rare, and countKeyTokens does not count it.
const SPACED_KEY = /"[ \t\r\n]+:/;

/**
 * Upper bound on the key tokens in `body`, or -1 when it cannot tell. Every key ends in `":`
 * unless blanks stand between (then -1); `":` inside a string (`"a\":b"`) counts too, so the
 * count can exceed the keys, never fall short: a mismatch only sends the text to the strict
 * parser, which decides. split counts in native code (no per-character loop to warm up).
 */
function countKeyTokens(body: string): number {
  return SPACED_KEY.test(body) ? -1 : body.split('":').length - 1;
}

export function parseJsonStrict(text: string, options: ParseOptions): Parsed {
  const rejectUnsafe = options.rejectUnsafeKeys ?? true;
  let hadBom = false;
  let i = 0;
  if (text.charCodeAt(0) === 0xfeff) {
    hadBom = true;
    i = 1;
  }
  const n = text.length;
  // Where the parser stands (object keys and array indices), for recording literal texts.
  const path: Array<string | number> = [];
  const raw: RawText[] = [];
  // The source text of the string str() just read, when JSON.stringify would write it otherwise.
  let oddString: string | undefined;

  const position = (at: number): { line: number; col: number } => {
    let line = 1;
    let col = 1;
    // Columns count from after a BOM, as an editor shows them.
    for (let k = hadBom ? 1 : 0; k < at && k < n; k++) {
      if (text.charCodeAt(k) === 10) {
        line++;
        col = 1;
      } else col++;
    }
    return { line, col };
  };
  const fail = (reason: string, at = i): never => {
    // Markers stand where a key or a comma is expected far more often than where a value is.
    if (CONFLICT_MARKER.test(text.slice(at, at + 7))) reason = CONFLICT_REASON;
    const { line, col } = position(at);
    throw new JsonSyntaxError(reason, line, col);
  };

  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };

  const str = (): string => {
    const start = i;
    i++; // opening quote
    let out = '';
    let chunk = i;
    // Only `\u` and `\/` can be written otherwise by JSON.stringify (it writes `\u001f` alike, `\u001F` not).
    let mayDiffer = false;
    oddString = undefined;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        out += text.slice(chunk, i);
        i++;
        if (mayDiffer) {
          const source = text.slice(start, i);
          if (source !== JSON.stringify(out)) oddString = source;
        }
        return out;
      }
      if (c === 92) {
        out += text.slice(chunk, i);
        const e = text[i + 1];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; mayDiffer = true; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const hex = text.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('invalid \\u escape in string');
            out += String.fromCharCode(parseInt(hex, 16));
            mayDiffer = true;
            i += 4;
            break;
          }
          default:
            fail('invalid escape in string');
        }
        i += 2;
        chunk = i;
        continue;
      }
      if (c === 10 || c === 13) {
        // JSON strings are one line: a break in one is a missing closing quote, a break written
        // raw, or a file cut short right after it.
        if (/^\s*$/.test(text.slice(i))) fail(`the text ends inside a string ${CUT}`, start);
        fail('line break inside a string (a closing quote missing, or write the break as \\n)');
      }
      if (c < 32) fail('control character in string (escape it)');
      i++;
    }
    return fail(`the text ends inside a string ${CUT}`, start);
  };

  // The end of the text, but for blanks, within `from`…`from + 16`: what a number or literal cut short leaves.
  const endsWithin = (from: number) => n - from <= 16 && /^\s*$/.test(text.slice(from).replace(/^[\w.+-]*/, ''));
  const num = (): number => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail(endsWithin(i) ? `the text ends inside a number ${CUT}` : 'invalid number');
    // "12." or "1e" at the end: a number cut short, not one followed by junk.
    if (/[.eE+-]/.test(text[i + m[0].length] ?? '') && endsWithin(i + m[0].length)) fail(`the text ends inside a number ${CUT}`, i + m[0].length);
    const v = Number(m[0]);
    if (!Number.isFinite(v)) {
      const { line, col } = position(i);
      throw new JsonNumberRangeError(m[0], path, line, col);
    }
    i += m[0].length;
    if (!isCanonicalNumber(m[0])) raw.push({ path: [...path], text: m[0] });
    return v;
  };

  const value = (depth: number): JsonValue => {
    ws();
    if (i >= n) return fail(`the text ends where a value belongs ${CUT}`);
    const c = text[i]!;
    if (c === '{' || c === '[') {
      if (depth >= MAX_JSON_DEPTH) fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
      i++;
      ws();
      if (c === '[') {
        const arr: JsonValue[] = [];
        if (text[i] === ']') {
          i++;
          return arr;
        }
        for (;;) {
          path.push(arr.length);
          arr.push(value(depth + 1));
          path.pop();
          ws();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i] === ']') {
            i++;
            return arr;
          }
          return fail(i >= n ? `the text ends inside an array ${CUT}` : "expected ',' or ']' in array");
        }
      }
      const obj: { [k: string]: JsonValue } = {};
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (i >= n) return fail(`the text ends inside an object ${CUT}`);
        if (text[i] !== '"') return fail('expected a double-quoted property name');
        const keyAt = i;
        const key = str();
        if (oddString !== undefined) raw.push({ path: [...path, key], text: oddString, name: true });
        if (Object.prototype.hasOwnProperty.call(obj, key)) fail(`duplicate key ${quoted(key)}`, keyAt); // a key from the file: one bounded line
        if (rejectUnsafe && FORBIDDEN_KEYS.has(key)) {
          const { line, col } = position(keyAt);
          throw new JsonUnsafeKeyError(key, line, col);
        }
        ws();
        if (text[i] !== ':') return fail(i >= n ? `the text ends inside an object ${CUT}` : "expected ':' after property name");
        i++;
        path.push(key);
        const v = value(depth + 1);
        path.pop();
        // defineProperty keeps a `__proto__` key (when allowed) an own data property.
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        return fail(i >= n ? `the text ends inside an object ${CUT}` : "expected ',' or '}' in object");
      }
    }
    if (c === '"') {
      const s = str();
      if (oddString !== undefined) raw.push({ path: [...path], text: oddString });
      return s;
    }
    if (c === 't' && text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (c === 'f' && text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (c === 'n' && text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return num();
    if (c === '<' || c === '=' || c === '>') return fail(CONFLICT_REASON);
    // "tr", "fals", "nu" at the end: a literal cut short.
    const rest = text.slice(i, i + 8).trimEnd();
    if (n - i <= 16 && /^\s*$/.test(text.slice(i + rest.length)) && ['true', 'false', 'null'].some((w) => w.startsWith(rest))) return fail(`the text ends inside ${quoted(rest)} (true, false or null) ${CUT}`);
    return fail(`unexpected character ${quoted(c)}`);
  };

  if (i >= n || /^\s*$/.test(text.slice(i))) fail('empty file (expected a JSON object)', i);
  const v = value(0);
  ws();
  if (i < n) fail('unexpected content after the JSON value');
  return raw.length > 0 ? { value: v, hadBom, texts: keyTexts(v, raw) } : { value: v, hadBom };
}

/** A recorded literal by index path; `name`: the text of the object key the path ends in, not of its value. */
interface RawText {
  path: Array<string | number>;
  text: string;
  name?: boolean;
}

/** Index paths -> content keys (literalKey), once the whole value is there to name array items by. */
function keyTexts(root: JsonValue, raw: readonly RawText[]): LiteralTexts {
  const texts: LiteralTexts = new Map();
  // Each array's item keys are worked out once, however many of its items hold a literal.
  const cache: ItemKeyCache = new WeakMap();
  // The places along the previous literal's path (places[d]: after d segments): the next literal,
  // in document order, shares most of them (a float's siblings), so only the rest is named anew.
  const places: Place[] = [{ key: '', position: POSITION_ROOT, at: root, inArray: false }];
  let previous: ReadonlyArray<string | number> = [];
  for (const { path, text, name } of raw) {
    let d = 0;
    while (d < path.length && d < previous.length && path[d] === previous[d]) d++;
    for (; d < path.length; d++) places[d + 1] = placeStep(places[d]!, path[d]!, cache);
    previous = path;
    const { key, position, inArray } = places[path.length]!;
    const suffix = name ? NAME_SUFFIX : '';
    // Two literals at one key (equal items in one array): a writer takes the first with the right value.
    addLiteralText(texts, key + suffix, text);
    // Outside arrays the content key already is the position.
    if (inArray) addLiteralText(texts, position + suffix, text);
  }
  return texts;
}

/**
 * The item keys of arrays already worked out by literalPlace (for arrays that do not change
 * meanwhile), with the key of the array they were made for: one array may stand at two places.
 */
export type ItemKeyCache = WeakMap<readonly JsonValue[], { parent: string; keys: string[] }>;

/**
 * The content key and position key (literalKey, positionKey) of the value at `path` in `root`, as a
 * writer of `root` names them. `cache`: item keys of arrays worked out before (the arrays unchanged since).
 */
export function literalPlace(root: JsonValue, path: ReadonlyArray<string | number>, cache?: ItemKeyCache): [string, string] {
  let place: Place = { key: '', position: POSITION_ROOT, at: root, inArray: false };
  for (const seg of path) place = placeStep(place, seg, cache);
  return [place.key, place.position];
}

/** Where a path leads (literalPlace): its content key and position key, the value there, and whether an array lies on the way. */
interface Place {
  key: string;
  position: string;
  at: JsonValue;
  inArray: boolean;
}

/** The place one segment below `place`. */
function placeStep(place: Place, seg: string | number, cache?: ItemKeyCache): Place {
  const { at } = place;
  // A member's key needs no value: a path not (yet) in `root` is named all the same.
  const child: JsonValue = at !== null && typeof at === 'object' ? (at as Record<string | number, JsonValue>)[seg]! : (undefined as unknown as JsonValue);
  let key: string;
  if (Array.isArray(at) && typeof seg === 'number') {
    let known = cache?.get(at);
    if (known?.parent !== place.key) {
      known = { parent: place.key, keys: itemKeys(place.key, at) };
      cache?.set(at, known);
    }
    key = known.keys[seg]!;
  } else key = literalKey(place.key, false, seg);
  return { key, position: positionKey(place.position, seg), at: child, inArray: place.inArray || typeof seg === 'number' };
}
