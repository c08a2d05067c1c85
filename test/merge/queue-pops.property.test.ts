// Two machines working one queue, as agents do: each pops actions from its front (`checkpoint
// done`) or ticks them off by hand (`"done": true`, `[x] …`), and appends new ones. Red team,
// 12-06: a queue holding one action twice ("Run tests" before and after a deploy) lost the second
// copy when both sides popped the first; a tick on one side beside a pop on the other conflicted.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import type { JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { canonicalJson as canonical } from '../../src/protocol/identity.js';

const fileName = '.checkpoints/demo.checkpoint.json';
const T0 = Date.parse('2026-03-01T10:00:00Z');
const docText = (queue: JsonValue[], hour = 0) =>
  formatJson({ protocol_version: '1.1', skill: 'demo', project: 'demo', project_dir: '/work/demo', created_at: new Date(T0).toISOString(), updated_at: new Date(T0 + hour * 3600_000).toISOString(), phase: 'spec', step: 'draft', status: 'in_progress', progress_summary: 'spec under way', next_actions: queue });
const queueOf = (text: string) => (parseJson(text).value as { next_actions: JsonValue[] }).next_actions;

function merge(base: JsonValue[], ours: JsonValue[], theirs: JsonValue[], hours: [number, number] = [1, 2]): JsonValue[] {
  const r = mergeCheckpointTexts({ base: docText(base), ours: docText(ours, hours[0]), theirs: docText(theirs, hours[1]), fileName });
  expect(r.status, JSON.stringify({ base, ours, theirs })).toBe('clean');
  return queueOf(r.text!);
}

