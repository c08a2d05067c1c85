// A loose branch ref git cannot parse (empty after a crash, a truncated id, stray text) over a
// packed one: git refuses HEAD ("your current branch appears to be broken") and never reads the
// packed value through it. Both engines must answer as git does: the same commit when git reads
// one, a refusal naming the broken file when git refuses, and the file left as it was.
import fc from 'fast-check';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHistory, type EngineName } from '../../src/git/index.js';
import { commitAll, git, gitTry, makeRepo, write } from '../helpers/repo.js';

const ENGINES: EngineName[] = ['native', 'isomorphic'];

/** A packed repository on main, two commits deep, whose checkpoint names a PR. */
function packedRepo(): { dir: string; tip: string } {
  const dir = makeRepo();
  write(dir, '.checkpoints/api.checkpoint.json', '{"skill": "api", "next_actions": ["Merge PR #12 (orders API)"]}\n');
  commitAll(dir, 'checkpoint: api', '2026-09-14T17:40:00Z');
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  const tip = commitAll(dir, 'Orders API (#12)', '2026-09-15T09:00:00Z');
  git(dir, ['pack-refs', '--all']);
  return { dir, tip };
}

/** What git makes of HEAD: a commit, no commit yet, or broken (it refuses to resolve the branch). */
function gitsHead(dir: string): { sha: string } | 'unborn' | 'broken' {
  const sha = gitTry(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (sha.status === 0) return { sha: sha.stdout.trim() };
  return gitTry(dir, ['symbolic-ref', '--quiet', 'HEAD']).status === 0 ? 'unborn' : 'broken';
}

/** The same question put to one engine: its head(), and a walk from HEAD, which must agree. */
async function enginesHead(dir: string, engine: EngineName): Promise<{ sha: string } | 'unborn' | 'broken'> {
  const history = await createHistory({ dir, engine });
  const [head, walk] = await Promise.allSettled([history.head(), history.commitsSince(0, { changes: 'none' })]);
  if (head.status === 'rejected') {
    expect(String(head.reason)).toMatch(/current branch main is broken: \S+\/\.git\/refs\/heads\/main (is empty|holds no commit id)/);
    expect(walk.status).toBe('rejected');
    return 'broken';
  }
  if (head.value === null) {
    expect(walk).toEqual({ status: 'fulfilled', value: [] });
    return 'unborn';
  }
  expect(walk.status === 'fulfilled' && walk.value[0]?.sha).toBe(head.value.sha);
  return { sha: head.value.sha };
}

describe('a loose branch ref git cannot parse, over a packed one', () => {
  it.each([
    ['empty', ''],
    ['a lone newline', '\n'],
    ['stray text', 'garbage\n'],
  ])('%s: git refuses HEAD, and so does each engine, naming the file and the packed commit; the file is untouched', async (_what, content) => {
    const { dir, tip } = packedRepo();
    const loose = join(dir, '.git/refs/heads/main');
    writeFileSync(loose, content);
    expect(gitsHead(dir)).toBe('broken');
    expect(gitTry(dir, ['log', '-1']).stderr).toMatch(/your current branch appears to be broken/);
    for (const engine of ENGINES) {
      const history = await createHistory({ dir, engine });
      const error = await history.head().then(() => null, (e: unknown) => e as { code?: string; hint?: string; message: string });
      expect(error, engine).not.toBeNull();
      expect(error!.code).toBe('E_GIT');
      expect(error!.message).toBe(`the current branch main is broken: ${loose} ${content.trim() ? 'holds no commit id' : 'is empty'}, so git cannot read HEAD ("your current branch appears to be broken")`);
      expect(error!.hint).toContain(`\`rm ${loose}\` (packed-refs still has it at ${tip.slice(0, 12)})`);
      await expect(history.commitsSince(0), engine).rejects.toThrow(/current branch main is broken/);
      await expect(history.isInHeadHistory(tip), engine).rejects.toThrow(/current branch main is broken/);
    }
    expect(readFileSync(loose, 'utf8')).toBe(content);
  });

  it('removing the broken file, as the hint says, brings the packed commit back for git and both engines', async () => {
    const { dir, tip } = packedRepo();
    const loose = join(dir, '.git/refs/heads/main');
    writeFileSync(loose, '');
    for (const engine of ENGINES) expect(await enginesHead(dir, engine), engine).toBe('broken');
    rmSync(loose);
    expect(gitsHead(dir)).toEqual({ sha: tip });
    for (const engine of ENGINES) expect(await enginesHead(dir, engine), engine).toEqual({ sha: tip });
  });

  it('whatever the loose file holds, each engine answers what git answers (property)', async () => {
    const { dir } = packedRepo();
    const sha = git(dir, ['rev-parse', 'HEAD~1']).trim();
    const loose = join(dir, '.git/refs/heads/main');
    const start = fc.oneof(
      fc.constant(sha),
      fc.constant(sha.toUpperCase()),
      fc.integer({ min: 0, max: 39 }).map((n) => sha.slice(0, n)),
      fc.constantFrom('', 'junk', 'refs/heads/main', `${sha}${sha.slice(0, 24)}`),
    );
    const end = fc.constantFrom('', '\n', ' ', '\t', '\r\n', '\f', '\v', ' junk\n', 'x', '\n\n', `\n${sha}\n`);
    await fc.assert(
      fc.asyncProperty(start, end, async (a, b) => {
        writeFileSync(loose, a + b);
        const expected = gitsHead(dir);
        for (const engine of ENGINES) expect(await enginesHead(dir, engine), `${engine}: ${JSON.stringify(a + b)}`).toEqual(expected);
        expect(readFileSync(loose, 'utf8')).toBe(a + b);
      }),
      { numRuns: 30 },
    );
  }, 240_000);
});
