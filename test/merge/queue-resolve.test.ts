// `resolve --ours/--theirs` on a next_actions conflict settles the actions the sides contest, no
// more: what the merge settled around them (an action done with `checkpoint done`, a pop, an
// action appended) stays as merged. Red team rt51a 11: the conflict's run also held the `done`
// of the action before the one both sides reworded, so taking one side brought the action done
// back; or the whole queue was the conflict, and taking one side dropped what the other queued.
// Settled as resolve does it: the driver's markers merged again, with git's stages for what each
// side logged done.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import type { JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointTexts, type MergeTextsResult } from '../../src/merge/driver.js';
import { mergeMarkedText } from '../../src/merge/settle-markers.js';
import { parseMarkedText } from '../../src/merge/markers.js';

const fileName = '.checkpoints/api.checkpoint.json';
const T0 = Date.parse('2026-11-30T10:00:00Z');
type Side = { queue: JsonValue[]; done?: string[] };

// Messy, as real ones are: a note and a glob in a path list, a score written 8.0.
const doc = ({ queue, done = [] }: Side, hour: number) =>
  formatJson({
    protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-11-01T09:00:00Z', updated_at: new Date(T0 + hour * 3600_000).toISOString(),
    phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'auth under way',
    context_primer: { key_decisions: [], generated_files: ['src/auth.ts (PR 12)', 'docs/**/*.md'] }, skill_state: { score: 8.5 },
    next_actions: queue, recently_done: done.map((action, k) => ({ at: new Date(T0 + hour * 3600_000 - k * 60_000).toISOString(), action })),
  } as JsonValue).replace('"score": 8.5', '"score": 8.0');
const queueOf = (text: string) => (parseJson(text).value as { next_actions: JsonValue[] }).next_actions;

/** The merge of base, ours (saved first) and theirs, and each side's queue after `resolve --ours/--theirs` of every queue conflict. */
function resolved(base: JsonValue[], ours: Side, theirs: Side, hours: [number, number] = [1, 2]): { merge: MergeTextsResult; ours: JsonValue[]; theirs: JsonValue[] } {
  const staged = { base: doc({ queue: base }, 0), ours: doc(ours, hours[0]), theirs: doc(theirs, hours[1]) };
  const merge = mergeCheckpointTexts({ ...staged, fileName });
  const queue = merge.conflicts.filter((c) => c.display.startsWith('next_actions')).map((c) => c.display);
  expect(queue.length, JSON.stringify({ base, ours, theirs })).toBeGreaterThan(0);
  const take = (side: 'ours' | 'theirs') => {
    const r = mergeMarkedText({ marked: parseMarkedText(merge.text!)!, staged, fileName, settle: { [side]: queue } });
    expect(r.status, JSON.stringify({ base, ours, theirs, side })).toBe('clean');
    return queueOf(r.text!);
  };
  return { merge, ours: take('ours'), theirs: take('theirs') };
}

/** Both ways round: the same queue whichever side is checked out, for the same side taken. */
function both(base: JsonValue[], a: Side, b: Side): { a: JsonValue[]; b: JsonValue[] } {
  const one = resolved(base, a, b);
  const other = resolved(base, b, a, [2, 1]);
  expect(other.theirs).toEqual(one.ours);
  expect(other.ours).toEqual(one.theirs);
  return { a: one.ours, b: one.theirs };
}

const queueConflicts = (r: MergeTextsResult) => r.conflicts.filter((c) => c.display.startsWith('next_actions')).map((c) => ({ base: c.base, ours: c.ours, theirs: c.theirs }));

