// Crash safety: `checkpoint update s --log+=N` / `checkpoint done s` runs of the built binary,
// each SIGKILLed at a random moment. After every run the checkpoint is whole and valid, and it
// is either the version before the run or the one the run would have written (never torn,
// never rolled back); leftover temp files are never listed or read; a lock left by a killed
// writer never stops the next one.
//
// Where the kills land is up to the scheduler, so nothing here counts them: every run, killed
// or not, must satisfy the same invariants, and the distribution is printed for information.
// The runs rotate through three kill triggers so that on an ordinary machine many kills land
// inside the writer's critical section:
//   time: a random delay in a 80 ms window ending just past the measured run time;
//   lock: 0-4 ms after this writer's lock file appears (fs.watch), i.e. inside the lock;
//   tmp:  0-1.5 ms after this writer's temp file appears, i.e. mid-write (before the rename).
// The states a kill can leave (a dead owner's lock, a torn lock, a half-written temp file) are
// also built directly below, so each is proven deterministically, whatever the machine's load.
// The writers are real processes (they are what gets killed); the readers that check what a
// kill left run in this process (test/helpers/in-process.ts).
import { existsSync, readdirSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/protocol/json.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { runCli } from '../helpers/in-process.js';
import { cleanup, makeRepo, write } from '../helpers/repo.js';
import { assertBuilt, checkpointText, run, start } from './helpers.js';

const LANES = ['lane-a', 'lane-b', 'lane-c', 'lane-d'];
const RUNS = 48;
const PER_LANE = RUNS / LANES.length;
// A writer that finds a lock waits at most LOCK_TIMEOUT_MS (15 s) and then fails; a lock with a
// live-looking owner ages out only after STALE_LOCK_MS (60 s). So a run that meets a dead
// writer's fresh lock and exits 0 has broken it rather than waited it out: exit 0 is the proof,
// no stopwatch needed. (Torn locks, with no owner to check, are broken after 2 s.)

type Mode = 'time' | 'lock' | 'tmp';
type Outcome = 'completed' | 'killed-before-lock' | 'killed-holding-lock' | 'killed-mid-write' | 'killed-after-rename';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(assertBuilt);

type Doc = Record<string, unknown> & { log?: string[]; next_actions: string[]; recently_done?: { at: string; action: string }[] };

/** What the file may hold after a run from `old`: exactly old, or old with this run's change. */
function checkTransition(old: string, now: string, op: { kind: 'update'; value: string } | { kind: 'done' }): 'old' | 'new' {
  if (now === old) return 'old';
  const before = JSON.parse(old) as Doc;
  const after = parseJson(now).value as Doc; // the strict parser: a torn file throws here
  const { errors } = validateCheckpoint(after, { fileName: `${String(after.skill)}.checkpoint.json` });
  expect(errors, `the file after a kill is invalid:\n${now}`).toEqual([]);
  const strip = (d: Doc) => ({ ...d, updated_at: undefined, recently_done: undefined });
  if (op.kind === 'update') {
    expect(after.log).toEqual([...(before.log ?? []), op.value]);
    expect({ ...strip(after), log: undefined }).toEqual({ ...strip(before), log: undefined });
    expect(after.recently_done).toEqual(before.recently_done);
  } else {
    expect(after.next_actions).toEqual(before.next_actions.slice(1));
    expect(after.recently_done?.[0]?.action).toBe(before.next_actions[0]);
    expect(after.recently_done!.slice(1)).toEqual((before.recently_done ?? []).slice(0, 9));
    expect({ ...strip(after), next_actions: undefined }).toEqual({ ...strip(before), next_actions: undefined });
  }
  return 'new';
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('SIGKILL at a random moment', () => {
  it(`${RUNS} randomly killed writers never leave a torn, invalid or rolled-back checkpoint`, async () => {
    const t0 = performance.now();
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const cpDir = join(dir, '.checkpoints');
    for (const skill of LANES) {
      write(dir, `.checkpoints/${skill}.checkpoint.json`, checkpointText(skill, { next_actions: Array.from({ length: 80 }, (_, i) => `action ${i}`), log: [] }));
    }

    // One watcher for the folder; each lane arms a handler for its own writer.
    const armed = new Map<string, (file: string) => void>();
    const watcher: FSWatcher = watch(cpDir, (_event, file) => {
      if (!file) return;
      for (const [skill, handler] of armed) if (file.startsWith(`.${skill}.`)) handler(file);
    });

    const outcomes: Record<Outcome, number> = { completed: 0, 'killed-before-lock': 0, 'killed-holding-lock': 0, 'killed-mid-write': 0, 'killed-after-rename': 0 };
    const byMode: Record<Mode, Partial<Record<Outcome, number>>> = { time: {}, lock: {}, tmp: {} };
    let staleRecoveries = 0;
    const failures: string[] = [];
    let cliChecks = 0;

    const lockOwner = (skill: string): number | null => {
      try {
        return (JSON.parse(readFileSync(join(cpDir, `.${skill}.lock`), 'utf8')) as { pid: number }).pid;
      } catch {
        return null;
      }
    };

    async function lane(skill: string, laneIndex: number): Promise<void> {
      const path = join(cpDir, `${skill}.checkpoint.json`);
      const seen = new Set<string>([readFileSync(path, 'utf8')]);
      // Calibrate the time window on this box, under the same load as the test itself.
      const warm: number[] = [];
      for (let i = 0; i < 2; i++) {
        const r = await run(dir, ['update', skill, `--warmup+=${i}`]);
        expect(r.code, r.stderr).toBe(0);
        warm.push(r.ms);
      }
      const durations = [...warm];
      seen.add(readFileSync(path, 'utf8'));

      for (let i = 0; i < PER_LANE; i++) {
        const mode: Mode = (['time', 'lock', 'tmp'] as const)[(i + laneIndex) % 3]!;
        const op = Math.random() < 0.25 ? ({ kind: 'done' } as const) : ({ kind: 'update', value: `${skill}-${i}` } as const);
        const old = readFileSync(path, 'utf8');
        const inheritedLock = existsSync(join(cpDir, `.${skill}.lock`));

        const s = start(dir, op.kind === 'update' ? ['update', skill, `--log+=${op.value}`] : ['done', skill]);
        const pid = s.child.pid!;
        let timer: NodeJS.Timeout | undefined;
        const kill = () => s.child.kill('SIGKILL');
        const killIn = (ms: number) => {
          if (timer === undefined) timer = setTimeout(kill, ms);
        };
        if (mode === 'time') {
          const lo = Math.max(0, median(durations.slice(-9)) - 75);
          killIn(lo + Math.random() * 80);
        } else if (mode === 'lock') {
          armed.set(skill, (file) => {
            if (file === `.${skill}.lock` && lockOwner(skill) === pid) killIn(Math.random() * 4);
          });
        } else {
          armed.set(skill, (file) => {
            if (file.startsWith(`.${skill}.checkpoint.json.${pid}.`)) killIn(Math.random() * 1.5);
          });
        }
        const guard = setTimeout(kill, 20_000);
        const r = await s.done;
        armed.delete(skill);
        clearTimeout(timer);
        clearTimeout(guard);

        const now = readFileSync(path, 'utf8');
        const files = readdirSync(cpDir);
        const killed = r.signal === 'SIGKILL';
        let outcome: Outcome;
        if (!killed) {
          if (r.code !== 0) {
            failures.push(`${skill} run ${i} (${op.kind}) exited ${r.code} after ${Math.round(r.ms)} ms: ${r.stderr.trim()}`);
            continue;
          }
          outcome = 'completed';
          durations.push(r.ms);
          if (inheritedLock) staleRecoveries++;
        } else if (now !== old) outcome = 'killed-after-rename';
        else if (files.some((f) => f.startsWith(`.${skill}.checkpoint.json.${pid}.`) && f.endsWith('.tmp'))) outcome = 'killed-mid-write';
        else if (lockOwner(skill) === pid) outcome = 'killed-holding-lock';
        else outcome = 'killed-before-lock';
        outcomes[outcome]++;
        byMode[mode][outcome] = (byMode[mode][outcome] ?? 0) + 1;

        // The file: the old version or this run's version, parsed strictly and valid.
        const which = checkTransition(old, now, op);
        if (outcome === 'completed') expect(which, `${skill} run ${i} exited 0 but did not write`).toBe('new');
        if (which === 'new') {
          expect(seen.has(now), `${skill} run ${i} rolled the file back to an earlier version`).toBe(false);
          seen.add(now);
        }

        // After a kill, the CLI sees exactly the real skills (no temp file), and every one is valid.
        if (killed) {
          const validate = await runCli(dir, ['validate']);
          cliChecks++;
          expect(validate.code, validate.stdout + validate.stderr).toBe(0);
          expect(validate.stdout).toContain(`${LANES.length}/${LANES.length} valid`);
          expect(validate.stdout + validate.stderr).not.toMatch(/\.tmp|\.lock/);
        }
      }

      // A last, unhurried writer: whatever the last kill left behind does not stop it.
      const inherited = existsSync(join(cpDir, `.${skill}.lock`));
      const last = await run(dir, ['update', skill, '--log+=final']);
      expect(last.code, last.stderr).toBe(0);
      if (inherited) staleRecoveries++;
      expect((JSON.parse(readFileSync(path, 'utf8')) as Doc).log!.at(-1)).toBe('final');
    }

    try {
      await Promise.all(LANES.map((skill, i) => lane(skill, i)));
    } finally {
      watcher.close();
    }

    const leftover = readdirSync(cpDir);
    const tmp = leftover.filter((f) => f.endsWith('.tmp'));
    const summary = {
      runs: RUNS,
      outcomes,
      byMode,
      cliChecksAfterKills: cliChecks,
      staleLockRecoveries: staleRecoveries,
      leftoverTempFiles: tmp.length,
      seconds: Math.round((performance.now() - t0) / 100) / 10,
    };
    console.log(`crash distribution: ${JSON.stringify(summary)}`);

    // Every run that was not killed succeeded (including those that met a dead writer's lock).
    expect(failures).toEqual([]);
    expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(RUNS);
    // Nothing holds a lock any more; temp files of killed writers may stay or be cleaned up,
    // but never count as checkpoints.
    expect(leftover.filter((f) => f.endsWith('.lock'))).toEqual([]);
    expect(leftover.filter((f) => f.endsWith('.checkpoint.json')).sort()).toEqual(LANES.map((s) => `${s}.checkpoint.json`));
    const list = await runCli(dir, ['list', '--json']);
    expect((JSON.parse(list.stdout) as { skill: string }[]).map((x) => x.skill)).toEqual(LANES);
    const history = await runCli(dir, ['history']);
    expect(history.stdout + history.stderr).not.toMatch(/\.tmp/);
  });
});

describe('locks left by killed writers', () => {
  // A writer killed after creating its lock file (O_EXCL) but before writing its owner into it
  // leaves an empty or cut-off lock: no pid to check. It must not block the next writers for the
  // full age limit (60 s, while each waiter gives up after 15 s). The two run side by side: each
  // spends its ~2 s waiting for the torn lock to age, not computing.
  it.concurrent.each([
    ['empty', ''],
    ['cut off', '{"pid":12'],
  ])('a torn lock (%s) is broken before the writer gives up, not after the 60 s age limit', async (_name, content) => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, '.checkpoints/s.checkpoint.json', checkpointText('s', { log: [] }));
    write(dir, '.checkpoints/.s.lock', content);
    const r = await run(dir, ['update', 's', '--log+=after-torn-lock']);
    expect(r.code, r.stderr).toBe(0); // waiting out the age limit would fail at LOCK_TIMEOUT_MS
    expect((JSON.parse(readFileSync(join(dir, '.checkpoints/s.checkpoint.json'), 'utf8')) as Doc).log).toEqual(['after-torn-lock']);
    expect(readdirSync(join(dir, '.checkpoints'))).toEqual(['s.checkpoint.json']);
  });

  it('a lock of a dead writer is broken at once', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, '.checkpoints/s.checkpoint.json', checkpointText('s', { log: [] }));
    const dead = start(dir, ['update', 's', '--log+=never']);
    dead.child.kill('SIGKILL');
    await dead.done;
    write(dir, '.checkpoints/.s.lock', JSON.stringify({ pid: dead.child.pid, host: hostname(), nonce: 'dead', at: Date.now() }));
    const r = await run(dir, ['update', 's', '--log+=next']);
    expect(r.code, r.stderr).toBe(0); // waiting out the age limit would fail at LOCK_TIMEOUT_MS
    expect(readdirSync(join(dir, '.checkpoints'))).toEqual(['s.checkpoint.json']);
  });
});

