// Small JSON helpers the merge needs: own-property access that never reaches the
// prototype, prototype-safe object building, order-insensitive equality and a
// canonical serialization used as identity and as a symmetric tie-breaker. Nothing
// here recurses without bound, so absurdly deep input cannot overflow the stack.

import { FORBIDDEN_KEYS } from '../protocol/fields.js';
import { MAX_JSON_DEPTH } from '../protocol/json.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';

export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The keys the merge may read or write: own, enumerable, never `__proto__`/`constructor`/`prototype`. */
export function safeKeys(obj: JsonObject): string[] {
  return Object.keys(obj).filter((key) => !FORBIDDEN_KEYS.has(key));
}

function countSafeKeys(obj: JsonObject): number {
  let count = 0;
  for (const key of Object.keys(obj)) if (!FORBIDDEN_KEYS.has(key)) count++;
  return count;
}

/** `obj[key]` only when it is an own property (a missing `toString` must read as absent). */
export function ownValue(obj: JsonValue | undefined, key: string): JsonValue | undefined {
  return isJsonObject(obj) && Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Defines a plain data property: never invokes a setter, never changes a prototype. */
export function setOwn(obj: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Deep equality of JSON values, ignoring object key order; `undefined` stands for "absent". */
export function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return equalWithin(a, b, 0);
}

// Recursion (no allocation) for the usual shallow values: this runs on every merged node,
// cold, inside `git merge`. Past parseJson's depth limit it hands over to the explicit stack.
function equalWithin(x: JsonValue | undefined, y: JsonValue | undefined, depth: number): boolean {
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (depth > MAX_JSON_DEPTH) return equalDeep(x, y);
  if (Array.isArray(x)) {
    if (!Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!equalWithin(x[i], y[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(y)) return false;
  let count = 0;
  for (const key of Object.keys(x)) {
    if (FORBIDDEN_KEYS.has(key)) continue;
    if (!Object.prototype.hasOwnProperty.call(y, key) || !equalWithin(x[key], y[key], depth + 1)) return false;
    count++;
  }
  return count === countSafeKeys(y);
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

type Frame =
  | { kind: 'array'; items: JsonValue[]; next: number }
  | { kind: 'object'; obj: JsonObject; keys: string[]; next: number };

/** JSON text with object keys sorted: equal values (in the `jsonEqual` sense) give equal strings. */
export function canonicalJson(value: JsonValue): string {
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
      out += JSON.stringify(v);
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

export function isIdentifiedByContent(identity: string): boolean {
  return identity.startsWith('json:');
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
