// introducedErrors skips, in the shape check of a merged file, every member it shares (an equal
// scalar, or the very same object or array, at the same path) with a side: that subtree's errors are the side's, which
// the merge discounts anyway. Held here to the plain rule it must equal: every error of the whole
// merged file that no side has (at its path, or in the same list item at another index). Merged files are made the way the merge makes them: members and
// items taken whole from either side (shared), copied, moved to another index, or replaced.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fileErrors, introducedErrors, notAlreadyIn } from '../../src/protocol/file-validation.js';
import type { JsonValue } from '../../src/protocol/types.js';
import { ROOT } from '../helpers/repo.js';

const corpus = (dir: string): JsonValue[] =>
  readdirSync(join(ROOT, 'test/fixtures/corpus', dir))
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(ROOT, 'test/fixtures/corpus', dir, f), 'utf8')) as JsonValue);
const docs = [...corpus('valid'), ...corpus('invalid'), ...corpus('validator-only')];

const isContainer = (v: JsonValue | undefined): v is JsonValue[] | { [k: string]: JsonValue } => typeof v === 'object' && v !== null;

/** A merged value from `a` and `b`, steered by `pick` (one choice a call); shares subtrees with them. */
function mix(a: JsonValue | undefined, b: JsonValue | undefined, pick: () => number, odd: () => JsonValue, depth = 0): JsonValue {
  const either = a ?? b ?? null;
  switch (pick() % 7) {
    case 0:
      return either;
    case 1:
      return b ?? either;
    case 2:
      return structuredClone(either);
    case 3:
      return odd();
    default:
      if (depth > 6) return either;
      if (Array.isArray(a) || Array.isArray(b)) {
        const left = Array.isArray(a) ? a : [];
        const right = Array.isArray(b) ? b : [];
        // Items from both, some shifted to another index (a shared item at a new path is checked).
        const out: JsonValue[] = [];
        const n = (pick() % (left.length + right.length + 2)) + 0;
        for (let i = 0; i < n; i++) {
          const from = pick() % 2 ? left : right;
          const at = pick() % 3 === 0 ? (i + 1) % Math.max(1, from.length) : i;
          out.push(mix(from[at], undefined, pick, odd, depth + 1));
        }
        return out;
      }
      if (isContainer(a) || isContainer(b)) {
        const left = isContainer(a) && !Array.isArray(a) ? a : {};
        const right = isContainer(b) && !Array.isArray(b) ? b : {};
        const out: { [k: string]: JsonValue } = {};
        for (const k of new Set([...Object.keys(left), ...Object.keys(right)])) {
          if (pick() % 9 === 0) continue;
          out[k] = mix(left[k], right[k], pick, odd, depth + 1);
        }
        return out;
      }
      return either;
  }
}

const odd = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom<JsonValue>('', ' ', '2026-11-30T10:00:00Z', '2026-02-30T10:00:00Z', 'in_progress', 'blocked', 'src/x.ts (PR 12)', -1, 0, 8.0, null, [], {}, [{}], { id: '' }),
);

describe('introducedErrors', () => {
  it('is every error of the whole merged file that no side has, however the sides share its subtrees', () => {
    const cases = fc.tuple(
      fc.integer({ min: 0, max: docs.length - 1 }),
      fc.integer({ min: 0, max: docs.length - 1 }),
      fc.array(fc.nat(), { minLength: 64, maxLength: 400 }),
      fc.array(odd, { minLength: 1, maxLength: 8 }),
      fc.constantFrom('demo.checkpoint.json', undefined),
    );
    fc.assert(
      fc.property(cases, ([i, j, choices, odds, name]) => {
        const [ours, theirs] = [docs[i]!, docs[j]!];
        let c = 0;
        let o = 0;
        const merged = mix(ours, theirs, () => choices[c++ % choices.length]!, () => structuredClone(odds[o++ % odds.length]!) as JsonValue);
        const sides = [
          { value: ours, text: JSON.stringify(ours) },
          { value: theirs, text: JSON.stringify(theirs) },
        ];
        const file = { value: merged, text: JSON.stringify(merged) };
        const whole = notAlreadyIn(name, fileErrors(name, file), sides, merged);
        expect(introducedErrors(name, file, sides)).toEqual(whole);
      }),
      { numRuns: 500 },
    );
  });

  it('an item moved to a new index keeps its own errors (the side\'s); a changed copy brings new ones', () => {
    // The shared-subtree skip never checks an item at a path a side did not have it at: the
    // plain rule then matches its errors by the item (notAlreadyIn), not by the index.
    const ours = docs.find((d) => isContainer(d) && !Array.isArray(d) && Array.isArray(d.eval_scores) && d.eval_scores.length > 0) as { [k: string]: JsonValue };
    const bad = { rubric: '', score: 'high', max: 10 };
    const side = { ...ours, eval_scores: [bad] };
    const moved = { ...ours, eval_scores: [{ rubric: 'r', score: 1, max: 10 }, bad] };
    expect(introducedErrors('demo.checkpoint.json', { value: moved, text: '' }, [{ value: side, text: '' }])).toEqual([]);
    const changed = { ...ours, eval_scores: [{ rubric: 'r', score: 1, max: 10 }, { ...bad, max: 11 }] };
    const errors = introducedErrors('demo.checkpoint.json', { value: changed, text: '' }, [{ value: side, text: '' }]);
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(['eval_scores[1].rubric', 'eval_scores[1].score']));
  });
});
