// Rows both sides add under an id the table repeats (a hand-written progress_table writes "s1"
// for a phase and for its redo): a row added alike on both sides is one row, and settling the
// conflicts beside it with either side neither drops that side's rows nor doubles any.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/identity.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { settleConflicts } from '../../src/merge/settle.js';

type Row = { id: string; label: string; status: string };
const row = fc.record({ id: fc.constantFrom('s1', 's2'), label: fc.constantFrom('Sprint 1', 'redo', 'again'), status: fc.constantFrom('complete', 'in_progress') });
/** A side as parsed from its file: no row object shared with another side or row. */
const table = (rows: Row[]): JsonObject => JSON.parse(JSON.stringify({ progress_table: rows }));
/** `base` with `added` put in at the given places. */
const withAdded = (base: Row[], added: [number, Row][]) => {
  const rows = base.slice();
  for (const [at, r] of added) rows.splice(at % (rows.length + 1), 0, r);
  return rows;
};

const counts = (rows: readonly JsonValue[]) => {
  const out = new Map<string, number>();
  for (const r of rows) out.set(canonicalJson(r), (out.get(canonicalJson(r)) ?? 0) + 1);
  return out;
};

function settled(base: Row[], ours: Row[], theirs: Row[], side: 'ours' | 'theirs'): JsonValue[] {
  const merged = mergeCheckpointValues(table(base), table(ours), table(theirs));
  return (settleConflicts(merged.value, merged.conflicts, { [side]: ['progress_table'] }).value as JsonObject).progress_table as JsonValue[];
}

describe('rows added under a repeated id', () => {
  it('a row both sides added is there once beside their other rows: no copy twice after --ours', () => {
    const A = { id: 's1', label: 'redo', status: 'complete' };
    const B = { id: 's1', label: 'again', status: 'in_progress' };
    const base = [{ id: 's1', label: 'Sprint 1', status: 'complete' }];
    for (const side of ['ours', 'theirs'] as const) {
      const rows = settled(base, [...base, A], [...base, B, A], side);
      expect(rows.filter((r) => canonicalJson(r) === canonicalJson(A))).toHaveLength(1);
      expect(rows).toContainEqual(B);
    }
  });

  it('settled with either side: every row that side added is kept, none more often than a side wrote it', () => {
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), row), { maxLength: 4 }),
        fc.array(fc.tuple(fc.nat(), row), { maxLength: 4 }),
        fc.constantFrom('ours' as const, 'theirs' as const),
        (base, oursAdded, theirsAdded, side) => {
          const ours = withAdded(base, oursAdded);
          const theirs = withAdded(base, theirsAdded);
          const rows = settled(base, ours, theirs, side);
          // Symmetric: taking theirs with the sides swapped is taking ours.
          expect(settled(base, theirs, ours, side === 'ours' ? 'theirs' : 'ours')).toEqual(rows);
          const [b, o, t, r] = [counts(base), counts(ours), counts(theirs), counts(rows)];
          const chosen = side === 'ours' ? o : t;
          for (const [text, n] of chosen) expect(r.get(text) ?? 0, text).toBeGreaterThanOrEqual(n);
          for (const [text, n] of r) expect(n, text).toBeLessThanOrEqual(Math.max(o.get(text) ?? 0, t.get(text) ?? 0, b.get(text) ?? 0));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