describe('pops from the front of a queue with repeated actions', () => {
  it('the red team case: both sides did the first "Run tests", one also the deploy; the second "Run tests" stays, whichever side is ours', () => {
    const base = ['Run tests', 'Deploy to staging', 'Run tests', 'Deploy to prod'];
    const a = ['Run tests', 'Deploy to prod'];
    const b = ['Deploy to staging', 'Run tests', 'Deploy to prod'];
    expect(merge(base, a, b)).toEqual(['Run tests', 'Deploy to prod']);
    expect(merge(base, b, a)).toEqual(['Run tests', 'Deploy to prod']);
  });

  it('for any queue of a few repeated actions, each side popping some from the front gives the base less the longer pop, on both sides of the merge', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Run tests', 'Deploy', 'Review', 'Ship'), { minLength: 1, maxLength: 8 }), fc.nat(8), fc.nat(8), (base, x, y) => {
        const [po, pt] = [Math.min(x, base.length), Math.min(y, base.length)];
        const want = base.slice(Math.max(po, pt));
        expect(merge(base, base.slice(po), base.slice(pt))).toEqual(want);
        expect(merge(base, base.slice(pt), base.slice(po), [2, 1])).toEqual(want);
      }),
      { numRuns: 400 },
    );
  });

  it('pops beside appends: every appended action is kept, and the base less the longer pop', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('Run tests', 'Deploy', 'Review'), { minLength: 1, maxLength: 6 }),
        fc.nat(6),
        fc.nat(6),
        fc.array(fc.constantFrom('Write docs', 'Tag release'), { maxLength: 2 }),
        (base, x, y, added) => {
          const [po, pt] = [Math.min(x, base.length), Math.min(y, base.length)];
          const merged = merge(base, [...base.slice(po), ...added], base.slice(pt));
          expect(merged).toEqual([...base.slice(Math.max(po, pt)), ...added]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('an edit keeping the words on one side beside pops on the other', () => {
  it('strings made objects with a priority (same actions, same order) beside done: the popped action stays gone, the rest take their priorities, whichever side is ours', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Migrate the users table', 'Backfill emails', 'Run tests', 'Drop the old column'), { minLength: 1, maxLength: 6 }), fc.nat(6), (base, x) => {
        const pops = Math.min(x, base.length);
        const objects = base.map((text, i) => ({ text, priority: i + 1 }));
        const want = objects.slice(pops);
        expect(merge(base, objects, base.slice(pops))).toEqual(want);
        expect(merge(base, base.slice(pops), objects, [2, 1])).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });

  it('done twice on one side, an owner given to the second "Run tests" on the other: disjoint, merged clean', () => {
    const base = [{ text: 'Run tests' }, { text: 'Deploy to staging' }, { text: 'Run tests' }, { text: 'Deploy to prod' }];
    const a = base.slice(2);
    const b = base.map((x, i) => (i === 2 ? { ...x, owner: 'bob' } : x));
    const want = [{ text: 'Run tests', owner: 'bob' }, { text: 'Deploy to prod' }];
    expect(merge(base, a, b)).toEqual(want);
    expect(merge(base, b, a)).toEqual(want);
  });

  it('an edit of the words beside a pop of that action is still a conflict', () => {
    const base = ['Migrate the users table', 'Backfill emails'];
    const r = mergeCheckpointTexts({ base: docText(base), ours: docText([{ text: 'Migrate the users and teams tables', priority: 1 }, 'Backfill emails'], 1), theirs: docText(['Backfill emails'], 2), fileName });
    expect(r.status).toBe('conflict');
  });
});

describe('a tick on one side beside a pop on the other', () => {
  const ticked: Array<[JsonValue, JsonValue]> = [
    [{ text: 'Alpha task', priority: 'high' }, { text: 'Alpha task', priority: 'high', done: true }],
    ['Alpha task', '[x] Alpha task'],
    ['- [ ] Alpha task', '- [x] Alpha task'],
    ['Alpha task', '~~Alpha task~~'],
    ['Alpha task', '✅ Alpha task'],
    ['Alpha task', 'Alpha task ✅'],
    ['Alpha task', 'Alpha task (done)'],
    [{ text: 'Alpha task' }, { text: 'Alpha task', status: 'Done' }],
  ];
  it.each(ticked)('%j ticked as %j where the other side popped it merges clean, the action gone, whichever side is ours', (was, now) => {
    const base = [was, 'Beta task', 'Gamma task'];
    expect(merge(base, [now, 'Beta task', 'Gamma task'], ['Beta task', 'Gamma task'])).toEqual(['Beta task', 'Gamma task']);
    expect(merge(base, ['Beta task', 'Gamma task'], [now, 'Beta task', 'Gamma task'])).toEqual(['Beta task', 'Gamma task']);
  });

  it('a tick and a priority on the next action on one side, a pop of the ticked one on the other: the tick is the pop, the priority kept', () => {
    const base = ['Alpha task', 'Beta task', 'Gamma task'];
    const marked = ['[x] Alpha task', { text: 'Beta task', priority: 'high' }, 'Gamma task'];
    const want = [{ text: 'Beta task', priority: 'high' }, 'Gamma task'];
    expect(merge(base, marked, base.slice(1))).toEqual(want);
    expect(merge(base, base.slice(1), marked)).toEqual(want);
  });

  it('a tick beside a pop of the next two, and an append on the ticking side: the appended action kept', () => {
    const base = ['Alpha task', 'Beta task', 'Gamma task'];
    expect(merge(base, ['[x] Alpha task', 'Beta task', 'Gamma task', 'Delta task'], ['Gamma task'])).toEqual(['Gamma task', 'Delta task']);
  });

  it('is still a conflict where the tick changed the words, or the other side kept the action, or edited it', () => {
    const base = ['Alpha task', 'Beta task'];
    const conflict = (ours: JsonValue[], theirs: JsonValue[]) => mergeCheckpointTexts({ base: docText(base), ours: docText(ours, 1), theirs: docText(theirs, 2), fileName }).status;
    // Other words after the tick: an edit, not only a tick.
    expect(conflict(['[x] Alpha task, and the docs', 'Beta task'], ['Beta task'])).toBe('conflict');
    // The other side edited the action instead of popping it.
    expect(conflict(['[x] Alpha task', 'Beta task'], ['Alpha task (PR 12)', 'Beta task'])).toBe('conflict');
    // The other side kept it: the tick is an edit the other did not touch, taken as made.
    expect(merge(base, ['[x] Alpha task', 'Beta task'], ['Alpha task', 'Beta task', 'Gamma task'])).toEqual(['[x] Alpha task', 'Beta task', 'Gamma task']);
  });
});

describe('repeats, edits and moves on the two sides (red team 12-06, second round)', () => {
  const both = (base: JsonValue[], a: JsonValue[], b: JsonValue[]) => {
    const one = merge(base, a, b);
    expect(merge(base, b, a, [2, 1])).toEqual(one);
    return one;
  };

  it('a reorder on one side beside a priority on the other: the moved action takes the priority, never dropped', () => {
    expect(both(['A task', 'B task'], ['B task', 'A task'], [{ text: 'A task', priority: 1 }, 'B task'])).toEqual(['B task', { text: 'A task', priority: 1 }]);
    expect(both(['Lint', 'Test', 'Build', 'Ship'], ['Lint', 'Test', 'Build', '[x] Ship'], ['Ship', 'Test', 'Build', 'Tag'])).toEqual(['[x] Ship', 'Test', 'Build', 'Tag']);
  });

  it('the same edit on two copies of a repeat keeps both copies', () => {
    const base = ['Run tests', 'Deploy', 'Run tests'];
    expect(both(base, ['Run tests', 'Deploy', { text: 'Run tests', priority: 1 }], [{ text: 'Run tests', priority: 1 }, 'Deploy', 'Run tests'])).toEqual([{ text: 'Run tests', priority: 1 }, 'Deploy', { text: 'Run tests', priority: 1 }]);
  });

  it('an edit that makes a kept copy equal to a popped one keeps it', () => {
    const base: JsonValue[] = [{ text: 'Deploy', priority: 2 }, 'X', { text: 'Deploy' }];
    expect(both(base, ['X', { text: 'Deploy' }], ['X', { text: 'Deploy', priority: 2 }])).toEqual(['X', { text: 'Deploy', priority: 2 }]);
  });

  it('done beside a priority and an append on a one-action queue: the action done is gone, the append kept', () => {
    expect(both(['Ship it'], [], [{ text: 'Ship it', priority: 1 }, 'Write notes'])).toEqual(['Write notes']);
    expect(both(['Lint', 'Ship it'], [{ text: 'Ship it' }], [])).toEqual([]);
  });

  it('a priority on the second of two copies beside done twice: both gone', () => {
    expect(both([{ text: 'Deploy', priority: 1 }, 'Deploy', 'Y'], [{ text: 'Deploy', priority: 1 }, { text: 'Deploy', priority: 1 }, 'Y'], ['Y'])).toEqual(['Y']);
  });

  it('done once beside an owner or a tick on the second of two adjacent copies: the copy done stays gone', () => {
    const base = ['Run tests', 'Run tests', 'Deploy'];
    expect(both(base, ['Run tests', 'Deploy'], ['Run tests', { text: 'Run tests', owner: 'bob' }, 'Deploy'])).toEqual([{ text: 'Run tests', owner: 'bob' }, 'Deploy']);
    expect(both(base, ['Run tests', 'Deploy'], ['Run tests', '[x] Run tests', 'Deploy'])).toEqual(['[x] Run tests', 'Deploy']);
  });

  it('a move with a priority beside done of that action: gone', () => {
    expect(both(['Run tests', 'Lint', 'Review'], ['Lint', { text: 'Run tests', priority: 1 }, 'Review'], ['Lint', 'Review'])).toEqual(['Lint', 'Review']);
  });

  it('two string ticks beside done of the first: clean, the second tick kept', () => {
    expect(both(['A', 'B', 'C'], ['[x] A', '[x] B', 'C'], ['B', 'C'])).toEqual(['[x] B', 'C']);
  });
});


describe('both sides moved or ticked the same action (red team 12-06, 06 and 08)', () => {
  const statuses = (base: JsonValue[], ours: JsonValue[], theirs: JsonValue[]) =>
    [mergeCheckpointTexts({ base: docText(base), ours: docText(ours, 1), theirs: docText(theirs, 2), fileName }), mergeCheckpointTexts({ base: docText(base), ours: docText(theirs, 2), theirs: docText(ours, 1), fileName })].map((r) => r.status);

  it('each side moved the action to the front with its own priority: a conflict, neither priority lost', () => {
    expect(statuses(['B task', 'A task'], [{ text: 'A task', priority: 1 }, 'B task'], [{ text: 'A task', priority: 2 }, 'B task'])).toEqual(['conflict', 'conflict']);
  });

  it('one side moved it with a priority, the other moved it plain to another place: the priority stands, at the first place', () => {
    for (const [ours, theirs] of [
      [['B', { text: 'A', priority: 1 }, 'C'], ['A', 'B', 'C']],
      [[{ text: 'A', priority: 1 }, 'B', 'C'], ['B', 'A', 'C']],
    ] as JsonValue[][][]) {
      expect(merge(['B', 'C', 'A'], ours!, theirs!)).toEqual([{ text: 'A', priority: 1 }, 'B', 'C']);
      expect(merge(['B', 'C', 'A'], theirs!, ours!, [2, 1])).toEqual([{ text: 'A', priority: 1 }, 'B', 'C']);
    }
  });

  it('both ticked the same action, each with its own mark: clean, the later-saved tick stands, and next skips it either way', () => {
    expect(merge(['Write tests', 'Ship'], ['[x] Write tests', 'Ship'], ['Write tests \u2705', 'Ship'])).toEqual(['Write tests \u2705', 'Ship']);
    expect(merge(['Write tests', 'Ship'], ['Write tests \u2705', 'Ship'], ['[x] Write tests', 'Ship'])).toEqual(['[x] Write tests', 'Ship']);
    expect(merge(['Write tests', 'Ship'], [{ text: 'Write tests', done: true }, 'Ship'], ['[x] Write tests', 'Ship'], [1, 1])).toEqual(['[x] Write tests', 'Ship']);
    expect(merge(['Write tests', 'Ship'], ['[x] Write tests', 'Ship'], [{ text: 'Write tests', done: true }, 'Ship'], [1, 1])).toEqual(['[x] Write tests', 'Ship']);
  });

  it('a tick with a priority beside a plain tick is still a conflict: the priority is more than a mark', () => {
    expect(statuses(['A task', 'B task'], [{ text: 'A task', done: true, priority: 1 }, 'B task'], ['[x] A task', 'B task'])).toEqual(['conflict', 'conflict']);
  });

  it('for any moves of distinct actions, each side giving at most one of them a priority: every action once, and every priority either side gave stands, or the merge is a conflict where both gave one action different priorities', () => {
    const actions = ['Lint', 'Test', 'Build', 'Ship', 'Docs'];
    const side = fc.tuple(fc.nat(100), fc.option(fc.nat(4), { nil: undefined }), fc.integer({ min: 1, max: 3 }));
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5 }), side, side, (size, [so, eo, po], [st, et, pt]) => {
        const base: JsonValue[] = actions.slice(0, size);
        const make = (seed: number, edit: number | undefined, priority: number): JsonValue[] => {
          const moved = [...base];
          const from = seed % size;
          const [item] = moved.splice(from, 1);
          moved.splice(Math.floor(seed / size) % size, 0, item!);
          return moved.map((a) => (edit !== undefined && a === base[edit % size] ? { text: a as string, priority } : a));
        };
        const [ours, theirs] = [make(so, eo, po), make(st, et, pt)];
        const runs = [mergeCheckpointTexts({ base: docText(base), ours: docText(ours, 1), theirs: docText(theirs, 2), fileName }), mergeCheckpointTexts({ base: docText(base), ours: docText(theirs, 2), theirs: docText(ours, 1), fileName })];
        expect(runs[0]!.status).toBe(runs[1]!.status);
        if (runs[0]!.status !== 'clean') {
          // Only two different edits of one action may conflict.
          expect(eo !== undefined && et !== undefined && eo % size === et % size && po !== pt, JSON.stringify({ base, ours, theirs })).toBe(true);
          return;
        }
        const merged = queueOf(runs[0]!.text!);
        expect(queueOf(runs[1]!.text!)).toEqual(merged);
        expect(merged.map((a) => (typeof a === 'string' ? a : (a as { text: string }).text)).sort()).toEqual([...base].sort());
        for (const edited of [...ours, ...theirs].filter((a) => typeof a !== 'string')) expect(merged, JSON.stringify({ base, ours, theirs })).toContainEqual(edited);
      }),
      { numRuns: 500 },
    );
  });
});

