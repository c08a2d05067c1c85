// A log record a branch moved stands where that branch put it (red team rtA 02: a decision moved up
// beside the other branch's append came back in the base's order); one key decision both branches
// rewrote in place, differently, is a conflict at that entry (rtA 03: both contradicting texts were
// kept, the merge clean), which `resolve --ours/--theirs` settles with that side's text.
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { settleConflicts } from '../../src/merge/settle.js';

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

describe('one key decision rewritten in place on both branches (rtA 03)', () => {
  const ours = doc([STACK, 'Auth: passkeys only, no passwords', RATE]);
  const theirs = doc([STACK, 'Auth: passwords + TOTP (passkeys dropped)', RATE, 'Use zod']);
  const base = doc([STACK, 'Auth: passkeys', RATE]);

  it('is a conflict at that entry, the rest merged', () => {
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts.map((c) => [c.display, c.base, c.ours, c.theirs])).toEqual([['context_primer.key_decisions[1]', 'Auth: passkeys', 'Auth: passkeys only, no passwords', 'Auth: passwords + TOTP (passkeys dropped)']]);
    expect(decisions(value)).toHaveLength(4);
    expect(decisions(value)[3]).toBe('Use zod');
  });

  it('settled with a side: that side\'s text in its place, everything else as merged', () => {
    const { value, conflicts } = merge3(base, ours, theirs);
    for (const [side, text] of [['ours', 'Auth: passkeys only, no passwords'], ['theirs', 'Auth: passwords + TOTP (passkeys dropped)']] as const) {
      const settled = settleConflicts(value, conflicts, { [side]: ['context_primer.key_decisions[1]'] });
      expect(settled.conflicts).toEqual([]);
      expect(decisions(settled.value)).toEqual([STACK, text, RATE, 'Use zod']);
    }
  });

  it('as the first entry too (an append never lands in front)', () => {
    const { conflicts } = merge3(doc([STACK, RATE]), doc(['Stack: Hono + Postgres', RATE]), doc(['Stack: Express + D1', RATE]));
    expect(conflicts.map((c) => c.display)).toEqual(['context_primer.key_decisions[0]']);
  });

  it('rewritten alike on both: one entry, no conflict', () => {
    const same = doc([STACK, 'Auth: passkeys only', RATE]);
    const { value, conflicts } = merge3(base, same, structuredClone(same));
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([STACK, 'Auth: passkeys only', RATE]);
  });

  it('rewritten on one branch only: the rewrite, clean', () => {
    const { value, conflicts } = merge3(base, ours, doc([STACK, 'Auth: passkeys', RATE, 'Use zod']));
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([STACK, 'Auth: passkeys only, no passwords', RATE, 'Use zod']);
  });

  it('rewritten on one branch, removed on the other: the rewrite, clean (a log loses no edit)', () => {
    const { value, conflicts } = merge3(base, ours, doc([STACK, RATE]));
    expect(conflicts).toEqual([]);
    expect(decisions(value)).toEqual([STACK, 'Auth: passkeys only, no passwords', RATE]);
  });

  it('different decisions appended on both: both kept, clean', () => {
    const { value, conflicts } = merge3(base, doc([STACK, 'Auth: passkeys', RATE, 'Use zod']), doc([STACK, 'Auth: passkeys', RATE, 'Use valibot']));
    expect(conflicts).toEqual([]);
    expect(decisions(value).slice(0, 3)).toEqual([STACK, 'Auth: passkeys', RATE]);
    expect([...decisions(value).slice(3)].sort()).toEqual(['Use valibot', 'Use zod']);
  });

  it('the last decision removed and another appended on each branch: a removal and two additions, clean', () => {
    const { value, conflicts } = merge3(base, doc([STACK, 'Auth: passkeys', 'Use zod']), doc([STACK, 'Auth: passkeys', 'Use valibot']));
    expect(conflicts).toEqual([]);
    expect([...decisions(value)].sort()).toEqual(['Auth: passkeys', STACK, 'Use valibot', 'Use zod'].sort());
  });

  it('a decision removed and another appended on each branch: clean, both kept', () => {
    const { value, conflicts } = merge3(base, doc([STACK, RATE, 'Use zod']), doc([STACK, RATE, 'Use valibot']));
    expect(conflicts).toEqual([]);
    expect([...decisions(value)].sort()).toEqual([RATE, STACK, 'Use valibot', 'Use zod'].sort());
  });

  it('in a log that is not decisions (user_preferences, run_history) both rewrites are kept, clean', () => {
    const prefs = (p: string[]) => doc(DECISIONS, RUNS, p);
    const { value, conflicts } = merge3(prefs(['tabs', 'terse', 'tests first']), prefs(['tabs', 'verbose', 'tests first']), prefs(['tabs', 'very terse', 'tests first']));
    expect(conflicts).toEqual([]);
    expect((value as any).context_primer.user_preferences).toHaveLength(4);
    const [r1, r2, r3] = RUNS;
    const runs = (r: JsonValue) => doc(DECISIONS, [r1!, r, r3!]);
    const merged = merge3(runs(r2!), runs({ ...r2!, ok: false }), runs({ ...r2!, note: 'flaky' }));
    expect(merged.conflicts).toEqual([]);
    expect((merged.value as any).skill_state.run_history).toHaveLength(4);
  });
});
