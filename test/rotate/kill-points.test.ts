// A rotation (rotate, done's overflow) SIGKILLed at every point of its write, then retried with
// rotate, done or restore: every record is then held exactly once, in the checkpoint or in a
// rotation file it names, equal records (a log is a multiset) counted one by one (red team 63 r2
// 1, 2). The kill is real: the built CLI runs with a preload (NODE_OPTIONS=--import) that wraps
// node:fs's rename and unlink and SIGKILLs the process just before or just after the one that
// lands the rotation file, the journal, the checkpoint, or the journal's removal.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, GIT_ENV, makeRepo, read, tempDir, write } from '../helpers/repo.js';
import { handKeptRunLog } from '../helpers/fixtures.js';
import { runCli } from '../helpers/in-process.js';

const CP = '.checkpoints/api.checkpoint.json';
const HISTORY = '.checkpoints/history';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const KILL = `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const { CP_KILL_OP: op, CP_KILL_WHEN: when, CP_KILL_PATH: path } = process.env;
const die = () => { process.kill(process.pid, 'SIGKILL'); for (;;); };
const original = fs[op];
fs[op] = function (...args) {
  if (!new RegExp(path).test(String(args[op === 'renameSync' ? 1 : 0]))) return original.apply(this, args);
  if (when === 'before') die();
  original.apply(this, args);
  die();
};
syncBuiltinESMExports();
`;
const killer = (() => {
  const dir = tempDir('cp-kill-');
  write(dir, 'kill.mjs', KILL);
  return pathToFileURL(join(dir, 'kill.mjs')).href;
})();

/** What lands each step of a rotation's write: the rename that puts a file in place, or the unlink that removes the journal. */
const STEPS = {
  'the history write': { op: 'renameSync', path: '/history/api\\.[^/]*\\.json$' },
  'the journal write': { op: 'renameSync', path: '/\\.api\\.rotation\\.tmp$' },
  'the checkpoint write': { op: 'renameSync', path: '/api\\.checkpoint\\.json$' },
  'the journal removal': { op: 'unlinkSync', path: '/\\.api\\.rotation\\.tmp$' },
} as const;
type Point = { step: keyof typeof STEPS; when: 'before' | 'after' };
const POINTS = (Object.keys(STEPS) as Point['step'][]).flatMap((step) => (['before', 'after'] as const).map((when): [string, Point] => [`${when} ${step}`, { step, when }]));

function killedAt(dir: string, args: string[], point: Point): void {
  const { op, path } = STEPS[point.step];
  const env = { ...GIT_ENV, NODE_OPTIONS: `--import ${killer}`, CP_KILL_OP: op, CP_KILL_WHEN: point.when, CP_KILL_PATH: path };
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
  expect(r.signal, `${args.join(' ')} ran to its end: ${r.stderr}`).toBe('SIGKILL');
}

const doc = (dir: string, rel = CP) => JSON.parse(read(dir, rel));
const historyFiles = (dir: string) => (existsSync(join(dir, HISTORY)) ? readdirSync(join(dir, HISTORY)).filter((f) => f.endsWith('.json')) : []);

/** The log's records live and in the rotation files the checkpoint names, sorted; and the files it does not name. */
function everyRecord(dir: string, log: string[], dotted: string): { records: string[]; unnamed: string[] } {
  const now = doc(dir);
  const named: string[] = now.skill_state?.rotated_to ?? [];
  const live = log.reduce((o, k) => o?.[k], now) as unknown[];
  const archived = named.flatMap((p) => (doc(dir, p).entries[dotted] ?? []) as unknown[]);
  return { records: [...live, ...archived].map((e) => JSON.stringify(e)).sort(), unnamed: historyFiles(dir).filter((f) => !named.includes(`${HISTORY}/${f}`)) };
}

// A hand-kept log: 4-space indent, a score written 8.0, eight equal runs and one other.
const RUN = '{ "ok": 1, "score": 8.0, "note": "nightly (see notes/ci.md)" }';
const runsText = (runs: string[]) => handKeptRunLog(runs, '2026-03-02T10:00:00Z', 'Building.');
const RUNS = [...Array<string>(8).fill(RUN), '{ "ok": 2 }'];

/** Rotated once (two equal runs in the day's file, named), then a second rotate that moves two more is killed. */
async function rotateKilledAt(point: Point): Promise<string> {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, CP, runsText(RUNS));
  expect((await runCli(dir, ['rotate', 'api', '--keep', '7'])).code).toBe(0);
  killedAt(dir, ['rotate', 'api', '--keep', '5'], point);
  return dir;
}

