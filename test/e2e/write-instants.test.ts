// A write stamps the instant it writes (the clock read under the skill's lock, after any
// --verify check ran), not the instant its process started: concurrent `done`s keep the newest
// ten in recently_done and append to history in the order the actions were popped, and
// `done --verify` dates the completion after its check. Real processes, real git.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, unlinkSync, watch, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { assertBuilt, BIN, cleanup, GIT_ENV, makeRepo, write, type RunResult } from '../helpers/repo.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(() => {
  assertBuilt();
});

const FILE = '.checkpoints/api.checkpoint.json';
const LOCK = '.checkpoints/.api.lock';
/** Whole seconds, `Z`, as a person or an agent writes a time. */
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const DAY = 86_400_000;
const action = (i: number) => `Port route ${i} to the new router (src/routes/r${i}.ts, PR 12)`;

interface Entry {
  at: string;
  action: string;
  done_when?: string;
}

function checkpoint(over: Record<string, unknown> = {}): string {
  const t = Date.now();
  return `${JSON.stringify(
    {
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/someone/demo',
      created_at: iso(t - 5 * DAY), updated_at: iso(t - 2 * DAY),
      phase: 'build', step: 'routes', status: 'in_progress', progress_summary: 'Router ported halfway; eval scored 8.0.',
      progress_table: [{ id: 'routes', label: 'Routes', status: 'in_progress' }],
      context_primer: { key_decisions: ['one router for all routes'], generated_files: ['src/routes/*.ts (PR 12)'] },
      skill_state: { eval: { score: 8 } },
      ...over,
    },
    null,
    2,
  ).replace('"score": 8', '"score": 8.0')}\n`;
}

/** Starts the built binary without waiting for it. */
function start(cwd: string, args: string[]): { pid: number; done: Promise<RunResult> } {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: GIT_ENV });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  return { pid: child.pid!, done };
}

