// `@{u}` as git finds it: the embedded engine reads the branch's upstream from config alone, and
// both engines answer what `git rev-parse` does, so `doctor --pushed @{u}..` means one thing.
import { describe, expect, it } from 'vitest';
import { createHistory } from '../../src/git/index.js';
import { upstreamRef } from '../../src/git/upstream.js';
import { commitAll, git, gitTry, makeRepo, tempDir, write } from '../helpers/repo.js';

describe('upstreamRef: a branch\'s upstream from config text', () => {
  const config = `[remote "origin"]
\turl = git@example.com:acme/shop.git
\tfetch = +refs/heads/*:refs/remotes/origin/*
[remote "fork"]
\tfetch = ^refs/heads/wip/*
\tfetch = +refs/heads/release:refs/remotes/fork/stable
[branch "main"]
\tremote = origin
\tmerge = refs/heads/main
[branch "Feature/X"]
\tremote = origin
\tmerge = refs/heads/feature/x
[branch "local"]
\tremote = .
\tmerge = refs/heads/main
[branch "rel"]
\tremote = fork
\tmerge = refs/heads/release
[branch "gone"]
\tremote = fork
\tmerge = refs/heads/other
[branch "url"]
\tremote = https://example.com/x.git
\tmerge = refs/heads/main
[branch "half"]
\tremote = origin
[branch "twice"]
\tremote = fork
\tremote = origin
\tmerge = refs/heads/main
\tmerge = refs/heads/other
[branch "short"]
\tremote = origin
\tmerge = main
[branch "shortlocal"]
\tremote = .
\tmerge = main
`;
  it.each([
    ['main', 'refs/remotes/origin/main'],
    ['Feature/X', 'refs/remotes/origin/feature/x'],
    ['feature/x', null],
    ['local', 'refs/heads/main'],
    ['rel', 'refs/remotes/fork/stable'],
    ['gone', null],
    ['url', null],
    ['half', null],
    // As git reads them: the last remote, the first merge; a short merge name no fetch refspec stores.
    ['twice', 'refs/remotes/origin/main'],
    ['short', null],
    ['shortlocal', 'main'],
    ['nope', null],
  ])('%s -> %s', (branch, ref) => {
    expect(upstreamRef(config, branch)).toBe(ref);
  });
});

describe.each(['native', 'isomorphic'] as const)('resolveRevisions with @{u} (%s)', (engine) => {
  it('@{u}, <branch>@{upstream} and their ~N steps name what git rev-parse names; a branch with none, or a detached HEAD, names nothing', async () => {
    const remote = tempDir('cp-upstream-remote-');
    git(remote, ['init', '-q', '--bare']);
    const dir = makeRepo();
    write(dir, 'a.txt', '1\n');
    commitAll(dir, 'one');
    write(dir, 'a.txt', '2\n');
    commitAll(dir, 'two');
    git(dir, ['remote', 'add', 'origin', remote]);
    git(dir, ['push', '-q', '-u', 'origin', 'HEAD:refs/heads/main']);
    git(dir, ['branch', '-q', '--set-upstream-to=origin/main']);
    git(dir, ['checkout', '-q', '-b', 'topic']);
    git(dir, ['branch', '-q', '--set-upstream-to=main']);
    write(dir, 'a.txt', '3\n');
    commitAll(dir, 'three');
    git(dir, ['branch', '-q', 'lonely']);
    git(dir, ['config', 'branch.twice.remote', 'origin']);
    git(dir, ['config', 'branch.twice.merge', 'refs/heads/main']);
    git(dir, ['config', '--add', 'branch.twice.merge', 'refs/heads/other']);
    git(dir, ['config', 'branch.short.remote', 'origin']);
    git(dir, ['config', 'branch.short.merge', 'main']);
    git(dir, ['config', 'branch.shortlocal.remote', '.']);
    git(dir, ['config', 'branch.shortlocal.merge', 'main']);
    for (const b of ['twice', 'short', 'shortlocal']) git(dir, ['branch', '-q', b]);
    const names = ['@{u}', '@{upstream}', 'HEAD@{u}', '@{u}~1', 'topic@{u}', 'main@{u}', 'main@{upstream}^', 'refs/heads/main@{u}', 'lonely@{u}', 'nope@{u}', 'twice@{u}', 'short@{u}', 'shortlocal@{u}'];
    const revParse = (n: string) => {
      const r = gitTry(dir, ['rev-parse', '--verify', '--quiet', `${n}^{commit}`]);
      return r.status === 0 ? r.stdout.trim() : null;
    };
    const expected = names.map(revParse);
    expect(expected.filter((x) => x !== null).length).toBe(9);
    expect(await (await createHistory({ dir, engine })).resolveRevisions(names)).toEqual(expected);
    git(dir, ['checkout', '-q', '--detach']);
    expect(revParse('@{u}')).toBeNull();
    expect(await (await createHistory({ dir, engine })).resolveRevisions(['@{u}', 'HEAD@{u}', 'topic@{u}'])).toEqual([null, null, revParse('topic@{u}')]);
  });
});
