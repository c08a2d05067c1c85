// The value of checkpoint bytes already known good (verdicts.ts: this exact file passed the
// strict UTF-8 decode and parseJson before), parsed without the UTF-16 copy a decode makes.
// One character outside Latin-1 (an em dash, an arrow) makes the whole decoded text two bytes a
// character: the text of a dozen checkpoints is then most of what a status run allocates. Read
// as Latin-1 instead, each byte is one character, and JSON.parse gives the same value except
// inside strings holding non-ASCII bytes, which are decoded again one by one. Exact because in
// JSON every byte outside ASCII is inside a string, and a UTF-8 sequence never holds an ASCII
// byte (a quote or backslash); a `\u` escape could stand for a Latin-1 character that would then
// be read as a byte, so a non-ASCII file holding one is left to the ordinary decode.
import { isAscii } from 'node:buffer';
import type { JsonValue } from '../protocol/types.js';

const HIGH = /[\x80-\xff]/;
/** Set when a key holds a non-ASCII byte: the ordinary decode is left to do it. */
let keyed = false;

/** The value of the known-good JSON `bytes` (a BOM skipped), or undefined when the ordinary decode must do it. */
export function parseTrustedJson(bytes: Buffer): JsonValue | undefined {
  const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = start ? bytes.subarray(start) : bytes;
  const ascii = isAscii(body);
  if (!ascii && body.includes('\\u')) return undefined;
  const value = JSON.parse(body.toString('latin1')) as JsonValue;
  if (ascii) return value;
  keyed = false;
  try {
    const fixed = utf8Strings(value);
    return keyed ? undefined : fixed;
  } catch (e) {
    if (e instanceof RangeError) return undefined; // nested past the stack: the ordinary path says what it is
    throw e;
  }
}

/** `v` with every string read as UTF-8 bytes (in place: the value is fresh from JSON.parse). */
function utf8Strings(v: JsonValue): JsonValue {
  if (typeof v === 'string') return HIGH.test(v) ? Buffer.from(v, 'latin1').toString('utf8') : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i]!;
      if (typeof x === 'object' && x !== null) utf8Strings(x);
      else if (typeof x === 'string' && HIGH.test(x)) v[i] = utf8Strings(x);
    }
    return v;
  }
  for (const k in v) {
    if (HIGH.test(k)) {
      keyed = true;
      return v;
    }
    const x = v[k]!;
    if (typeof x === 'object' && x !== null) utf8Strings(x);
    // A "__proto__" key is an own property here: defined, never assigned (which would set the prototype).
    else if (typeof x === 'string' && HIGH.test(x)) Object.defineProperty(v, k, { value: utf8Strings(x), writable: true, enumerable: true, configurable: true });
  }
  return v;
}
