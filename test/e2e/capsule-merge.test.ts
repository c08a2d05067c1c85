// Two sessions on two branches each run their first `checkpoint pause --auto` (a PreCompact hook)
// on a checkpoint that has no capsule yet, commit, and the branches are merged through the
// driver `checkpoint init` installs: it merges by itself, both ways round to the same bytes, with
// the earlier session's origin and the later session's mechanical state. Built binary, real git.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/protocol/json.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { assertBuilt, cleanup, cli, commitAll, git, gitTry, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// Kept by hand for months: a path note, a glob, an old date, a status written by a person.
const CHECKPOINT = {
  protocol_version: '1.1',
  skill: 'api',
  project: 'shop',
  project_dir: '/home/dev/shop',
  created_at: '2025-11-02T09:00:00Z',
  updated_at: '2026-01-15T17:45:00Z',
  phase: 'build',
  step: 'orders endpoint',
  status: 'in_progress',
  progress_summary: 'Orders half done; see src/orders.ts (PR 12)',
  next_actions: ['Run evaluator on src/**/*.ts (skip vendor/)', { text: 'Ship PR #12', done_when: 'merged, score 8.0+' }],
  recently_done: [],
  eval_scores: [{ rubric: 'auditor', score: 8, max: 10, at: '2026-01-05T10:00:00Z' }],
  skill_state: { branch: 'main' },
};

const run = (dir: string, args: string[]): void => {
  const r = cli(dir, args);
  expect(r.code, r.stderr).toBe(0);
};

const capsuleOf = (text: string): any => (parseJson(text).value as any).capsule;

describe("two branches' first `pause --auto`", () => {
  it('merge through the driver without a conflict, the same both ways round', () => {
    const dir = makeRepo();
    dirs.push(dir);
    run(dir, ['init']);
    write(dir, FILE, `${JSON.stringify(CHECKPOINT, null, 2)}\n`);
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'a']);
    run(dir, ['pause', 'api', '--auto']);
    commitAll(dir, 'a: pause');
    git(dir, ['checkout', '-q', '-b', 'b', 'HEAD~1']);
    write(dir, 'src/orders.ts', 'export {};\n'); // uncommitted on b when it pauses
    run(dir, ['pause', 'api', '--auto']);
    commitAll(dir, 'b: pause');
    const [a, b] = [git(dir, ['show', `a:${FILE}`]), git(dir, ['show', `b:${FILE}`])];
    expect(capsuleOf(a).origin).not.toEqual(capsuleOf(b).origin);

    const results: string[] = [];
    for (const [here, other] of [['a', 'b'], ['b', 'a']] as const) {
      git(dir, ['checkout', '-q', '-B', `m-${here}`, here]);
      const merge = gitTry(dir, ['merge', '--no-edit', other]);
      expect(merge.status, merge.stdout + merge.stderr).toBe(0);
      expect(git(dir, ['status', '--porcelain'])).toBe('');
      results.push(read(dir, FILE));
    }
    expect(results[1]).toBe(results[0]);
    const merged = results[0]!;
    // a paused first: its origin, whole; b's later state as the mechanical snapshot (its HEAD and time).
    expect(capsuleOf(merged)).toEqual({ ...capsuleOf(a), mechanical: capsuleOf(b).mechanical });
    expect(capsuleOf(merged).mechanical.uncommitted).toEqual(['src/']); // git's untracked folder
    expect(validateCheckpoint(parseJson(merged).value, { fileName: 'api.checkpoint.json' }).errors).toEqual([]);
    // Nothing else of the checkpoint changed.
    const { capsule: _, ...rest } = parseJson(merged).value as any;
    expect(rest).toEqual(CHECKPOINT);
  });
});
