// Lists no field policy names and whose items carry no id (a skill's own checklist, tasks
// without ids, a matrix), changed on both branches: git's own line merge settles edits that
// touch different items, so the driver must too (a driver that conflicts where no driver would is
// worse than none). Edits at the same place still conflict, on the whole list as before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { parseJson } from '../../src/protocol/json.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const FILE = '.checkpoints/api.checkpoint.json';
const doc = (list: JsonValue[]): JsonObject => checkpointDoc({ skill_state: { checklist: list, pass_threshold: 6.0 } });
const listOf = (v: JsonValue): JsonValue[] => ((v as JsonObject).skill_state as JsonObject).checklist as JsonValue[];

type Owner = 'none' | 'ours' | 'theirs';
/** One slot per insertion point and per base item (gap 0, item 0, gap 1, ... gap n): who changes it, and how. */
type Slot = { owner: Owner; how: 'replace' | 'remove' | 'insert' };

/** Owners made separable: between a change of ours and one of theirs stands an item neither touched. */
function separate(slots: Slot[]): Slot[] {
  let last: Owner = 'none';
  return slots.map((slot, k) => {
    const isItem = k % 2 === 1;
    if (slot.owner !== 'none' && last !== 'none' && slot.owner !== last) slot = { ...slot, owner: 'none' };
    if (isItem && slot.owner === 'none') last = 'none';
    else if (slot.owner !== 'none') last = slot.owner;
    return slot;
  });
}

/** The list as `who` leaves it (`both`: every change applied), items new to a side named after it. */
function apply(base: readonly string[], slots: readonly Slot[], who: Owner | 'both'): string[] {
  const out: string[] = [];
  const mine = (s: Slot) => s.owner !== 'none' && (who === 'both' || s.owner === who);
  slots.forEach((slot, k) => {
    const i = k >> 1;
    if (k % 2 === 0) {
      if (mine(slot) && slot.how === 'insert') out.push(`${slot.owner}-new-${i}`);
      return;
    }
    if (!mine(slot) || slot.how === 'insert') out.push(base[i]!);
    else if (slot.how === 'replace') out.push(`[x] ${base[i]} (${slot.owner})`);
  });
  return out;
}

const slot: fc.Arbitrary<Slot> = fc.record({ owner: fc.constantFrom<Owner>('none', 'none', 'ours', 'theirs'), how: fc.constantFrom('replace', 'remove', 'insert') as fc.Arbitrary<Slot['how']> });
const scenario = fc.integer({ min: 1, max: 10 }).chain((n) =>
  fc.array(slot, { minLength: 2 * n + 1, maxLength: 2 * n + 1 }).map((slots) => ({ base: Array.from({ length: n }, (_, i) => `[ ] step ${i} — caf\u00e9`), slots: separate(slots) })),
);

