// `update --<list>:json=[...]` replacing a list that held the same numbers (reordered, some
// dropped, some added, typed in JSON's own spelling as an agent or a person copying values
// does): each number keeps the text it had in the file, the k-th of equal numbers the k-th's
// (`[8, 8.0]` given back as `[8, 8]` stays `[8, 8.0]`), never its twin's. The two steps `update`
// runs: applyUpdateOps, then the layout-keeping writer.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import type { JsonObject } from '../../src/protocol/types.js';
import { applyUpdateOps, parseUpdateFlag } from '../../src/protocol/update-ops.js';
import { rawItems } from '../helpers/raw-json.js';

const SPELLINGS = [
  ['8', '8.0', '8.00', '8e0'],
  ['100', '1E2', '1e2', '100.0'],
  ['1e-7', '0.0000001', '1E-7'],
  ['12345678901234567890', '12345678901234567891'],
  ['2.5', '2.50', '25e-1'],
  ['7', '7.0'],
];
const spelled = fc.constantFrom(...SPELLINGS).chain((s) => fc.constantFrom(...s));
const file = (list: string[]) => `{
  "skill": "api",
  "progress_summary": "Weights tuned; see src/rank.ts (PR 12)",
  "skill_state": {
    "score": 8.0,
    "weights": [${list.join(', ')}]
  }
}
`;

function update(text: string, flag: string): string {
  const parsed = parseJson(text);
  const texts = new Map(parsed.texts ?? []);
  const doc = applyUpdateOps(structuredClone(parsed.value) as JsonObject, [parseUpdateFlag(flag)], texts);
  return formatKeepingLayout(text, parsed.value, doc, { ...detectFormat(text), texts }, parsed.texts);
}

describe('update replacing a list of numbers', () => {
  it('gives each number given again the text it had, the k-th of equal numbers the k-th one', () => {
    fc.assert(
      fc.property(fc.array(spelled, { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 }), fc.array(fc.constantFrom(3, 8, 100, 2.5), { maxLength: 3 }), (old, picks, added) => {
        const values = old.map(Number);
        // A random sub-multiset of the old numbers in a random order, and a few numbers more.
        const left = values.map((_, i) => i);
        const chosen = picks.flatMap((p) => (left.length ? left.splice(p % left.length, 1) : [])).map((i) => values[i]!);
        const given = [...chosen, ...added];
        const out = update(file(old), `--skill_state.weights:json=${JSON.stringify(given)}`);
        // What each given number is written as: the text of the equal old number of the same rank
        // among equals; failing that, the old text at its index when equal (the value there did not change); else JSON's.
        const rank = new Map<number, number>();
        const expected = given.map((v, j) => {
          const k = rank.get(v) ?? 0;
          rank.set(v, k + 1);
          const same = old.filter((t) => Number(t) === v);
          if (k < same.length) return same[k]!;
          return old[j] !== undefined && Number(old[j]) === v ? old[j]! : JSON.stringify(v);
        });
        expect(rawItems(out, ['skill_state', 'weights'])).toEqual(expected);
        expect(out).toContain('"score": 8.0,');
      }),
      { numRuns: 500 },
    );
  });

  it('keeps -0 apart from 0 and a typed spelling as typed', () => {
    expect(rawItems(update(file(['-0', '0.0', '8.0']), '--skill_state.weights:json=[8, 0, -0]'), ['skill_state', 'weights'])).toEqual(['8.0', '0.0', '-0']);
    // A spelling typed counts as the first 8: the next is the old second one, the third a new one.
    expect(rawItems(update(file(['8', '8.0']), '--skill_state.weights:json=[8.00, 8, 8]'), ['skill_state', 'weights'])).toEqual(['8.00', '8.0', '8']);
    expect(rawItems(update(file(['3', '2.50']), '--skill_state.weights:json=[8, 8.0, 1e-7, 0.0000001]'), ['skill_state', 'weights'])).toEqual(['8', '8.0', '1e-7', '0.0000001']);
  });
});
