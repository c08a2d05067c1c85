// displayWidth: printable ASCII takes a shortcut (one column a character); everything else is
// measured per code point. Both must give the columns a terminal shows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayWidth, fitDisplay, MISNAMED_CELL_WIDTH, padDisplay, skillColumn } from '../../src/cli/render/width.js';
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

describe('the skill column of a table', () => {
  const name = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', '.', '字', '😀', '\x1b', '\n', '\u2028', '\\', 'x', '1'), maxLength: 200 });

  it('fitDisplay: a cut name fits the columns, ends "…", and is the start of the escaped name without half an escape', () => {
    fc.assert(
      fc.property(name, fc.integer({ min: 2, max: 60 }), (raw, width) => {
        const text = oneLine(raw);
        const out = fitDisplay(text, width);
        expect(displayWidth(out)).toBeLessThanOrEqual(Math.max(width, displayWidth(text) <= width ? displayWidth(text) : 0));
        if (displayWidth(text) <= width) return void expect(out).toBe(text);
        expect(out.endsWith('…')).toBe(true);
        const head = out.slice(0, -1);
        expect(text.startsWith(head)).toBe(true);
        // Cut where a character or an escape ends, never inside one.
        const ends = new Set([0, ...[...text.matchAll(/\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|n)|[\s\S]/gu)].map((m) => m.index + m[0].length)]);
        expect(ends.has(head.length), out).toBe(true);
      }),
    );
  });

  it('one long misnamed file cannot widen it; names a skill can have are never cut', () => {
    const valid = `${'s'.repeat(40)}-skill`;
    const { width, labels } = skillColumn([{ label: 'api' }, { label: valid }, { label: 'q'.repeat(150), misnamed: true }, { label: 'Foo Bar', misnamed: true }], 5);
    expect(width).toBe(valid.length);
    expect(labels).toEqual(['api', valid, `${'q'.repeat(valid.length - 1)}…`, 'Foo Bar']);
    const short = skillColumn([{ label: 'api' }, { label: 'q'.repeat(150), misnamed: true }], 5);
    expect(short).toEqual({ width: MISNAMED_CELL_WIDTH, labels: ['api', `${'q'.repeat(MISNAMED_CELL_WIDTH - 1)}…`] });
  });
});