describe('a list without ids changed on both branches', () => {
  it('edits at different items (ticks, removals, insertions) merge, each applied, the same either way round', () => {
    fc.assert(
      fc.property(scenario, ({ base, slots }) => {
        const [b, o, t] = [doc(base), doc(apply(base, slots, 'ours')), doc(apply(base, slots, 'theirs'))];
        const forward = mergeCheckpointValues(b, o, t);
        const backward = mergeCheckpointValues(b, t, o);
        expect(forward.conflicts).toEqual([]);
        expect(listOf(forward.value)).toEqual(apply(base, slots, 'both'));
        expect(backward.value).toEqual(forward.value);
      }),
      { numRuns: 300 },
    );
  });

  it('any edits: clean only where both sides changes stand in the result, the same either way round', () => {
    const word = fc.constantFrom('lint', 'types', 'e2e', 'docs', 'ship', 'lint', '[x] lint');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 6 }), fc.array(word, { maxLength: 6 }), fc.array(word, { maxLength: 6 }), (base, ours, theirs) => {
        const forward = mergeCheckpointValues(doc(base), doc(ours), doc(theirs));
        const backward = mergeCheckpointValues(doc(base), doc(theirs), doc(ours));
        expect(backward.value).toEqual(forward.value);
        expect(backward.conflicts.map((c) => c.display)).toEqual(forward.conflicts.map((c) => c.display));
        if (forward.conflicts.length > 0) return;
        const merged = listOf(forward.value);
        // Nothing a side added is lost: each item a side holds more often than the base is in the merge that often.
        const count = (list: readonly string[] | JsonValue[], x: string) => list.filter((y) => y === x).length;
        for (const side of [ours, theirs]) for (const x of new Set(side)) if (count(side, x) > count(base, x)) expect(count(merged, x)).toBeGreaterThanOrEqual(count(side, x) - count(base, x));
      }),
      { numRuns: 500 },
    );
  });

  it('tasks without ids edited in place on both sides merge inside the task; the same key two ways is a conflict at that key alone', () => {
    const task = (name: string, more: JsonObject = {}): JsonObject => ({ name, done: false, est: 1, ...more });
    const base = [task('Write tests'), task('Docs'), task('Ship')];
    const ours = [task('Write tests', { done: true }), task('Docs', { done: 'partly' }), task('Ship')];
    const theirs = [task('Write tests', { note: 'flaky (PR 12)' }), task('Docs', { done: true }), task('Ship', { owner: 'ana' })];
    const { value, conflicts } = mergeCheckpointValues(doc(base), doc(ours), doc(theirs));
    expect(conflicts.map((c) => c.display)).toEqual(['skill_state.checklist[1].done']);
    expect(listOf(value)[0]).toEqual(task('Write tests', { done: true, note: 'flaky (PR 12)' }));
    expect(listOf(value)[2]).toEqual(task('Ship', { owner: 'ana' }));
  });

  it('two different items added at one place are still one conflict on the whole list', () => {
    const { conflicts } = mergeCheckpointValues(doc(['a', 'b']), doc(['a', 'b', 'c']), doc(['a', 'b', 'd']));
    expect(conflicts.map((c) => c.display)).toEqual(['skill_state.checklist']);
  });

  it('keeps the exact text of every item and number neither side changed (8.0, \\u00e9, 1E3), in the file', () => {
    const text = (checklist: string) => `{\n\t"protocol_version": "1.1", "skill": "api", "project": "Caf\\u00e9", "project_dir": "/p",\n\t"created_at": "2026-06-01T09:00:00Z", "updated_at": "2026-08-02T17:45:00Z",\n\t"phase": "build", "step": "s1", "status": "in_progress", "progress_summary": "x",\n\t"next_actions": ["go"],\n\t"skill_state": {"pass_threshold": 8.0, "checklist": [\n${checklist}\n\t]}\n}`;
    const base = text('\t\t"[ ] lint \\u00e9",\n\t\t[1E3, 2.50],\n\t\t"[ ] e2e",\n\t\t{"w": 8.0, "t": "caf\\u00e9"}');
    const ours = text('\t\t"[x] lint \\u00e9",\n\t\t[1E3, 2.50],\n\t\t"[ ] e2e",\n\t\t{"w": 8.0, "t": "caf\\u00e9"}');
    const theirs = text('\t\t"[ ] lint \\u00e9",\n\t\t[1E3, 2.50],\n\t\t"[ ] e2e",\n\t\t{"w": 8.0, "t": "caf\\u00e9", "ok": true}');
    const r = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE, keepLayout: () => formatKeepingLayout });
    expect(r.status).toBe('clean');
    expect(r.text).toBe(text('\t\t"[x] lint \\u00e9",\n\t\t[1E3, 2.50],\n\t\t"[ ] e2e",\n\t\t{"w": 8.0, "t": "caf\\u00e9", "ok": true}'));
    expect(parseJson(r.text!).value).toBeTruthy();
  });
});
