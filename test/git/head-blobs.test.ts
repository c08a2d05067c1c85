// HEAD's blobs of a few files read from git's index: exact only where the index's valid cached
// root tree is HEAD's tree (git writes it on every commit), else null and the trees are read.
// Checked against `git ls-tree` in real repositories after random sequences of what people do
// between commits: every answer given is HEAD's, and right after a commit one is always given
// (else doctor would quietly read trees on every push).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { headBlobsFromIndex } from '../../src/git/head-tree.js';
import { cleanup, commitAll, git, gitTry, headSha, makeRepo, write } from '../helpers/repo.js';

const PATHS = ['src/a.ts', 'src/gen/client.ts', 'openapi.yaml', 'docs/notes (old).md', 'src', 'never.txt', 'src/new.ts'];

/** git's own answer: each path's blob in HEAD's tree, '' where HEAD has no file there. */
function lsTree(dir: string, paths = PATHS): Map<string, string> {
  const blobs = new Map<string, string>();
  for (const line of git(dir, ['ls-tree', '-r', '-z', 'HEAD']).split('\0')) {
    const m = /^\d+ blob ([0-9a-f]{40})\t(.*)$/s.exec(line);
    if (m) blobs.set(m[2]!, m[1]!);
  }
  return new Map(paths.map((p) => [p, blobs.get(p) ?? '']));
}

function project(): string {
  const dir = makeRepo();
  write(dir, 'src/a.ts', 'a\n');
  write(dir, 'src/gen/client.ts', 'client\n');
  write(dir, 'openapi.yaml', 'openapi: 3.1.0\n');
  write(dir, 'docs/notes (old).md', 'notes\n');
  commitAll(dir, 'init', '2026-11-01T00:00:00Z');
  return dir;
}

describe('HEAD blobs from the index', () => {
  it('right after a commit: HEAD\'s blobs, a folder and an absent file as none', async () => {
    const dir = project();
    expect(await headBlobsFromIndex(dir, headSha(dir), PATHS)).toEqual(lsTree(dir));
    write(dir, 'src/a.ts', 'a\nb\n');
    commitAll(dir, 'edit a', '2026-11-02T00:00:00Z');
    expect(await headBlobsFromIndex(dir, headSha(dir), PATHS)).toEqual(lsTree(dir));
  });

  it('null where the index is not HEAD: a staged change, an intent-to-add, skip-worktree, a soft reset, another commit named', async () => {
    const dir = project();
    const first = headSha(dir);
    write(dir, 'src/a.ts', 'a\nb\n');
    commitAll(dir, 'edit a', '2026-11-02T00:00:00Z');
    expect(await headBlobsFromIndex(dir, first, PATHS)).toBeNull();
    git(dir, ['reset', '-q', '--soft', first]);
    expect(await headBlobsFromIndex(dir, first, PATHS)).toBeNull();
    git(dir, ['commit', '-qm', 'again']);
    write(dir, 'openapi.yaml', 'openapi: 3.0.0\n');
    git(dir, ['add', 'openapi.yaml']);
    expect(await headBlobsFromIndex(dir, headSha(dir), PATHS)).toBeNull();
    git(dir, ['reset', '-q']);
    write(dir, 'src/new.ts', 'new\n');
    git(dir, ['add', '-N', 'src/new.ts']);
    expect(await headBlobsFromIndex(dir, headSha(dir), PATHS)).toBeNull();
    // write-tree leaves an intent-to-add entry out of the cached tree, which is HEAD's again.
    git(dir, ['write-tree']);
    expect(await headBlobsFromIndex(dir, headSha(dir), PATHS)).toBeNull();
    git(dir, ['rm', '-q', '--cached', 'src/new.ts']);
    git(dir, ['update-index', '--skip-worktree', 'src/a.ts']);
    expect(await headBlobsFromIndex(dir, headSha(dir), ['src/a.ts'])).toBeNull();
  });

  it('any sequence of edits, stages and commits: never an answer that is not HEAD\'s (property)', async () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...PATHS.filter((p) => p !== 'src')), text: fc.string({ maxLength: 6 }) }),
      fc.record({ kind: fc.constantFrom('add' as const, 'intent' as const, 'uncache' as const), path: fc.constantFrom('src/a.ts', 'src/new.ts', 'openapi.yaml') }),
      fc.record({ kind: fc.constantFrom('commit' as const, 'soft' as const, 'mixed' as const, 'hard' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        const dir = project();
        try {
          for (const o of ops) {
            // A step git refuses (nothing to add, no HEAD~1) leaves the repository as it was.
            if (o.kind === 'write') write(dir, o.path, o.text);
            else if (o.kind === 'add') gitTry(dir, ['add', '-A', '--', o.path]);
            else if (o.kind === 'intent') gitTry(dir, ['add', '-N', '--', o.path]);
            else if (o.kind === 'uncache') gitTry(dir, ['rm', '-q', '--cached', '--ignore-unmatch', '--', o.path]);
            else if (o.kind === 'commit') git(dir, ['commit', '-q', '--allow-empty', '-am', 'step']);
            else gitTry(dir, ['reset', '-q', `--${o.kind}`, 'HEAD~1']);
            const answer = await headBlobsFromIndex(dir, headSha(dir), PATHS);
            if (answer !== null) expect(answer).toEqual(lsTree(dir));
            // git commit -a writes the whole tree into the index: answered from it.
            if (o.kind === 'commit') expect(answer).not.toBeNull();
          }
        } finally {
          cleanup(dir);
        }
      }),
      { numRuns: 15 },
    );
  });
});
