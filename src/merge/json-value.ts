// Small JSON helpers the merge needs beyond protocol/identity.ts: prototype-safe object
// building and order-insensitive equality. Nothing here recurses without bound, so
// absurdly deep input cannot overflow the stack.

import { FORBIDDEN_KEYS } from '../protocol/fields.js';
import { MAX_JSON_DEPTH } from '../protocol/json.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { entryIdentity, isJsonObject, ownValue, safeKeys } from '../protocol/identity.js';

function countSafeKeys(obj: JsonObject): number {
  let count = 0;
  for (const key of Object.keys(obj)) if (!FORBIDDEN_KEYS.has(key)) count++;
  return count;
}

/** Defines a plain data property: never invokes a setter, never changes a prototype. */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Deep equality of JSON values, ignoring object key order; `undefined` stands for "absent". */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return equalWithin(a, b, 0);
}

// Recursion without allocation (no key lists: for-in reads the object's cached keys) for the usual
// shallow values: this runs on every merged node, cold, inside `git merge`, so leaves are compared
// in the loop (no call per string or number). Past parseJson's depth limit it hands over to the
// explicit stack.
function equalWithin(x: JsonValue | undefined, y: JsonValue | undefined, depth: number): boolean {
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (depth > MAX_JSON_DEPTH) return equalDeep(x, y);
  if (Array.isArray(x)) {
    const n = x.length;
    if (!Array.isArray(y) || n !== y.length) return false;
    // Last item first: two versions of a log or queue of one length usually differ at the end.
    if (n > 0 && !equalWithin(x[n - 1], y[n - 1], depth + 1)) return false;
    for (let i = 0; i < n - 1; i++) {
      const a = x[i]!;
      const b = y[i]!;
      if (a !== b && (typeof a !== 'object' || !equalWithin(a, b, depth + 1))) return false;
    }
    return true;
  }
  if (Array.isArray(y)) return false;
  // for-in lists a JSON object's own keys (nothing is enumerable on its prototype). A key y lacks
  // reads an inherited method or undefined there, which equals no JSON value.
  let count = 0;
  for (const key in x) {
    if (key.length >= 9 && FORBIDDEN_KEYS.has(key)) continue; // every forbidden key is 9+ characters
    const a = x[key]!;
    const b = y[key];
    if (a !== b && (typeof a !== 'object' || a === null || !equalWithin(a, b, depth + 1))) return false;
    count++;
  }
  for (const key in y) if (!(key.length >= 9 && FORBIDDEN_KEYS.has(key))) count--;
  return count === 0;
}

function equalDeep(a: JsonValue, b: JsonValue): boolean {
  const left: JsonValue[] = [a];
  const right: JsonValue[] = [b];
  while (left.length > 0) {
    const x = left.pop()!;
    const y = right.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        left.push(x[i]!);
        right.push(y[i]!);
      }
      continue;
    }
    if (Array.isArray(y)) return false;
    let count = 0;
    for (const key of Object.keys(x)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      if (!Object.prototype.hasOwnProperty.call(y, key)) return false;
      count++;
      left.push(x[key]!);
      right.push(y[key]!);
    }
    if (count !== countSafeKeys(y)) return false;
  }
  return true;
}

/** The id-based identity of a record, or undefined when it has no usable id. */
export function recordId(entry: JsonValue): string | undefined {
  if (!isJsonObject(entry)) return undefined;
  const id = ownValue(entry, 'id');
  return typeof id === 'string' || typeof id === 'number' ? entryIdentity(entry) : undefined;
}

/** Code-unit order, the same in every locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// In JSON.stringify output a quote inside a string is always escaped, so this matches real keys only.
const UNSAFE_KEY_TEXT = /[{,]"(?:__proto__|constructor|prototype)":/;

function hasUnsafeKey(value: JsonValue): boolean {
  try {
    return UNSAFE_KEY_TEXT.test(JSON.stringify(value));
  } catch {
    // Too deep for JSON.stringify: walk it.
    const stack: JsonValue[] = [value];
    while (stack.length > 0) {
      const v = stack.pop()!;
      if (Array.isArray(v)) for (const item of v) stack.push(item);
      else if (isJsonObject(v)) {
        for (const key of Object.keys(v)) {
          if (FORBIDDEN_KEYS.has(key)) return true;
          stack.push(v[key]!);
        }
      }
    }
    return false;
  }
}

/** The value itself when it has no `__proto__`/`constructor`/`prototype` key anywhere, else a copy without them. */
export function withoutUnsafeKeys(value: JsonValue): JsonValue {
  if (!hasUnsafeKey(value)) return value;
  const copyShell = (v: JsonValue): JsonValue => (Array.isArray(v) ? new Array<JsonValue>(v.length) : isJsonObject(v) ? {} : v);
  const root = copyShell(value);
  const stack: Array<[JsonValue, JsonValue]> = [[value, root]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    const keys = Array.isArray(from) ? from.map((_, i) => i) : safeKeys(from as JsonObject);
    for (const key of keys) {
      const child = (from as Record<string | number, JsonValue>)[key]!;
      const copy = copyShell(child);
      if (Array.isArray(to)) to[key as number] = copy;
      else setOwn(to as JsonObject, key as string, copy);
      if (copy !== child) stack.push([child, copy]);
    }
  }
  return root;
}
