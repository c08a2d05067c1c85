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

// The shortcuts (printable ASCII sliced, code points read by index, a cut escape looked for only
// near the end) must give what measuring every code point as for...of yields it gives.
describe('the shortcuts agree with measuring every code point', () => {
  const widthOf = (cp: number): number => {
    const zero = [0x200b, 0x200c, 0x200d, 0xfeff].includes(cp) || [[0x300, 0x36f], [0x1ab0, 0x1aff], [0x20d0, 0x20ff], [0xfe00, 0xfe0f], [0xfe20, 0xfe2f]].some(([a, b]) => cp >= a! && cp <= b!);
    if (zero) return 0;
    const wide = [[0x1100, 0x115f], [0x2e80, 0x303e], [0x3040, 0xa4cf], [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60], [0xffe0, 0xffe6], [0x1f300, 0x1f64f], [0x1f900, 0x1f9ff], [0x1f680, 0x1f6ff], [0x20000, 0x3fffd]];
    return wide.some(([a, b]) => cp >= a! && cp <= b!) ? 2 : 1;
  };
  const slowWidth = (text: string) => [...text.replace(/\x1b\[[0-9;]*m/g, '')].reduce((w, ch) => w + widthOf(ch.codePointAt(0)!), 0);
  const slowFit = (text: string, width: number) => {
    if (slowWidth(text) <= width) return text;
    let cut = '';
    let used = 0;
    for (const ch of text) {
      const w = widthOf(ch.codePointAt(0)!);
      if (used + w > width - 1) break;
      cut += ch;
      used += w;
    }
    const partial = /\\(?:x[0-9a-f]{0,1}|u[0-9a-f]{0,3})?$/.exec(cut);
    return `${partial ? cut.slice(0, partial.index) : cut}…`;
  };
  // ASCII, Latin-1, the edges of the ranges, combining marks, CJK, emoji, lone surrogates, escapes.
  const unit = fc.oneof(
    fc.constantFrom('a', ' ', '~', '\x7f', '\t', '\\', 'x', 'u', '0', 'f', 'é', '\u02ff', '\u0300', '\u036f', '\u0370', '\u200b', '\u200d', '\u303f', '字', '가', '😀', '🚀', '\ud800', '\udc00', '\x1b[31m', '\x1b', '…'),
    fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
  );
  it('displayWidth and fitDisplay', () => {
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 60 }), fc.integer({ min: 0, max: 50 }), (text, width) => {
        expect(displayWidth(text)).toBe(slowWidth(text));
        expect(fitDisplay(text, width)).toBe(slowFit(text, width));
      }),
      { numRuns: 2000 },
    );
  });
});
