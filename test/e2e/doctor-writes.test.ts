// doctor runs in a pre-push hook: a look at the repository, not a change to it. Through the built
// binary (which keeps its caches, an unbundled run keeps none) on both engines: a run that
// completes writes only its caches under .git/checkpoint/ and nothing in the work tree; a run
// that ends in a refusal (exit 2) leaves .git exactly as it was, caches included.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkpointDoc } from '../helpers/fixtures.js';
import { assertBuilt, cliGuarded, commitAll, errorLine, git, makeRepo, write } from '../helpers/repo.js';
import { dirState } from '../helpers/dir-state.js';

beforeAll(() => assertBuilt());

const ENGINES = ['native', 'isomorphic'] as const;

/**
 * A months-old checkpoint listing generated files (one literal, so the work tree is asked about),
 * committed; then src/orders.ts staged and edited again, the checkpoint staged and put back:
 * git status cannot tell either from HEAD by itself.
 */
function project(): string {
  const dir = makeRepo();
  const doc = checkpointDoc({
    skill: 'api',
    created_at: '2026-08-03T09:12:00Z',
    updated_at: '2026-09-14T17:40:00Z',
    status: 'in_progress',
    progress_summary: 'Orders endpoint half done; see src/orders.ts (PR 12).',
    progress_table: [{ id: 'orders', label: 'Orders API', status: 'in_progress', pct: 50.0 }],
    context_primer: { key_decisions: ['cursor pagination'], generated_files: ['src/orders.ts (PR 12)', 'src/**/*.gen.ts', 'TBD'] },
    next_actions: ['Merge PR #12 (orders API)'],
  });
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  write(dir, '.checkpoints/api.checkpoint.json', text);
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  write(dir, 'src/api/orders.gen.ts', 'export type Order = { total: number };\n');
  commitAll(dir, 'checkpoint: api', '2026-09-14T17:41:00Z');
  write(dir, 'src/orders.ts', 'export const orders = 9.0;\n');
  git(dir, ['add', 'src/orders.ts']);
  write(dir, 'src/orders.ts', 'export const orders = 10.0;\n');
  write(dir, '.checkpoints/api.checkpoint.json', text.replace('half done', 'two thirds done'));
  git(dir, ['add', '.checkpoints']);
  write(dir, '.checkpoints/api.checkpoint.json', text);
  return dir;
}

const REFUSALS: [string, (dir: string) => void, RegExp][] = [
  ['a .git/index of random bytes', (dir) => writeFileSync(join(dir, '.git/index'), Buffer.from('c018bc7a5e0f3d21a9b47c6e88d1f2a03b5c7d9e1f20314253647586978a9bac', 'hex')), /^git cannot read the index .*: index file corrupt \(bad signature/],
  ['a .git/index cut short', (dir) => writeFileSync(join(dir, '.git/index'), readFileSync(join(dir, '.git/index')).subarray(0, 100)), /^git cannot read the index .*: index file corrupt \(its \d+ entries and extensions do not fit/],
  ['a FIFO at .git/index', (dir) => {
    rmSync(join(dir, '.git/index'));
    spawnSync('mkfifo', [join(dir, '.git/index')]);
  }, /^git cannot read the index .*: it is a FIFO, not a file/],
  ['an empty loose ref for the current branch over a packed one', (dir) => {
    git(dir, ['pack-refs', '--all']);
    writeFileSync(join(dir, '.git/refs/heads/main'), '');
  }, /^the current branch main is broken: .*refs\/heads\/main is empty/],
];

describe.each(ENGINES)('doctor on the %s engine', (engine) => {
  it.each(REFUSALS)('refused for %s: exit 2, one line, .git exactly as it was (no verdicts.json, no walk kept)', (_what, breakIt, message) => {
    const dir = project();
    breakIt(dir);
    const before = dirState(join(dir, '.git'));
    const r = cliGuarded(dir, ['doctor', '--engine', engine]);
    expect(r.signal).toBeNull();
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(errorLine(r.stderr).lines).toBe(1);
    expect(errorLine(r.stderr).message).toMatch(message);
    expect(existsSync(join(dir, '.git/checkpoint'))).toBe(false);
    expect(dirState(join(dir, '.git'))).toEqual(before);
  });

  it('a run that completes (exit 0, or 1 under --fail-on-warnings) keeps its caches under .git/checkpoint/ and writes nothing else', () => {
    const dir = project();
    const git0 = dirState(join(dir, '.git'), ['checkpoint']);
    const work0 = dirState(dir, ['.git']);
    const r = cliGuarded(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const findings = JSON.parse(r.stdout).findings as { check: string; level: string; message: string }[];
    // The staged-and-edited file is uncommitted; the checkpoint, back to HEAD's bytes, is not (so a warning, not mid-session info).
    expect(findings.filter((f) => f.check === 'generated_files' && f.level !== 'info').map((f) => `${f.level} ${f.message}`)).toEqual([
      'warning src/orders.ts has uncommitted edits made after the checkpoint; re-read it',
    ]);
    expect(existsSync(join(dir, '.git/checkpoint/verdicts.json'))).toBe(true);
    rmSync(join(dir, '.git/checkpoint'), { recursive: true });
    const failed = cliGuarded(dir, ['doctor', '--fail-on-warnings', '--engine', engine]);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    expect(existsSync(join(dir, '.git/checkpoint/verdicts.json'))).toBe(true);
    expect(dirState(join(dir, '.git'), ['checkpoint'])).toEqual(git0);
    expect(dirState(dir, ['.git'])).toEqual(work0);
  });
});
