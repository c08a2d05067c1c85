// Concurrency, from angles test/e2e/concurrency.test.ts does not take:
//  - 20 writers at once mixing `update --log+= --next_actions+=` with `done`, reaching the same
//    repository through different paths (repo root, a subfolder, a symlinked cwd, -C through a
//    symlink, -C relative): no update lost, no action popped twice, the queue conserved;
//  - a real checkpoint writer frozen (SIGSTOP) while it holds skill A's lock: writers of other
//    skills go straight through, a second writer of A waits (it is still running after they are
//    all done) and lands after the frozen one once it resumes.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, makeRepo, tempDir, write } from '../helpers/repo.js';
import { STOP_IN_LOCK_ENV } from '../../src/store/lock.js';
import { processState } from '../helpers/process-state.js';
import { assertBuilt, checkpointText, run, start, type AsyncRun, type Started } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(assertBuilt);

type Doc = { log?: string[]; fresh?: string[]; next_actions: string[]; recently_done?: { at: string; action: string }[] };
const readDoc = (dir: string, skill: string) => JSON.parse(readFileSync(join(dir, `.checkpoints/${skill}.checkpoint.json`), 'utf8')) as Doc;
const debris = (dir: string) => readdirSync(join(dir, '.checkpoints')).filter((f) => /\.(lock|tmp|stale)$/.test(f));

describe('20 mixed writers on one skill, through different paths to the same repository', () => {
  it('keep every append, pop each action exactly once, and conserve the queue', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const outside = tempDir();
    dirs.push(outside);
    const link = join(outside, 'repo-link');
    symlinkSync(dir, link);
    mkdirSync(join(dir, 'sub/deep'), { recursive: true });
    const initial = Array.from({ length: 10 }, (_, i) => `a${i}`);
    write(dir, '.checkpoints/s.checkpoint.json', checkpointText('s', { next_actions: initial, log: [] }));

    // Where each writer starts from, all meaning the same .checkpoints/.
    const ways: { cwd: string; pre: string[] }[] = [
      { cwd: dir, pre: [] },
      { cwd: join(dir, 'sub/deep'), pre: [] },
      { cwd: link, pre: [] },
      { cwd: join(link, 'sub'), pre: [] },
      { cwd: outside, pre: ['-C', link] },
      { cwd: outside, pre: ['-C', dir] },
      { cwd: join(dir, 'sub/deep'), pre: ['-C', '../..'] },
      { cwd: outside, pre: ['-C', relative(outside, join(link, 'sub/deep'))] },
    ];
    const DONES = 8;
    const jobs: { kind: 'update' | 'done'; value: string; way: number; job: Promise<AsyncRun> }[] = [];
    for (let i = 0; i < 20; i++) {
      const way = i % ways.length;
      const { cwd, pre } = ways[way]!;
      // Dones spread through the batch: writers 1, 3, 5, ... 15.
      const kind = i % 2 === 1 && i < 2 * DONES ? 'done' : 'update';
      const value = `w${i}`;
      const args = kind === 'done' ? [...pre, 'done', 's'] : [...pre, 'update', 's', `--log+=${value}`, `--next_actions+=n${i}`, `--fresh+=${value}`];
      jobs.push({ kind, value, way, job: run(cwd, args) });
    }
    const results = await Promise.all(jobs.map((j) => j.job));
    results.forEach((r, i) => expect(r.code, `writer ${i} (${jobs[i]!.kind}, way ${jobs[i]!.way}): ${r.stderr}`).toBe(0));

    const updates = jobs.filter((j) => j.kind === 'update').map((j) => j.value);
    expect(updates).toHaveLength(20 - DONES);
    const doc = readDoc(dir, 's');
    // Every append landed once, in the field it was sent to (one created concurrently: fresh).
    expect([...doc.log!].sort()).toEqual([...updates].sort());
    expect([...doc.fresh!].sort()).toEqual([...updates].sort());
    // The queue: the first 8 initial actions popped, in order, each exactly once…
    expect(doc.recently_done!.map((d) => d.action)).toEqual(initial.slice(0, DONES).reverse());
    const popped = results.filter((_, i) => jobs[i]!.kind === 'done').map((r) => /^✓ done: (.*)$/m.exec(r.stdout)?.[1]);
    expect([...popped].sort()).toEqual(initial.slice(0, DONES).sort());
    // …and nothing else lost: what is left is the rest of the initial queue, then every appended action.
    expect(doc.next_actions.slice(0, initial.length - DONES)).toEqual(initial.slice(DONES));
    expect([...doc.next_actions.slice(initial.length - DONES)].sort()).toEqual(updates.map((v) => `n${v.slice(1)}`).sort());
    expect(debris(dir)).toEqual([]);
    const validate = await run(dir, ['validate']);
    expect(validate.code, validate.stdout).toBe(0);
  });
});

/**
 * Starts `update <skill>` frozen inside the skill's lock: the writer stops itself (SIGSTOP, the
 * store's test hook) right after taking the lock, before it reads or writes anything. Waiting
 * for the stopped state is the only wait: no race with the writer.
 */
