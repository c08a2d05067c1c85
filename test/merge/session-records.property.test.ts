// Two sessions on two branches that each log a run alike (`{"ok": 1}`) and spend alike: the merge
// keeps both runs, as the cost counter counts both sessions' spend; the same save on both sides
// (a cherry-pick: the same records, the same `updated_at`) is one session, once in the log and
// once in the counter (red team 64 r2: the log kept one run while the counter counted two).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { canonicalJson } from '../../src/protocol/identity.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';

const RUNS: JsonValue[] = [{ ok: 1 }, { ok: 0 }, { ok: 1, at: '2026-12-02T10:00:00Z' }];
const doc = (updated: string, runs: JsonValue[], done: JsonValue[], total: number): JsonObject => ({
  skill: 'api',
  updated_at: updated,
  cost: { total_usd: total },
  recently_done: done,
  context_primer: { key_decisions: ['Auth: passkeys'] },
  skill_state: { run_history: runs },
});
const counts = (list: readonly JsonValue[]) => {
  const out = new Map<string, number>();
  for (const v of list) out.set(canonicalJson(v), (out.get(canonicalJson(v)) ?? 0) + 1);
  return out;
};
const runsOf = (d: JsonValue) => ((d as any).skill_state.run_history ?? []) as JsonValue[];

describe('records two sessions logged alike', () => {
  it('are kept from both sessions as the counter counts both, and once from one save, the same either way round', () => {
    const session = fc.record({ runs: fc.array(fc.constantFrom(...RUNS), { maxLength: 3 }), spent: fc.integer({ min: 0, max: 3 }) });
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...RUNS), { maxLength: 3 }), session, session, fc.boolean(), (start, a, b, oneSave) => {
        // One save on both sides: the same commit picked onto both, its records and spend alike.
        const theirsSide = oneSave ? a : b;
        const base = doc('2026-12-01T12:00:00Z', start, [], 1);
        const ours = doc('2026-12-03T12:00:00Z', [...start, ...a.runs], [], 1 + a.spent);
        const theirs = doc(oneSave ? '2026-12-03T12:00:00Z' : '2026-12-02T12:00:00Z', [...start, ...theirsSide.runs], [], 1 + theirsSide.spent);
        const forward = mergeCheckpointValues(base, ours, theirs);
        const backward = mergeCheckpointValues(base, theirs, ours);
        expect(forward.conflicts).toEqual([]);
        expect(backward.value).toEqual(forward.value);
        const merged = counts(runsOf(forward.value));
        const [cb, co, ct] = [base, ours, theirs].map((d) => counts(runsOf(d)));
        for (const id of new Set([...cb!.keys(), ...co!.keys(), ...ct!.keys()])) {
          const [nb, no, nt] = [cb!.get(id) ?? 0, co!.get(id) ?? 0, ct!.get(id) ?? 0];
          expect(merged.get(id) ?? 0, id).toBe(oneSave ? Math.max(no, nt) : nb + (no - nb) + (nt - nb));
        }
        // The counter agrees: each session's spend once, the picked session's once.
        const total = (forward.value as any).cost.total_usd;
        expect(total).toBe(oneSave ? 1 + a.spent : 1 + a.spent + b.spent);
      }),
      { numRuns: 300 },
    );
  });

  it('a record both sessions edited alike in place is one record; a decision both added alike is one decision', () => {
    const base = doc('2026-12-01T12:00:00Z', [{ ok: 0 }, { ok: 1 }], [], 1);
    const side = (updated: string) => ({ ...doc(updated, [{ ok: 0, note: 'flaky' }, { ok: 1 }], [], 1), context_primer: { key_decisions: ['Auth: passkeys', 'Orders: REST'] } });
    const r = mergeCheckpointValues(base, side('2026-12-03T12:00:00Z'), side('2026-12-02T12:00:00Z'));
    expect(r.conflicts).toEqual([]);
    expect(runsOf(r.value)).toEqual([{ ok: 0, note: 'flaky' }, { ok: 1 }]);
    expect((r.value as any).context_primer.key_decisions).toEqual(['Auth: passkeys', 'Orders: REST']);
  });

  it('the red team case through the driver: base 1 run, each branch one more: three runs and $3', async () => {
    const { mergeCheckpointTexts } = await import('../../src/merge/driver.js');
    const text = (updated: string, runs: number, total: string) =>
      `{\n  "protocol_version": "1.1", "skill": "api", "project": "demo", "project_dir": "/tmp/x",\n  "created_at": "2026-12-01T10:00:00Z", "updated_at": "${updated}",\n  "phase": "build", "step": "orders", "status": "in_progress",\n  "progress_summary": "x", "next_actions": ["Ship it"],\n  "cost": { "total_usd": ${total} },\n  "skill_state": { "run_history": [${Array(runs).fill('{"ok": 1}').join(', ')}] }\n}\n`;
    const r = mergeCheckpointTexts({ base: text('2026-12-01T12:00:00Z', 1, '1.0'), ours: text('2026-12-03T12:00:00Z', 2, '2.0'), theirs: text('2026-12-02T12:00:00Z', 2, '2.0'), fileName: '.checkpoints/api.checkpoint.json' });
    expect(r.status, r.messages.join('\n')).toBe('clean');
    expect(runsOf(JSON.parse(r.text!))).toEqual([{ ok: 1 }, { ok: 1 }, { ok: 1 }]);
    expect(JSON.parse(r.text!).cost.total_usd).toBe(3);
  });
});
