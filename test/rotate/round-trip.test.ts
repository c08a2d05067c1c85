// rotate (or done's overflow) then restore, with no edit between: the checkpoint comes back as the
// user wrote it, byte for byte, with real git and real files.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { restoreArchive } from '../../src/store/restore.js';
import { rotateSkill } from '../../src/store/rotate.js';
import { checkpointDoc, handKeptRunLog } from '../helpers/fixtures.js';
import { runCli } from '../helpers/in-process.js';
import { cleanup, makeRepo, read, write } from '../helpers/repo.js';

const CP = '.checkpoints/api.checkpoint.json';
const history = (dir: string) => readdirSync(join(dir, '.checkpoints/history')).sort();

const dirs: string[] = [];
const repo = () => {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) cleanup(dir);
});

describe('the skill_state a pointer goes into', () => {
  it("a hand-written \"skill_state\": {} is kept by the restore that takes done's pointer out of it", async () => {
    const dir = repo();
    const ten = Array.from({ length: 10 }, (_, i) => ({ at: `2026-11-${20 - i}T10:00:00Z`, action: `r${i}` }));
    write(dir, CP, `${JSON.stringify(checkpointDoc({ next_actions: ['Ship', 'Tag'], skill_state: {}, recently_done: ten }), null, 2)}\n`);
    expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
    const done = read(dir, CP);
    expect(JSON.parse(done).skill_state.rotated_to).toHaveLength(1);
    const [file] = history(dir);
    expect((await runCli(dir, ['restore', file!])).code).toBe(0);
    // done's own change (the action done, its entry first) stays; the pointer goes, the user's {} does not.
    const back = read(dir, CP);
    expect(back).toContain('"skill_state": {},\n');
    expect(JSON.parse(back).recently_done).toHaveLength(11);
  });

  for (const state of ['absent', 'empty'] as const) {
    it(`rotating a project's top-level log on two days and restoring in either order gives the file back (skill_state ${state})`, async () => {
      for (const order of ['newest first', 'oldest first']) {
        const dir = repo();
        write(dir, '.checkpoints/config.json', '{"logs": ["audits"]}\n');
        const audits = Array.from({ length: 8 }, (_, i) => ({ n: i }));
        const doc = checkpointDoc({ audits, ...(state === 'empty' ? { skill_state: {} } : {}) });
        const text = `${JSON.stringify(doc, null, 2)}\n`;
        write(dir, CP, text);
        await rotateSkill(dir, 'api', { now: new Date('2026-11-03T10:00:00Z'), keep: 6 });
        await rotateSkill(dir, 'api', { now: new Date('2026-11-04T10:00:00Z'), keep: 3 });
        const files = history(dir);
        expect(files).toEqual(['api.2026-11-03.json', 'api.2026-11-04.json']);
        for (const f of order === 'newest first' ? [...files].reverse() : files) await restoreArchive(dir, f, new Date('2026-11-05T00:00:00Z'));
        const back = read(dir, CP);
        if (order === 'newest first') expect(back, order).toBe(text);
        // Oldest first puts the older batch back after the newer one (docs: restore newest first for order); no key is added or lost.
        else expect(Object.keys(JSON.parse(back)), order).toEqual(Object.keys(doc));
      }
    });
  }
});

describe('restore gives the log back in the order it had before rotate (red team 63 r2 4)', () => {
  // Runs as a hand-kept log holds them: not in time order (a re-run logged late), a score as 8.0.
  const RUNS = [['a', 5], ['b', 1], ['c', 3], ['d', 4], ['e', 2]].map(([run, day]) => `{ "at": "2026-03-0${day}T00:00:00Z", "run": "${run}", "score": 8.0, "log": "ci/${run}.txt" }`);
  const text = (runs: string[]) => handKeptRunLog(runs, '2026-03-06T10:00:00Z', 'Evals.');
  const runs = (dir: string) => (JSON.parse(read(dir, CP)).skill_state.run_history as { run: string }[]).map((r) => r.run);

  it('nothing added since: every run back where it stood, the file byte for byte (the two kept ones were in time order)', async () => {
    const dir = repo();
    write(dir, CP, text(RUNS));
    expect((await runCli(dir, ['rotate', 'api', '--keep', '2'])).code).toBe(0);
    expect(runs(dir)).toEqual(['a', 'd']);
    const [file] = history(dir);
    expect((await runCli(dir, ['restore', file!])).code).toBe(0);
    expect(read(dir, CP)).toBe(text(RUNS));
  });

  it('two rotations the same day, nothing added between or since: restored whole, in order', async () => {
    const dir = repo();
    write(dir, CP, text(RUNS));
    await rotateSkill(dir, 'api', { now: new Date('2026-03-06T10:00:00Z'), keep: 4 });
    await rotateSkill(dir, 'api', { now: new Date('2026-03-06T11:00:00Z'), keep: 2 });
    const [file] = history(dir);
    expect(JSON.parse(read(dir, `.checkpoints/history/${file}`)).entries['skill_state.run_history']).toHaveLength(3);
    await restoreArchive(dir, file!, new Date('2026-03-06T12:00:00Z'));
    expect(read(dir, CP)).toBe(text(RUNS));
  });

  it('a run added since: placed as before (by time where the log runs in time order, else before the log\'s own)', async () => {
    const dir = repo();
    write(dir, CP, text(RUNS));
    expect((await runCli(dir, ['rotate', 'api', '--keep', '2'])).code).toBe(0);
    const [file] = history(dir);
    // Still in time order (newest first): each run put back where its time falls.
    expect((await runCli(dir, ['update', 'api', '--skill_state.run_history+:json={"at": "2026-03-01T12:00:00Z", "run": "f"}'])).code).toBe(0);
    expect((await runCli(dir, ['restore', file!])).code).toBe(0);
    expect(runs(dir)).toEqual(['a', 'd', 'c', 'e', 'f', 'b']);
    // Out of time order: before the log's own entries.
    const again = repo();
    write(again, CP, text(RUNS));
    expect((await runCli(again, ['rotate', 'api', '--keep', '2'])).code).toBe(0);
    expect((await runCli(again, ['update', 'api', '--skill_state.run_history+:json={"at": "2026-03-09T00:00:00Z", "run": "g"}'])).code).toBe(0);
    expect((await runCli(again, ['restore', history(again)[0]!])).code).toBe(0);
    expect(runs(again)).toEqual(['b', 'c', 'e', 'a', 'd', 'g']);
  });
});