describe('two agents working one queue of distinct actions: pops, appends, ticks, priorities and moves on both sides', () => {
  type Op = { k: 'pop' } | { k: 'append'; w: string } | { k: 'tick'; i: number; style: number } | { k: 'priority'; i: number; p: number } | { k: 'move'; i: number; to: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.constant({ k: 'pop' as const }),
    fc.constantFrom('Write notes', 'Tag release').map((w) => ({ k: 'append' as const, w })),
    fc.record({ k: fc.constant('tick' as const), i: fc.nat(7), style: fc.nat(2) }),
    fc.record({ k: fc.constant('priority' as const), i: fc.nat(7), p: fc.integer({ min: 1, max: 2 }) }),
    fc.record({ k: fc.constant('move' as const), i: fc.nat(7), to: fc.nat(7) }),
  );
  type Item = { id: number; v: JsonValue };
  const words = (v: JsonValue) => (typeof v === 'string' ? v : (v as { text: string }).text).replace(/^\[x\] | \u2705$/gu, '');
  /** A side's queue after its ops, each item with the base item (or the new one) it stems from. */
  function work(base: readonly Item[], ops: readonly Op[], side: string): Item[] {
    let q = base.map((x) => ({ ...x }));
    ops.forEach((o, n) => {
      if (o.k === 'pop') q = q.slice(1);
      else if (o.k === 'append') q.push({ id: 100 + n, v: `${o.w} (${side} ${n})` });
      else if (q.length > 0 && o.k === 'tick') {
        const item = q[o.i % q.length]!;
        if (typeof item.v === 'string' && item.v === words(item.v)) item.v = o.style === 0 ? `[x] ${item.v}` : o.style === 1 ? `${item.v} \u2705` : { text: item.v, done: true };
      } else if (q.length > 0 && o.k === 'priority') {
        const item = q[o.i % q.length]!;
        item.v = { ...(typeof item.v === 'string' ? { text: item.v } : (item.v as object)), priority: o.p } as JsonValue;
      } else if (q.length > 0 && o.k === 'move') {
        const [item] = q.splice(o.i % q.length, 1);
        q.splice(o.to % (q.length + 1), 0, item!);
      }
    });
    return q;
  }

  it('every clean merge is the same either way round, keeps every action both kept and every action appended, brings back none either popped, and drops no edit only one side made', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { minLength: 1, maxLength: 3 }), fc.array(op, { minLength: 1, maxLength: 3 }), (size, opsO, opsT) => {
        const base: Item[] = ['Lint', 'Test', 'Build', 'Ship', 'Docs', 'Tag'].slice(0, size).map((v, id) => ({ id, v }));
        const [o, t] = [work(base, opsO, 'o'), work(base, opsT, 't')];
        const [bv, ov, tv] = [base.map((x) => x.v), o.map((x) => x.v), t.map((x) => x.v)];
        const seen = JSON.stringify({ bv, ov, tv });
        const one = mergeCheckpointTexts({ base: docText(bv), ours: docText(ov, 1), theirs: docText(tv, 2), fileName });
        const other = mergeCheckpointTexts({ base: docText(bv), ours: docText(tv, 2), theirs: docText(ov, 1), fileName });
        expect(other.status, seen).toBe(one.status);
        if (one.status !== 'clean') return;
        const merged = queueOf(one.text!);
        expect(queueOf(other.text!).map((x) => canonical(x)), seen).toEqual(merged.map((x) => canonical(x)));
        const has = (v: JsonValue) => merged.some((x) => canonical(x) === canonical(v));
        for (const b of base) {
          const [inO, inT] = [o.find((x) => x.id === b.id), t.find((x) => x.id === b.id)];
          const standing = merged.filter((x) => words(x) === b.v).length;
          if (!inO || !inT) {
            expect(standing, `${b.v} popped: ${seen}`).toBe(0);
            continue;
          }
          expect(standing, `${b.v} kept by both: ${seen}`).toBe(1);
          // An edit only one side made stands.
          if (canonical(inO.v) === canonical(b.v)) expect(has(inT.v), seen).toBe(true);
          if (canonical(inT.v) === canonical(b.v)) expect(has(inO.v), seen).toBe(true);
        }
        for (const x of [...o, ...t]) if (x.id >= 100) expect(has(x.v), seen).toBe(true);
      }),
      { numRuns: 600 },
    );
  });
});

