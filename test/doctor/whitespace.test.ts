// The comparison that tells a cosmetic edit (line endings, trailing whitespace, final newlines)
// from a real one: what it drops, and what it keeps (indentation, whitespace inside a line).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizedText, sameButWhitespace } from '../../src/doctor/whitespace.js';

const PY = 'def retry(n):\n    if n < 3:\n        return True\n    return False\n';

describe('sameButWhitespace', () => {
  it('takes line endings, trailing spaces and tabs, and final newlines as the same text', () => {
    for (const other of [
      PY.replace(/\n/g, '\r\n'),
      PY.replace(/\n/g, '\r'),
      PY.replace(/\n/g, ' \t\n'),
      PY.replace(/\n/g, ' \r\n'),
      PY.slice(0, -1),
      `${PY}\n\n`,
      `${PY}   \n\r\n`,
      PY.replace('return True\n', 'return True\f\v\n'),
    ]) expect(sameButWhitespace(PY, other), JSON.stringify(other)).toBe(true);
  });

  it('keeps indentation, whitespace inside a line, blank lines inside the text and leading blank lines', () => {
    for (const other of [
      PY.replace('        return True', '    return True'),
      PY.replace('    if', '\tif'),
      PY.replace('n < 3', 'n  < 3'),
      PY.replace('if n', 'if\tn'),
      PY.replace('    return False', '\n    return False'),
      `\n${PY}`,
      PY.replace('return True', 'return True\u00a0'),
    ]) expect(sameButWhitespace(PY, other), JSON.stringify(other)).toBe(false);
  });

  it('compares a binary text (a NUL), one UTF-8 decoding mangled, or an unread one exactly', () => {
    expect(sameButWhitespace('a\0b\r\n', 'a\0b\n')).toBe(false);
    expect(sameButWhitespace('caf\uFFFD\n', 'caf\uFFFD')).toBe(false);
    expect(sameButWhitespace('a\0b\n', 'a\0b\n')).toBe(true);
    expect(sameButWhitespace(undefined, PY)).toBe(false);
    expect(sameButWhitespace(PY, undefined)).toBe(false);
  });

  it('normalizedText drops only what it says', () => {
    expect(normalizedText('  a \r\n\tb\t\r\n\r\n')).toBe('  a\n\tb');
    expect(normalizedText('')).toBe('');
  });

  it('normalizedText is the plain rule for any text: line endings as LF, each line\'s trailing blanks and the final newlines dropped', () => {
    const rule = (t: string) => t.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/[ \t\f\v]+$/, '')).join('\n').replace(/\n+$/, '');
    const text = fc.array(fc.constantFrom(' ', '\t', '\f', '\v', '\r', '\n', 'a', 'é', '\u00a0', ''), { maxLength: 40 }).map((cs) => cs.join(''));
    fc.assert(fc.property(text, (t) => normalizedText(t) === rule(t)), { numRuns: 2000 });
  });

  it('reads a hostile file in one pass: a megabyte of spaces, or of newlines, before a word (a regex retrying from each blank took minutes)', () => {
    const spaces = `${' '.repeat(1 << 20)}x\n`;
    expect(normalizedText(spaces)).toBe(spaces.trimEnd());
    expect(sameButWhitespace(spaces, `${spaces}\r\n`)).toBe(true);
    expect(normalizedText(`${'\n'.repeat(1 << 20)}x`)).toBe(`${'\n'.repeat(1 << 20)}x`);
  });
});
