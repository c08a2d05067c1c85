// The pure rules both engines share: rename pairing, message split, object names, paths,
// and the date-ordered queue the isomorphic walks use.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CommitQueue } from '../../src/git/commit-queue.js';
import { indexScope, inScope, inScopeIndex, leadsIntoScope, objectNamePrefix, repoRelativePath, splitMessage } from '../../src/git/normalize.js';
import { pairExactRenames } from '../../src/git/renames.js';

const EMPTY = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
const oid = (c: string): string => c.repeat(40);

describe('pairExactRenames', () => {
  it('pairs a deletion and an addition of the same blob, sorted by path', () => {
    expect(
      pairExactRenames([
        { status: 'D', path: 'old', oid: oid('a') },
        { status: 'M', path: 'changed', oid: oid('b') },
        { status: 'A', path: 'new', oid: oid('a') },
        { status: 'A', path: 'added', oid: oid('c') },
      ]),
    ).toEqual([
      { status: 'A', path: 'added' },
      { status: 'M', path: 'changed' },
      { status: 'R', path: 'new', from: 'old' },
    ]);
  });

  it('pairs duplicates in path order and leaves the surplus alone', () => {
    expect(
      pairExactRenames([
        { status: 'D', path: 'y', oid: oid('a') },
        { status: 'D', path: 'x', oid: oid('a') },
        { status: 'A', path: 'q', oid: oid('a') },
      ]),
    ).toEqual([
      { status: 'R', path: 'q', from: 'x' },
      { status: 'D', path: 'y' },
    ]);
  });

  it('never pairs empty files, or a different blob', () => {
    expect(
      pairExactRenames([
        { status: 'D', path: 'e1', oid: EMPTY },
        { status: 'A', path: 'e2', oid: EMPTY },
        { status: 'D', path: 'p', oid: oid('1') },
        { status: 'A', path: 'r', oid: oid('2') },
      ]),
    ).toEqual([
      { status: 'D', path: 'e1' },
      { status: 'A', path: 'e2' },
      { status: 'D', path: 'p' },
      { status: 'A', path: 'r' },
    ]);
  });
});

describe('splitMessage', () => {
  it('takes the first line as subject and trims the rest', () => {
    expect(splitMessage('fix thing (#12)\n\n  body\n\nmore\n\n')).toEqual({ subject: 'fix thing (#12)', body: 'body\n\nmore' });
    expect(splitMessage('two\nline subject\n')).toEqual({ subject: 'two', body: 'line subject' });
    expect(splitMessage('only\r\n')).toEqual({ subject: 'only', body: '' });
    expect(splitMessage('')).toEqual({ subject: '', body: '' });
  });
});

describe('objectNamePrefix and repoRelativePath', () => {
  it('accepts 4 to 40 hex digits only', () => {
    expect(objectNamePrefix('ABCD')).toBe('abcd');
    expect(objectNamePrefix('abc')).toBeNull();
    expect(objectNamePrefix('a'.repeat(41))).toBeNull();
    expect(objectNamePrefix('HEAD')).toBeNull();
    expect(objectNamePrefix('main~1')).toBeNull();
  });

  it('normalizes paths and refuses ones outside the repository', () => {
    expect(repoRelativePath('./a//b/')).toBe('a/b');
    expect(repoRelativePath('a\\b')).toBe('a/b');
    for (const bad of ['/etc/passwd', '../x', '.', 'a/../..']) {
      expect(() => repoRelativePath(bad)).toThrow(expect.objectContaining({ code: 'E_PATH' }));
    }
  });
});

describe('indexScope', () => {
  // Path segments chosen to collide: "a" is a prefix of "ab" as text but not as a folder.
  const segment = fc.constantFrom('a', 'ab', 'b', 'a.b', 'src', 'file.ts');
  const path = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));

  it('answers as inScope does, and knows the folders on the way to the scope\'s paths', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(path, fc.constant('')), { maxLength: 5 }), fc.array(path, { maxLength: 8 }), (scope, asked) => {
        const index = indexScope(scope);
        for (const p of asked) {
          expect(inScopeIndex(p, index)).toBe(inScope(p, scope));
          expect(leadsIntoScope(p, index)).toBe(scope.some((s) => s.startsWith(`${p}/`)));
        }
      }),
    );
  });

  it('keeps a sibling whose name only starts with a scope path out', () => {
    const index = indexScope(['src/a', 'docs/spec.md']);
    expect(inScopeIndex('src/a/x.ts', index)).toBe(true);
    expect(inScopeIndex('src/ab/x.ts', index)).toBe(false);
    expect(inScopeIndex('docs/spec.md.bak', index)).toBe(false);
    expect(leadsIntoScope('src', index)).toBe(true);
    expect(leadsIntoScope('sr', index)).toBe(false);
    expect(leadsIntoScope('src/a', index)).toBe(false);
  });
});

describe('CommitQueue', () => {
  it('pops items newest first', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 50 })), (times) => {
        const queue = new CommitQueue<{ time: number }>();
        for (const time of times) queue.push({ time });
        const popped: number[] = [];
        for (let item = queue.pop(); item !== undefined; item = queue.pop()) popped.push(item.time);
        expect(popped).toEqual([...times].sort((a, b) => b - a));
      }),
    );
  });
});
