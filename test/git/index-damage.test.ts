// A damaged .git/index: git refuses some outright (too short, wrong signature, unknown version)
// and reads a truncated one past its end (a fatal error or a garbled answer, by where the cut
// fell). Both engines refuse all of those with the same line and repair, leave the file as it
// was, and read an index whose bytes parse whole (a stale checksum alone stops git neither).
import fc from 'fast-check';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexDamage } from '../../src/git/index-damage.js';
import { createHistory, type EngineName } from '../../src/git/index.js';
import { commitAll, git, gitTry, makeRepo, settleIndex, write } from '../helpers/repo.js';

const ENGINES: EngineName[] = ['native', 'isomorphic'];
const PATHS = ['.checkpoints/api.checkpoint.json', 'src/orders.ts (PR 12).md', 'src/orders.ts'];

/** A repository with a few files, one edited and one untracked, its index as git left it. */
function project(): { dir: string; index: string; good: Buffer } {
  const dir = makeRepo();
  write(dir, '.checkpoints/api.checkpoint.json', '{"skill": "api", "next_actions": ["Merge PR #12 (orders API)"]}\n');
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  for (let i = 0; i < 6; i++) write(dir, `docs/notes-${i}.md`, `note ${i}\n`);
  commitAll(dir, 'orders', '2026-09-14T17:40:00Z');
  settleIndex(dir);
  write(dir, 'src/orders.ts', 'export const orders = 9;\n');
  write(dir, 'src/orders.ts (PR 12).md', 'draft\n');
  const index = join(dir, '.git/index');
  return { dir, index, good: readFileSync(index) };
}

/** Each engine's uncommittedPaths, as an answer or the refusal's message and hint. */
async function outcomes(dir: string): Promise<(string[] | { message: string; hint: string | undefined })[]> {
  const out = [];
  for (const engine of ENGINES) {
    const history = await createHistory({ dir, engine });
    out.push(
      await history.uncommittedPaths(PATHS).then(
        (paths) => [...paths].sort(),
        (e: { code?: string; message: string; hint?: string }) => {
          expect(e.code, e.message).toBe('E_GIT');
          return { message: e.message, hint: e.hint };
        },
      ),
    );
  }
  return out;
}

const gitRefuses = (dir: string) => gitTry(dir, ['--no-optional-locks', 'status', '--porcelain']).status !== 0;

