// The native engine's message search: ASCII tokens go to git as one escaped extended
// expression (each letter a bracket of its two cases) instead of one --fixed-strings pattern
// each. Same commits, always: checked against git's own --fixed-strings --regexp-ignore-case
// search (ASCII tokens) and --fixed-strings (others) on messages holding every ERE special
// character, invalid UTF-8, a Latin-1 message with an encoding header, carriage returns,
// lower-case branch names and a Kelvin sign (U+212A, which Unicode folds to "k"), in the C
// and a UTF-8 locale.
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageGreps } from '../../src/git/native.js';
import { anyCaseToken } from '../../src/git/normalize.js';
import { createHistory } from '../../src/git/index.js';
import { cleanup, git, makeRepo, headSha } from '../helpers/repo.js';

const SPECIALS = '\\.[](){}*+?|^$';
/** Message bodies as bytes: [text, encoding header or null]. */
const MESSAGES: [Buffer, string | null][] = [
  [Buffer.from('Merge pull request #482 from dev/topic-482\n\nTopic 482\n'), null],
  [Buffer.from(`specials ${SPECIALS} (a|b) [x] {2} a+b a*b a?b ^start end$\n`), null],
  [Buffer.from('fix: PLAT-4471 in a.b.c (#12)\n\nsee PLAT-44 and \\d+ and .*\n'), null],
  [Buffer.concat([Buffer.from('raw '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('#482 after invalid bytes\n')]), null],
  [Buffer.concat([Buffer.from('latin1 caf'), Buffer.from([0xe9]), Buffer.from(' PLAT-7 na'), Buffer.from([0xef]), Buffer.from('ve\n')]), 'ISO-8859-1'],
  [Buffer.from('crlf subject PR-9\r\n\r\nbody with [bracket] and tab\there\r\n'), null],
  [Buffer.from('multi\n\nline one #48\nline two 482\n'), null],
  [Buffer.from("Merge branch 'alice/plat-44-flag' into main\n\npull Request 9\n"), null],
  [Buffer.from('Merge pull request #7 from o/Plat-7-x\n'), null],
  [Buffer.from('sign \u212aEY-9 long \u017fHIP-3\n'), null],
];

let dir = '';
beforeAll(() => {
  dir = makeRepo();
  let parent = headSha(dir);
  const tree = git(dir, ['rev-parse', 'HEAD^{tree}']).trim();
  MESSAGES.forEach(([body, encoding], i) => {
    const header = `tree ${tree}\nparent ${parent}\nauthor A <a@x> ${1_700_000_000 + i} +0000\ncommitter C <c@x> ${1_700_000_000 + i} +0000\n${encoding ? `encoding ${encoding}\n` : ''}\n`;
    writeFileSync(join(dir, '.git', 'RAW'), Buffer.concat([Buffer.from(header), body]));
    parent = git(dir, ['hash-object', '-t', 'commit', '-w', '.git/RAW']).trim();
  });
  git(dir, ['update-ref', 'refs/heads/main', parent]);
});
afterAll(() => cleanup(dir));

const logWith = (options: string[], env: NodeJS.ProcessEnv) => git(dir, ['-c', 'i18n.logOutputEncoding=UTF-8', 'log', ...options, '--format=%H', 'HEAD', '--'], env);
/**
 * git's own fixed-string searches: ASCII tokens in either case, others verbatim; the commits of
 * either, newest first. In the C locale, where -i folds ASCII letters only (in a UTF-8 locale it
 * also reads a Kelvin sign as a "k", a long s as an "s").
 */
const fixedLog = (tokens: string[]) => {
  const env = { LC_ALL: 'C' };
  const ascii = tokens.filter(anyCaseToken);
  const other = tokens.filter((t) => !anyCaseToken(t));
  const found = new Set([
    ...(ascii.length ? logWith(['--fixed-strings', '--regexp-ignore-case', ...ascii.map((t) => `--grep=${t}`)], env).split('\n') : []),
    ...(other.length ? logWith(['--fixed-strings', ...other.map((t) => `--grep=${t}`)], env).split('\n') : []),
  ]);
  return logWith([], env).split('\n').filter((sha) => sha && found.has(sha));
};
const searched = (tokens: string[], env: NodeJS.ProcessEnv) => {
  const found = new Set(messageGreps(tokens).flatMap((grep) => logWith(grep, env).split('\n')));
  return logWith([], env).split('\n').filter((sha) => sha && found.has(sha));
};

/** Tokens: pieces of the messages (so some match), in either case, and runs of special characters. */
const token = fc.oneof(
  fc.constantFrom('#482', '#48', '482', 'PLAT-44', 'PLAT-4471', 'PLAT-7', '(a|b)', '[x]', '{2}', 'a+b', 'a*b', 'a?b', '^start', 'end$', '\\d+', '.*', 'a.b', 'PR-9', 'tab\there', 'caf', 'nowhere',
    'plat-44', 'KEY-9', 'key-9', 'SHIP-3', 'ship-3', 'pull request 9', 'MULTI', 'café', 'CAFÉ'),
  fc.string({ unit: fc.constantFrom(...SPECIALS.split(''), 'a', 'b', 'A', '4', '#', ' '), minLength: 1, maxLength: 6 }),
);

describe('messageGreps', () => {
  it('puts printable ASCII tokens in one escaped extended expression, letters in either case, and leaves others to --fixed-strings', () => {
    expect(messageGreps(['#482', 'a.b', '(x|y)'])).toEqual([['--extended-regexp', '--grep=#482|[Aa]\\.[Bb]|\\([Xx]\\|[Yy]\\)']]);
    expect(messageGreps(['PLAT-7'])).toEqual([['--extended-regexp', '--grep=[Pp][Ll][Aa][Tt]-7']]);
    expect(messageGreps(['#482', 'café'])).toEqual([['--extended-regexp', '--grep=#482'], ['--fixed-strings', '--grep=café']]);
    expect(messageGreps(['tab\there'])).toEqual([['--fixed-strings', '--grep=tab\there']]);
  });

  it.each([['C'], ['C.UTF-8']])('selects exactly the commits git\'s fixed-string searches select (LC_ALL=%s)', (locale) => {
    const env = { LC_ALL: locale };
    fc.assert(
      fc.property(fc.uniqueArray(token, { minLength: 1, maxLength: 5 }), (tokens) => {
        expect(searched(tokens, env)).toEqual(fixedLog(tokens));
      }),
      { numRuns: 20 },
    );
    // Some searches find something: the property is not vacuous.
    expect(searched(['#482', '(a|b)'], env)).toHaveLength(3);
    // A lower-case branch name is found by its ticket id, and never a Kelvin sign for a K.
    expect(searched(['PLAT-44'], env)).toHaveLength(2);
    expect(searched(['KEY-9', 'SHIP-3'], env)).toHaveLength(0);
  });

  it('native commitsNaming finds the same commits with either form of search, a ticket id in either case', async () => {
    const history = await createHistory({ dir, engine: 'native' });
    const named = await history.commitsNaming(['#482', '[x]', 'PLAT-7', 'café'], 0);
    expect(named.map((c) => c.sha)).toEqual(fixedLog(['#482', '[x]', 'PLAT-7', 'café']));
    expect(named).toHaveLength(5);
    const isomorphic = await createHistory({ dir, engine: 'isomorphic' });
    expect(await isomorphic.commitsNaming(['#482', '[x]', 'PLAT-7', 'café'], 0)).toEqual(named);
  });

  it('thousands of ids still queued make several searches, each within what one spawn passes, finding the same commits', async () => {
    // Red team s21: 8,000 ids made one 140 KB --grep argument, over Linux's 128 KiB, and git never ran.
    const many = Array.from({ length: 8000 }, (_, i) => `PLAT-${i + 10000}`);
    const other = Array.from({ length: 8000 }, (_, i) => `café-${i}`);
    const searches = messageGreps([...many, 'PLAT-7', ...other, 'café']);
    expect(searches.length).toBeGreaterThan(2);
    for (const args of searches) {
      for (const a of args) expect(Buffer.byteLength(a)).toBeLessThan(128 * 1024);
      expect(args.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0)).toBeLessThan(128 * 1024);
    }
    const history = await createHistory({ dir, engine: 'native' });
    const named = await history.commitsNaming([...many, 'PLAT-7', '#482', ...other, 'café'], 0);
    expect(named.map((c) => c.sha)).toEqual(fixedLog(['PLAT-7', '#482', 'café']));
  });
});