describe('an action a side did and queued again (red team 12-06: the merge dropped it, a rebase kept it)', () => {
  const doc = (queue: JsonValue[], done: string[], hour: number) => {
    const d = JSON.parse(docText(queue, hour)) as Record<string, unknown>;
    d.recently_done = done.map((action, k) => ({ at: new Date(T0 + hour * 3600_000 - k * 60_000).toISOString(), action }));
    return `${JSON.stringify(d, null, 2)}\n`;
  };
  const queue = (base: [JsonValue[], string[]], ours: [JsonValue[], string[]], theirs: [JsonValue[], string[]]) => {
    const both = [
      mergeCheckpointTexts({ base: doc(...base, 0), ours: doc(...ours, 1), theirs: doc(...theirs, 2), fileName }),
      mergeCheckpointTexts({ base: doc(...base, 0), ours: doc(...theirs, 2), theirs: doc(...ours, 1), fileName }),
    ];
    expect(both.map((r) => r.status)).toEqual(['clean', 'clean']);
    const [one, other] = both.map((r) => queueOf(r.text!));
    expect(other).toEqual(one);
    return one;
  };

  it('both did "Run tests", one queued it again after the deploy: it stays queued', () => {
    expect(queue([['Run tests', 'Deploy'], []], [['Deploy'], ['Run tests']], [['Deploy', 'Run tests'], ['Run tests']])).toEqual(['Deploy', 'Run tests']);
  });

  it('one only moved "Run tests" behind the deploy (logged nothing) while the other did it: done is done', () => {
    expect(queue([['Run tests', 'Deploy'], []], [['Deploy'], ['Run tests']], [['Deploy', 'Run tests'], []])).toEqual(['Deploy']);
  });

  it('one did it and left it ticked, the other did it: gone, not queued again', () => {
    expect(queue([['Run tests', 'Deploy'], []], [['Deploy'], ['Run tests']], [['[x] Run tests', 'Deploy'], ['Run tests']])).toEqual(['Deploy']);
  });

  it('both did the first action, one put a new one in its place at the front: the new one stands, no conflict (rt51a 13)', () => {
    expect(queue([['Run tests', 'Write tests', 'Deploy'], []], [['Write tests', 'Deploy'], ['Run tests']], [['Hotfix login bug', 'Write tests', 'Deploy'], ['Run tests']])).toEqual(['Hotfix login bug', 'Write tests', 'Deploy']);
  });

  it('a repeated action done once and queued again beside the other side doing it once: the copies nobody did stay', () => {
    expect(queue([['Run tests', 'Deploy', 'Run tests'], []], [['Deploy', 'Run tests'], ['Run tests']], [['Deploy', 'Run tests', 'Run tests'], ['Run tests']])).toEqual(['Deploy', 'Run tests', 'Run tests']);
  });
});

