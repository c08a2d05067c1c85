// parseTrustedJson (store/trusted-json.ts): the value of known-good checkpoint bytes parsed as
// Latin-1, which must be exactly JSON.parse of their UTF-8 text, or undefined (the ordinary decode).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTrustedJson } from '../../src/store/trusted-json.js';

const utf8Value = (bytes: Buffer) => JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as unknown;

describe('parseTrustedJson', () => {
  it('reads a real checkpoint with an em dash and an arrow as its UTF-8 text says, without falling back', () => {
    const text = JSON.stringify({ skill: 'api', progress_summary: 'Auth done — tests next → deploy', next_actions: ['Caf\u00e9 menu (PR 12)', { text: 'ship 日本 ✓ 𝄞', ref: 'PR #12' }], score: 8.0, nested: [[{ 'k': 'x—y' }]] }, null, 2);
    const bytes = Buffer.from(text);
    const value = parseTrustedJson(bytes);
    expect(value).not.toBeUndefined();
    expect(value).toEqual(utf8Value(bytes));
  });

  it('skips a BOM, as the strict read does', () => {
    const bytes = Buffer.from('\uFEFF{"a":"é → b","b":[1,2]}\r\n');
    expect(parseTrustedJson(bytes)).toEqual({ a: 'é → b', b: [1, 2] });
  });

  it('leaves to the ordinary decode a non-ASCII file with a \\u escape (it may stand for a Latin-1 character)', () => {
    expect(parseTrustedJson(Buffer.from('{"a":"caf\\u00e9","b":"—"}'))).toBeUndefined();
    // ASCII throughout: escapes are JSON.parse's own.
    expect(parseTrustedJson(Buffer.from('{"a":"caf\\u00e9 \\u2014"}'))).toEqual({ a: 'café —' });
  });

  it('leaves a non-ASCII key to the ordinary decode', () => {
    expect(parseTrustedJson(Buffer.from('{"a":"—","clé":1}'))).toBeUndefined();
  });

  it('fixes a "__proto__" string value as an own property, never touching the prototype', () => {
    const value = parseTrustedJson(Buffer.from('{"__proto__":"x—y","o":{"__proto__":{"a":"é"}}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, '__proto__')?.value).toBe('x—y');
    const o = value.o as Record<string, unknown>;
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(o, '__proto__')?.value).toEqual({ a: 'é' });
  });

  it('is JSON.parse of the UTF-8 text, or undefined, for any JSON (any characters, escaped or not)', () => {
    const text = fc.string({ unit: 'binary' });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), text, fc.boolean(), fc.constantFrom(undefined, 2, '\t'), (v, extra, bom, indent) => {
        // JSON.stringify escapes only controls: turn some characters into \u escapes by hand too.
        let json = JSON.stringify({ v, extra }, null, indent);
        json = json.replace(/[\u0080-\uffff]/g, (c) => (c.charCodeAt(0) % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c));
        const bytes = Buffer.from((bom ? '\uFEFF' : '') + json);
        const got = parseTrustedJson(bytes);
        if (got !== undefined) expect(got).toEqual(utf8Value(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('answers (no fallback) for ASCII keys and strings of any characters but controls, unescaped', () => {
    const str = fc.string({ unit: 'binary' }).filter((t) => !/[\u0000-\u001f\ud800-\udfff]/.test(t));
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: fc.constantFrom('a', 'b', '_', '1') }), fc.array(str, { maxLength: 4 })), (v) => {
        const bytes = Buffer.from(JSON.stringify(v, null, 2));
        expect(parseTrustedJson(bytes)).toEqual(utf8Value(bytes));
      }),
      { numRuns: 300 },
    );
  });
});
