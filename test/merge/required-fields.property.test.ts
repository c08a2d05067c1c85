// A field every checkpoint needs is never dropped by a merge unless both sides dropped it: one
// side wiping the file, or rewriting it without them, is a conflict at each such field, whatever
// the other side did, and the merge reads the same either way round.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { REQUIRED_FIELDS } from '../../src/protocol/fields.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const without = (doc: JsonObject, drop: readonly string[]): JsonObject => Object.fromEntries(Object.entries(doc).filter(([k]) => !drop.includes(k)));

describe('required fields', () => {
  it('one side dropping some of them (the other keeping or changing them) conflicts at each; both dropping one drops it', () => {
    const base = checkpointDoc({ next_actions: ['Add rate limits (PR 12)'], skill_state: { runs: 3, score: 8 } });
    const scenario = fc.record({
      dropped: fc.subarray([...REQUIRED_FIELDS], { minLength: 1 }),
      alsoByOther: fc.subarray([...REQUIRED_FIELDS]),
      otherEdits: fc.boolean(),
      swap: fc.boolean(),
    });
    fc.assert(
      fc.property(scenario, ({ dropped, alsoByOther, otherEdits, swap }) => {
        const both = dropped.filter((f) => alsoByOther.includes(f));
        const dropper = without(base, dropped);
        const keeper = without({ ...base, ...(otherEdits ? { phase: 'review', updated_at: '2026-12-02T00:00:00Z' } : {}) }, both);
        const [ours, theirs] = swap ? [keeper, dropper] : [dropper, keeper];
        const { value, conflicts } = mergeCheckpointValues(base, ours, theirs);
        const at = new Set(conflicts.map((c) => (c.path.length === 1 ? String(c.path[0]) : '')));
        for (const field of dropped) {
          if (both.includes(field)) expect(Object.hasOwn(value as JsonObject, field), field).toBe(false);
          else expect(at.has(field), field).toBe(true);
        }
        // Symmetric: the same conflicts either way round.
        const other = mergeCheckpointValues(base, theirs, ours);
        expect(new Set(other.conflicts.map((c) => c.display))).toEqual(new Set(conflicts.map((c) => c.display)));
      }),
      { numRuns: 200 },
    );
  });
});
