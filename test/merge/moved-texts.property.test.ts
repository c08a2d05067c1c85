// The merge driver rewrites arrays whose items move (a log both sides appended to, a queue one
// side reordered): every item keeps the exact text its side wrote it with, however often equal
// items repeat in other spellings (8.0 and 8, 1e-7 and 0.0000001, 1E2 and 100). Texts are keyed
// by where a value stands; a repeat is keyed by its order among its equals, so it never takes
// its twin's text. Both ways round, in ours' hand-kept layout and in formatJson's.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import { rawItems } from '../helpers/raw-json.js';
import { HAND_WRITTEN_HEAD } from '../helpers/fixtures.js';

const SPELLINGS = [
  ['8', '8.0', '8.00', '8e0'],
  ['0', '-0', '0.0'],
  ['100', '1E2', '1e2', '100.0'],
  ['1e-7', '0.0000001', '1E-7'],
  ['12345678901234567890', '12345678901234567891'],
  ['2.5', '2.50'],
];
const num = fc.constantFrom(...SPELLINGS).chain((s) => fc.constantFrom(...s));
const runAt = fc.constantFrom('"2026-11-01T10:00:00Z"', '"2026-11-01T11:00:00Z"');
/** A run entry as a side writes it; `by` keeps one side's additions apart from the other's. */
const run = (by: string) =>
  fc.oneof(
    fc.tuple(runAt, num, num).map(([at, score, cost]) => `{"at": ${at}, "by": "${by}", "score": ${score}, "cost_usd": ${cost}, "note": "src/orders.ts (PR 12)"}`),
    fc.tuple(runAt, num, num).map(([at, a, b]) => `{"at": ${at}, "by": "${by}", "weights": [${a}, ${b}, ${a}]}`),
  );
// The queue merge tells actions apart by value, -0 the same as 0 (identity.ts): a reorder of two
// actions alike but for a zero's sign is no reorder to it, so the queue's numbers leave zero out.
const nonZero = fc.constantFrom(...SPELLINGS.filter((s) => s[0] !== '0')).chain((s) => fc.constantFrom(...s));
const action = fc.oneof(
  fc.constantFrom('"Finish src/orders.ts (PR 12)"', '"Run evaluator on src/**/*.ts"'),
  fc.tuple(nonZero, nonZero).map(([h, r]) => `{"text": "Wire src/orders.ts (PR 12)", "estimate_h": ${h}, "risk": ${r}}`),
);

const doc = (c: { phase: string; actions: string[]; runs: string[]; multiline: boolean }) => {
  const list = (items: string[], pad: string) => (c.multiline ? `[\n${items.map((i) => `${pad}  ${i}`).join(',\n')}\n${pad}]` : `[${items.join(', ')}]`);
  return `{
${HAND_WRITTEN_HEAD}  "phase": "${c.phase}",
  "step": "sprint-2",
  "status": "in_progress",
  "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12)",
  "next_actions": ${list(c.actions, '  ')},
  "skill_state": {
    "score": 8.0,
    "run_history": ${list(c.runs, '    ')}
  }
}
`;
};

const sorted = (xs: readonly string[]) => [...xs].sort();
const LOG = ['skill_state', 'run_history'];

describe('the merge keeps the text of every item it moves', () => {
  it('both sides append to a log of repeats spelled differently, one side reorders the queue: each item as its side wrote it', () => {
    fc.assert(
      fc.property(
        fc.record({
          base: fc.array(run('base'), { maxLength: 6 }),
          ours: fc.array(run('ours'), { minLength: 1, maxLength: 3 }),
          theirs: fc.array(run('theirs'), { minLength: 1, maxLength: 3 }),
          actions: fc.array(action, { minLength: 2, maxLength: 5 }),
          order: fc.array(fc.nat(), { maxLength: 5 }),
          multiline: fc.boolean(),
          layout: fc.boolean(),
        }),
        (c) => {
          const left = [...c.actions];
          const reordered = [...c.order.flatMap((p) => (left.length ? left.splice(p % left.length, 1) : [])), ...left];
          const base = doc({ phase: 'build', actions: c.actions, runs: c.base, multiline: c.multiline });
          const ours = doc({ phase: 'build', actions: reordered, runs: [...c.base, ...c.ours], multiline: c.multiline });
          const theirs = doc({ phase: 'audit', actions: c.actions, runs: [...c.base, ...c.theirs], multiline: c.multiline });
          for (const [o, t] of [[ours, theirs], [theirs, ours]] as const) {
            const r = mergeCheckpointTexts({ base, ours: o, theirs: t, fileName: '.checkpoints/api.checkpoint.json', ...(c.layout && { keepLayout: () => formatKeepingLayout }) });
            expect(r.status, r.messages.join('\n')).toBe('clean');
            expect(sorted(rawItems(r.text!, LOG))).toEqual(sorted(rawItems(base, LOG).concat(rawItems(ours, LOG).slice(c.base.length), rawItems(theirs, LOG).slice(c.base.length))));
            expect(rawItems(r.text!, ['next_actions'])).toEqual(rawItems(ours, ['next_actions']));
            expect(r.text).toContain('"score": 8.0');
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