describe('a write stamps the time it writes', () => {
  it('12 concurrent `done`s: recently_done and its history file follow the order the actions were popped, each stamped after the lock was free', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const t = Date.now();
    // Three entries from an earlier session, newest first, as the protocol keeps them.
    const earlier: Entry[] = [3, 4, 5].map((d, k) => ({ at: iso(t - d * DAY), action: `Earlier step ${k} (docs/notes.md)` }));
    write(dir, FILE, checkpoint({ next_actions: Array.from({ length: 25 }, (_, i) => (i % 5 === 4 ? { text: action(i), done_when: 'npm test' } : action(i))), recently_done: earlier }));

    // The test holds the skill's lock (a live owner: this process) while the writers start, so
    // every one of them is waiting for it when it is let go. A waiter's attempt shows as a
    // temporary file named with its pid (store/lock.ts acquire), which inotify never misses.
    const lock = join(dir, LOCK);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'test', at: Date.now() }));
    const tried = new Set<string>();
    const watcher = watch(join(dir, '.checkpoints'), (_event, name) => {
      const m = /^\.api\.lock\.(\d+)\.[a-z0-9]+\.tmp$/.exec(String(name));
      if (m) tried.add(m[1]!);
    });
    const runs = Array.from({ length: 12 }, () => start(dir, ['done', 'api']));
    const pids = runs.map((r) => String(r.pid));
    // Let go once all have tried (or, at the latest, well inside their 15 s lock timeout after
    // the first did). What follows holds whatever the moment: it only decides how many queue up.
    const begun = Date.now();
    let first: number | undefined;
    while (!pids.every((p) => tried.has(p)) && Date.now() - begun < 60_000) {
      if (first === undefined && tried.size) first = Date.now();
      if (first !== undefined && Date.now() - first > 6_000) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    watcher.close();
    expect(tried.size, 'no writer reached the lock').toBeGreaterThan(0);
    const released = Date.now();
    unlinkSync(lock);
    const results = await Promise.all(runs.map((r) => r.done));

    // Nothing lost: each action popped once, by one process each.
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const popped = results.map((r) => /^✓ done: (.*)$/m.exec(r.stdout)?.[1]).sort();
    expect(popped).toEqual(Array.from({ length: 12 }, (_, i) => action(i)).sort());
    const doc = JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as { updated_at: string; next_actions: unknown[]; recently_done: Entry[]; skill_state: { rotated_to: string[] } };
    expect(doc.next_actions).toHaveLength(13);

    // The lock hands the queue out in order (act 0 first): the newest ten kept are acts 11..2,
    // newest first, and their times rise with the pops.
    expect(doc.recently_done.map((e) => e.action)).toEqual(Array.from({ length: 10 }, (_, k) => action(11 - k)));
    const times = doc.recently_done.map((e) => Date.parse(e.at));
    for (let k = 1; k < times.length; k++) expect(times[k - 1], `${doc.recently_done[k - 1]!.action} is after ${doc.recently_done[k]!.action}`).toBeGreaterThanOrEqual(times[k]!);
    // Every one stamped by the write, which could only happen once the lock was let go.
    for (const e of doc.recently_done) expect(Date.parse(e.at), `${e.action} at ${e.at}, lock let go at ${new Date(released).toISOString()}`).toBeGreaterThanOrEqual(released);
    expect(doc.updated_at).toBe(doc.recently_done[0]!.at);
    expect(doc.recently_done.filter((e) => e.done_when === 'npm test').map((e) => e.action)).toEqual([action(9), action(4)]);

    // What fell off the end went to history, appended in the order it fell: the earlier
    // session's oldest first, then acts 0 and 1, each older than everything kept.
    const history = readdirSync(join(dir, '.checkpoints/history')).filter((f) => f.startsWith('api.')).sort();
    expect(doc.skill_state.rotated_to).toEqual(history.map((f) => `.checkpoints/history/${f}`));
    const files = history.map((f) => JSON.parse(readFileSync(join(dir, '.checkpoints/history', f), 'utf8')) as { rotated_at: string; entries: { recently_done: Entry[] } });
    const moved = files.flatMap((f) => f.entries.recently_done);
    expect(moved).toEqual([...earlier].reverse().concat(moved.slice(3)));
    expect(moved.slice(3).map((e) => e.action)).toEqual([action(0), action(1)]);
    for (const e of moved.slice(3)) expect(Date.parse(e.at)).toBeGreaterThanOrEqual(released);
    const movedTimes = moved.map((e) => Date.parse(e.at));
    for (let k = 1; k < movedTimes.length; k++) expect(movedTimes[k]!).toBeGreaterThanOrEqual(movedTimes[k - 1]!);
    expect(movedTimes.at(-1)!).toBeLessThanOrEqual(times.at(-1)!);
    // The last write that moved an entry (act 11's) dated the file.
    expect(files.at(-1)!.rotated_at).toBe(doc.updated_at);
    expect(existsSync(lock)).toBe(false);
  });

  it('`done --verify` stamps recently_done[0].at and updated_at after its check ran', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, FILE, checkpoint({ next_actions: [{ text: 'Wait for the staging deploy (deploy/staging.yml)', done_when: 'sleep 2' }, action(1)] }));
    const before = Date.now();
    const r = await runCli(dir, ['done', 'api', '--verify']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('verifying "Wait for the staging deploy (deploy/staging.yml)" with: sleep 2');
    const doc = JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as { updated_at: string; recently_done: Entry[] };
    expect(doc.recently_done).toHaveLength(1);
    const at = doc.recently_done[0]!.at;
    // `sleep 2` ran before the write: the completion is dated after it, not when done started.
    expect(Date.parse(at), `at ${at}, started ${new Date(before).toISOString()}`).toBeGreaterThanOrEqual(before + 2000);
    expect(doc.updated_at).toBe(at);
  });
});
