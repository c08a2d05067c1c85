// A value a command moves keeps the exact text it was written with, wherever it lands (s13 B):
// `rotate` moves log entries into .checkpoints/history/, `restore` moves them back, `done` moves
// next_actions[0] into recently_done and recently_done's overflow into history/. Numbers are
// written as people and other tools write them (8.0, 8.00, -0, 1E2, 1e-7, 0.0000001, 20-digit
// ids), strings with escapes a Python agent writes (`\u00e9`), and equal values are often written
// two ways in one list: literal texts are keyed by where a value stands, so a duplicate must not
// take its twin's text. Each entry's text (blanks outside strings aside) is compared byte for
// byte. Real git repositories, the CLI's own code path.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { HAND_WRITTEN_HEAD } from '../helpers/fixtures.js';
import { rawItems } from '../helpers/raw-json.js';
import { makeRepo, read, write } from '../helpers/repo.js';
import { policyFor, type LogPolicy } from '../../src/protocol/fields.js';
import { runsOldestFirst } from '../../src/protocol/rotation.js';
import type { JsonValue } from '../../src/protocol/types.js';

const CP = '.checkpoints/api.checkpoint.json';
const LOG = ['skill_state', 'run_history'];

// One value, several spellings: most of them texts JSON.stringify would not write back.
const SPELLINGS = [
  ['8', '8.0', '8.00', '8e0', '0.8e1'],
  ['0', '-0', '0.0', '-0.0'],
  ['100', '1E2', '1e2', '1e+2', '100.0'],
  ['1e-7', '0.0000001', '1E-7'],
  ['12345678901234567890', '12345678901234567891', '1.2345678901234567e19'],
  ['2.5', '2.50', '25e-1'],
];
const num = fc.constantFrom(...SPELLINGS).chain((s) => fc.constantFrom(...s));
const note = fc.constantFrom('"src/orders.ts (PR 12)"', '"Caf\\u00e9 page, docs/**/*.md"', '"see src/x.ts (PR 12)"');
// Few distinct times, so equal entries (and equal times) are common.
const runAt = fc.constantFrom('"2026-11-01T10:00:00Z"', '"2026-11-01T11:00:00Z"', '"2026-11-02T09:30:00Z"');
const run = fc.oneof(
  fc.tuple(runAt, num, num, note).map(([at, score, cost, n]) => `{"at": ${at}, "score": ${score}, "cost_usd": ${cost}, "note": ${n}}`),
  num,
  fc.tuple(runAt, num, num).map(([at, a, b]) => `{"at": ${at}, "weights": [${a}, ${b}]}`),
);
const action = fc.oneof(
  fc.constantFrom('"Finish src/orders.ts (PR 12)"', '"Run evaluator on src/**/*.ts"'),
  fc.tuple(num, num).map(([h, r]) => `{"text": "Wire the handler in src/orders.ts (PR 12)", "estimate_h": ${h}, "risk": ${r}, "done_when": "npm test"}`),
  fc.tuple(note, num, num).map(([t, a, b]) => `{"text": ${t}, "effort": [${a}, ${b}, ${a}]}`),
);
const doneAt = fc.constantFrom('"2026-10-30T09:00:00Z"', '"2026-10-31T09:00:00Z"');
const recentlyDone = fc.tuple(doneAt, num).map(([at, h]) => `{"at": ${at}, "action": "Sketch the schema (PR 9)", "estimate_h": ${h}}`);

const doc = (c: { runs: string[]; actions: string[]; done: string[]; status: string }) => `{
${HAND_WRITTEN_HEAD}  "phase": "build",
  "step": "sprint-2",
  "status": "${c.status}",
  "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12) and docs/**/*.md",
  "next_actions": [
${c.actions.map((a) => `    ${a}`).join(',\n')}
  ],
  "recently_done": [${c.done.join(', ')}],
  "skill_state": {
    "score": 8.0,
    "run_history": [
${c.runs.map((r) => `      ${r}`).join(',\n')}
    ]
  }
}
`;
const checkpoint = fc.record({
  runs: fc.array(run, { minLength: 1, maxLength: 9 }),
  actions: fc.array(action, { minLength: 2, maxLength: 4 }),
  done: fc.array(recentlyDone, { maxLength: 11 }),
  // A status outside the enum, as a person writes it: an error the file already has, which the writes leave.
  status: fc.constantFrom('in_progress', 'In progress'),
});

