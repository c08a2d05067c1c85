// A clone may be hostile: its commits' author lines and messages are whatever it wrote. Regexes
// retried from each character of a long run (a few kilobytes of "<" and ">" took hours, a
// megabyte of newlines minutes); these read them in one pass, with the same answers as on
// ordinary commits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commitHeader } from '../../src/git/deep-walk.js';
import { parseCommit, readStamp } from '../../src/git/object-parse.js';

const SHA = '1'.repeat(40);
const TREE = '2'.repeat(40);
const commit = (committer: string, message: string, author = 'Ana Lima <ana@example.com> 1697040000 +0200') =>
  Buffer.from(`tree ${TREE}\nauthor ${author}\ncommitter ${committer}\n\n${message}`);

describe('a hostile commit', () => {
  it('an author or committer line is read as /^(.*) <(.*)> (.*) (.*)$/ reads it', () => {
    const stamp = /^(.*) <(.*)> (.*) (.*)$/;
    const line = fc.array(fc.constantFrom(' ', '<', '>', ' <', '> ', 'a', '1', '\n', '\r', '\u2028', 'é'), { maxLength: 14 }).map((cs) => cs.join(''));
    fc.assert(fc.property(line, (l) => JSON.stringify(readStamp(l)) === JSON.stringify(stamp.exec(l)?.slice(1) ?? null)), { numRuns: 5000 });
    expect(readStamp('Ana Lima <ana@example.com> 1697040000 +0200')).toEqual(['Ana Lima', 'ana@example.com', '1697040000', '+0200']);
  });

  it('a committer line of "<" and ">" with a carriage return is refused at once, as before', () => {
    const n = 1 << 18;
    const line = `${' <'.repeat(n)}${'> '.repeat(n)}${' '.repeat(n)}\r`;
    expect(() => parseCommit(SHA, commit(line, 'Fix login\n'))).toThrow(/no readable committer line/);
    expect(commitHeader(SHA, commit(line, 'Fix login\n'))).toBeNull();
    const author = parseCommit(SHA, commit('Ana Lima <ana@example.com> 1697040000 +0200', 'Fix login\n', `Bo ${'<>'.repeat(n)} 1697040000 +0200\r`));
    expect(author.authorTime).toBe(0);
    expect(author.time).toBe(1697040000);
    expect(readStamp(line)).toBeNull();
  });

  it('a message with a megabyte of newlines inside keeps them, its final ones dropped', () => {
    const inside = `Fix login${'\n'.repeat(1 << 20)}See #12`;
    expect(parseCommit(SHA, commit('Ana Lima <ana@example.com> 1697040000 +0200', `${inside}\n\n\n`)).message).toBe(`${inside}\n`);
  });
});
