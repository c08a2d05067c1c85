// install-driver's .gitattributes lines: uninstall takes back exactly what install added, on
// any text a project may hold (its own copy of our lines, comments, CRLF, no final newline, an
// empty file).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addAttributeLines, ATTRIBUTE_LINES, ATTRIBUTES_MARKER, removeAttributeLines } from '../../src/install/attributes.js';

const projectLine = fc.oneof(
  fc.constantFrom(...ATTRIBUTE_LINES, `${ATTRIBUTE_LINES[0]} `, `  ${ATTRIBUTE_LINES[1]}`, '*.png binary', '# checkpoint lines', '', '* text=auto eol=lf', '.checkpoints/** -diff'),
  fc.string({ maxLength: 30 }).filter((s) => !/[\r\n]/.test(s) && s !== ATTRIBUTES_MARKER),
);
const eol = fc.constantFrom('\n', '\r\n');
/** A .gitattributes as found: lines with their own endings (mixed is possible), maybe no final newline. */
const attributesText = fc.tuple(fc.array(fc.tuple(projectLine, eol), { maxLength: 8 }), fc.boolean()).map(([lines, final]) => {
  const text = lines.map(([l, e]) => l + e).join('');
  return final || !text ? text : text.replace(/\r?\n$/, '');
});

describe('.gitattributes lines', () => {
  it('uninstall after install gives back every byte: no final newline, an empty file, no file at all', () => {
    // null: no .gitattributes (install creates it, uninstall deletes it); '' is an empty file that stays.
    fc.assert(fc.property(fc.option(attributesText, { freq: 8 }), (text) => {
      const installed = addAttributeLines(text);
      for (const l of ATTRIBUTE_LINES) expect(installed.text.split(/\r?\n/)).toContain(l);
      // A line appended later (`echo ... >> .gitattributes`) never runs into ours.
      if (installed.added) expect(installed.text.endsWith('\n')).toBe(true);
      expect(addAttributeLines(installed.text).added).toBe(0);
      expect(removeAttributeLines(installed.text).text).toBe(installed.added ? text : installed.text);
    }), { examples: [['*.png binary\r\n*.md text'], ['*.png binary\n*.md text'], [''], [null]] });
  });

  it('a line the project appends after install stays its own line, and uninstall keeps it (red team s11 #8)', () => {
    const text = '*.png binary\n*.sh text eol=lf';
    const appended = `${addAttributeLines(text).text}*.md text\n`;
    expect(appended.split('\n')).toContain('*.md text');
    expect(appended.split('\n')).toContain(ATTRIBUTE_LINES[1]);
    expect(removeAttributeLines(appended).text).toBe(`${text}\n*.md text\n`);
  });

  it('a block an older install left without a final line break is still taken back byte for byte', () => {
    const text = '*.png binary\r\n*.md text';
    const older = `${text}\r\n${[ATTRIBUTES_MARKER, ...ATTRIBUTE_LINES].join('\r\n')}`;
    expect(removeAttributeLines(older).text).toBe(text);
  });

  it('never removes a line the project wrote itself, even one equal to ours', () => {
    fc.assert(fc.property(attributesText, (text) => {
      const out = removeAttributeLines(text);
      expect(out.text).toBe(text);
      expect(out.removed).toBe(0);
      expect(out.unmarked).toBe(text.split(/\r?\n/).filter((l) => ATTRIBUTE_LINES.includes(l)).length);
    }));
  });

  it("the project's own checkpoint line stays; only the marked history line goes", () => {
    const theirs = '*.png binary\r\n.checkpoints/*.checkpoint.json merge=checkpoint\r\n';
    const installed = addAttributeLines(theirs);
    expect(installed).toEqual({ text: `${theirs}${ATTRIBUTES_MARKER}\r\n.checkpoints/history/*.json merge=checkpoint\r\n`, added: 1 });
    expect(removeAttributeLines(installed.text)).toEqual({ text: theirs, removed: 2, unmarked: 1, edited: [] });
  });

  it('a marked line the project edited stays and is reported; the rest of the block still goes', () => {
    const suffix = fc.string({ minLength: 1, maxLength: 12 }).filter((t) => !/[\r\n]/.test(t)).map((t) => ` ${t}`);
    fc.assert(fc.property(fc.option(attributesText, { freq: 8 }), fc.nat(), suffix, (text, pick, tail) => {
      const installed = addAttributeLines(text);
      fc.pre(installed.added > 0);
      const lines = installed.text.split(/(?<=\n)/);
      const at = lines.findIndex((l) => l.startsWith('# added by checkpoint install-driver')) + 1 + (pick % installed.added);
      const ours = lines[at]!.replace(/\r?\n$/, '');
      lines[at] = ours + tail + lines[at]!.slice(ours.length);
      const out = removeAttributeLines(lines.join(''));
      expect(out.edited).toEqual([ours + tail]);
      expect(out.removed).toBe(installed.added); // the marker and every line of ours not edited
      expect(out.text?.split(/\r?\n/)).toContain(ours + tail);
      expect(out.text).not.toContain('# added by checkpoint install-driver');
    }));
  });

  it("the red team's case: ` -diff` appended to our first line", () => {
    const installed = addAttributeLines(null).text.replace(`${ATTRIBUTE_LINES[0]}\n`, `${ATTRIBUTE_LINES[0]} -diff\n`);
    expect(removeAttributeLines(installed)).toEqual({ text: `${ATTRIBUTE_LINES[0]} -diff\n`, removed: 2, unmarked: 0, edited: [`${ATTRIBUTE_LINES[0]} -diff`] });
  });
});
