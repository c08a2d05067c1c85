// done's cut of recently_done (protocol/rotation.ts cutNewestFirst): a hand-kept list may run
// oldest-first or newest-first and mix in entries without a time; the newest always stay.
import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { policyFor, logEntryTime, type LogPolicy } from '../../src/protocol/fields.js';
import { canonicalJson } from '../../src/protocol/identity.js';
import { cutNewestFirst, runsOldestFirst } from '../../src/protocol/rotation.js';
import type { JsonValue } from '../../src/protocol/types.js';
import { cleanup, commitAll, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const policy = policyFor(['recently_done']) as LogPolicy;
const time = (e: JsonValue) => logEntryTime(e, policy);
const multiset = (xs: readonly JsonValue[]) => xs.map((x) => canonicalJson(x)).sort();

// Real-shaped entries: {at, action} (times in a few formats, some equal), bare notes, objects without `at`.
const day = fc.integer({ min: 0, max: 40 }).map((d) => new Date(Date.UTC(2026, 7, 1) + d * 86_400_000));
const entry: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.tuple(day, fc.boolean(), fc.nat(99)).map(([d, ms, n]) => ({ at: ms ? d.toISOString() : d.toISOString().replace('.000Z', 'Z'), action: `did ${n}: src/x${n}.ts (PR ${n})` })),
  fc.nat(99).map((n) => `legacy note ${n}`),
  fc.nat(99).map((n) => ({ action: `no time ${n}`, status: 'shipped' })),
);

describe('cutNewestFirst', () => {
  it('whatever the mix and direction: moves none newer than a kept one, loses nothing, keeps the new entry', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 24 }), fc.boolean(), fc.integer({ min: 1, max: 12 }), (rest, reversed, keep) => {
        const old = reversed ? [...rest].reverse() : rest;
        const all: JsonValue[] = [{ at: '2026-12-01T00:00:00Z', action: 'new' }, ...old];
        const { kept, moved } = cutNewestFirst(all, keep, policy);
        expect(multiset([...kept, ...moved])).toEqual(multiset(all));
        expect(kept[0]).toEqual(all[0]);
        expect(kept).toHaveLength(Math.min(keep, all.length));
        const keptTimes = kept.map(time).filter((t) => t !== undefined);
        const oldestKept = Math.min(...keptTimes);
        for (const m of moved) {
          const t = time(m);
          if (t !== undefined) expect(t).toBeLessThanOrEqual(oldestKept);
        }
        // An untimed entry moves only when no timed one (other than the new) was moved instead.
        if (moved.some((m) => time(m) !== undefined)) expect(kept.slice(1).every((k) => time(k) !== undefined)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('reads the direction from the timed entries: an oldest-first list with a note first moves the note and the oldest', () => {
    const r = (d: number) => ({ at: `2026-11-${String(d + 1).padStart(2, '0')}T09:00:00Z`, action: `r${d}` });
    const old: JsonValue[] = ['legacy note', ...Array.from({ length: 10 }, (_, i) => r(i + 1))];
    const { kept, moved } = cutNewestFirst([{ at: '2026-12-01T00:00:00Z', action: 'new' }, ...old], 10, policy);
    expect(moved).toEqual(['legacy note', r(1)]);
    expect(kept.map((k) => (k as { action: string }).action)).toEqual(['new', ...Array.from({ length: 9 }, (_, i) => `r${i + 2}`)]);
    // newest-first, untimed ones: the last in array order are the oldest
    const nf = cutNewestFirst([{ at: '2026-12-01T00:00:00Z', action: 'new' }, 'a', 'b', 'c'], 3, policy);
    expect(nf.moved).toEqual(['c']);
  });
});

describe('runsOldestFirst and a new entry at the end', () => {
  it('property: a new entry at the end of an oldest-first list always stays, and nothing newer than a kept entry moves', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 24 }), fc.integer({ min: 1, max: 12 }), (old, keep) => {
        const all: JsonValue[] = [...old, { at: '2026-12-01T00:00:00Z', action: 'new' }];
        const { kept, moved, keptAt } = cutNewestFirst(all, keep, policy, old.length);
        expect(multiset([...kept, ...moved])).toEqual(multiset(all));
        expect(keptAt).toContain(old.length);
        expect(kept).toHaveLength(Math.min(keep, all.length));
        const oldestKept = Math.min(...kept.map(time).filter((t) => t !== undefined));
        for (const m of moved) if (time(m) !== undefined) expect(time(m)).toBeLessThanOrEqual(oldestKept);
      }),
      { numRuns: 300 },
    );
  });

  it('reads rising times as oldest-first, falling or untimed ones as newest-first', () => {
    const at = (d: number) => ({ at: `2026-11-0${d}T09:00:00Z`, action: `a${d}` });
    expect(runsOldestFirst([at(1), at(2), 'note', at(3)], policy)).toBe(true);
    expect(runsOldestFirst([at(3), at(2), at(1)], policy)).toBe(false);
    expect(runsOldestFirst(['a', 'b', at(1)], policy)).toBe(false);
    expect(runsOldestFirst([], policy)).toBe(false);
    // Another tool's time key where `at` is left out (the schema allows it) tells the direction too.
    const completed = (d: number) => ({ action: `a${d}`, completed_at: `2026-11-0${d} 09:00` });
    expect(runsOldestFirst([completed(1), completed(2), completed(3)], policy)).toBe(true);
    expect(runsOldestFirst([completed(3), completed(2), completed(1)], policy)).toBe(false);
    expect(runsOldestFirst([{ action: 'x', timestamp: '2026-11-01T00:00:00Z' }, { action: 'y', date: '2026-11-02' }], policy)).toBe(true);
  });

  it('done on a recently_done another tool keeps oldest-first with completed_at: the new entry goes at the end, the oldest moves out past ten (red team, 12-06)', async () => {
    const dir = makeRepo();
    try {
      const log = Array.from({ length: 10 }, (_, i) => ({ action: `old${i}`, completed_at: `2026-11-${String(i + 1).padStart(2, '0')}T09:00:00Z` }));
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ next_actions: ['Ship', 'Tag'], recently_done: log }), null, 2)}\n`);
      expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
      expect(JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')).recently_done.map((e: { action: string }) => e.action)).toEqual([...log.slice(1).map((e) => e.action), 'Ship']);
      const [file] = readdirSync(join(dir, '.checkpoints/history'));
      expect(JSON.parse(read(dir, `.checkpoints/history/${file}`)).entries.recently_done.map((e: { action: string }) => e.action)).toEqual(['old0']);
    } finally {
      cleanup(dir);
    }
  });

  it('checkpoint done appends to a recently_done kept oldest-first and prepends to one kept newest-first', async () => {
    const dir = makeRepo();
    const at = (d: number) => ({ at: `2026-11-0${d}T09:00:00Z`, action: `a${d}` });
    try {
      for (const [log, want] of [[[at(1), at(2)], ['a1', 'a2', 'Ship']], [[at(2), at(1)], ['Ship', 'a2', 'a1']]] as const) {
        write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ next_actions: ['Ship', 'Tag'], recently_done: log }), null, 2)}\n`);
        expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
        expect(JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')).recently_done.map((e: { action: string }) => e.action)).toEqual(want);
      }
    } finally {
      cleanup(dir);
    }
  });
});

