// holdCacheWrites: a run's cache writes are made only when it completes (doctor's refusals leave
// .git as they found it), while the run itself reads back what it wrote, as without the hold.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cacheDir, holdCacheWrites, pruneCacheDir, readCacheJson, writeCacheJson } from '../../src/git/cache-files.js';
import { tempDir } from '../helpers/repo.js';
import { dirState } from '../helpers/dir-state.js';

it('held writes: read back within the run, made in order when it completes', async () => {
  const gitdir = tempDir('cp-cache-');
  const inRun = await holdCacheWrites(async () => {
    const dir = cacheDir(gitdir, 'walks', true);
    expect(dir).toBe(join(gitdir, 'checkpoint', 'walks'));
    writeCacheJson(dir!, 'walk-1.json', { n: 1 });
    writeCacheJson(dir!, 'walk-2.json', { n: 2 });
    writeCacheJson(dir!, 'walk-2.json', { n: 2.5 });
    pruneCacheDir(dir!, (f) => f.startsWith('walk-'), 1, 'walk-2.json');
    // Nothing on disk yet; the run still sees its own answers, and the folder it will make.
    expect(existsSync(join(gitdir, 'checkpoint'))).toBe(false);
    expect(cacheDir(gitdir, 'walks')).toBe(dir);
    return [readCacheJson(join(dir!, 'walk-1.json')), readCacheJson(join(dir!, 'walk-2.json'))];
  });
  expect(inRun).toEqual([{ n: 1 }, { n: 2.5 }]);
  // Made in order: both written, then the prune kept only the current one.
  expect(JSON.parse(readFileSync(join(gitdir, 'checkpoint/walks/walk-2.json'), 'utf8'))).toEqual({ n: 2.5 });
  expect(existsSync(join(gitdir, 'checkpoint/walks/walk-1.json'))).toBe(false);
});

it('a run that throws (and any run overlapping it) writes nothing', async () => {
  const gitdir = tempDir('cp-cache-');
  mkdirSync(join(gitdir, 'checkpoint'));
  writeFileSync(join(gitdir, 'checkpoint/kept.json'), '{"old":true}');
  const before = dirState(gitdir);
  const refused = holdCacheWrites(async () => {
    writeCacheJson(cacheDir(gitdir, '', true)!, 'kept.json', { old: false });
    writeCacheJson(cacheDir(gitdir, 'walks', true)!, 'walk.json', []);
    await new Promise((r) => setTimeout(r, 20));
    throw new Error('refused');
  });
  const overlapping = holdCacheWrites(async () => {
    await new Promise((r) => setTimeout(r, 40));
    writeCacheJson(cacheDir(gitdir, '', true)!, 'other.json', {});
  });
  await expect(refused).rejects.toThrow('refused');
  await overlapping;
  expect(dirState(gitdir)).toEqual(before);
  // Outside a hold, a write is made at once.
  writeCacheJson(cacheDir(gitdir, '', true)!, 'now.json', { at: 'once' });
  expect(readCacheJson(join(gitdir, 'checkpoint/now.json'))).toEqual({ at: 'once' });
});

it('a link planted where the folder goes is refused while held: nothing written through it', async () => {
  const gitdir = tempDir('cp-cache-');
  const elsewhere = tempDir('cp-elsewhere-');
  symlinkSync(elsewhere, join(gitdir, 'checkpoint'));
  await holdCacheWrites(async () => {
    expect(cacheDir(gitdir, 'walks', true)).toBeNull();
  });
  expect(dirState(elsewhere)).toEqual(new Map());
});
