// Two branches archive the same log (rotate, or done past ten recently_done entries) on different
// days, then merge: the checkpoint names both rotation files, which hold some records twice.
// Restoring both gives every record back once, in time order (red team 12-06 #1, #3, #4). Real
// git, the installed merge driver, the built binary; "yesterday" is the CLI's clock moved back a day.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cli, commitAll, git, GIT_ENV, initialized, makeRepo, read, tempDir, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const run = (n: number) => ({ at: `2026-11-0${n}T10:00:00Z`, run: n });

/** A checkpoint as a hand and a Python agent leave it: 4-space indent, 8.0, a run history oldest first. */
function checkpoint(over: Record<string, unknown>): string {
  const doc = {
    protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '.', created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-20T10:00:00Z',
    phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Auth \u2014 half done', next_actions: ['Write middleware'],
    skill_state: { score: 0, run_history: [1, 2, 3, 4, 5, 6, 7].map(run) },
    ...over,
  };
  return `${JSON.stringify(doc, null, 4).replace('"score": 0', '"score": 8.0')}\n`;
}

/** The built CLI with its clock `days` back (the rotation file is named by the day it ran). */
function cliDaysAgo(dir: string, days: number, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const shift = join(tempDir('cp-clock-'), 'shift.cjs');
  writeFileSync(shift, `const off = ${-days * 86_400_000}; const R = Date; globalThis.Date = class extends R { constructor(...a) { if (a.length) super(...a); else super(R.now() + off); } static now() { return R.now() + off; } };\n`);
  const r = spawnSync(process.execPath, ['-r', shift, BIN, ...args], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function repoWith(text: string): string {
  const dir = makeRepo();
  initialized(dir);
  write(dir, FILE, text);
  commitAll(dir, 'base');
  return dir;
}

const runs = (dir: string) => (JSON.parse(read(dir, FILE)).skill_state.run_history as { run: number }[]).map((e) => e.run);
const historyFiles = (dir: string) => readdirSync(join(dir, '.checkpoints/history')).filter((f) => f.endsWith('.json')).sort();

describe('restore after two branches archived the same log', () => {
  it('rotate yesterday on one branch, today on the other, merged: restoring both files gives each run back once', () => {
    const dir = repoWith(checkpoint({}));
    git(dir, ['checkout', '-q', '-b', 'a']);
    expect(cliDaysAgo(dir, 1, ['rotate', 'api', '--keep', '5']).code).toBe(0); // runs 1-2
    commitAll(dir, 'a: rotate');
    git(dir, ['checkout', '-q', 'main']);
    expect(cli(dir, ['rotate', 'api', '--keep', '2']).code).toBe(0); // runs 1-5
    commitAll(dir, 'main: rotate');
    git(dir, ['merge', '-q', 'a', '-m', 'merge a']);
    expect(JSON.parse(read(dir, FILE)).skill_state.rotated_to).toHaveLength(2);
    // Newest first, as the docs say; then the other order on a fresh copy of the merge.
    for (const f of [...historyFiles(dir)].reverse()) expect(cli(dir, ['restore', f]).code).toBe(0);
    expect(runs(dir)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(read(dir, FILE)).toContain('"score": 8.0');
    expect(JSON.parse(read(dir, FILE)).skill_state.rotated_to).toBeUndefined();
  });

  it('the older file restored first: the same, and the second restore says which it left out', () => {
    const dir = repoWith(checkpoint({}));
    git(dir, ['checkout', '-q', '-b', 'a']);
    cliDaysAgo(dir, 1, ['rotate', 'api', '--keep', '5']);
    commitAll(dir, 'a: rotate');
    git(dir, ['checkout', '-q', 'main']);
    cli(dir, ['rotate', 'api', '--keep', '2']);
    commitAll(dir, 'main: rotate');
    git(dir, ['merge', '-q', 'a', '-m', 'merge a']);
    const [older, newer] = historyFiles(dir);
    expect(cli(dir, ['restore', older!]).stdout).toMatch(/put 2 rotated entries back/);
    const second = cli(dir, ['restore', newer!]);
    expect(second.stdout).toMatch(/put 3 rotated entries back .*; 2 were already in it/);
    expect(runs(dir)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('records without a time may repeat: every copy a named file holds comes back', () => {
    const dir = repoWith(checkpoint({ skill_state: { run_history: [{ ok: 1 }, { ok: 1 }, { ok: 2 }, { ok: 1 }] } }));
    expect(cli(dir, ['rotate', 'api', '--keep', '1']).code).toBe(0);
    expect(cli(dir, ['restore', historyFiles(dir)[0]!]).code).toBe(0);
    expect(JSON.parse(read(dir, FILE)).skill_state.run_history).toEqual([{ ok: 1 }, { ok: 1 }, { ok: 2 }, { ok: 1 }]);
  });

  it('one branch restored the older runs in front, the other logged a new one behind: merged in time order', () => {
    const dir = repoWith(checkpoint({}));
    cli(dir, ['rotate', 'api', '--keep', '4']); // runs 1-3 out
    commitAll(dir, 'rotate');
    git(dir, ['checkout', '-q', '-b', 'a']);
    expect(cli(dir, ['restore', historyFiles(dir)[0]!]).code).toBe(0);
    commitAll(dir, 'a: restore');
    git(dir, ['checkout', '-q', 'main']);
    expect(cli(dir, ['update', 'api', `--skill_state.run_history+:json=${JSON.stringify(run(8))}`]).code).toBe(0);
    commitAll(dir, 'main: run 8');
    git(dir, ['merge', '-q', 'a', '-m', 'merge a']);
    expect(runs(dir)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('restore of what done archived', () => {
  it('a hand-kept entry dated by its day only comes back, with a note of the error it already had', () => {
    const log = Array.from({ length: 10 }, (_, i) => ({ at: `2026-11-${String(20 - i).padStart(2, '0')}T10:00:00Z`, action: `task ${11 - i}` }));
    const dir = repoWith(checkpoint({ next_actions: ['Write middleware', 'Ship'], recently_done: [...log, { at: '2026-11-01', action: 'task 1 (dated by its day)' }] }));
    const done = cli(dir, ['done', 'api']);
    expect(done.code, done.stderr).toBe(0);
    const [file] = historyFiles(dir);
    const before = read(dir, FILE);
    const r = cli(dir, ['restore', file!]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^checkpoint: note: .* written with an error it already had: recently_done\[\d+\]\.at: /);
    expect(read(dir, FILE)).not.toBe(before);
    expect(JSON.parse(read(dir, FILE)).recently_done.map((e: { action: string }) => e.action)).toContain('task 1 (dated by its day)');
    // A date-only at the write itself brings in is still refused.
    const bad = cli(dir, ['update', 'api', '--recently_done+:json={"at":"2026-12-01","action":"x"}']);
    expect(bad.code).toBe(2);
  });
});
