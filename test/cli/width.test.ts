// displayWidth: printable ASCII takes a shortcut (one column a character); everything else is
// measured per code point. Both must give the columns a terminal shows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth, padDisplay } from '../../src/cli/render/width.js';

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