describe('a side taken of a queue conflict settles the contested actions only (red team rt51a 11)', () => {
  it('done of the first action beside a reword of the next on both sides: the reword alone conflicts; the action done stays done, the append stays', () => {
    const base = ['Run tests', 'Deploy', 'Lint', 'Write docs'];
    const a = { queue: ['Run tests', 'Deploy to staging', 'Lint', 'Write docs', 'Tag release'] };
    const b = { queue: ['Deploy to prod', 'Lint', 'Write docs'], done: ['Run tests'] };
    expect(queueConflicts(resolved(base, b, a).merge)).toEqual([{ base: ['Deploy'], ours: ['Deploy to prod'], theirs: ['Deploy to staging'] }]);
    expect(both(base, a, b)).toEqual({ a: ['Deploy to staging', 'Lint', 'Write docs', 'Tag release'], b: ['Deploy to prod', 'Lint', 'Write docs', 'Tag release'] });
  });

  it('the same with the first action queued twice: the later copy nobody did and the append stay', () => {
    const base = ['Run tests', 'Deploy', 'Run tests', 'Write docs'];
    const a = { queue: ['Run tests', 'Deploy to staging', 'Run tests', 'Write docs', 'Tag release'] };
    const b = { queue: ['Deploy to prod', 'Run tests', 'Write docs'], done: ['Run tests'] };
    expect(queueConflicts(resolved(base, b, a).merge)).toEqual([{ base: ['Deploy'], ours: ['Deploy to prod'], theirs: ['Deploy to staging'] }]);
    expect(both(base, a, b)).toEqual({ a: ['Deploy to staging', 'Run tests', 'Write docs', 'Tag release'], b: ['Deploy to prod', 'Run tests', 'Write docs', 'Tag release'] });
  });

  it('two actions done beside a reword of the second: that action alone conflicts, the first stays done', () => {
    const base = ['Run tests', 'Deploy', 'Lint'];
    const a = { queue: ['Lint'], done: ['Deploy', 'Run tests'] };
    const b = { queue: ['Run tests', 'Deploy to prod', 'Lint'] };
    expect(queueConflicts(resolved(base, a, b).merge)).toEqual([{ base: ['Deploy'], ours: [], theirs: ['Deploy to prod'] }]);
    expect(both(base, a, b)).toEqual({ a: ['Lint'], b: ['Deploy to prod', 'Lint'] });
  });

  it('an action moved to the back beside a reword of the next: the reword alone conflicts, the move stays', () => {
    const base = ['Run tests', 'Deploy', 'Lint'];
    const a = { queue: ['Deploy to prod', 'Lint', 'Run tests'] };
    const b = { queue: ['Run tests', 'Deploy to staging', 'Lint'] };
    expect(queueConflicts(resolved(base, a, b).merge)).toEqual([{ base: ['Deploy'], ours: ['Deploy to prod'], theirs: ['Deploy to staging'] }]);
    expect(both(base, a, b)).toEqual({ a: ['Deploy to prod', 'Lint', 'Run tests'], b: ['Deploy to staging', 'Lint', 'Run tests'] });
  });

  it('a conflict marked around the whole queue (a two-action queue): the action done stays done whichever side is taken', () => {
    const base = ['Run tests', 'Deploy'];
    const a = { queue: ['Run tests', 'Deploy to staging'] };
    const b = { queue: ['Deploy to prod'], done: ['Run tests'] };
    expect(queueConflicts(resolved(base, b, a).merge)).toEqual([{ base, ours: ['Deploy to prod'], theirs: ['Run tests', 'Deploy to staging'] }]);
    expect(both(base, a, b)).toEqual({ a: ['Deploy to staging'], b: ['Deploy to prod'] });
  });

  it('one did the first action and reworded the next, the other did both: a conflict on that action, settled either way', () => {
    const base = ['Write tests', 'Deploy'];
    const a = { queue: ['Deploy to staging (PR 12)'], done: ['Write tests'] };
    const b = { queue: [], done: ['Deploy', 'Write tests'] };
    expect(resolved(base, a, b).merge.status).toBe('conflict');
    expect(both(base, a, b)).toEqual({ a: ['Deploy to staging (PR 12)'], b: [] });
  });

  it('for any pops from the front on each side, one action reworded by both (or by one, the other having done it) and appends on both: taking a side takes its version of that action, and the rest is as merged', () => {
    const names = ['Run tests', 'Deploy', 'Lint', 'Write docs', 'Ship'];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.nat(5), fc.nat(5), fc.nat(4), fc.boolean(), fc.boolean(), (size, x, y, at, appendA, appendB) => {
        const base = names.slice(0, size);
        const [pa, pb, j] = [Math.min(x, size), Math.min(y, size), at % size];
        // Each side did its first actions (`done`, logged) and reworded action j if it still holds it; a conflict needs a reword.
        if (j < pa && j < pb) return;
        // A one-action queue reworded without a `done` reads as popped and queued anew (both kept): no conflict.
        if (size === 1 && (pa === 0 || pb === 0)) return;
        // An action appended right behind the last action, which the same side reworded, is in
        // that action's run (nothing tells it from a second new action in its place): the
        // conflict's block shows it, and taking the other side leaves it out.
        if (j === size - 1 && ((appendA && j >= pa) || (appendB && j >= pb))) return;
        const side = (pops: number, tag: string, append: boolean): Side => ({
          queue: [...base.slice(pops).map((n, k) => (pops + k === j ? `${n} (${tag})` : n)), ...(append ? [`Tag release (${tag})`] : [])],
          done: base.slice(0, pops).reverse(),
        });
        const [a, b] = [side(pa, 'a', appendA), side(pb, 'b', appendB)];
        const from = Math.max(pa, pb);
        const want = (tag: string, pops: number): JsonValue[] => [
          ...(j < from && j >= pops ? [`${base[j]} (${tag})`] : []),
          ...base.slice(from).map((n, k) => (from + k === j ? `${n} (${tag})` : n)),
          ...(appendA ? ['Tag release (a)'] : []),
          ...(appendB ? ['Tag release (b)'] : []),
        ];
        expect(both(base, a, b), JSON.stringify({ base, a, b })).toEqual({ a: want('a', pa), b: want('b', pb) });
      }),
      { numRuns: 300 },
    );
  });
});
