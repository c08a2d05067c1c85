// The native engine's message search: ASCII tokens go to git as one escaped extended
// expression instead of one --fixed-strings pattern each. Same commits, always: checked
// against git's own --fixed-strings search on messages holding every ERE special character,
// invalid UTF-8, a Latin-1 message with an encoding header, and carriage returns, in the C
// and a UTF-8 locale.
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageGrep } from '../../src/git/native.js';
import { createHistory } from '../../src/git/index.js';
import { cleanup, git, makeRepo } from '../helpers/repo.js';

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
];

let dir = '';
beforeAll(() => {
  dir = makeRepo();
  let parent = git(dir, ['rev-parse', 'HEAD']).trim();
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
const fixed = (tokens: string[]) => ['--fixed-strings', ...tokens.map((t) => `--grep=${t}`)];

/** Tokens: pieces of the messages (so some match) and runs of special characters. */
const token = fc.oneof(
  fc.constantFrom('#482', '#48', '482', 'PLAT-44', 'PLAT-4471', 'PLAT-7', '(a|b)', '[x]', '{2}', 'a+b', 'a*b', 'a?b', '^start', 'end$', '\\d+', '.*', 'a.b', 'PR-9', 'tab\there', 'caf', 'nowhere'),
  fc.string({ unit: fc.constantFrom(...SPECIALS.split(''), 'a', 'b', '4', '#', ' '), minLength: 1, maxLength: 6 }),
);

describe('messageGrep', () => {
  it('puts printable ASCII tokens in one escaped extended expression, and leaves others to --fixed-strings', () => {
    expect(messageGrep(['#482', 'a.b', '(x|y)'])).toEqual(['--extended-regexp', '--grep=#482|a\\.b|\\(x\\|y\\)']);
    expect(messageGrep(['#482', 'café'])).toEqual(['--fixed-strings', '--grep=#482', '--grep=café']);
    expect(messageGrep(['tab\there'])).toEqual(['--fixed-strings', '--grep=tab\there']);
  });

  it.each([['C'], ['C.UTF-8']])('selects exactly the commits --fixed-strings selects (LC_ALL=%s)', (locale) => {
    const env = { LC_ALL: locale };
    fc.assert(
      fc.property(fc.uniqueArray(token, { minLength: 1, maxLength: 5 }), (tokens) => {
        expect(logWith(messageGrep(tokens), env)).toBe(logWith(fixed(tokens), env));
      }),
      { numRuns: 40 },
    );
    // Some searches find something: the property is not vacuous.
    expect(logWith(messageGrep(['#482', '(a|b)']), env).trim().split('\n')).toHaveLength(3);
  });

  it('native commitsNaming finds the same commits with either form of search', async () => {
    const history = await createHistory({ dir, engine: 'native' });
    const named = await history.commitsNaming(['#482', '[x]', 'PLAT-7'], 0);
    expect(named.map((c) => c.sha)).toEqual(logWith(fixed(['#482', '[x]', 'PLAT-7']), {}).trim().split('\n'));
    expect(named).toHaveLength(4);
  });
});
