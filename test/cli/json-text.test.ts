// terminalSafeJson: a checkpoint's JSON text made safe for a terminal and still the same JSON.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { terminalSafeJson } from '../../src/cli/render/json-text.js';
import { escapeControl } from '../../src/one-line.js';

/** JSON text of `value` laid out by hand: `eol` between tokens (CRLF, bare CR, LF), strings as JSON.stringify writes them. */
function layout(value: unknown, eol: string): string {
  if (Array.isArray(value)) return `[${eol}${value.map((v) => layout(v, eol)).join(`,${eol}`)}${eol}]`;
  if (value !== null && typeof value === 'object') return `{${eol}${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${eol}${layout(v, eol)}`).join(`,${eol}`)}${eol}}`;
  return JSON.stringify(value);
}

// Every string character a hostile checkpoint may hold: C0 and C1 controls, NEL, the separators, astral.
const anyText = fc.string({ unit: fc.oneof(fc.integer({ min: 0, max: 0xa0 }).map((c) => String.fromCharCode(c)), fc.constantFrom('\u2028', '\u2029', 'é', '😀', '"', '\\')) });
const anyJson = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const withTexts = fc.tuple(anyJson, fc.dictionary(anyText, anyText)).map(([v, d]) => ({ v, d }));

describe('terminalSafeJson', () => {
  it('keeps the value, and leaves nothing escapeControl would rewrite (so none of it turns into invalid \\xNN)', () => {
    fc.assert(
      fc.property(withTexts, fc.constantFrom('\r\n', '\r', '\n', ' \r\n\t'), (value, eol) => {
        const out = terminalSafeJson(layout(value, eol));
        expect(JSON.parse(out)).toEqual(value);
        expect(escapeControl(out, false)).toBe(out);
        expect(out).not.toMatch(/\r/);
      }),
    );
  });

  it('changes only line ends and C1 controls: escapes, numbers and every other character keep their text', () => {
    const text = '{\r\n  "a": "x\\r\\n\\u001b\u009b\u0085é",\r  "n": 8.0,\r\n  "p": "src/x.ts (PR 12)"\r\n}\r\n';
    expect(terminalSafeJson(text)).toBe('{\n  "a": "x\\r\\n\\u001b\\u009b\\u0085é",\n  "n": 8.0,\n  "p": "src/x.ts (PR 12)"\n}\n');
    const plain = '{\n  "a": 1\n}\n';
    expect(terminalSafeJson(plain)).toBe(plain);
  });
});
