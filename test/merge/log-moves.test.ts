// A log record a branch moved stands where that branch put it (red team rtA 02: a decision moved up
// beside the other branch's append came back in the base's order).
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';

const DECISIONS = ['Stack: Hono + D1', 'Use passkeys', 'Rate limit via KV', 'NEVER store plaintext tokens'];
const RUNS = [
  { id: 'r1', at: '2026-03-01T09:00:00Z', ok: true },
  { id: 'r2', at: '2026-03-01T10:00:00Z', ok: true },
  { id: 'r3', at: '2026-03-01T11:00:00Z', ok: false },
];

const doc = (decisions: string[], runs: JsonValue[] = RUNS, preferences: string[] = []): JsonObject => ({
  skill: 'api',
  updated_at: '2026-03-01T12:00:00Z',
  context_primer: { key_decisions: decisions, user_preferences: preferences },
  skill_state: { run_history: runs },
});

/** Both ways round: the same value, the same conflicts with the sides swapped. */
function merge3(base: JsonObject, ours: JsonObject, theirs: JsonObject) {
  const forward = mergeCheckpointValues(base, ours, theirs);
  const backward = mergeCheckpointValues(base, theirs, ours);
  expect(backward.value).toEqual(forward.value);
  expect(backward.conflicts.map((c) => [c.display, c.base, c.theirs, c.ours])).toEqual(forward.conflicts.map((c) => [c.display, c.base, c.ours, c.theirs]));
  return forward;
}

const decisions = (v: JsonValue) => (v as any).context_primer.key_decisions as string[];
const [STACK, PASSKEYS, RATE, NEVER] = DECISIONS as [string, string, string, string];

describe('a log record one branch moved', () => {
  it('stands where that branch put it, beside the other branch appending (rtA 02)', () => {
    const moved = doc([STACK, NEVER, PASSKEYS, RATE]);
    const appended = doc([...DECISIONS, 'Use zod for validation']);
    const { value, conflicts } = merge3(doc(DECISIONS), moved, appended);
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([STACK, NEVER, PASSKEYS, RATE, 'Use zod for validation']);
  });

  it('stands where that branch put it, beside the other branch editing another record in place', () => {
    const moved = doc([NEVER, STACK, PASSKEYS, RATE]);
    const edited = doc([STACK, PASSKEYS, 'Rate limit via KV (100/min)', NEVER]);
    const { value, conflicts } = merge3(doc(DECISIONS), moved, edited);
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([NEVER, STACK, PASSKEYS, 'Rate limit via KV (100/min)']);
  });

  it('two records each branch moved: both moves stand', () => {
    const { value, conflicts } = merge3(doc(DECISIONS), doc([STACK, NEVER, PASSKEYS, RATE]), doc([RATE, STACK, PASSKEYS, NEVER]));
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([RATE, STACK, NEVER, PASSKEYS]);
  });

  it('one record both branches moved to different places: once, at the earlier of the two, as the queue keeps an action both moved', () => {
    const { value, conflicts } = merge3(doc(DECISIONS), doc([STACK, NEVER, PASSKEYS, RATE]), doc([NEVER, STACK, PASSKEYS, RATE]));
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([NEVER, STACK, PASSKEYS, RATE]);
  });

  it('is gone where the other branch removed it: a move is no edit', () => {
    const { value } = merge3(doc(DECISIONS), doc([STACK, NEVER, PASSKEYS, RATE]), doc([STACK, PASSKEYS, RATE, 'Use zod']));
    expect(decisions(value)).toEqual([STACK, PASSKEYS, RATE, 'Use zod']);
  });

  it('in a timed telemetry log too: a run moved back into place stands there beside a run logged on the other branch', () => {
    const [r1, r2, r3] = RUNS;
    const r4 = { id: 'r4', at: '2026-03-01T13:00:00Z', ok: true };
    const { value, conflicts } = merge3(doc(DECISIONS), doc(DECISIONS, [r1!, r3!, r2!]), doc(DECISIONS, [...RUNS, r4]));
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.run_history).toEqual([r1, r3, r2, r4]);
  });
});
