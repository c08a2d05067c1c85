// Rotation files are merged by the same driver: two branches that rotate on the same day
// both create history/<skill>.<date>.json, and the merge keeps every entry either moved.
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, cleanup, cli, commitAll, git, gitTry, makeRepo, read, write, initialized } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const run = (id: string, minute: number) => ({ id, at: `2026-11-30T10:${String(minute).padStart(2, '0')}:00Z`, result: 'pass' });

describe('rotation files through the merge driver', () => {
  it('two branches rotating on the same day merge cleanly with nothing lost', () => {
    assertBuilt();
    const dir = makeRepo();
    dirs.push(dir);
    initialized(dir);
    const base = {
      protocol_version: '1.1', skill: 'ops', project: 'p', project_dir: dir,
      created_at: '2026-11-30T09:00:00Z', updated_at: '2026-11-30T09:00:00Z',
      phase: 'run', step: 'one', status: 'in_progress', progress_summary: 'Running.',
      progress_table: [{ id: 'one', label: 'One', status: 'in_progress' }], context_primer: { key_decisions: [] },
      next_actions: ['keep going'],
      skill_state: { run_history: [1, 2, 3, 4, 5, 6].map((n) => run(`r${n}`, n)) },
    };
    write(dir, '.checkpoints/ops.checkpoint.json', `${JSON.stringify(base, null, 2)}\n`);
    commitAll(dir, 'base');

    const session = (branch: string, ids: [string, number][]) => {
      git(dir, ['checkout', '-q', '-b', branch, 'main']);
      for (const [id, minute] of ids) expect(cli(dir, ['update', 'ops', `--skill_state.run_history+:json=${JSON.stringify(run(id, minute))}`]).code).toBe(0);
      const r = cli(dir, ['rotate', 'ops', '--keep', '2']);
      expect(r.code, r.stderr).toBe(0);
      commitAll(dir, `${branch} rotated`);
    };
    session('a', [['a1', 20], ['a2', 21], ['a3', 22]]);
    session('b', [['b1', 30], ['b2', 31]]);
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-edit', 'a']);
    const merged = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(merged.status, merged.stdout + merged.stderr).toBe(0);

    const historyFiles = readdirSync(join(dir, '.checkpoints/history'));
    expect(historyFiles).toHaveLength(1);
    const history = JSON.parse(read(dir, `.checkpoints/history/${historyFiles[0]}`));
    const cp = JSON.parse(read(dir, '.checkpoints/ops.checkpoint.json'));
    const moved = (history.entries['skill_state.run_history'] as { id: string }[]).map((e) => e.id);
    const kept = (cp.skill_state.run_history as { id: string }[]).map((e) => e.id);
    // Every run either branch ever recorded is in exactly one place.
    const all = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'a1', 'a2', 'a3', 'b1', 'b2'];
    expect([...moved, ...kept].sort()).toEqual([...all].sort());
    expect(new Set(moved).size).toBe(moved.length);
    // Where each branch's batch stood (restore's exact order) is kept from both, not a conflict.
    expect(history.moved_from['skill_state.run_history']).toHaveLength(2);
    expect(cp.skill_state.rotated_to).toHaveLength(1);
    expect(cli(dir, ['validate']).code).toBe(0);
  });
});
