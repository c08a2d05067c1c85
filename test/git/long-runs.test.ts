// A clone may be hostile: its commits' author lines and messages are whatever it wrote. Regexes
// retried from each character of a long run (a few kilobytes of "<" and ">" took hours, a
// megabyte of newlines minutes); these read them in one pass, with the same answers as on
// ordinary commits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitHeader } from '../../src/git/deep-walk.js';
import { readHeadFiles } from '../../src/git/head-files.js';
import { usesSha256 } from '../../src/git/object-format.js';
import { hasRemoteTrackingRefs } from '../../src/git/remotes.js';
import { parseCommit, readStamp } from '../../src/git/object-parse.js';
import { commitAll, git, headSha, makeRepo, write } from '../helpers/repo.js';

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

describe('a hostile .git/config or loose ref', () => {
  const blankLines = '\n'.repeat(1 << 20);

  it("a line's own blanks before \"[\" read as /^\\s*\\[/m reads them, across blank lines", () => {
    const text = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '\u2028', '\u00a0', '[', 'x', 'extensions'), { maxLength: 12 }).map((cs) => cs.join(''));
    fc.assert(fc.property(text, (t) => /^[^\S\n\r\u2028\u2029]*\[\s*extensions\b/im.test(t) === /^\s*\[\s*extensions\b/im.test(t)), { numRuns: 5000 });
  });

  it('a config with a megabyte of blank lines: its settings are still read, and none is made up', () => {
    const dir = makeRepo();
    const config = join(dir, '.git', 'config');
    const own = readFileSync(config, 'utf8');
    writeFileSync(config, `${own}${blankLines}\t# no objectformat, extensions or include here\n`);
    expect(usesSha256(join(dir, '.git'))).toBe(false);
    expect(hasRemoteTrackingRefs(dir)).toBe(false);
    writeFileSync(config, `${own}${blankLines}[extensions]\n\tobjectformat = sha256\n`);
    expect(usesSha256(join(dir, '.git'))).toBe(true);
    expect(hasRemoteTrackingRefs(dir)).toBe(true);
  });

  it('a branch file whose id a megabyte of blanks follows: still the id', () => {
    const dir = makeRepo();
    write(dir, 'README.md', '# demo\n');
    commitAll(dir, 'Add readme');
    const sha = headSha(dir);
    const branch = git(dir, ['symbolic-ref', 'HEAD']).trim();
    writeFileSync(join(dir, '.git', branch), `${sha}${' '.repeat(1 << 20)}x\n`);
    expect(readHeadFiles(dir)?.sha).toBe(sha);
  });
});
