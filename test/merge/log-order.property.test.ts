// A newest-first log keeps its order through a merge: an entry a branch edited stays where it
// stood, an entry a branch put between others stays there, and what both add meets in time order
// (red team 12-06: a typo fixed in the oldest `recently_done` entry beside a `done` on the other
// branch moved the old entry above newer ones; a rebase of three commits that each logged one,
// onto a branch that logged one in between, put that one out of time order). Files as Python's
// json.dump(indent=4) writes them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import { parseJson } from '../../src/protocol/json.js';

interface Entry {
  text: string;
  at: string;
}

const doc = (done: Entry[], updated: string) =>
  JSON.stringify(
    {
      protocol_version: '1.1',
      skill: 'api',
      project: 'shop',
      project_dir: '/home/dev/shop',
      created_at: '2026-10-01T09:00:00Z',
      updated_at: updated,
      phase: 'build',
      step: 'sprint-2',
      status: 'in_progress',
      progress_summary: 'Orders endpoint half done; see src/orders.ts (PR 12)',
      next_actions: ['Finish src/orders.ts (PR 12)'],
      recently_done: done,
      skill_state: { score: 8 },
    },
    null,
    4,
  ).replace('"score": 8', '"score": 8.0') + '\n';

const merge = (base: string, ours: string, theirs: string, layout = false) =>
  mergeCheckpointTexts({ base, ours, theirs, fileName: '.checkpoints/api.checkpoint.json', ...(layout && { keepLayout: () => formatKeepingLayout }) });
const log = (text: string) => (parseJson(text).value as unknown as { recently_done: Entry[] }).recently_done;
const hour = (h: number) => `2026-12-05T${String(h).padStart(2, '0')}:00:00Z`;
const newestFirst = (entries: Entry[]) => [...entries].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));

describe('a newest-first log merged keeps its order', () => {
  it('an old entry one branch fixed a typo in stays where it stood while the other runs `done` (both ways round)', () => {
    const base = [
      { text: 'r3', at: hour(3) },
      { text: 'r2', at: hour(2) },
      { text: 'r1 tpyo', at: hour(1) },
    ];
    const fixed = base.map((e) => (e.text === 'r1 tpyo' ? { ...e, text: 'r1 typo fixed' } : e));
    const done = [{ text: 'n4', at: hour(4) }, ...base];
    for (const [o, t] of [
      [fixed, done],
      [done, fixed],
    ]) {
      const r = merge(doc(base, hour(5)), doc(o!, hour(6)), doc(t!, hour(7)), true);
      expect(r.status, r.messages.join('\n')).toBe('clean');
      expect(log(r.text!).map((e) => e.text)).toEqual(['n4', 'r3', 'r2', 'r1 typo fixed']);
    }
  });

  it('a rebase of three commits that each log an entry onto a branch that logged one in between: time order', () => {
    const start = [{ text: 'r1', at: hour(1) }];
    const upstream = [{ text: 'M1', at: '2026-12-05T11:30:00Z' }, ...start];
    let picked = upstream;
    let before = start;
    for (const i of [1, 2, 3]) {
      const commit = [{ text: `C${i}`, at: hour(10 + i) }, ...before];
      const r = merge(doc(before, hour(0)), doc(picked, hour(0)), doc(commit, hour(0)));
      expect(r.status, r.messages.join('\n')).toBe('clean');
      picked = log(r.text!);
      before = commit;
    }
    expect(picked.map((e) => e.text)).toEqual(['C3', 'C2', 'M1', 'C1', 'r1']);
  });

  it('entries edited in place, inserted where their time puts them, or added in front, on both branches: time order, nothing lost, the same either way round', () => {
    fc.assert(
      fc.property(
        fc.record({
          base: fc.integer({ min: 0, max: 4 }),
          // Per side: which base entries it edits (by index), which hours it adds.
          oursEdits: fc.uniqueArray(fc.nat(3), { maxLength: 2 }),
          theirsEdits: fc.uniqueArray(fc.nat(3), { maxLength: 2 }),
          added: fc.uniqueArray(fc.integer({ min: 1, max: 23 }), { maxLength: 6 }),
          split: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
          layout: fc.boolean(),
        }),
        (c) => {
          // Base entries at even hours (2, 4, ...): the sides add at odd ones, between them or in front.
          const base = newestFirst(Array.from({ length: c.base }, (_, i) => ({ text: `r${i}`, at: hour(2 * (i + 1)) })));
          const adds = c.added.map((h) => ({ text: `n${h}`, at: hour(h % 2 ? h : h + 1 > 23 ? 23 : h + 1) }));
          // Behind every base entry too: each where its time puts it, whatever the other side put in front (red team 12-06).
          const unique = adds.filter((e, i) => adds.findIndex((x) => x.at === e.at) === i);
          const side = (edits: number[], mine: boolean, by: string) =>
            newestFirst([...base.map((e, i) => (edits.includes(i) ? { ...e, text: `${e.text} fixed by ${by}` } : e)), ...unique.filter((_, i) => c.split[i] === mine)]);
          const [ours, theirs] = [side(c.oursEdits, true, 'ours'), side(c.theirsEdits, false, 'theirs')];
          const results = [merge(doc(base, hour(0)), doc(ours, hour(1)), doc(theirs, hour(2)), c.layout), merge(doc(base, hour(0)), doc(theirs, hour(1)), doc(ours, hour(2)), c.layout)];
          for (const r of results) expect(r.status, r.messages.join('\n')).toBe('clean');
          const [a, b] = results.map((r) => log(r.text!));
          expect(a).toEqual(b);
          // Time order (an entry both branches edited is there in both versions, at one time).
          expect(a!.map((e) => e.at)).toEqual(newestFirst(a!).map((e) => e.at));
          // Nothing lost, nothing invented.
          const expected = new Set([...ours, ...theirs].filter((e) => !base.some((x) => x.text === e.text) || (ours.some((x) => x.text === e.text) && theirs.some((x) => x.text === e.text))).map((e) => e.text));
          expect(new Set(a!.map((e) => e.text))).toEqual(expected);
          expect(a!.length).toBe(expected.size);
        },
      ),
      { numRuns: 400 },
    );
  });
});
