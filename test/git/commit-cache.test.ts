// The cached bounded walk answers only for the HEAD (and shallow state) it was made at,
// and a later cut-off is answered by re-walking inside the cached commits.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedCommitsSince, storeCommitsSince } from '../../src/git/commit-cache.js';
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
    // HEAD moves: miss.
    commitAll(dir, 'c5', '2026-02-05T00:00:00Z');
    expect(cachedCommitsSince(dir, since)).toBeNull();
    // Packed refs and a detached HEAD are read too.
    storeCommitsSince(dir, since, await history.commitsSince(since));
    git(dir, ['pack-refs', '--all']);
    expect(cachedCommitsSince(dir, since)).toHaveLength(4);
    git(dir, ['checkout', '-q', '--detach', 'HEAD~1']);
    expect(cachedCommitsSince(dir, since)).toBeNull();
  });

  it('a broken cache file is a miss', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    commitAll(dir, 'c1', '2026-02-01T00:00:00Z');
    storeCommitsSince(dir, 0, []);
    writeFileSync(join(dir, '.git/checkpoint/commits-since.json'), '{not json');
    expect(cachedCommitsSince(dir, 0)).toBeNull();
  });
});