// recently_done (newest first): six actions, then four equal records of a weekly sync.
const SYNC = { at: '2026-02-01T09:00:00Z', action: 'weekly sync (notes/sync.md)' };
const DONE = [...Array.from({ length: 6 }, (_, i) => ({ at: `2026-02-2${6 - i}T09:00:00Z`, action: `task ${6 - i}` })), SYNC, SYNC, SYNC, SYNC];
const ACTIONS = ['a1', 'a2', 'a3', 'a4'];

/** One done moved a sync record out (named); the next done, which moves another, is killed. */
async function doneKilledAt(point: Point): Promise<string> {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, CP, `${JSON.stringify({ ...JSON.parse(runsText(['{ "ok": 2 }'])), next_actions: ACTIONS, recently_done: DONE }, null, 4)}\n`);
  expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
  killedAt(dir, ['done', 'api'], point);
  return dir;
}

/** Every record of recently_done once: each action done once, the old ones as they were; `restored`: the rotation file is no longer named. */
function expectDoneOnce(dir: string, restored = false): void {
  const { records, unnamed } = everyRecord(dir, ['recently_done'], 'recently_done');
  expect(unnamed).toHaveLength(restored ? 1 : 0);
  const done = ACTIONS.slice(0, ACTIONS.length - (doc(dir).next_actions as string[]).length);
  const parsed = records.map((r) => JSON.parse(r) as { action: string });
  expect(parsed.map((r) => r.action).sort()).toEqual([...done, ...DONE.map((d) => d.action)].sort());
  expect(parsed.filter((r) => r.action === SYNC.action)).toEqual([SYNC, SYNC, SYNC, SYNC]);
}

describe.each(POINTS)('a rotation killed %s (red team 63 r2 1, 2)', (_, point) => {
  it('rotate again: each of the equal runs once, live or in the named file', async () => {
    const dir = await rotateKilledAt(point);
    const r = await runCli(dir, ['rotate', 'api', '--keep', '5']);
    expect(r.code, r.stderr).toBe(0);
    const { records, unnamed } = everyRecord(dir, ['skill_state', 'run_history'], 'skill_state.run_history');
    expect(records).toEqual(RUNS.map((t) => JSON.stringify(JSON.parse(t))).sort());
    expect(unnamed).toEqual([]);
    expect(doc(dir).skill_state.run_history).toHaveLength(5);
    expect(read(dir, CP)).toContain('"score": 8.0');
  });

  it('restore the rotation file: every run back once', async () => {
    const dir = await rotateKilledAt(point);
    const [file] = historyFiles(dir);
    const r = await runCli(dir, ['restore', file!]);
    expect(r.code, r.stderr).toBe(0);
    expect(doc(dir).skill_state.rotated_to).toBeUndefined();
    expect(everyRecord(dir, ['skill_state', 'run_history'], 'skill_state.run_history').records).toEqual(RUNS.map((t) => JSON.stringify(JSON.parse(t))).sort());
  });

  it('done again: each action done once, each equal sync record once', async () => {
    const dir = await doneKilledAt(point);
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code, r.stderr).toBe(0);
    expectDoneOnce(dir);
  });

  it('restore the rotation file done wrote: each record back once', async () => {
    const dir = await doneKilledAt(point);
    const [file] = historyFiles(dir);
    const r = await runCli(dir, ['restore', file!]);
    expect(r.code, r.stderr).toBe(0);
    expect(doc(dir).skill_state.rotated_to).toBeUndefined();
    expectDoneOnce(dir, true);
  });
});

describe('a journal outlives its rotation (red team 63 r2 1)', () => {
  it('killed after its checkpoint write, then an update: the next rotate excuses nothing, each equal run once', async () => {
    const dir = await rotateKilledAt({ step: 'the checkpoint write', when: 'after' });
    expect((await runCli(dir, ['update', 'api', '--step=s2'])).code).toBe(0);
    const r = await runCli(dir, ['rotate', 'api', '--keep', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/interrupted/);
    expect(everyRecord(dir, ['skill_state', 'run_history'], 'skill_state.run_history').records).toEqual(RUNS.map((t) => JSON.stringify(JSON.parse(t))).sort());
  });

  it('killed before its checkpoint write, then an update and a done: the rotate after still moves each run once', async () => {
    const dir = await rotateKilledAt({ step: 'the checkpoint write', when: 'before' });
    expect((await runCli(dir, ['update', 'api', '--next_actions+=Ship'])).code).toBe(0);
    expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
    const r = await runCli(dir, ['rotate', 'api', '--keep', '5']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/finished a rotation an interrupted run began \(2 entries/);
    expect(everyRecord(dir, ['skill_state', 'run_history'], 'skill_state.run_history').records).toEqual(RUNS.map((t) => JSON.stringify(JSON.parse(t))).sort());
  });
});
