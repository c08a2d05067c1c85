// generated_files globs: git's wildmatch rules, checked against git itself on a real repository,
// against a definition written as plainly as possible, and on the hostile patterns a clone can
// carry (a range that would make a RegExp throw, stars that would make one backtrack for minutes).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { globMatcher } from '../src/glob.js';
import { commitAll, git, makeRepo, write } from './helpers/repo.js';

/** The rules as a definition: exponential, so for short texts only (no sets: those are tabled below). */
function byDefinition(glob: string, path: string): boolean {
  const segs = glob.split('/').filter((s, i, all) => !(s === '**' && all[i - 1] === '**'));
  const parts = path.split('/');
  const seg = (p: string, s: string): boolean => {
    if (p === '') return s === '';
    if (p[0] === '*') return [...Array(s.length + 1).keys()].some((k) => seg(p.slice(1), s.slice(k)));
    if (s === '') return false;
    return (p[0] === '?' || p[0] === s[0]) && seg(p.slice(1), s.slice(1));
  };
  const all = (i: number, j: number): boolean => {
    if (i === segs.length) return j === parts.length;
    if (segs[i] === '**') {
      if (i === segs.length - 1) return j < parts.length && parts.slice(j).join('/') !== '';
      return [...Array(parts.length - j + 1).keys()].some((k) => all(i + 1, j + k));
    }
    return j < parts.length && seg(segs[i]!, parts[j]!) && all(i + 1, j + 1);
  };
  return all(0, 0);
}

