import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson, parseJsonStrict } from '../../src/protocol/json.js';

// parseJson takes JSON.parse plus cheap checks on well-formed input; the character-level
// parser is the reference. They must agree on every input: same value (and key order), or the same error.
const strict = (text: string) => parseJsonStrict(text, {});

/** The outcome of a parser: its value, or its error message. */
function outcome(parse: (text: string) => unknown, text: string): unknown {
  try {
    return { ok: parse(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Arrays nested `depth` deep below where it stands. */
const nested = (depth: number): unknown => (depth === 0 ? [] : [nested(depth - 1)]);

function expectSameAsStrict(text: string): void {
  const fast = outcome(parseJson, text) as { ok?: { value: unknown; canonical?: true } };
  // Only the fast path tells a text JSON.stringify(v, null, 2) wrote (the merge driver then keeps no layout):
  // never of any other text. Apart from that flag, the same answer as the strict parser.
  if (fast.ok?.canonical) {
    const body = text.replace(/^\uFEFF/, '');
    expect([body, `${body}`.replace(/\n$/, '')]).toContain(JSON.stringify(fast.ok.value, null, 2));
    delete fast.ok.canonical;
  }
  expect(fast).toEqual(outcome(strict, text));
  // toEqual ignores key order; the fast path must keep the document's order too.
  if ('ok' in (fast as object)) expect(JSON.stringify((fast as any).ok)).toBe(JSON.stringify(strict(text)));
}

describe('parseJson (fast path) gives exactly what the strict parser gives', () => {
  it.each([
    ['a duplicate key', '{"a": 1, "a": 2}'],
    ['a nested duplicate key', '{"a": {"b": 1, "c": 2, "b": 3}}'],
    ['a forbidden key', '{"x": {"__proto__": {"polluted": true}}}'],
    ['a BOM', '\uFEFF{"a": 1}'],
    ['an infinite number', '{"a": 1e400}'],
    ['nesting at the limit', '['.repeat(256) + ']'.repeat(256)],
    ['nesting past the limit', '['.repeat(257) + ']'.repeat(257)],
    ['nesting 10,000 deep', '['.repeat(10_000) + ']'.repeat(10_000)],
    ['an empty file', ''],
    ['conflict markers', '<<<<<<< ours\n{}\n'],
    ['a value string that looks like a key', '["a", ":b", "c\\": 1"]'],
    ['a key that starts with a colon', '{"a": "x", ":k": 1, "a": 2}'],
    ['escaped quotes and backslashes', '{"a\\"b\\\\": "c\\\\\\"", "\\"": 2}'],
    ['trailing garbage', '{"a": 1} x'],
    // As JSON.stringify(value, null, 2) writes a checkpoint (writtenByStringify's shortcut):
    ['a written file', `${JSON.stringify({ a: [1, { b: 'c' }], d: {} }, null, 2)}\n`],
    ['a written file with a forbidden key', '{\n  "__proto__": {\n    "polluted": true\n  }\n}\n'],
    ['a written file with a duplicate key', '{\n  "a": 1,\n  "a": 1\n}\n'],
    ['a written file with CRLF', '{\r\n  "a": 1\r\n}\r\n'],
    ['a written file with two final newlines', '{\n  "a": 1\n}\n\n'],
    ['a written file nested at the limit', `${JSON.stringify({ a: nested(254) }, null, 2)}\n`],
    ['a written file nested past the limit', `${JSON.stringify({ a: nested(255) }, null, 2)}\n`],
    ['a file written deep on one line', `{\n  "a": ${'['.repeat(10_000)}${']'.repeat(10_000)}\n}`],
    ['a written file with 8.0 and \\u00e9', '{\n  "a": 8.0,\n  "b": "Caf\\u00e9"\n}\n'],
  ])('with %s', (_, text) => expectSameAsStrict(text));

  it('on texts JSON.stringify(value, null, 2) wrote, and the same tampered', () => {
    const written = fc.dictionary(fc.string(), fc.jsonValue()).map((v) => JSON.stringify(v, null, 2));
    const text = fc.oneof(
      written,
      written.map((t) => `${t}\n`),
      written.map((t) => t.replace(/\n(\s*)("[^"\\]*":[^\n]*,)\n/, '\n$1$2\n$1$2\n')),
      written.map((t) => t.replace(/"[^"\\]*":/, '"__proto__":')),
      fc.tuple(written, fc.integer({ min: 0, max: 60 })).map(([t, i]) => t.slice(0, i) + t.slice(i + 1)),
    );
    fc.assert(fc.property(text, expectSameAsStrict), { numRuns: 2000 });
  });

  it('on generated JSON texts, with and without duplicated and tampered keys', () => {
    const text = fc.oneof(
      fc.json(),
      fc.json().map((t) => t.replace(/"([^"\\]*)":/, '"$1":1,"$1":')),
      fc.json().map((t) => t.replace(/"[^"\\]*":/, '"__proto__":')),
      fc.tuple(fc.json(), fc.integer({ min: 0, max: 40 })).map(([t, i]) => t.slice(0, i) + t.slice(i + 1)),
    );
    fc.assert(fc.property(text, expectSameAsStrict), { numRuns: 3000 });
  });

  it('on any JSON number literal, alone or in a document: the fast path records the same texts (8.000000000000001, 0.0000001, 1.50)', () => {
    const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    const literal = fc
      .tuple(fc.boolean(), fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom(...'123456789'), digits(0, 24)).map(([a, b]) => a + b)), fc.option(digits(1, 24)), fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3))))
      .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : exp.join('')}`)
      .filter((t) => Number.isFinite(Number(t)));
    fc.assert(
      fc.property(literal, fc.constantFrom('%', '[%]', '{"a": %}', '{"a": [1, %, 2]}', '{"a": %, "b": "x"}\n'), (n, shape) => expectSameAsStrict(shape.replace('%', n))),
      { numRuns: 3000 },
    );
    for (const n of ['8.000000000000001', '123456789.123456789', '123456789012345678901234567890.5', '0.0000001', '0.00000012']) {
      expect(parseJson(`{"a": ${n}}`).texts, n).toBeDefined();
    }
  });

  it('on nested documents with odd literals anywhere (keys, items after empty containers, past index 9): the same texts at the same places', () => {
    // Spellings JSON.stringify writes otherwise (8.0, 1E2, -0, \u00e9, \/) and ones it writes alike (8, "\\u", "\n").
    const scalar = fc.constantFrom('8', '8.0', '1E2', '-0', '0.0000001', '12345678901234567890', '"x"', '"Caf\\u00e9"', '"a\\/b"', '"\\\\u00e9"', '"\\n\\u001f"', 'true', 'null');
    const key = fc.constantFrom('"k"', '"Caf\\u00e9"', '"a\\/b"', '"\\\\u"', '"8.0"', '"[0]"');
    const { doc } = fc.letrec<{ doc: string }>((tie) => ({
      doc: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalar,
        fc.array(tie('doc'), { maxLength: 12 }).chain((items) => fc.constantFrom(`[${items.join(',')}]`, `[\n  ${items.join(',\n  ')}\n]`)),
        fc.uniqueArray(fc.tuple(key, tie('doc')), { maxLength: 4, selector: ([k]) => JSON.parse(k) }).map((members) => `{ ${members.map(([k, v]) => `${k} : ${v}`).join(' , ')} }`),
      ),
    }));
    fc.assert(fc.property(doc, (text) => expectSameAsStrict(`{"a": ${text}, "b": 8.0}`)), { numRuns: 3000 });
  });
});

it('refuses what JSON.parse alone would let through', () => {
  expect(() => parseJson('{"a": 1, "a": 2}')).toThrow(/duplicate key "a"/);
  expect(() => parseJson('{"a": {"__proto__": {}}}')).toThrow(/forbidden key "__proto__"/);
  expect(() => parseJson('[1e400]')).toThrow(/number 1e400 at \[0\] is beyond what a JSON number can hold/);
  expect(() => parseJson(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toThrow(/nesting deeper/);
  expect(parseJson('{"a": "b\\": 1, \\"c", "d": ["e:", "f"]}').value).toEqual({ a: 'b": 1, "c', d: ['e:', 'f'] });
});