describe('a tick beside the same action queued again behind it (red team 12-06, rt51a 08)', () => {
  it('the tick stays on the action it was made on; the new copy behind it stays open, whichever side is ours', () => {
    const base = ['Run tests', 'Deploy to staging'];
    const ticked = ['Run tests', '[x] Deploy to staging'];
    const appended = ['Run tests', 'Deploy to staging', 'Write docs', 'Deploy to staging'];
    const want = ['Run tests', '[x] Deploy to staging', 'Write docs', 'Deploy to staging'];
    expect(merge(base, ticked, appended)).toEqual(want);
    expect(merge(base, appended, ticked, [2, 1])).toEqual(want);
  });
});

describe('two edits of one action, each its own keys (red team 12-06, rt51a 06)', () => {
  it('a tick beside a tick and a priority: the action with both; a key set two ways still conflicts', () => {
    const base = ['Lint', { text: 'Write tests', owner: 'bob' }];
    const tick = ['Lint', { text: 'Write tests', owner: 'bob', done: true }];
    const both = ['Lint', { text: 'Write tests', owner: 'bob', done: true, priority: 'high' }];
    expect(merge(base, tick, both)).toEqual(both);
    expect(merge(base, both, tick, [2, 1])).toEqual(both);
    expect(merge(['Lint', 'Write tests'], ['Lint', { text: 'Write tests', owner: 'ann' }], ['Lint', { text: 'Write tests', priority: 1 }])).toEqual(['Lint', { text: 'Write tests', owner: 'ann', priority: 1 }]);
    const r = mergeCheckpointTexts({ base: docText(base), ours: docText(['Lint', { text: 'Write tests', owner: 'ann' }], 1), theirs: docText(['Lint', { text: 'Write tests', owner: 'cy' }], 2), fileName });
    expect(r.status).toBe('conflict');
  });
});