describe('what a writer killed mid-write leaves behind', () => {
  // The state the `tmp` kill trigger aims for, built directly: a half-written temp file of a
  // dead writer beside the checkpoint it was replacing. Nothing reads or lists it, and the next
  // writer works on the real file. (Whether it is cleaned up is not part of the contract.)
  it('a half-written temp file is never listed, read or validated, and the next writer proceeds', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const text = checkpointText('s', { log: [] });
    write(dir, '.checkpoints/s.checkpoint.json', text);
    const dead = start(dir, ['list']);
    dead.child.kill('SIGKILL');
    await dead.done;
    const torn = checkpointText('s', { log: ['half'] }).slice(0, 100);
    write(dir, `.checkpoints/.s.checkpoint.json.${dead.child.pid}.k1ll3d00.tmp`, torn);

    const [list, validate, show, history] = await Promise.all([runCli(dir, ['list', '--json']), runCli(dir, ['validate']), runCli(dir, ['show', 's']), runCli(dir, ['history'])]);
    expect((JSON.parse(list.stdout) as { skill: string }[]).map((x) => x.skill)).toEqual(['s']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toBe('✓ .checkpoints/s.checkpoint.json\n');
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toEqual(JSON.parse(text));
    for (const r of [list, validate, show, history]) expect(r.stdout + r.stderr).not.toMatch(/\.tmp/);

    const next = await run(dir, ['update', 's', '--log+=after']);
    expect(next.code, next.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, '.checkpoints/s.checkpoint.json'), 'utf8')) as Doc).log).toEqual(['after']);
    expect(readdirSync(join(dir, '.checkpoints')).filter((f) => f.endsWith('.checkpoint.json') || f.endsWith('.lock'))).toEqual(['s.checkpoint.json']);
  });
});
