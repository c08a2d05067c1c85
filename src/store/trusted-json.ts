// The value of checkpoint bytes already known good (verdicts.ts: this exact file passed the
// strict UTF-8 decode and parseJson before), parsed without the UTF-16 copy a decode makes: one
// character outside Latin-1 (an em dash, an arrow) makes a decoded text two bytes a character,
// and the text of a dozen checkpoints is then most of what a status run allocates.
// The bytes are read as Latin-1 (one byte, one character), each run of non-ASCII bytes written
// as the \u escapes of its characters first. Exact for valid JSON: every non-ASCII byte is inside
// a string, where an escape means the character, and a run of whole UTF-8 sequences holds no
// ASCII byte (no quote, no backslash). Where the runs are is learnt with the verdict
// (nonAsciiRuns) and checked here: ASCII between them, whole characters and no ASCII within.
import type { JsonValue } from '../protocol/types.js';

// From process.getBuiltinModule, like safe-fs: a require() of node:buffer would also build its ESM facade.
const { isAscii } = process.getBuiltinModule('node:buffer');

const NON_ASCII = /[^\x00-\x7f]+/g;
const HEX = '0123456789abcdef';

/** Byte offsets [start, end, start, end, ...] of the runs of non-ASCII bytes in the UTF-8 encoding of `text`. */
export function nonAsciiRuns(text: string): number[] {
  const runs: number[] = [];
  let extra = 0;
  for (const m of text.matchAll(NON_ASCII)) {
    const start = m.index + extra;
    const bytes = Buffer.byteLength(m[0]);
    runs.push(start, start + bytes);
    extra += bytes - m[0].length;
  }
  return runs;
}

/**
 * The value of the known-good JSON `bytes` whose non-ASCII runs are `runs` (nonAsciiRuns of
 * their text); undefined when the runs do not fit the bytes (or one is not inside a string,
 * as a BOM is): decode them then.
 */
export function parseKnownJson(bytes: Buffer, runs: readonly number[]): JsonValue | undefined {
  if (runs.length % 2 !== 0) return undefined;
  const texts: string[] = [];
  let size = bytes.length;
  let from = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const start = runs[i]!;
    const end = runs[i + 1]!;
    if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && from < start && start < end && end <= bytes.length)) return undefined;
    if (!isAscii(bytes.subarray(from, start))) return undefined;
    const text = bytes.toString('utf8', start, end);
    // A run that splits a character decodes with U+FFFD; one holding ASCII could hold a quote.
    if (text.includes('\uFFFD') || /[\x00-\x7f]/.test(text)) return undefined;
    texts.push(text);
    size += 6 * text.length - (end - start);
    from = end;
  }
  if (!isAscii(from === 0 ? bytes : bytes.subarray(from))) return undefined;
  if (texts.length === 0) return JSON.parse(bytes.toString('latin1')) as JsonValue;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  from = 0;
  for (let i = 0; i < runs.length; i += 2) {
    at += bytes.copy(out, at, from, runs[i]);
    const text = texts[i >> 1]!;
    for (let k = 0; k < text.length; k++) {
      const c = text.charCodeAt(k);
      out[at++] = 0x5c; // \
      out[at++] = 0x75; // u
      out[at++] = HEX.charCodeAt(c >> 12);
      out[at++] = HEX.charCodeAt((c >> 8) & 15);
      out[at++] = HEX.charCodeAt((c >> 4) & 15);
      out[at++] = HEX.charCodeAt(c & 15);
    }
    from = runs[i + 1]!;
  }
  bytes.copy(out, at, from);
  return JSON.parse(out.toString('latin1')) as JsonValue;
}
