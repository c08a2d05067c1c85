// The HEAD reader answers from the git dir's files exactly as git does, and steps aside
// (null) where the files are not the whole truth.
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readHeadFiles, readHeadTarget } from '../../src/git/head-files.js';
import { createHistory } from '../../src/git/index.js';
import { cleanup, commitAll, git, gitTry, makeRepo, tempDir, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
const repo = (opts?: { commit?: boolean }) => {
  const dir = makeRepo(opts);
  dirs.push(dir);
  return dir;
};

/** What git itself says about HEAD, the branch and shallowness. */
function fromGit(dir: string) {
  const sha = gitTry(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const ref = gitTry(dir, ['symbolic-ref', '--quiet', 'HEAD']).stdout.trim();
  return {
    sha: sha.status === 0 ? sha.stdout.trim() : null,
    ref: ref || null,
    branch: ref ? ref.replace(/^refs\/heads\//, '') : null,
    shallow: git(dir, ['rev-parse', '--is-shallow-repository']).trim() === 'true',
  };
}

const pick = (f: ReturnType<typeof readHeadFiles>) => f && { sha: f.sha, ref: f.ref, branch: f.branch, shallow: f.shallow };

describe('readHeadFiles', () => {
  it('agrees with git on a branch, a detached HEAD, packed refs, an unborn branch, a linked worktree and a shallow clone', () => {
    const dir = repo();
    write(dir, 'a.txt', 'a\n');
    commitAll(dir, 'a', '2026-01-02T00:00:00Z');
    expect(pick(readHeadFiles(dir))).toEqual(fromGit(dir));

    git(dir, ['checkout', '-q', '-b', 'feature/x']);
    write(dir, 'b.txt', 'b\n');
    commitAll(dir, 'b', '2026-01-03T00:00:00Z');
    expect(pick(readHeadFiles(dir))).toMatchObject({ branch: 'feature/x' });
    expect(pick(readHeadFiles(dir))).toEqual(fromGit(dir));

    git(dir, ['pack-refs', '--all']);
    expect(pick(readHeadFiles(dir))).toEqual(fromGit(dir));

    git(dir, ['checkout', '-q', '--detach', 'HEAD~1']);
    expect(pick(readHeadFiles(dir))).toEqual(fromGit(dir));

    git(dir, ['checkout', '-q', '--orphan', 'fresh']);
    expect(pick(readHeadFiles(dir))).toEqual({ ...fromGit(dir), sha: null });

    git(dir, ['checkout', '-q', '-f', 'feature/x']);
    const wt = join(tempDir(), 'wt');
    dirs.push(wt);
    git(dir, ['worktree', 'add', '-q', '-b', 'in-wt', wt, 'main']);
    expect(pick(readHeadFiles(wt))).toEqual(fromGit(wt));
    expect(readHeadFiles(wt)?.branch).toBe('in-wt');

    const clone = join(tempDir(), 'clone');
    dirs.push(clone);
    git(dir, ['clone', '-q', '--depth', '1', `file://${dir}`, clone]);
    expect(pick(readHeadFiles(clone))).toEqual(fromGit(clone));
    expect(readHeadFiles(clone)?.shallow).toBe(true);
  });

  it('steps aside for repositories with extensions (reftable, sha-256, ...) or grafts, and for no repository at all', async () => {
    const dir = repo();
    git(dir, ['config', 'extensions.worktreeConfig', 'true']);
    expect(readHeadFiles(dir)).toBeNull();
    // A grafts file rewrites history below an unchanged HEAD: nothing may be kept by HEAD.
    const grafted = repo();
    expect(readHeadFiles(grafted)).not.toBeNull();
    write(grafted, '.git/info/grafts', `${git(grafted, ['rev-parse', 'HEAD']).trim()}\n`);
    expect(readHeadFiles(grafted)).toBeNull();
    // The embedded engine does not follow grafts: it says so rather than walk another history.
    await expect(createHistory({ dir: grafted, engine: 'isomorphic' })).rejects.toThrow(/grafts rewrites this history/);
    const plain = tempDir();
    dirs.push(plain);
    expect(readHeadFiles(plain)).toBeNull();
  });
});

describe('readHeadTarget: the HEAD file as git reads it', () => {
  it('a ref with or without a blank after "ref:", a commit, or neither', () => {
    const dir = repo();
    const head = (text: string) => writeFileSync(join(dir, '.git', 'HEAD'), text);
    const sha = git(dir, ['rev-parse', 'HEAD']).trim();
    head('ref:refs/heads/main\n');
    expect(readHeadTarget(join(dir, '.git'))).toEqual({ sha: null, ref: 'refs/heads/main' });
    expect(pick(readHeadFiles(dir))).toEqual(fromGit(dir));
    head(`${sha}\n`);
    expect(readHeadTarget(join(dir, '.git'))).toEqual({ sha, ref: null });
    head('not a head\n');
    expect(readHeadTarget(join(dir, '.git'))).toBeNull();
    expect(readHeadFiles(dir)).toBeNull();
  });

  it('the isomorphic engine reads HEAD through it where readHeadFiles steps aside', async () => {
    const dir = repo();
    git(dir, ['config', 'extensions.worktreeConfig', 'true']);
    expect(readHeadFiles(dir)).toBeNull();
    const history = await createHistory({ dir, engine: 'isomorphic' });
    expect(await history.head()).toEqual({ sha: fromGit(dir).sha, branch: 'main' });
  });
});