describe('checkpoint done on a hand-kept recently_done', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));

  it('["legacy note", r1 … r10] oldest-first: the note and r1 go to history, r2-r10 stay, and the message counts them', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const r = (d: number) => ({ at: `2026-11-${String(d + 1).padStart(2, '0')}T09:00:00Z`, action: `r${d}: src/r${d}.ts (PR ${d})`, score: 8 });
    const doc = checkpointDoc({ next_actions: ['Ship the release notes', 'Tag v2'], recently_done: ['legacy note', ...Array.from({ length: 10 }, (_, i) => r(i + 1))] });
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2).replace(/"score": 8/g, '"score": 8.0')}\n`);
    commitAll(dir, 'hand-kept', '2026-11-12T00:00:00Z');
    const res = await runCli(dir, ['done', 'api']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/moved 2 older recently_done entries/);
    const after = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json'));
    // The new entry goes where the log grows: at the end of one kept oldest-first (12-05; it went in front before, out of order).
    expect(after.recently_done.map((e: { action: string }) => e.action.split(':')[0])).toEqual([...Array.from({ length: 9 }, (_, i) => `r${i + 2}`), 'Ship the release notes']);
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toContain('"score": 8.0');
    const [file] = readdirSync(join(dir, '.checkpoints/history'));
    const history = JSON.parse(read(dir, `.checkpoints/history/${file}`));
    expect(history.entries.recently_done).toEqual(['legacy note', r(1)]);
    expect(read(dir, `.checkpoints/history/${file}`)).toContain('"score": 8.0');
  });
});

describe('done overflow, then restore (red team, 12-04)', () => {
  it('gives back a checkpoint without a skill_state it never had: the pointer done added goes with the object it made', async () => {
    const dir = makeRepo();
    try {
      const ten = Array.from({ length: 10 }, (_, i) => ({ at: `2026-11-${10 + i}T10:00:00Z`, action: `r${i}` })).reverse();
      const doc = checkpointDoc({ next_actions: ['Ship', 'Tag'], recently_done: ten });
      delete (doc as Record<string, unknown>).skill_state;
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
      expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
      expect(JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')).skill_state.rotated_to).toHaveLength(1);
      const [file] = readdirSync(join(dir, '.checkpoints/history'));
      expect((await runCli(dir, ['restore', file!])).code).toBe(0);
      const after = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json'));
      expect(Object.keys(after)).not.toContain('skill_state');
      expect(after.recently_done.map((e: { action: string }) => e.action)).toEqual(['Ship', ...ten.map((e) => e.action)]);
    } finally {
      cleanup(dir);
    }
  });
});

describe('skill_state.rotated_to written by hand as one string (red team, 12-07)', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));
  const OLD = '.checkpoints/history/api.2026-05-01.json';
  const FILE = '.checkpoints/api.checkpoint.json';

  /** A checkpoint kept by hand: ten recently_done entries newest first, four actions queued, the pointer as one path. */
  function handKept(rotatedTo: JsonValue, state: Record<string, JsonValue> = {}): string {
    const dir = makeRepo();
    dirs.push(dir);
    const ten = Array.from({ length: 10 }, (_, i) => ({ at: `2026-11-${String(20 - i).padStart(2, '0')}T09:00:00Z`, action: `r${i}: src/r${i}.ts (PR ${i})` }));
    const doc = checkpointDoc({ next_actions: ['Ship the release notes', 'Tag v2', 'Announce it', 'Close the milestone'], recently_done: ten, skill_state: { rotated_to: rotatedTo, pass_threshold: 8, ...state } });
    write(dir, FILE, `${JSON.stringify(doc, null, 2).replace('"pass_threshold": 8', '"pass_threshold": 8.0')}\n`);
    write(dir, OLD, `${JSON.stringify({ skill: 'api', rotated_at: '2026-05-01T18:00:00Z', entries: { recently_done: [{ at: '2026-04-30T10:00:00Z', action: 'Sketch the schema' }] } }, null, 2)}\n`);
    commitAll(dir, 'kept by hand');
    return dir;
  }

  it('skill_state is the skill\'s own: validate and resume leave a string or a number there alone (red team 61f, 02)', async () => {
    for (const pointer of [OLD, 3]) {
      const dir = handKept(pointer);
      expect((await runCli(dir, ['validate'])).stdout).toMatch(/^✓ /);
      const r = await runCli(dir, ['resume', 'api']);
      // Resumed (a stale checkpoint asks the user first: exit 3), never refused as needing repair (exit 2).
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toContain('RESUMING: api on demo');
    }
  });

  it('done reads it as that one file and writes the list: a day of dones fills one named rotation file, nothing lost', async () => {
    const dir = handKept(OLD);
    const before = JSON.parse(read(dir, FILE)).recently_done;
    for (let i = 0; i < 3; i++) {
      const r = await runCli(dir, ['done', 'api']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
    }
    const files = readdirSync(join(dir, '.checkpoints/history')).sort();
    expect(files).toHaveLength(2);
    const today = files.find((f) => f !== 'api.2026-05-01.json')!;
    const after = JSON.parse(read(dir, FILE));
    expect(after.skill_state.rotated_to).toEqual([OLD, `.checkpoints/history/${today}`]);
    expect(read(dir, FILE)).toContain('"pass_threshold": 8.0');
    const moved = JSON.parse(read(dir, `.checkpoints/history/${today}`)).entries.recently_done;
    // The three oldest went out, in one file, and the ten newest are kept: every record is somewhere.
    expect(multiset([...after.recently_done, ...moved])).toEqual(multiset([...before, ...after.recently_done.slice(0, 3)]));
    expect(moved).toHaveLength(3);
    expect((await runCli(dir, ['validate'])).stdout).toMatch(/^✓ /);
  });

  it('rotate reads it the same way', async () => {
    const dir = handKept(OLD, { run_history: Array.from({ length: 8 }, (_, i) => ({ at: `2026-11-${String(10 + i)}T12:00:00Z`, score: 7, note: `run ${i}` })) });
    const r = await runCli(dir, ['rotate', 'api', '--keep=5']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(dir, FILE)).skill_state.rotated_to).toEqual([OLD, expect.stringMatching(/^\.checkpoints\/history\/api\.\d{4}-\d{2}-\d{2}\.json$/)]);
  });

  it('a pointer no rule reads as paths (a number) is left as it is, and done says the file is not named there', async () => {
    const dir = handKept(5);
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code, r.stderr).toBe(0);
    const [, to] = /moved 1 older recently_done entry \(over 10\) to (\S+)/.exec(r.stdout)!;
    expect(r.stdout).toContain(`not named in skill_state.rotated_to (skill_state.rotated_to must be a list of rotation file paths): fix that (checkpoint validate), then add ${to} to the list`);
    expect(JSON.parse(read(dir, to!)).entries.recently_done).toHaveLength(1);
    expect(JSON.parse(read(dir, FILE)).skill_state.rotated_to).toBe(5);
  });
});
