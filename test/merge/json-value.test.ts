// jsonEqual is the merge's "did this side change it" for every node: it must agree with
// canonical JSON (equal values, any key order) on values that differ anywhere, including
// the first or last item of an array and a key order that differs between the two sides.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/identity.js';
import type { JsonValue } from '../../src/protocol/types.js';
import { jsonEqual } from '../../src/merge/json-value.js';

const leaf: fc.Arbitrary<JsonValue> = fc.oneof(fc.constantFrom<JsonValue>(null, true, false, 0, 1, 8.5, '', 'a', 'b', 'run-1'), fc.integer({ min: -3, max: 3 }));
const value: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('id', 'at', 'note', 'x', 'y'), tie('v'), { maxKeys: 4 }),
  ),
})).v;

/** The same value with every object's keys in reverse order (a hand-edited file's order). */
function reordered(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(reordered);
  if (v === null || typeof v !== 'object') return v;
  const out: { [k: string]: JsonValue } = {};
  for (const k of Object.keys(v).reverse()) out[k] = reordered(v[k]!);
  return out;
}

describe('jsonEqual', () => {
  it('agrees with canonical JSON on any two values, in either key order', () => {
    fc.assert(
      fc.property(value, value, fc.boolean(), (a, b, flip) => {
        const other = flip ? reordered(b) : b;
        expect(jsonEqual(a, other)).toBe(canonicalJson(a) === canonicalJson(b));
        expect(jsonEqual(a, reordered(a))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('tells apart arrays that differ only in their first, only or last item', () => {
    expect(jsonEqual([{ id: 'a' }], [{ id: 'b' }])).toBe(false);
    expect(jsonEqual([1, 2, 3], [0, 2, 3])).toBe(false);
    expect(jsonEqual([1, 2, 3], [1, 2, 4])).toBe(false);
    expect(jsonEqual([{ at: 1, id: 'x' }], [{ id: 'x', at: 1 }])).toBe(true);
  });

  it('ignores __proto__, constructor and prototype keys, as the merge never takes them', () => {
    const withProto = JSON.parse('{"a":1,"__proto__":{"x":1}}') as JsonValue;
    const withOther = JSON.parse('{"a":1,"__proto__":{"x":2}}') as JsonValue;
    expect(jsonEqual(withProto, withOther)).toBe(true);
    expect(jsonEqual(withProto, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, constructor: 1 }, { constructor: 2, a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 2, constructor: 2 })).toBe(false);
  });
});
