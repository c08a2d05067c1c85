// Two log records that differ only in a number whose texts read as one double (two runs'
// nanosecond times past 2^53, two underflowing losses 1e-400 and 2e-400) are two records: a merge
// keeps every one either side added, each with its own text, without a conflict, the same either
// way round (red team 12-06: it took them for one record and stopped on a conflict whose
// `resolve --ours` dropped the other branch's run). Files as Python's json.dump(indent=4) writes
// them, every score 8.0.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import { loggedCopies } from '../helpers/log-counts.js';
import { rawItems } from '../helpers/raw-json.js';

// Each pool: texts of different numbers that JavaScript reads as one double.
const NS = ['1733450000123456789', '1733450000123456790', '1733450000123456791', '1733450000123456800'];
const LOSS = ['1e-400', '2e-400', '0.0'];
const AT = ['"2026-12-02T09:00:00Z"', '"2026-12-02T10:00:00Z"', '"2026-12-03T10:00:00Z"'];

interface Run {
  at: string;
  ns: string;
  loss: string;
}
const run = fc.record({ at: fc.constantFrom(...AT), ns: fc.constantFrom(...NS), loss: fc.constantFrom(...LOSS) });

/** A run record as json.dump(indent=4) writes it at depth 3. */
const record = (r: Run) => ['            {', `                "at": ${r.at},`, '                "skill": "api",', `                "ns": ${r.ns},`, `                "loss": ${r.loss},`, '                "score": 8.0', '            }'].join('\n');

const doc = (runs: Run[], updated: string) => `{
    "protocol_version": "1.1",
    "skill": "api",
    "project": "shop",
    "project_dir": "/home/dev/shop",
    "created_at": "2026-10-01T09:00:00Z",
    "updated_at": "${updated}",
    "phase": "build",
    "step": "sprint-2",
    "status": "in_progress",
    "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12)",
    "next_actions": [
        "Finish src/orders.ts (PR 12)"
    ],
    "skill_state": {
        "score": 8.0,
        "run_history": [${runs.length ? `\n${runs.map(record).join(',\n')}\n        ` : ''}]
    }
}`;

const LOG = ['skill_state', 'run_history'];
const counts = (items: readonly string[]) => {
  const map = new Map<string, number>();
  for (const i of items) map.set(i, (map.get(i) ?? 0) + 1);
  return map;
};

describe('log records that differ only in a number one double stands for', () => {
  it('are each kept, with its own text, once per side that added it (as often as the side that added it most; from two sessions\' saves, as often as both added it), the same either way round', () => {
    fc.assert(
      fc.property(
        fc.record({
          base: fc.array(run, { maxLength: 4 }),
          ours: fc.array(run, { maxLength: 3 }),
          theirs: fc.array(run, { maxLength: 3 }),
          // How many of the oldest base records each side rotated out.
          rotated: fc.tuple(fc.nat(2), fc.nat(2)),
          layout: fc.boolean(),
          // One save on both sides (a cherry-pick) or two sessions' saves.
          oneSave: fc.boolean(),
        }),
        (c) => {
          const [ro, rt] = c.rotated.map((n) => Math.min(n, c.base.length)) as [number, number];
          const base = doc(c.base, '2026-11-02T17:45:00Z');
          const ours = doc([...c.base.slice(ro), ...c.ours], '2026-12-03T11:00:00Z');
          const theirs = doc([...c.base.slice(rt), ...c.theirs], c.oneSave ? '2026-12-03T11:00:00Z' : '2026-12-03T12:00:00Z');
          const results = [
            [ours, theirs],
            [theirs, ours],
          ].map(([o, t]) => mergeCheckpointTexts({ base, ours: o!, theirs: t!, fileName: '.checkpoints/api.checkpoint.json', ...(c.layout && { keepLayout: () => formatKeepingLayout }) }));
          for (const r of results) expect(r.status, r.messages.join('\n')).toBe('clean');
          const [a, b] = results.map((r) => rawItems(r.text!, LOG));
          // Symmetric: the same records in the same order whichever side is ours.
          expect(a).toEqual(b);
          // Nothing lost, nothing invented: per record text, base's count less the larger removal,
          // plus the larger addition (one save), or both sides' additions (two sessions' saves,
          // where no record was rotated out, so no addition stands in place of a removed one).
          const [b0, o0, t0] = [base, ours, theirs].map((d) => counts(rawItems(d, LOG)));
          const merged = counts(a!);
          for (const text of new Set([...b0!.keys(), ...o0!.keys(), ...t0!.keys(), ...merged.keys()])) {
            const [nb, no, nt] = [b0!.get(text) ?? 0, o0!.get(text) ?? 0, t0!.get(text) ?? 0];
            const { least, most } = loggedCopies(nb, no, nt, !c.oneSave);
            const n = merged.get(text) ?? 0;
            if (c.oneSave || (ro === 0 && rt === 0)) expect(n, text).toBe(most);
            else expect([least, most, n], text).toSatisfy(([l, m, k]: number[]) => l! <= k! && k! <= m!);
          }
          for (const r of results) expect(r.text).toContain('"score": 8.0,');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the red team case: two branches each log a run whose nanosecond times are one double apart: both runs kept, each exact', () => {
    const one: Run = { at: AT[0]!, ns: '1733450000123456789', loss: '1e-400' };
    const two: Run = { at: AT[0]!, ns: '1733450000123456790', loss: '2e-400' };
    const base = doc([], '2026-11-02T17:45:00Z');
    for (const [o, t] of [
      [one, two],
      [two, one],
    ] as const) {
      const r = mergeCheckpointTexts({ base, ours: doc([o], '2026-12-03T11:00:00Z'), theirs: doc([t], '2026-12-03T12:00:00Z'), fileName: '.checkpoints/api.checkpoint.json', keepLayout: () => formatKeepingLayout });
      expect(r.status, r.messages.join('\n')).toBe('clean');
      expect(rawItems(r.text!, LOG)).toEqual(rawItems(doc([one, two], ''), LOG));
    }
  });

  it('a record one side edited to another number of the same double, beside the other side adding one, keeps the edit in its place', () => {
    const first: Run = { at: AT[0]!, ns: '1733450000123456789', loss: '0.0' };
    const edited: Run = { ...first, ns: '1733450000123456790' };
    const later: Run = { at: AT[2]!, ns: '1733450000123456791', loss: '1e-400' };
    const base = doc([first], '2026-11-02T17:45:00Z');
    const ours = doc([edited], '2026-12-03T11:00:00Z');
    const theirs = doc([first, later], '2026-12-03T12:00:00Z');
    for (const [o, t] of [
      [ours, theirs],
      [theirs, ours],
    ] as const) {
      const r = mergeCheckpointTexts({ base, ours: o, theirs: t, fileName: '.checkpoints/api.checkpoint.json' });
      expect(r.status, r.messages.join('\n')).toBe('clean');
      expect(rawItems(r.text!, LOG)).toEqual(rawItems(doc([edited, later], ''), LOG));
    }
  });
});
