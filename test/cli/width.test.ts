// displayWidth: printable ASCII takes a shortcut (one column a character); everything else is
// measured per code point. Both must give the columns a terminal shows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth, fitDisplay, padDisplay } from '../../src/cli/render/width.js';
import { oneLine } from '../../src/one-line.js';

describe('displayWidth', () => {
  it('printable ASCII: one column a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 }), (s) => {
        expect(displayWidth(s)).toBe(s.length);
        expect(displayWidth(padDisplay(s, 30))).toBe(Math.max(30, s.length));
      }),
    );
  });

  it('wide, combining, zero-width and coloured text as a terminal shows it', () => {
    expect(displayWidth('漢字 build')).toBe(10);
    expect(displayWidth('cafe\u0301')).toBe(4);
    expect(displayWidth('a\u200db')).toBe(2);
    expect(displayWidth('\x1b[31mred\x1b[0m')).toBe(3);
    expect(displayWidth('ship 🚀')).toBe(7);
    expect(displayWidth('tab\there')).toBe(8);
  });
});

describe('fitDisplay (a table cell from a checkpoint)', () => {
  const value = fc.string({ unit: fc.constantFrom('a', ' ', '.', '写', '😀', 'e\u0301', '\x1b', '\n', '\r', '\u2028', '\u009b', '\\', '7'), maxLength: 200 });

  it('fits the columns, ends "…" when cut, and is the start of the escaped value without half an escape or character', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 2, max: 60 }), (raw, width) => {
        const text = oneLine(raw);
        const out = fitDisplay(text, width);
        if (displayWidth(text) <= width) return void expect(out).toBe(text);
        expect(displayWidth(out)).toBeLessThanOrEqual(width);
        expect(out.endsWith('…')).toBe(true);
        const head = out.slice(0, -1);
        expect(text.startsWith(head)).toBe(true);
        const ends = new Set([0, ...[...text.matchAll(/\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|n)|[\s\S]/gu)].map((m) => m.index + m[0].length)]);
        expect(ends.has(head.length), out).toBe(true);
      }),
    );
  });
});
