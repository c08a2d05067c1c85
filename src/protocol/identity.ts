// Identity of JSON records, shared by the merge (log and record dedup, symmetric
// tie-breaks) and rotation (history dedup): equal data gives equal identity, whatever the
// key order. Iterative, so absurdly deep input cannot overflow the stack.

import { FORBIDDEN_KEYS } from './fields.js';
import type { JsonObject, JsonValue } from './types.js';

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The keys the merge may read or write: own, enumerable, never `__proto__`/`constructor`/`prototype`. */
export function safeKeys(obj: JsonObject): string[] {
  return Object.keys(obj).filter((key) => !FORBIDDEN_KEYS.has(key));
}

/** `obj[key]` only when it is an own property (a missing `toString` must read as absent). */
export function ownValue(obj: JsonValue | undefined, key: string): JsonValue | undefined {
  return isJsonObject(obj) && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

type Frame =
  | { kind: 'array'; items: JsonValue[]; next: number }
  | { kind: 'object'; obj: JsonObject; keys: string[]; next: number };

/** JSON text with object keys sorted: equal values (in the `jsonEqual` sense) give equal strings. */
export function canonicalJson(value: JsonValue): string {
  return canonical(value, false);
}

/** canonicalJson, but -0 written `-0` (JSON writes it 0): for names that must tell it from 0. */
export function canonicalJsonSigned(value: JsonValue): string {
  return canonical(value, true);
}

function canonical(value: JsonValue, signedZero: boolean): string {
  let out = '';
  const stack: Frame[] = [];
  const open = (v: JsonValue): void => {
    if (Array.isArray(v)) {
      out += '[';
      stack.push({ kind: 'array', items: v, next: 0 });
    } else if (v !== null && typeof v === 'object') {
      out += '{';
      stack.push({ kind: 'object', obj: v, keys: safeKeys(v).sort(), next: 0 });
    } else {
      out += signedZero && Object.is(v, -0) ? '-0' : JSON.stringify(v);
    }
  };
  open(value);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.kind === 'array') {
      if (frame.next === frame.items.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (frame.next > 0) out += ',';
      open(frame.items[frame.next++]!);
    } else {
      if (frame.next === frame.keys.length) {
        out += '}';
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.next++]!;
      out += (frame.next > 1 ? ',' : '') + JSON.stringify(key) + ':';
      open(frame.obj[key]!);
    }
  }
  return out;
}

/**
 * Identity of a log or record entry: its `id` when it is an object with a string or
 * number id, otherwise its canonical JSON. The prefixes keep `1`, `"1"` and content apart.
 */
export function entryIdentity(entry: JsonValue): string {
  const id = ownValue(entry, 'id');
  if (typeof id === 'string') return `id:s:${id}`;
  if (typeof id === 'number') return `id:n:${id}`;
  return `json:${canonicalJson(entry)}`;
}
