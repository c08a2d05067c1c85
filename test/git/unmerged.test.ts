// The unmerged entries under .checkpoints/, read from the index file in place, against git's own
// `git ls-files --unmerged`: every index version (2, 3, 4), split indexes (shared file, replace
// and delete bitmaps), long names, names sorting just before and after the folder, and the scan
// stopping past it. Entries are written with git itself (update-index --index-info), as a merge
// writes them, so every case is one git reads.
import fc from 'fast-check';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE, ewahBits, indexUnder, OURS, THEIRS, unmergedUnder } from '../../src/git/unmerged.js';
import { conflictCode } from '../../src/store/index-conflicts.js';
import { cleanup, git, makeRepo } from '../helpers/repo.js';
import { execFileSync } from 'node:child_process';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const FOLDER = '.checkpoints/';

function repo(): { dir: string; dirs: { gitdir: string; commonDir: string }; blob: string } {
  const dir = makeRepo();
  dirs.push(dir);
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: '{"skill": "api", "status": "in_progress"}\n', encoding: 'utf8' }).trim();
  return { dir, dirs: { gitdir: join(dir, '.git'), commonDir: join(dir, '.git') }, blob };
}

/** What git says: path -> stage mask, for paths under the folder. */
function gitSays(dir: string): Map<string, number> {
  const out = git(dir, ['ls-files', '--unmerged', '-z']);
  const found = new Map<string, number>();
  for (const entry of out.split('\0').filter(Boolean)) {
    const m = /^\d+ [0-9a-f]+ ([123])\t([\s\S]*)$/.exec(entry)!;
    if (!m[2]!.startsWith(FOLDER)) continue;
    found.set(m[2]!, (found.get(m[2]!) ?? 0) | (1 << Number(m[1])));
  }
  return found;
}

