// The cached bounded walk answers only for the HEAD (and shallow state) it was made at,
// and a later cut-off is answered by re-walking inside the cached commits.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { atOneHead, cachedAtHead, cachedCommitsSince, repoKey, storeAtHead, storeCommitsSince, walkTip } from '../../src/git/commit-cache.js';
import { runGitSync } from '../../src/git/git-process.js';
import { createHistory } from '../../src/git/index.js';
import { cleanup, commitAll, git, makeRepo } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

describe('commit cache', () => {
  it('hits only at the same HEAD, and cuts a later instant like a fresh walk', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (let i = 1; i <= 4; i++) commitAll(dir, `c${i}`, `2026-02-0${i}T00:00:00Z`);
    const history = await createHistory({ dir, engine: 'native' });
    const since = Date.parse('2026-02-02T00:00:00Z') / 1000;
    expect(cachedCommitsSince(dir, since)).toBeNull();
    const walked = await history.commitsSince(since);
    storeCommitsSince(dir, since, walked);
    expect(cachedCommitsSince(dir, since)).toEqual(walked);
    const later = Date.parse('2026-02-03T00:00:00Z') / 1000;
    expect(cachedCommitsSince(dir, later)).toEqual(await history.commitsSince(later));
    // An earlier instant than the cached walk reached is a miss, not a partial answer.
    expect(cachedCommitsSince(dir, since - 86400)).toBeNull();
    // HEAD moves on by a plain commit: the walk is carried forward (fast-forward.ts) and kept
    // there, as a fresh walk gives it.
    commitAll(dir, 'c5', '2026-02-05T00:00:00Z');
    expect(cachedCommitsSince(dir, since)).toEqual(await history.commitsSince(since));
    expect(cachedCommitsSince(dir, later)).toEqual(await history.commitsSince(later));
    // HEAD moves to a commit that does not descend from the one kept: miss.
    git(dir, ['checkout', '-q', '--detach', 'HEAD~2']);
    commitAll(dir, 'c4b', '2026-02-06T00:00:00Z');
    expect(cachedCommitsSince(dir, since)).toBeNull();
    git(dir, ['checkout', '-q', '-']);
    // Packed refs and a detached HEAD are read too.
    storeCommitsSince(dir, since, await history.commitsSince(since));
    git(dir, ['pack-refs', '--all']);
    expect(cachedCommitsSince(dir, since)).toHaveLength(4);
    git(dir, ['checkout', '-q', '--detach', 'HEAD~1']);
    expect(cachedCommitsSince(dir, since)).toBeNull();
  });

  it('keeps a walk only under the commit it walked from: HEAD moved away and back during the walk stores nothing', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (let i = 1; i <= 3; i++) commitAll(dir, `c${i}`, `2026-02-0${i}T00:00:00Z`);
    const a = git(dir, ['rev-parse', 'HEAD']).trim();
    const history = await createHistory({ dir, engine: 'native' });
    // Another shell commits "Land it (#12)" and resets back while this run walks: the walk is of B.
    commitAll(dir, 'Land it (#12)', '2026-02-04T00:00:00Z');
    const walkOfB = await history.commitsSince(0);
    git(dir, ['reset', '-q', '--hard', a]);
    expect(walkTip(walkOfB)).not.toBe(a);
    storeCommitsSince(dir, 0, walkOfB);
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    // The walk of A itself is kept.
    const walkOfA = await history.commitsSince(0);
    expect(walkTip(walkOfA)).toBe(a);
    storeCommitsSince(dir, 0, walkOfA);
    expect(cachedCommitsSince(dir, 0)).toEqual(walkOfA);
    // A list that is not one walk (two tips) names no tip.
    expect(walkTip([...walkOfA, { ...walkOfB[0]!, parents: [] }])).toBeUndefined();
    expect(walkTip([])).toBeNull();
  });

  it('within one run both engines walk the HEAD read for the run, even when HEAD moves meanwhile', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (let i = 1; i <= 3; i++) commitAll(dir, `c${i}`, `2026-02-0${i}T00:00:00Z`);
    const a = git(dir, ['rev-parse', 'HEAD']).trim();
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir, engine });
      const walk = await atOneHead(dir, async () => {
        expect(repoKey(dir)?.head).toBe(a);
        // Another shell commits while this run works; the run goes on answering about A.
        commitAll(dir, `Land it (#12) ${engine}`, '2026-02-04T00:00:00Z');
        return history.commitsSince(0);
      });
      expect(walkTip(walk), engine).toBe(a);
      expect(walk.some((c) => c.subject.startsWith('Land it'))).toBe(false);
      git(dir, ['reset', '-q', '--hard', a]);
    }
  });

  it('a broken, misshapen, linked or FIFO cache file is a miss, never an answer', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    commitAll(dir, 'c1', '2026-02-01T00:00:00Z');
    const history = await createHistory({ dir, engine: 'native' });
    storeCommitsSince(dir, 0, await history.commitsSince(0));
    const walks = join(dir, '.git/checkpoint/walks');
    const [slot] = readdirSync(walks);
    const file = join(walks, slot!);
    const good = JSON.parse(readFileSync(file, 'utf8'));
    expect(cachedCommitsSince(dir, 0)).toHaveLength(2);
    writeFileSync(file, '{not json');
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    // Written before the engines' answers changed (no format, or another one): a miss.
    const { format: _, ...unversioned } = good;
    writeFileSync(file, JSON.stringify(unversioned));
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    writeFileSync(file, JSON.stringify({ ...good, format: 1 }));
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    // Right key, wrong shape: a commit without parents, a change with an unknown status.
    writeFileSync(file, JSON.stringify({ ...good, commits: [{ ...good.commits[0], parents: 'x' }] }));
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    writeFileSync(file, JSON.stringify({ ...good, commits: [{ ...good.commits[0], changes: [{ status: 'X', path: 'a' }] }] }));
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    // Kept before commits carried their author time (after.ts reads it for a rebase): a miss, never
    // read as a commit without one. Put back, it is a hit again.
    expect(good.commits[0].authorTime).toBe(Date.parse('2026-02-01T00:00:00Z') / 1000);
    writeFileSync(file, JSON.stringify({ ...good, commits: good.commits.map(({ authorTime: _a, ...c }: Record<string, unknown>) => c) }));
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    writeFileSync(file, JSON.stringify({ ...good, commits: [{ ...good.commits[0], authorTime: '1' }, good.commits[1]] }));
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    writeFileSync(file, JSON.stringify(good));
    expect(cachedCommitsSince(dir, 0)).toHaveLength(2);
    // A link to a good copy elsewhere is not followed.
    const elsewhere = join(dir, 'copy.json');
    writeFileSync(elsewhere, JSON.stringify(good));
    rmSync(file);
    symlinkSync(elsewhere, file);
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    // A FIFO does not block the read.
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(cachedCommitsSince(dir, 0)).toBeNull();
    // The cache directory itself replaced by a link: no read, and no write through it.
    rmSync(join(dir, '.git/checkpoint'), { recursive: true });
    mkdirSync(join(dir, 'out'));
    symlinkSync(join(dir, 'out'), join(dir, '.git/checkpoint'));
    storeCommitsSince(dir, 0, await history.commitsSince(0));
    expect(readdirSync(join(dir, 'out'))).toEqual([]);
    expect(cachedCommitsSince(dir, 0)).toBeNull();
  });

  it('keeps one slot per change scope, so different questions do not evict each other, and a bounded number of slots', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    commitAll(dir, 'c1', '2026-02-01T00:00:00Z');
    const history = await createHistory({ dir, engine: 'native' });
    const subjects = await history.commitsSince(0, { changes: 'none' });
    const scoped = await history.commitsSince(0, { changes: ['a.txt'] });
    storeCommitsSince(dir, 0, subjects, []);
    storeCommitsSince(dir, 0, scoped, ['a.txt']);
    expect(cachedCommitsSince(dir, 0, [])).toEqual(subjects);
    expect(cachedCommitsSince(dir, 0, ['a.txt'])).toEqual(scoped);
    expect(cachedCommitsSince(dir, 0, ['b.txt'])).toBeNull();
    for (let i = 0; i < 20; i++) storeCommitsSince(dir, 0, scoped, [`f${i}`]);
    expect(readdirSync(join(dir, '.git/checkpoint/walks')).length).toBeLessThanOrEqual(6);
    // The newest questions are still answered.
    expect(cachedCommitsSince(dir, 0, ['f19'])).toEqual(scoped);
  });

  it('reads HEAD once within atOneHead, again after a git process of ours, and never stores under a HEAD that moved', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    commitAll(dir, 'c1', '2026-02-01T00:00:00Z');
    const first = git(dir, ['rev-parse', 'HEAD']).trim();
    await atOneHead(dir, async () => {
      expect(repoKey(dir)?.head).toBe(first);
      // Moved by someone else (not our runner): the span keeps the HEAD it read...
      commitAll(dir, 'c2', '2026-02-02T00:00:00Z');
      expect(repoKey(dir)?.head).toBe(first);
      // ...and an answer worked out at it is not kept for the HEAD that is there now.
      storeAtHead(dir, 'probe.json', 'k', 'answer at c1');
      expect(cachedAtHead(dir, 'probe.json', 'k')).toBeNull();
      // A git process of ours may move HEAD: read again.
      writeFileSync(join(dir, 'f.txt'), 'x\n');
      expect(runGitSync(dir, ['add', 'f.txt']).code).toBe(0);
      expect(runGitSync(dir, ['commit', '-qm', 'c3']).code).toBe(0);
      expect(repoKey(dir)?.head).toBe(git(dir, ['rev-parse', 'HEAD']).trim());
      storeAtHead(dir, 'probe.json', 'k', 'answer at c3');
    });
    expect(cachedAtHead(dir, 'probe.json', 'k')).toBe('answer at c3');
    // Outside a span HEAD is read each time.
    commitAll(dir, 'c4', '2026-02-04T00:00:00Z');
    expect(cachedAtHead(dir, 'probe.json', 'k')).toBeNull();
  });
});
