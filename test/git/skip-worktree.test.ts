// The index's skip-worktree entries as git writes them (sparse checkouts), read without git.
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { indexHolds, readOutsideCheckout, skipWorktreePaths } from '../../src/git/skip-worktree.js';
import { cleanup, commitAll, git, makeRepo, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function sparseRepo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  for (const f of ['src/a.ts', 'docs/spec.md', 'docs/api/v1.md', 'README.md']) write(dir, f, `${f}\n`);
  commitAll(dir, 'files');
  return dir;
}

describe('skip-worktree entries', () => {
  it('names the files a sparse checkout leaves out, folded folders of a sparse index, and index v4 names', () => {
    const dir = sparseRepo();
    const gitdir = join(dir, '.git');
    expect(readOutsideCheckout(gitdir)).toEqual({ files: new Set(), folders: [], gitlinks: [] });
    git(dir, ['sparse-checkout', 'set', 'src']);
    expect(readOutsideCheckout(gitdir)).toEqual({ files: new Set(['docs/spec.md', 'docs/api/v1.md']), folders: [], gitlinks: [] });
    expect([...skipWorktreePaths(gitdir, ['docs/api/v1.md', 'src/a.ts', 'README.md'])]).toEqual(['docs/api/v1.md']);
    git(dir, ['update-index', '--index-version', '4']);
    expect(readOutsideCheckout(gitdir).files).toEqual(new Set(['docs/spec.md', 'docs/api/v1.md']));
    git(dir, ['sparse-checkout', 'init', '--cone', '--sparse-index']);
    expect(readOutsideCheckout(gitdir)).toEqual({ files: new Set(), folders: ['docs/'], gitlinks: [] });
    expect([...skipWorktreePaths(gitdir, ['docs/api/v1.md', 'src/a.ts', 'docs'])]).toEqual(['docs/api/v1.md']);
  });

  it('names the submodules the index records (gitlinks), in v2, v4 and split indexes', () => {
    const dir = sparseRepo();
    const gitdir = join(dir, '.git');
    // Two gitlinks as `git submodule add` records them, no checkout of either (a clone's state).
    const sha = git(dir, ['rev-parse', 'HEAD']).trim();
    git(dir, ['update-index', '--add', '--cacheinfo', `160000,${sha},vendor/lib`, '--cacheinfo', `160000,${sha},third party/ui kit`]);
    const links = ['third party/ui kit', 'vendor/lib'];
    expect(readOutsideCheckout(gitdir).gitlinks).toEqual(links);
    git(dir, ['update-index', '--index-version', '4']);
    expect(readOutsideCheckout(gitdir).gitlinks).toEqual(links);
    git(dir, ['update-index', '--split-index']);
    expect(readOutsideCheckout(gitdir).gitlinks).toEqual(links);
  });

  it('says which names the index holds, whatever their flags, in v2, v4 and split indexes', () => {
    const dir = sparseRepo();
    const gitdir = join(dir, '.git');
    write(dir, 'Makefile', 'all:\n');
    git(dir, ['add', 'Makefile']);
    const asked = ['README.md', 'Makefile', 'docs/spec.md', 'docs', 'TBD', 'src'];
    const held = ['README.md', 'Makefile', 'docs/spec.md'];
    expect([...indexHolds(gitdir, asked)].sort()).toEqual([...held].sort());
    git(dir, ['sparse-checkout', 'set', 'src']);
    expect([...indexHolds(gitdir, asked)].sort()).toEqual([...held].sort());
    git(dir, ['update-index', '--index-version', '4']);
    expect([...indexHolds(gitdir, asked)].sort()).toEqual([...held].sort());
    git(dir, ['rm', '-q', '--cached', 'README.md']);
    expect([...indexHolds(gitdir, ['README.md', 'Makefile'])]).toEqual(['Makefile']);
    git(dir, ['add', 'README.md']);
    // A split index: the shared file's entries count too (its delete bitmap is not followed).
    git(dir, ['update-index', '--split-index']);
    expect([...indexHolds(gitdir, asked)].sort()).toEqual([...held].sort());
    expect(indexHolds(gitdir, [])).toEqual(new Set());
  });

  it('reads a split index with its shared file, and never throws on a damaged one', () => {
    const dir = sparseRepo();
    const gitdir = join(dir, '.git');
    git(dir, ['sparse-checkout', 'set', 'src']);
    const whole = readFileSync(join(gitdir, 'index'));
    git(dir, ['update-index', '--split-index']);
    expect(readdirSync(gitdir).some((f) => f.startsWith('sharedindex.'))).toBe(true);
    expect(readOutsideCheckout(gitdir).files).toEqual(new Set(['docs/spec.md', 'docs/api/v1.md']));
    fc.assert(
      fc.property(fc.nat(whole.length - 1), fc.uint8Array({ minLength: 1, maxLength: 8 }), (at, bytes) => {
        const damaged = Buffer.from(whole);
        damaged.set(bytes.subarray(0, whole.length - at), at);
        writeFileSync(join(gitdir, 'index'), damaged.subarray(0, at + bytes.length));
        // Read as far as it makes sense, or not at all: never an exception out of doctor.
        expect(() => readOutsideCheckout(gitdir)).not.toThrow();
      }),
      { numRuns: 200 },
    );
  });
});