/** Index entries as `git update-index --index-info` takes them: stage 0 adds a merged entry, 1-3 a conflict's stages. */
function indexInfo(dir: string, blob: string, entries: readonly { path: string; stage: number }[]): void {
  const input = entries.map((e) => `100644 ${blob} ${e.stage}\t${e.path}\n`).join('');
  execFileSync('git', ['update-index', '--index-info'], { cwd: dir, input, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

// Names around the folder's place in byte order: before it ('-', '.a', '.checkpoint'), inside it
// (a skill's file, history/, a deep folder) and just past it ('.checkpoints0', '.checkpointsX', 'a').
const around = fc.constantFrom(
  '-first.txt', '.a/x.json', '.checkpoint', '.checkpoint/x.json', '.checkpoints-old/api.checkpoint.json', '.checkpoints.bak',
  '.checkpoints0/api.checkpoint.json', '.checkpointsX', 'README.md', 'a/.checkpoints/api.checkpoint.json', 'src/app.ts',
);
const inside = fc.oneof(
  fc.constantFrom('api', 'web', 'build-loop', 'a.b', 'z9').map((s) => `${FOLDER}${s}.checkpoint.json`),
  fc.constantFrom('api.2026-11-01T00-00-00Z.checkpoint.json', 'api.2026-11-01.json').map((s) => `${FOLDER}history/${s}`),
  fc.constantFrom('config.json', 'README.md', 'sub/deep/x.json').map((s) => `${FOLDER}${s}`),
);
const stages = fc.constantFrom([1, 2, 3], [2, 3], [1, 3], [1, 2], [2], [3], [1], [0]);

describe('unmergedUnder', () => {
  it('agrees with git ls-files --unmerged on any mix of entries, in every index version', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.oneof(around, inside), stages), { selector: ([p]) => p, minLength: 1, maxLength: 10 }), fc.constantFrom(2, 3, 4), (picked, version) => {
        const { dir, dirs: gd, blob } = repo();
        indexInfo(dir, blob, picked.flatMap(([path, s]) => s.map((stage) => ({ path, stage }))));
        git(dir, ['update-index', '--index-version', String(version)]);
        expect(unmergedUnder(gd, FOLDER)).toEqual(gitSays(dir));
        cleanup(dirs.pop()!);
      }),
      { numRuns: 40 },
    );
  });

  it('reads entries with the extended flags (v3: intent-to-add) and names of 4095 bytes and more', () => {
    const { dir, dirs: gd, blob } = repo();
    const long = `.a/${'x'.repeat(5000)}.json`; // sorts before the folder: the scan walks past it
    indexInfo(dir, blob, [{ path: long, stage: 0 }, { path: `${FOLDER}api.checkpoint.json`, stage: 2 }, { path: `${FOLDER}api.checkpoint.json`, stage: 3 }]);
    writeFileSync(join(dir, 'later.txt'), 'soon\n');
    git(dir, ['add', '-N', '--', 'later.txt']);
    expect(unmergedUnder(gd, FOLDER)).toEqual(new Map([[`${FOLDER}api.checkpoint.json`, OURS | THEIRS]]));
    for (const version of ['3', '4', '2']) {
      git(dir, ['update-index', '--index-version', version]);
      expect(unmergedUnder(gd, FOLDER), version).toEqual(gitSays(dir));
    }
  });

  it('stops past the folder: entries after it are never read (a damaged tail does not matter)', () => {
    const { dir, dirs: gd, blob } = repo();
    const after = Array.from({ length: 3000 }, (_, i) => ({ path: `src/module${i}/file${i}.ts`, stage: 0 }));
    indexInfo(dir, blob, [...after, { path: `${FOLDER}api.checkpoint.json`, stage: 1 }, { path: `${FOLDER}api.checkpoint.json`, stage: 3 }]);
    const index = join(dir, '.git', 'index');
    const whole = readFileSync(index);
    expect(whole.length).toBeGreaterThan(200_000);
    // Garbage over everything past the first few kilobytes: what is needed lies before it.
    const cut = Buffer.concat([whole.subarray(0, 8192), Buffer.alloc(whole.length - 8192, 0xff)]);
    writeFileSync(index, cut);
    expect(unmergedUnder(gd, FOLDER)).toEqual(new Map([[`${FOLDER}api.checkpoint.json`, BASE | THEIRS]]));
  });

  it('follows a split index: the shared file, replaced and deleted entries, and entries added since', () => {
    const { dir, dirs: gd, blob } = repo();
    git(dir, ['config', 'splitIndex.maxPercentChange', '100']);
    const files = Array.from({ length: 40 }, (_, i) => ({ path: `${FOLDER}s${String(i).padStart(2, '0')}.checkpoint.json`, stage: 0 }));
    indexInfo(dir, blob, [...files, { path: 'README.md', stage: 0 }, { path: `${FOLDER}web.checkpoint.json`, stage: 2 }, { path: `${FOLDER}web.checkpoint.json`, stage: 3 }]);
    git(dir, ['update-index', '--split-index']);
    const check = (what: string) => expect(unmergedUnder(gd, FOLDER), what).toEqual(gitSays(dir));
    check('all in the shared file');
    // A conflict replaces merged entries (deleted from the shared file, added in the split one).
    indexInfo(dir, blob, [{ path: `${FOLDER}s03.checkpoint.json`, stage: 1 }, { path: `${FOLDER}s03.checkpoint.json`, stage: 3 }]);
    check('a conflict over a shared entry');
    // A shared entry's content changed: replaced in place.
    const other = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: '{}\n', encoding: 'utf8' }).trim();
    execFileSync('git', ['update-index', '--cacheinfo', `100644,${other},${FOLDER}s10.checkpoint.json`], { cwd: dir });
    check('a replaced entry');
    // The shared file's conflict resolved: its stages deleted, a merged entry added.
    execFileSync('git', ['update-index', '--cacheinfo', `100644,${blob},${FOLDER}web.checkpoint.json`], { cwd: dir });
    check('a shared conflict resolved');
    expect(gitSays(dir)).toEqual(new Map([[`${FOLDER}s03.checkpoint.json`, BASE | THEIRS]]));
    // Split off again: back to one file (the shared one left behind is not read).
    git(dir, ['update-index', '--no-split-index']);
    check('split off');
  });

  it('answers null for an index it cannot read, and nothing for none', () => {
    const { dir, dirs: gd } = repo();
    const index = join(dir, '.git', 'index');
    git(dir, ['rm', '-q', '--cached', '-r', '--ignore-unmatch', '.']);
    expect(unmergedUnder(gd, FOLDER)).toEqual(new Map());
    execFileSync('rm', ['-f', index]);
    expect(unmergedUnder(gd, FOLDER)).toEqual(new Map());
    writeFileSync(index, 'DIRC\0\0\0\x07garbage');
    expect(unmergedUnder(gd, FOLDER)).toBeNull();
    execFileSync('rm', ['-f', index]);
    execFileSync('mkfifo', [index]);
    expect(unmergedUnder(gd, FOLDER)).toBeNull();
  });
});