async function freezeInsideLock(dir: string, skill: string, value: string): Promise<Started> {
  const s = start(dir, ['update', skill, `--log+=${value}`], { env: { [STOP_IN_LOCK_ENV]: '1' } });
  let exited = false;
  void s.done.then(() => (exited = true));
  while (!exited && processState(s.child.pid!) !== 'T') await new Promise((r) => setTimeout(r, 10));
  if (exited) throw new Error(`the writer of ${skill} exited instead of stopping inside its lock: ${(await s.done).stderr}`);
  return s;
}


describe('writers of different skills do not wait on each other', () => {
  it('a frozen lock holder of skill a stops a second writer of a, never the writers of b1..b6', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const others = ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'];
    for (const skill of ['a', ...others]) write(dir, `.checkpoints/${skill}.checkpoint.json`, checkpointText(skill, { log: [] }));
    const single = await run(dir, ['update', 'b1', '--log+=baseline']);
    expect(single.code, single.stderr).toBe(0);
    const before = readFileSync(join(dir, '.checkpoints/a.checkpoint.json'), 'utf8');

    const frozen = await freezeInsideLock(dir, 'a', 'frozen');
    let released = false;
    try {
      // A live checkpoint process holds a's lock: its pid is alive, so nobody may break it.
      const lock = JSON.parse(readFileSync(join(dir, '.checkpoints/.a.lock'), 'utf8')) as { pid: number };
      expect(lock.pid).toBe(frozen.child.pid);

      const waiter = start(dir, ['update', 'a', '--log+=waiter']);
      let waiterExited = false;
      void waiter.done.then(() => (waiterExited = true));
      // a's holder is alive (frozen), so a writer that waited on a's lock could only give up
      // after LOCK_TIMEOUT_MS and fail: exit 0 with the value written proves none did.
      const bs = await Promise.all(others.map((skill) => run(dir, ['update', skill, `--log+=${skill}-while-a-locked`])));
      for (const r of bs) expect(r.code, r.stderr).toBe(0);
      for (const skill of others) expect(readDoc(dir, skill).log).toContain(`${skill}-while-a-locked`);

      // The second writer of a is still waiting, and a is untouched.
      expect(waiterExited).toBe(false);
      expect(readFileSync(join(dir, '.checkpoints/a.checkpoint.json'), 'utf8')).toBe(before);

      frozen.child.kill('SIGCONT');
      released = true;
      await bothLandInTurn(dir, frozen, waiter);
      expect(existsSync(join(dir, '.checkpoints/.a.lock'))).toBe(false);
    } finally {
      if (!released) {
        frozen.child.kill('SIGKILL');
      }
    }
  });
});

/** The frozen writer (resumed) and the waiter both succeed, serialized: the frozen one first (it held the lock), nothing left behind. */
async function bothLandInTurn(dir: string, frozen: { done: Promise<{ code: number | null; stderr: string }> }, waiter: { done: Promise<{ code: number | null; stderr: string }> }): Promise<void> {
  const [f, w] = await Promise.all([frozen.done, waiter.done]);
  expect(f.code, f.stderr).toBe(0);
  expect(w.code, w.stderr).toBe(0);
  expect(readDoc(dir, 'a').log).toEqual(['frozen', 'waiter']);
  expect(debris(dir)).toEqual([]);
}

describe('a writer frozen inside its lock past the stale age (red team 12-07)', () => {
  it('keeps its lock: the next writer waits and says how to resume it, and both writes land in turn, none lost', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, '.checkpoints/a.checkpoint.json', checkpointText('a', { log: [] }));
    const frozen = await freezeInsideLock(dir, 'a', 'frozen');
    let released = false;
    try {
      // Its lock as it stands after two minutes stopped (Ctrl-Z), past STALE_LOCK_MS.
      const lock = join(dir, '.checkpoints/.a.lock');
      const old = (Date.now() - 120_000) / 1000;
      utimesSync(lock, old, old);
      const waiter = start(dir, ['update', 'a', '--log+=waiter']);
      let exited = false;
      void waiter.done.then(() => (exited = true));
      let said = '';
      waiter.child.stderr!.on('data', (d: Buffer) => (said += d.toString()));
      // Either the waiter says it waits (the lock kept), or it wrote under the frozen writer.
      while (!exited && !said.includes('waiting')) await new Promise((r) => setTimeout(r, 10));
      expect(exited, 'the waiter broke a running writer\'s lock').toBe(false);
      expect(said).toContain(`held by process ${frozen.child.pid} (node) on this machine`);
      expect(said).toContain(`resume it (fg in its shell, or kill -CONT ${frozen.child.pid}) so it finishes`);

      frozen.child.kill('SIGCONT');
      released = true;
      await bothLandInTurn(dir, frozen, waiter);
    } finally {
      if (!released) frozen.child.kill('SIGKILL');
    }
  });
});
