// The strict JSON reader: positions, duplicates, forbidden keys, BOM, depth, empty input,
// and agreement with JSON.parse on everything JSON.parse accepts that is not refused on purpose.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JsonNumberRangeError, JsonSyntaxError, MAX_JSON_DEPTH, parseJson } from '../../src/protocol/json.js';

function syntaxError(text: string): JsonSyntaxError {
  try {
    parseJson(text);
  } catch (e) {
    expect(e).toBeInstanceOf(JsonSyntaxError);
    return e as JsonSyntaxError;
  }
  throw new Error(`parsed without error: ${JSON.stringify(text.slice(0, 60))}`);
}

function expectFail(text: string, reason: RegExp, line: number, column: number): void {
  const e = syntaxError(text);
  expect(e.reason).toMatch(reason);
  expect([e.line, e.column]).toEqual([line, column]);
  expect(e.message).toBe(`${e.reason} at line ${line}, column ${column}`);
}

describe('positions', () => {
  it('reports line and column of the offending character', () => {
    expectFail('{\n  "a": 1,\n  "b": tru\n}', /unexpected character "t"/, 3, 8);
    expectFail('{"a": 1,}', /expected a double-quoted property name/, 1, 9);
    expectFail('{"a": 1 "b": 2}', /expected ',' or '}'/, 1, 9);
    expectFail('[1, 2\n, 3\n', /^the text ends inside an array/, 3, 1);
    expectFail("{'a': 1}", /double-quoted property name/, 1, 2);
  });

  it('counts CRLF files by line', () => {
    expectFail('{\r\n  "a": 1,\r\n  "b": ?\r\n}', /unexpected character "\?"/, 3, 8);
  });

  it('points at the start of an unterminated string', () => {
    expectFail('{\n  "a": "open\n}', /^line break inside a string \(a closing quote missing, or write the break as \\n\)$/, 2, 13);
    expectFail('{"a": "never closed', /^the text ends inside a string \(cut short\?/, 1, 7);
    // A break that only whitespace follows is the end of a file cut short, not a raw break.
    expectFail('{"a": "cut here\n', /^the text ends inside a string/, 1, 7);
    expectFail('{"a": "tab\there"}', /^control character in string \(escape it\)$/, 1, 11);
  });

  it('names merge conflict markers wherever they stand', () => {
    const conflicted = '{\n<<<<<<< HEAD\n  "a": 1\n=======\n  "a": 2\n>>>>>>> topic\n}\n';
    expectFail(conflicted, /conflict marker/, 2, 1); // where a key is expected
    expectFail('{\n  "a": 1\n<<<<<<< HEAD\n}', /conflict marker/, 3, 1); // where a comma is expected
    expectFail('{\n  "a":\n<<<<<<< HEAD\n1}', /conflict marker/, 3, 1); // where a value is expected
    expectFail('{"a": <1}', /unexpected character|conflict marker/, 1, 7);
  });

  it('counts columns after a BOM the way an editor does', () => {
    expectFail('\uFEFF{"a": x}', /unexpected character "x"/, 1, 7);
    expectFail('{"a": x}', /unexpected character "x"/, 1, 7);
  });
});

describe('duplicate keys', () => {
  it('are refused at the second occurrence, at any depth', () => {
    expectFail('{"a": 1, "a": 2}', /duplicate key "a"/, 1, 10);
    expectFail('{"x": [{"k": 1}, {"k": 1, "k": 2}]}', /duplicate key "k"/, 1, 27);
  });

  it('the same key in sibling objects is fine', () => {
    expect(parseJson('[{"k": 1}, {"k": 2}]').value).toEqual([{ k: 1 }, { k: 2 }]);
  });

  it('a key equal to an escaped spelling of another is a duplicate', () => {
    expect(syntaxError('{"a": 1, "\\u0061": 2}').reason).toMatch(/duplicate key "a"/);
  });
});

describe('forbidden keys', () => {
  const keys = ['__proto__', 'constructor', 'prototype'];

  it.each(keys)('%s is refused at the top level', (k) => {
    expectFail(`{"ok": 1, "${k}": {}}`, new RegExp(`forbidden key "${k}"`), 1, 11);
  });

  it.each(keys)('%s is refused deep inside arrays and objects', (k) => {
    const e = syntaxError(`{"skill_state": {"runs": [{"id": 1}, {"meta": {"${k}": {"polluted": true}}}]}}`);
    expect(e.reason).toBe(`forbidden key "${k}" (no checkpoint may hold __proto__, prototype or constructor as a key: rename it, e.g. "${k.replace(/_/g, '')}_")`);
  });

  it('an escaped spelling of __proto__ is refused too', () => {
    expect(syntaxError('{"\\u005f_proto__": {"polluted": 1}}').reason).toMatch(/forbidden key "__proto__"/);
  });

  it('with rejectUnsafeKeys: false they are kept as own data, never as the prototype', () => {
    const { value } = parseJson('{"__proto__": {"polluted": 1}, "constructor": 2}', { rejectUnsafeKeys: false });
    const obj = value as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.keys(obj)).toEqual(['__proto__', 'constructor']);
    expect((obj as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('as values (not keys) they are ordinary strings', () => {
    expect(parseJson('{"k": "__proto__", "l": ["constructor"]}').value).toEqual({ k: '__proto__', l: ['constructor'] });
  });
});

describe('BOM', () => {
  it('is accepted and reported', () => {
    const r = parseJson('\uFEFF{"a": 1}\n');
    expect(r.value).toEqual({ a: 1 });
    expect(r.hadBom).toBe(true);
    expect(parseJson('{"a": 1}').hadBom).toBe(false);
  });

  it('only at the very start', () => {
    expect(syntaxError(' \uFEFF{"a": 1}').reason).toMatch(/unexpected character/);
  });
});

describe('depth', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(() => parseJson(nest(MAX_JSON_DEPTH))).not.toThrow();
    expect(syntaxError(nest(MAX_JSON_DEPTH + 1)).reason).toBe(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
  });

  it('10,000-deep arrays and objects fail cleanly, without a stack overflow', () => {
    const arrays = '['.repeat(10_000) + ']'.repeat(10_000);
    const objects = '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000);
    for (const text of [arrays, objects]) {
      const e = syntaxError(text);
      expect(e.reason).toMatch(/nesting deeper than/);
      expect(e).not.toBeInstanceOf(RangeError);
    }
  });
});

describe('empty and truncated input', () => {
  it.each(['', '   ', '\n\n', '\uFEFF', '\uFEFF \r\n'])('%j is an empty file', (text) => {
    expect(syntaxError(text).reason).toMatch(/empty file/);
  });

  it('truncated documents say so', () => {
    expect(syntaxError('{"a": ').reason).toMatch(/^the text ends where a value belongs \(cut short\?/);
    expect(syntaxError('{"a": 1').reason).toMatch(/^the text ends inside an object/);
    expect(syntaxError('{"a": 1,\n').reason).toMatch(/^the text ends inside an object/);
    expect(syntaxError('{"a"').reason).toMatch(/^the text ends inside an object/);
    expect(syntaxError('{"a": [1, 2').reason).toMatch(/^the text ends inside an array/);
    // Inside a number or a literal (red team 12-07, round 3); the same text mid-file is the syntax error.
    expect(syntaxError('{"n": 12.').reason).toBe('the text ends inside a number (cut short?)');
    expect(syntaxError('{"n": 1e\n').reason).toBe('the text ends inside a number (cut short?)');
    expect(syntaxError('{"n": -').reason).toBe('the text ends inside a number (cut short?)');
    expect(syntaxError('{"b": tr').reason).toBe('the text ends inside "tr" (true, false or null) (cut short?)');
    expect(syntaxError('{"b": nul  \n').reason).toBe('the text ends inside "nul" (true, false or null) (cut short?)');
    expect(syntaxError('{"n": 12.x}').reason).toBe("expected ',' or '}' in object");
    expect(syntaxError('{"b": trux}').reason).toBe('unexpected character "t"');
    // Not at the end: the syntax error it is.
    expect(syntaxError('{"a" 1}').reason).toBe("expected ':' after property name");
    expect(syntaxError('[1 2]').reason).toBe("expected ',' or ']' in array");
  });

  it('content after the value is refused', () => {
    expectFail('{"a": 1} {"b": 2}', /unexpected content after the JSON value/, 1, 10);
  });
});

describe('values', () => {
  it('parses every JSON value kind', () => {
    expect(parseJson('{"s": "x\\n\\t\\"\\\\\\/", "n": -1.5e3, "z": 0, "t": true, "f": false, "nul": null, "a": [], "o": {}}').value).toEqual({
      s: 'x\n\t"\\/',
      n: -1500,
      z: 0,
      t: true,
      f: false,
      nul: null,
      a: [],
      o: {},
    });
  });

  it('decodes \\u escapes including surrogate pairs', () => {
    expect(parseJson('"\\u00e9\\ud83d\\ude00"').value).toBe('é😀');
  });

  it.each(['01', '-', '1.', '.5', '+1', '1e', 'NaN', 'Infinity', '0x10'])('refuses the number %s', (t) => {
    expect(() => parseJson(t)).toThrow(JsonSyntaxError);
  });

  it('refuses numbers that overflow to Infinity, saying what and where (it is valid JSON)', () => {
    expect(syntaxError('1e999').reason).toMatch(/^number 1e999 at the top level is beyond what a JSON number can hold here \(it would read as Infinity\); write it as a string$/);
    const e = syntaxError('{\n  "metrics": {"runs": [1, -2E+400]}\n}');
    expect(e).toBeInstanceOf(JsonNumberRangeError);
    expect([e.reason, e.line, e.column]).toEqual([expect.stringMatching(/^number -2E\+400 at metrics\.runs\[1\] is beyond/), 2, 27]);
  });

  it.each(['"\\x41"', '"\\u12"', '"tab\there"', 'tru', 'nul', 'undefined'])('refuses %s', (t) => {
    expect(() => parseJson(t)).toThrow(JsonSyntaxError);
  });
});

describe('agreement with JSON.parse', () => {
  const unsafe = /"(__proto__|constructor|prototype)"\s*:/;

  it('gives the same value for any JSON text JSON.stringify produces', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom(undefined, 2, '\t'), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        fc.pre(!unsafe.test(text));
        expect(parseJson(text).value).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses whatever JSON.parse refuses', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        let native = true;
        try {
          JSON.parse(text);
        } catch {
          native = false;
        }
        if (!native) expect(() => parseJson(text)).toThrow(JsonSyntaxError);
      }),
      { numRuns: 500 },
    );
  });
});