describe('indexUnder', () => {
  /** What git says: the paths under the folder `git ls-files -t` marks S (skip-worktree), a sparse index's folded folders included. */
  const skippedSays = (dir: string) => new Set(git(dir, ['ls-files', '-t', '-z', '--sparse']).split('\0').filter((e) => e.startsWith(`S ${FOLDER}`)).map((e) => e.slice(2)));

  it('names the skip-worktree entries under the folder as git ls-files -t does: by hand, sparse, folded, split, every version', () => {
    const { dir, dirs: gd, blob } = repo();
    indexInfo(dir, blob, ['api', 'web', 'build-loop'].map((s) => ({ path: `${FOLDER}${s}.checkpoint.json`, stage: 0 })).concat([{ path: `${FOLDER}history/api.2026-05-01.json`, stage: 0 }, { path: 'pkg/app/auth.ts', stage: 0 }, { path: '.checkpointsX', stage: 0 }]));
    git(dir, ['commit', '-qm', 'monorepo']);
    git(dir, ['checkout', '-q', '--', '.']);
    expect(indexUnder(gd, FOLDER)!.skipped).toEqual(new Set());
    git(dir, ['update-index', '--skip-worktree', `${FOLDER}web.checkpoint.json`, '.checkpointsX']);
    expect(indexUnder(gd, FOLDER)!.skipped).toEqual(new Set([`${FOLDER}web.checkpoint.json`]));
    git(dir, ['sparse-checkout', 'set', 'pkg/app']);
    for (const version of ['4', '3']) {
      git(dir, ['update-index', '--index-version', version]);
      expect(indexUnder(gd, FOLDER)!.skipped, `version ${version}`).toEqual(skippedSays(dir));
    }
    expect(skippedSays(dir).size).toBe(4);
    git(dir, ['config', 'splitIndex.maxPercentChange', '100']);
    git(dir, ['update-index', '--split-index']);
    expect(indexUnder(gd, FOLDER)!.skipped, 'split').toEqual(skippedSays(dir));
    git(dir, ['update-index', '--no-split-index']);
    git(dir, ['sparse-checkout', 'set', '--sparse-index', 'pkg/app']);
    expect(indexUnder(gd, FOLDER)!.skipped, 'folded').toEqual(new Set([FOLDER]));
    expect(skippedSays(dir)).toEqual(new Set([FOLDER]));
  });
});

describe('ewahBits', () => {
  it('reads runs of ones and literal words, lowest bit first', () => {
    // 130 bits: a run of 1 word of ones (bits 0-63), then 2 literal words: bit 64+1 and bit 128+1.
    const words = [((2n << 33n) | (1n << 1n) | 1n), 1n << 1n, 1n << 1n];
    const buf = Buffer.alloc(8 + words.length * 8 + 4);
    buf.writeUInt32BE(130, 0);
    buf.writeUInt32BE(words.length, 4);
    words.forEach((w, i) => buf.writeBigUInt64BE(w, 8 + i * 8));
    const read = ewahBits(buf, 0, buf.length)!;
    expect(read.next).toBe(buf.length);
    expect(read.bits).toEqual([...Array.from({ length: 64 }, (_, i) => i), 65, 129]);
    expect(ewahBits(buf, 0, buf.length - 1)).toBeNull();
  });
});

describe('conflictCode', () => {
  it('names each mix of stages as git status does', () => {
    expect(conflictCode(BASE | OURS | THEIRS)).toBe('UU');
    expect(conflictCode(OURS | THEIRS)).toBe('AA');
    expect(conflictCode(BASE | THEIRS)).toBe('DU');
    expect(conflictCode(BASE | OURS)).toBe('UD');
    expect(conflictCode(OURS)).toBe('AU');
    expect(conflictCode(THEIRS)).toBe('UA');
    expect(conflictCode(BASE)).toBe('DD');
  });
});
