// Logs whose records one branch moves while the other rewrites in place, removes, inserts and
// appends (the shapes the move rule opens, red team rtA 02): the branch's moves stand beside the
// other branch's edits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/identity.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';

type Op = { kind: 'move'; from: number; to: number } | { kind: 'replace' | 'insert'; at: number; text: string } | { kind: 'remove'; at: number } | { kind: 'append'; text: string };

// A small pool, so both branches often write the same text, and base records repeat.
const text = fc.constantFrom('Stack: Hono', 'Use passkeys', 'Rate limit', 'No plaintext', 'Use zod', 'Use D1', 'Tabs');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(fc.nat(), fc.nat()).map(([from, to]): Op => ({ kind: 'move', from, to })),
  fc.tuple(fc.nat(), text).map(([at, t]): Op => ({ kind: 'replace', at, text: t })),
  fc.tuple(fc.nat(), text).map(([at, t]): Op => ({ kind: 'insert', at, text: t })),
  fc.nat().map((at): Op => ({ kind: 'remove', at })),
  text.map((t): Op => ({ kind: 'append', text: t })),
);

function apply<T>(list: readonly T[], ops: readonly Op[], make: (text: string) => T): T[] {
  const out = [...list];
  for (const o of ops) {
    if (o.kind === 'append') out.push(make(o.text));
    else if (o.kind === 'insert') out.splice(o.at % (out.length + 1), 0, make(o.text));
    else if (out.length === 0) continue;
    else if (o.kind === 'remove') out.splice(o.at % out.length, 1);
    else if (o.kind !== 'move') out[o.at % out.length] = make(o.text);
    else {
      const [moved] = out.splice(o.from % out.length, 1);
      out.splice(o.to % (out.length + 1), 0, moved!);
    }
  }
  return out;
}

// A timed telemetry log too: each text stands for a run at its own time.
const run = (t: string): JsonValue => ({ at: `2026-03-01T${String(10 + t.length).padStart(2, '0')}:00:00Z`, what: t });
const LOGS = { decisions: ['context_primer', 'key_decisions'], preferences: ['context_primer', 'user_preferences'], runs: ['skill_state', 'run_history'] } as const;

const doc = (decisions: string[], preferences: string[], runs: JsonValue[]): JsonObject => ({
  skill: 'api',
  updated_at: '2026-03-01T12:00:00Z',
  context_primer: { key_decisions: decisions, user_preferences: preferences },
  skill_state: { run_history: runs },
});

const at = (value: JsonValue, path: readonly string[]): JsonValue[] => path.reduce<any>((v, k) => v?.[k], value) ?? [];

describe('logs moved on one branch, edited on the other', () => {
  it("one branch's moves stand beside anything the other did but move: the records both kept stand in the mover's order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(text, { minLength: 2, maxLength: 7 }),
        fc.array(
          fc.tuple(fc.nat(), fc.nat()).map(([from, to]): Op => ({ kind: 'move', from, to })),
          { minLength: 1, maxLength: 3 },
        ),
        fc.array(
          op.filter((o) => o.kind !== 'move'),
          { maxLength: 4 },
        ),
        (start, moves, edits) => {
          // The other branch's new texts are its own, so a record both hold is one the base had.
          const mine = apply(start, moves, String);
          const other = apply(start, edits, (t) => `new: ${t}`);
          for (const [log, make] of [[LOGS.decisions, String], [LOGS.runs, run]] as const) {
            const put = (list: string[]) => (log === LOGS.decisions ? doc(list, [], []) : doc([], [], list.map(make)));
            for (const [o, t] of [[mine, other], [other, mine]]) {
              const r = mergeCheckpointValues(put(start), put(o!), put(t!));
              expect(r.conflicts).toEqual([]);
              const keptByBoth = new Set(start.filter((x) => mine.includes(x) && other.includes(x)).map((x) => canonicalJson(make(x))));
              const order = (list: JsonValue[]) => list.map((v) => canonicalJson(v)).filter((k) => keptByBoth.has(k));
              expect(order(at(r.value, log))).toEqual(order(mine.map(make)));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
