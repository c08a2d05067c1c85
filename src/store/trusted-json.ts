// The value of checkpoint bytes already known good (verdicts.ts: this exact file passed the
// strict UTF-8 decode and parseJson before). ASCII bytes (most checkpoints) are read as Latin-1,
// about half the work of the strict UTF-8 decode for the same one-byte string.
// (A non-ASCII file is decoded: read as Latin-1 and its non-ASCII strings decoded again one by
// one would save the two-byte copy, but walking the value for them costs more than the copy.)
import type { JsonValue } from '../protocol/types.js';

// From process.getBuiltinModule, like safe-fs: a require() of node:buffer would also build its ESM facade.
const { isAscii } = process.getBuiltinModule('node:buffer');

/** The value of the known-good JSON `bytes`, or undefined when they are not ASCII (decode them). */
export function parseAsciiJson(bytes: Buffer): JsonValue | undefined {
  return isAscii(bytes) ? (JSON.parse(bytes.toString('latin1')) as JsonValue) : undefined;
}
