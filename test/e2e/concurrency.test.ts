// Concurrent writers through the built binary: the per-skill lock serializes read -> merge ->
// write so no update is lost, and different skills do not wait for each other.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, cli, GIT_ENV, makeRepo, write, type RunResult } from '../helpers/repo.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(() => {
  assertBuilt();
});

/** Starts the binary without waiting: all processes of a batch run at the same time. */
function cliAsync(cwd: string, args: string[]): Promise<RunResult & { ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: GIT_ENV });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - t0 }));
  });
}

function seed(dir: string, skill: string): void {
  write(
    dir,
    `.checkpoints/${skill}.checkpoint.json`,
    `${JSON.stringify(
      {
        protocol_version: '1.1',
        skill,
        project: 'p',
        project_dir: dir,
        created_at: '2026-01-01T00:00:00Z',
        updated_at: '2026-01-01T00:00:00Z',
        phase: 'build',
        step: 's1',
        status: 'in_progress',
        progress_summary: 'x',
        progress_table: [{ id: 's1', label: 'S1', status: 'in_progress' }],
        context_primer: {},
        next_actions: ['go'],
      },
      null,
      2,
    )}\n`,
  );
}

const leftovers = (dir: string) => readdirSync(join(dir, '.checkpoints')).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp') || f.endsWith('.stale'));

describe('concurrent writers', () => {
  it('20 simultaneous `update s --log+=N` keep all 20 values', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    seed(dir, 's');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => cliAsync(dir, ['update', 's', `--log+=${i + 1}`])));
    for (const r of results) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('✓ updated .checkpoints/s.checkpoint.json (1 change)\n');
    }
    const doc = JSON.parse(readFileSync(join(dir, '.checkpoints/s.checkpoint.json'), 'utf8')) as { log: string[]; next_actions: string[] };
    expect(doc.log).toHaveLength(20);
    expect(doc.log.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(doc.next_actions).toEqual(['go']);
    expect(leftovers(dir)).toEqual([]);
    expect(cli(dir, ['validate']).code).toBe(0);
  });

  it('a new checkpoint created by many writers at once is created once, with every value', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => cliAsync(dir, ['update', 'fresh', `--next_actions+=a${i}`])));
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    expect(results.filter((r) => r.stdout.startsWith('✓ created')).length).toBe(1);
    const doc = JSON.parse(readFileSync(join(dir, '.checkpoints/fresh.checkpoint.json'), 'utf8')) as { next_actions: string[] };
    expect([...doc.next_actions].sort()).toEqual(Array.from({ length: 8 }, (_, i) => `a${i}`));
    expect(leftovers(dir)).toEqual([]);
  });

  it('writers to two different skills do not block each other', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    seed(dir, 'a');
    seed(dir, 'b');
    // A live lock on "a" (owned by this test process) holds every writer of "a" back…
    const lockA = join(dir, '.checkpoints/.a.lock');
    writeFileSync(lockA, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'test', at: Date.now() }));
    const aWriter = cliAsync(dir, ['update', 'a', '--log+=held']);
    // …while "b" goes through, several times over.
    const bWriters = await Promise.all(Array.from({ length: 5 }, (_, i) => cliAsync(dir, ['update', 'b', `--log+=${i}`])));
    for (const r of bWriters) expect(r.code, r.stderr).toBe(0);
    const b = JSON.parse(readFileSync(join(dir, '.checkpoints/b.checkpoint.json'), 'utf8')) as { log: string[] };
    expect([...b.log].sort()).toEqual(['0', '1', '2', '3', '4']);
    // "a" has not been written while its lock is held…
    expect(readFileSync(join(dir, '.checkpoints/a.checkpoint.json'), 'utf8')).not.toContain('held');
    // …and finishes once it is released.
    unlinkSync(lockA);
    const a = await aWriter;
    expect(a.code, a.stderr).toBe(0);
    expect(readFileSync(join(dir, '.checkpoints/a.checkpoint.json'), 'utf8')).toContain('"held"');
    expect(leftovers(dir)).toEqual([]);
  });

  it('mixed writers on two skills at once all land, leaving no lock or temp files', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    seed(dir, 'a');
    seed(dir, 'b');
    const jobs = Array.from({ length: 12 }, (_, i) => cliAsync(dir, ['update', i % 2 ? 'a' : 'b', `--log+=${i}`]));
    const results = await Promise.all(jobs);
    expect(results.map((r) => r.code)).toEqual(Array(12).fill(0));
    const log = (s: string) => (JSON.parse(readFileSync(join(dir, `.checkpoints/${s}.checkpoint.json`), 'utf8')) as { log: string[] }).log.map(Number).sort((x, y) => x - y);
    expect(log('a')).toEqual([1, 3, 5, 7, 9, 11]);
    expect(log('b')).toEqual([0, 2, 4, 6, 8, 10]);
    expect(readdirSync(join(dir, '.checkpoints')).sort()).toEqual(['a.checkpoint.json', 'b.checkpoint.json']);
  });
});