describe('a .git/index git cannot read', () => {
  it.each([
    ['random bytes', Buffer.from('8f1c0a7e5b2d9e4431aa07c6e1f0b2d3c4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071829', 'hex'), /^index file corrupt \(bad signature 0x8f1c0a7e\)$/],
    ['an empty file', Buffer.alloc(0), /^index file smaller than expected \(0 bytes\)$/],
    ['a header without a checksum', Buffer.from('DIRC\0\0\0\x02\0\0\0\0', 'latin1'), /^index file smaller than expected \(12 bytes\)$/],
    ['an unknown version', Buffer.concat([Buffer.from('DIRC\0\0\0\x07\0\0\0\0', 'latin1'), Buffer.alloc(20)]), /^index file corrupt \(bad index version 7\)$/],
  ])('%s: git refuses it, and both engines refuse it alike with the repair; the file is untouched', async (_what, bytes, reason) => {
    const { dir, index } = project();
    writeFileSync(index, bytes);
    expect(gitRefuses(dir)).toBe(true);
    const [native, isomorphic] = await outcomes(dir);
    expect(isomorphic).toEqual(native);
    const { message, hint } = native as { message: string; hint: string };
    expect(message.startsWith(`git cannot read the index ${index}: `)).toBe(true);
    expect(message.slice(`git cannot read the index ${index}: `.length)).toMatch(reason);
    expect(hint).toBe(`rebuild it from HEAD: \`rm ${index} && git reset\` (the work tree is left as it is; stage again what was staged)`);
    expect(readFileSync(index).equals(bytes)).toBe(true);
    // The repair works: git rebuilds the index from HEAD, the edit and the untracked file stay.
    rmSync(index);
    git(dir, ['reset', '-q']);
    expect(await outcomes(dir)).toEqual([[...PATHS.slice(1)].sort(), [...PATHS.slice(1)].sort()]);
  });

  it('a checksum that no longer matches: git reads the index all the same, and so do both engines', async () => {
    const { dir, index, good } = project();
    const intact = await outcomes(dir);
    expect(intact[0]).toEqual(['src/orders.ts', 'src/orders.ts (PR 12).md']);
    expect(intact[1]).toEqual(intact[0]);
    const altered = Buffer.from(good);
    altered[altered.length - 1]! ^= 0xff;
    writeFileSync(index, altered);
    expect(gitRefuses(dir)).toBe(false);
    expect(indexDamage(join(dir, '.git'))).toBeNull();
    expect(await outcomes(dir)).toEqual(intact);
  });

  it('cut short anywhere: both engines give the same outcome, refuse whenever git refuses, and leave the file as it was (property)', async () => {
    const { dir, index, good } = project();
    // The entries end where the first extension (the cached tree) starts.
    const entriesEnd = good.indexOf('TREE', 12, 'latin1');
    expect(entriesEnd).toBeGreaterThan(12);
    await fc.assert(
      fc.asyncProperty(fc.nat(good.length - 1), async (length) => {
        const cut = good.subarray(0, length);
        writeFileSync(index, cut);
        const [native, isomorphic] = await outcomes(dir);
        expect(isomorphic, `cut at ${length}`).toEqual(native);
        const refused = !Array.isArray(native);
        if (gitRefuses(dir)) expect(refused, `cut at ${length}`).toBe(true);
        // Cut inside the entries, where git reads past the end: always refused. Cut just after
        // them, so the first extension's bytes stand in for the checksum: whole entries, read by all.
        if (length < entriesEnd + 20) expect(refused, `cut at ${length}`).toBe(true);
        if (length === entriesEnd + 20) expect([refused, gitRefuses(dir)], `cut at ${length}`).toEqual([false, false]);
        expect(readFileSync(index).equals(cut)).toBe(true);
      }),
      { numRuns: 25, examples: [[entriesEnd + 20], [entriesEnd + 19], [0], [31], [32]] },
    );
  }, 240_000);

  it('every index git writes is read: a sparse checkout, intent-to-add, versions 2 to 4, the untracked cache, a split index; a split index without its shared file is refused', async () => {
    const { dir } = project();
    const gitdir = join(dir, '.git');
    const readable = () => expect(indexDamage(gitdir), readFileSync(join(gitdir, 'index')).toString('latin1', 0, 8)).toBeNull();
    readable();
    // (git 2.39 crashes setting a sparse checkout over an intent-to-add entry: the sparse one first.)
    git(dir, ['sparse-checkout', 'set', 'src', '.checkpoints']);
    readable();
    git(dir, ['add', '-N', 'src/orders.ts (PR 12).md']);
    readable();
    git(dir, ['update-index', '--index-version', '4']);
    readable();
    git(dir, ['update-index', '--index-version', '2']);
    readable();
    git(dir, ['-c', 'core.untrackedCache=true', 'update-index', '--untracked-cache']);
    git(dir, ['-c', 'core.untrackedCache=true', 'status', '--porcelain']);
    readable();
    git(dir, ['update-index', '--split-index']);
    readable();
    const shared = readdirSync(gitdir).find((f) => f.startsWith('sharedindex.'))!;
    rmSync(join(gitdir, shared));
    expect(gitRefuses(dir)).toBe(true);
    expect(indexDamage(gitdir)).toBe(`its shared index ${shared} is missing`);
    const [native, isomorphic] = await outcomes(dir);
    expect(native).toMatchObject({ message: `git cannot read the index ${join(gitdir, 'index')}: its shared index ${shared} is missing` });
    expect(isomorphic).toEqual(native);
  });
});