describe('generated_files globs', () => {
  it.each([
    ['docs/*.md', 'docs/a.md', true],
    ['docs/*.md', 'docs/x/a.md', false],
    ['docs/**/*.md', 'docs/a.md', true],
    ['docs/**/*.md', 'docs/x/y/a.md', true],
    ['**/*.md', 'a.md', true],
    ['**/*.md', 'x/y/a.md', true],
    ['src/**', 'src/a/b.ts', true],
    ['src/**', 'src', false],
    ['src/**.ts', 'src/a.ts', true], // `**` inside a segment is `*` (git)
    ['src/**.ts', 'src/x/a.ts', false],
    ['a?[bc].(x)', 'a1b.(x)', true],
    ['a?[bc].(x)', 'a1d.(x)', false],
    ['file[!0-9].ts', 'filex.ts', true],
    ['file[^0-9].ts', 'file5.ts', false],
    ['file[]].ts', 'file].ts', true],
    ['file[a-].ts', 'file-.ts', true],
    ['file[z-a].ts', 'filez.ts', false], // an empty range: nothing, never a thrown RegExp
    ['file[.ts', 'file[.ts', true], // `[` that never closes is itself
    ['app/[id]/*.tsx', 'app/[id]/page.tsx', true], // the Next.js folder, as written
    ['app/[id]/*.tsx', 'app/i/page.tsx', true], // and the set
    ['app/[lang-code]/page.tsx', 'app/[lang-code]/page.tsx', true],
    ['app/[[...slug]]/*.tsx', 'app/[[...slug]]/page.tsx', true],
    ['a/**/**/b', 'a/b', true],
    ['a.(x)+$^{}|\\', 'a.(x)+$^{}|\\', true], // RegExp syntax is plain text here
  ])('%s against %s: %s', (glob, path, expected) => {
    expect(globMatcher(glob).test(path)).toBe(expected);
  });

  it('.gitattributes rules: a backslash escapes, core.ignorecase folds ASCII case', () => {
    expect(globMatcher('a\\*b', { escapes: true }).test('a*b')).toBe(true);
    expect(globMatcher('a\\*b', { escapes: true }).test('axb')).toBe(false);
    expect(globMatcher('a\\*b').test('a\\xb')).toBe(true); // without escapes, a Windows separator is itself
    expect(globMatcher('Docs/*.MD', { ignoreCase: true }).test('docs/Guide.md')).toBe(true);
    expect(globMatcher('file[A-C].ts', { ignoreCase: true }).test('FILEb.ts')).toBe(true);
    expect(globMatcher('Docs/*.MD').test('docs/Guide.md')).toBe(false);
  });

  it('hostile patterns answer, in steps bounded by pattern x name', () => {
    const names = Array.from({ length: 300 }, (_, i) => `src/${'a'.repeat(60)}${i}/${'a'.repeat(80)}.ts`);
    const stars = globMatcher('**/*a*a*a*a*a*a*a*a*a*a*a*a*b');
    expect(names.filter((n) => stars.test(n))).toEqual([]);
    const globstars = globMatcher(`${'**/a/'.repeat(40)}b`);
    expect(globstars.test(`${'a/'.repeat(60)}c`)).toBe(false);
    expect(globstars.test(`${'a/'.repeat(60)}b`)).toBe(true);
  });

  it('property: the matcher agrees with the rules written as a definition', () => {
    const piece = fc.constantFrom('a', 'b', '*', '?', '/', '**', '.');
    const ch = fc.constantFrom('a', 'b', '/', '.');
    fc.assert(fc.property(fc.array(piece, { minLength: 1, maxLength: 8 }), fc.array(ch, { minLength: 1, maxLength: 10 }), (p, s) => {
      const glob = p.join('');
      const path = s.join('');
      expect(globMatcher(glob).test(path)).toBe(byDefinition(glob, path));
    }), { numRuns: 2000 });
  });

  it('agrees with git (`:(glob)` pathspecs) on the files of a real repository', () => {
    const dir = makeRepo();
    const files = ['docs/a.md', 'docs/x/y/b.md', 'top.md', 'src/a.ts', 'src/lib/b.ts', 'src/lib/deep/c.ts', 'file5.ts', 'filex.ts', 'file].ts', 'app/[id]/page.tsx', 'app/i/page.tsx'];
    for (const f of files) write(dir, f, `${f}\n`);
    commitAll(dir, 'files');
    for (const glob of ['docs/*.md', 'docs/**/*.md', '**/*.md', 'src/**', '**/lib/*.ts', 'src/**/c.ts', 'file[!0-9].ts', 'file[0-9].ts', 'file[]].ts', 'app/*/page.tsx', '*/*.ts']) {
      const byGit = git(dir, ['ls-files', '--', `:(glob)${glob}`]).split('\n').filter(Boolean).sort();
      const ours = files.filter((f) => globMatcher(glob).test(f)).sort();
      expect(ours, glob).toEqual(byGit);
    }
  });
  it('under: whether a folder could hold a match (a submodule not checked out under a glob)', () => {
    const table: [string, string, boolean][] = [
      ['vendor/*/src/*.ts', 'vendor/lib', true],
      ['vendor/*/src/*.ts', 'vendor/lib/src', true],
      ['vendor/*/src/*.ts', 'vendor/lib/docs', false],
      ['vendor/*/src/*.ts', 'third_party/lib', false],
      ['vendor/**/x.ts', 'vendor/lib', true],
      ['vendor/**/x.ts', 'vendor/a/b/c', true],
      ['vendor/**', 'vendor/lib', true],
      ['**/x.ts', 'deps/old lib', true],
      ['vendor/lib/src/*.ts', 'vendor/lib', true],
      ['vendor/lib-[0-9]/*.ts', 'vendor/lib-2', true],
      ['vendor/lib-[0-9]/*.ts', 'vendor/lib-x', false],
      // The folder itself is the last segment's match: nothing below it could be.
      ['vendor/*', 'vendor/lib', false],
      ['vendor/*.ts', 'vendor/lib', false],
      ['src/*.ts', 'vendor/lib', false],
    ];
    for (const [glob, dir, want] of table) expect(globMatcher(glob).under(dir), `${glob} under ${dir}`).toBe(want);
  });
});
