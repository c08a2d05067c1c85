// When the native engine stops reading git's listing of the checkpoint files' revisions: as soon
// as every file's current life has ended in what arrived, wherever the pipe cut the stream. The
// answer read from what was kept must be the whole listing's, byte for byte the same revisions.
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentLives } from '../../src/git/file-lives.js';
import { runGit } from '../../src/git/git-process.js';
import { lifeEnds, parseRevisions, revisionListing } from '../../src/git/revision-listing.js';
import { cleanup, commitAll, git, makeRepo, write } from '../helpers/repo.js';

const A = '.checkpoints/a.checkpoint.json';
const B = '.checkpoints/b.checkpoint.json';
const C = 'docs/c.md';
const UNTRACKED = '.checkpoints/new.checkpoint.json';

let dir: string;
let listing: Buffer;

beforeAll(() => {
  dir = makeRepo();
  // Older history first (no file asked about), then lives: A created, changed, deleted and
  // created again (with C); B created on a branch, so in the merge's first-parent diff.
  for (let i = 0; i < 30; i++) {
    write(dir, 'src/x.ts', `x ${i}\n`);
    commitAll(dir, `work ${i}`);
  }
  write(dir, A, 'a0\n');
  commitAll(dir, 'add a');
  write(dir, A, 'a1\n');
  commitAll(dir, 'change a');
  git(dir, ['rm', '-q', A]);
  commitAll(dir, 'remove a');
  write(dir, A, 'a2\n');
  write(dir, C, 'c0\n');
  commitAll(dir, 'a again, and c');
  git(dir, ['checkout', '-q', '-b', 'side']);
  write(dir, B, 'b0\n');
  commitAll(dir, 'add b on a branch');
  git(dir, ['checkout', '-q', '-']);
  write(dir, 'src/y.ts', 'y\n');
  commitAll(dir, 'main moves');
  git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge branch side', 'side']);
  write(dir, A, 'a3\n');
  write(dir, B, 'b1\n');
  write(dir, C, 'c1\n');
  commitAll(dir, 'change a, b and c');
  listing = execFileSync('git', revisionListing('HEAD', [A, B, C, UNTRACKED]), { cwd: dir });
});
afterAll(() => cleanup(dir));

const answer = (bytes: Buffer, wanted: ReadonlySet<string>) => currentLives(parseRevisions(bytes.toString('utf8')).filter((r) => wanted.has(r.path)));

/** Where each record starts: git writes one record at a time (GIT_FLUSH), so the pipe cuts there at least. */
const records = (bytes: Buffer) => [...bytes.keys()].filter((i) => bytes[i] === 0x1e);

/** Feeds `bytes` cut at `cuts` (offsets) and returns how many bytes lifeEnds kept, or -1. */
function feed(bytes: Buffer, cuts: number[], wanted: ReadonlySet<string>): number {
  const enough = lifeEnds(wanted);
  const ends = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((x, y) => x - y);
  let from = 0;
  for (const to of [...ends, bytes.length]) {
    const kept = enough(bytes.subarray(from, to));
    if (kept >= 0) return kept;
    from = to;
  }
  return -1;
}

describe('lifeEnds: reading git\'s revision listing only as far as the current lives go', () => {
  it('stops inside the listing once A, B and C have ended, and what it kept gives the whole answer', () => {
    const wanted = new Set([A, B, C]);
    const kept = feed(listing, records(listing), wanted);
    expect(kept).toBeGreaterThan(0);
    // A's earlier life (created, changed, deleted) is still to come: not read.
    expect(kept).toBeLessThan(listing.length);
    expect(answer(listing.subarray(0, kept), wanted)).toEqual(answer(listing, wanted));
    expect(answer(listing, wanted).map((r) => `${r.path} ${r.blob === null ? 'gone' : 'blob'}`)).toEqual([
      `${A} blob`, `${B} blob`, `${C} blob`, `${B} blob`, `${A} blob`, `${C} blob`,
    ]);
  });

  it('wherever the pipe cuts the stream, it stops with the whole answer or reads to the end', () => {
    const wanted = new Set([A, B, C]);
    const whole = answer(listing, wanted);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: listing.length - 1 }), { maxLength: 12 }), fc.boolean(), (cuts, byRecord) => {
        const kept = feed(listing, byRecord ? [...cuts, ...records(listing)] : cuts, wanted);
        const read = kept < 0 ? listing : listing.subarray(0, kept);
        expect(answer(read, wanted)).toEqual(whole);
      }),
      { numRuns: 300 },
    );
    // Cut after every single byte: the hardest pipe.
    const everyByte = Array.from({ length: listing.length - 1 }, (_, i) => i + 1);
    const kept = feed(listing, everyByte, wanted);
    expect(kept).toBeGreaterThan(0);
    expect(answer(listing.subarray(0, kept), wanted)).toEqual(whole);
  });

  it('a file the listing never names (not committed yet) keeps it reading to the end', () => {
    const wanted = new Set([A, B, C, UNTRACKED]);
    expect(feed(listing, records(listing), wanted)).toBe(-1);
    expect(feed(listing, [7, 90, 300], wanted)).toBe(-1);
  });

  it('a file whose newest revision deletes it has no current life: ended at once', () => {
    git(dir, ['rm', '-q', C]);
    commitAll(dir, 'remove c');
    const after = execFileSync('git', revisionListing('HEAD', [C]), { cwd: dir });
    const kept = feed(after, records(after), new Set([C]));
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(after.length);
    expect(answer(after.subarray(0, kept), new Set([C]))).toEqual([]);
    expect(answer(after, new Set([C]))).toEqual([]);
  });
});

describe('runGit with `enough`: a listing read only as far as it answers', () => {
  it('keeps the bytes `enough` answers with, and stops git there', async () => {
    const all = git(dir, ['log', '--format=%H']);
    const result = await runGit(dir, ['log', '--format=%H'], { enough: () => 41 });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(all.slice(0, 41));
  });

  it('an `enough` that cannot read the output lets git finish: the whole listing, as without it', async () => {
    const all = git(dir, ['log', '--format=%H']);
    const result = await runGit(dir, ['log', '--format=%H'], {
      enough: () => {
        throw new Error('unreadable');
      },
    });
    expect(result).toMatchObject({ code: 0, stdout: all });
  });
});