const sorted = (xs: readonly string[]) => [...xs].sort();
const historyFiles = (dir: string): string[] => {
  try {
    return readdirSync(join(dir, '.checkpoints/history')).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
};
const archived = (dir: string, log: string): string[] => historyFiles(dir).flatMap((f) => rawItems(read(dir, `.checkpoints/history/${f}`), ['entries', log]));

/** The recently_done entry `done` makes of an action (its source text): `{at, action}` and the action's other fields, each as written. */
function doneEntry(actionText: string, at: string): string {
  if (actionText.startsWith('"')) return `{"at":${at},"action":${actionText}}`;
  return `{"at":${at},${actionText.slice(1).replace(/^"text":/, '"action":')}`;
}

describe('a moved value keeps its exact text', () => {
  it('rotate then restore: every log entry is written as it was, in the checkpoint, in history/ and back', async () => {
    await fc.assert(
      fc.asyncProperty(checkpoint, fc.nat(3), async (c, keep) => {
        const dir = makeRepo();
        const text = doc(c);
        write(dir, CP, text);
        const original = rawItems(text, LOG);
        const rotated = await runCli(dir, ['rotate', 'api', `--keep=${keep}`]);
        expect(rotated.code, rotated.stderr).toBe(0);
        const [file, ...more] = historyFiles(dir);
        if (original.length <= keep) return void expect(file).toBeUndefined();
        expect(more).toEqual([]);
        // The size said is the size written.
        expect(rotated.stdout).toContain(`→ ${Buffer.byteLength(read(dir, CP))} bytes`);
        const live = rawItems(read(dir, CP), LOG);
        const out = archived(dir, 'skill_state.run_history');
        expect(live.length).toBe(keep);
        expect(sorted([...live, ...out])).toEqual(sorted(original));
        const restored = await runCli(dir, ['restore', file!]);
        expect(restored.code, restored.stderr).toBe(0);
        expect(sorted(rawItems(read(dir, CP), LOG))).toEqual(sorted(original));
        // What stayed put stayed byte for byte.
        expect(read(dir, CP).split('"run_history"')[0]).toBe(text.split('"run_history"')[0]);
      }),
      {
        numRuns: 60,
        // A timed record twice in the log, one copy kept and one moved: restore gave back none of
        // it (a full run of 12-06 found it; stop 49 had counted any live timed twin as restored).
        examples: [[{ runs: ['{"at": "2026-11-01T11:00:00Z", "weights": [100, 1e-7]}', '{"at": "2026-11-01T11:00:00Z", "weights": [100, 1e-7]}'], actions: ['{"text": "src/orders.ts (PR 12)", "effort": [8, 8, 8]}', '"Finish src/orders.ts (PR 12)"'], done: [], status: 'in_progress' }, 1]],
      },
    );
  });

  it('done: the action lands in recently_done as written, the rest of each list as it was, the overflow in history/ as it was', async () => {
    await fc.assert(
      fc.asyncProperty(checkpoint, async (c) => {
        const dir = makeRepo();
        const text = doc(c);
        write(dir, CP, text);
        const [first, ...rest] = rawItems(text, ['next_actions']);
        const r = await runCli(dir, ['done', 'api']);
        expect(r.code, r.stderr).toBe(0);
        const after = read(dir, CP);
        expect(rawItems(after, ['next_actions'])).toEqual(rest);
        // In front of the log, or at its end when the entries' times rise (kept oldest-first).
        const items = rawItems(after, ['recently_done']);
        const oldestFirst = runsOldestFirst(JSON.parse(`[${c.done.join(', ')}]`) as JsonValue[], policyFor(['recently_done']) as LogPolicy);
        const [entry, kept] = oldestFirst ? [items[items.length - 1], items.slice(0, -1)] : [items[0], items.slice(1)];
        const at = /^\{"at":("[^"]+")/.exec(entry!)![1]!;
        expect(entry).toBe(doneEntry(first!, at));
        expect(kept.length).toBe(Math.min(c.done.length, 9));
        expect(sorted([...kept, ...archived(dir, 'recently_done')])).toEqual(sorted(rawItems(text, ['recently_done'])));
        expect(rawItems(after, LOG)).toEqual(rawItems(text, LOG));
      }),
      { numRuns: 60 },
    );
  });
});
