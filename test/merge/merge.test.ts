import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileExtraLogs } from '../../src/protocol/fields.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues, type Conflict } from '../../src/merge/merge.js';

const BASE: JsonObject = {
  protocol_version: '1.1',
  skill: 'demo',
  project: 'demo',
  project_dir: '/work/demo',
  created_at: '2026-03-01T10:00:00Z',
  updated_at: '2026-03-01T10:00:00Z',
  phase: 'spec',
  step: 'draft',
  status: 'in_progress',
  progress_summary: 'Spec drafted.',
  progress_table: [
    { id: 'planning', label: 'Planner', status: 'complete' },
    { id: 'sprint-1', label: 'Sprint 1', status: 'in_progress' },
  ],
  context_primer: { key_decisions: ['Stack: Hono'] },
  blockers: [{ id: 'b1', description: 'rate limiting', needs: 'code_fix' }],
  next_actions: ['one', 'two', 'three'],
  recently_done: [{ at: '2026-03-01T09:00:00Z', action: 'zero' }],
  eval_scores: [{ rubric: 'auditor', score: 7, at: '2026-03-01T09:30:00Z' }],
  skill_state: { scores: { final: 1 }, run_history: [{ id: 'r1', at: '2026-03-01T09:00:00Z', ok: true }] },
};

function edit(fn: (doc: any) => void, from: JsonObject = BASE): JsonObject {
  const doc = structuredClone(from);
  fn(doc);
  return doc;
}

/** Merges both ways round and checks the result does not depend on which side is ours. */
function merge3(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue, extraRules = compileExtraLogs(undefined)) {
  const forward = mergeCheckpointValues(base, ours, theirs, { extraRules });
  const backward = mergeCheckpointValues(base, theirs, ours, { extraRules });
  expect(backward.value).toEqual(forward.value);
  expect(backward.conflicts.map((c) => c.display)).toEqual(forward.conflicts.map((c) => c.display));
  return forward;
}

const displays = (conflicts: Conflict[]) => conflicts.map((c) => c.display);

describe('one side changed', () => {
  it('takes the change of the side that made one', () => {
    const ours = edit((d) => (d.phase = 'build'));
    const { value, conflicts } = merge3(BASE, ours, BASE);
    expect(conflicts).toEqual([]);
    expect((value as JsonObject).phase).toBe('build');
  });

  it('takes a change both sides made alike, even with keys in another order', () => {
    const ours = edit((d) => (d.skill_state.scores = { final: 2, rounds: 3 }));
    const theirs = edit((d) => (d.skill_state.scores = { rounds: 3, final: 2 }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.scores).toEqual({ final: 2, rounds: 3 });
  });

  it('merges changes to different fields of the same object', () => {
    const ours = edit((d) => (d.phase = 'build'));
    const theirs = edit((d) => (d.step = 'review'));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(value).toMatchObject({ phase: 'build', step: 'review' });
  });
});

describe('value policy', () => {
  it('reports a scalar changed differently on both sides, with the three versions', () => {
    const { conflicts } = merge3(BASE, edit((d) => (d.phase = 'build')), edit((d) => (d.phase = 'audit')));
    expect(conflicts).toEqual([{ path: ['phase'], display: 'phase', base: 'spec', ours: 'build', theirs: 'audit' }]);
  });

  it('names nested paths with dots', () => {
    const { conflicts } = merge3(BASE, edit((d) => (d.skill_state.scores.final = 8)), edit((d) => (d.skill_state.scores.final = 9)));
    expect(displays(conflicts)).toEqual(['skill_state.scores.final']);
  });

  it('deletes a key deleted on one side and untouched on the other', () => {
    const { value, conflicts } = merge3(BASE, edit((d) => delete d.skill_state.scores), edit((d) => (d.phase = 'x')));
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state).not.toHaveProperty('scores');
  });

  it('reports a key deleted on one side and changed on the other, keeping the changed value in the document', () => {
    const theirs = edit((d) => (d.skill_state.scores.final = 5));
    const { value, conflicts } = merge3(BASE, edit((d) => delete d.skill_state.scores), theirs);
    // A collision inside a dropped object is shown at the object, so the markers offer each side whole.
    expect(conflicts).toMatchObject([{ display: 'skill_state.scores', ours: undefined, theirs: { final: 5 } }]);
    expect((value as any).skill_state.scores).toEqual({ final: 5 });
  });

  it('reports a key added on both sides with different values, and merges one added alike', () => {
    const ours = edit((d) => Object.assign(d.skill_state, { mode: 'fast', same: 1 }));
    const theirs = edit((d) => Object.assign(d.skill_state, { mode: 'slow', same: 1 }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toMatchObject([{ display: 'skill_state.mode', base: undefined, ours: 'fast', theirs: 'slow' }]);
    expect((value as any).skill_state.same).toBe(1);
  });

  it('reports an array under the value policy changed on both sides as one conflict on the array', () => {
    const ours = edit((d) => (d.skill_state.tags = ['a', 'b']));
    const theirs = edit((d) => (d.skill_state.tags = ['a', 'c']));
    const base = edit((d) => (d.skill_state.tags = ['a']));
    const { conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toMatchObject([{ display: 'skill_state.tags', base: ['a'], ours: ['a', 'b'], theirs: ['a', 'c'] }]);
  });

  it('merges two objects added under the same new key, key by key', () => {
    const ours = edit((d) => (d.skill_state.extra = { a: 1, shared: true }));
    const theirs = edit((d) => (d.skill_state.extra = { b: 2, shared: true }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.extra).toEqual({ a: 1, b: 2, shared: true });
  });

  it('merges without a base (add/add): equal fields merge, different ones conflict', () => {
    const { conflicts } = merge3(undefined, edit((d) => (d.phase = 'build')), edit((d) => (d.phase = 'audit')));
    expect(displays(conflicts)).toEqual(['phase']);
    expect(conflicts[0]!.base).toBeUndefined();
  });

  it('reports a change of type (object on one side, scalar on the other) as a conflict', () => {
    const { conflicts } = merge3(BASE, edit((d) => (d.skill_state.scores = 3)), edit((d) => (d.skill_state.scores.final = 2)));
    expect(displays(conflicts)).toEqual(['skill_state.scores']);
  });
});

describe('key order', () => {
  it("keeps ours' order and places theirs' new keys after their predecessor in theirs", () => {
    const base = { a: 1, b: 2, c: 3 };
    const ours = { c: 3, a: 1, b: 2, o: 0 };
    const theirs = { a: 1, t1: 1, t2: 2, b: 2, c: 3 };
    const { value } = mergeCheckpointValues(base, ours, theirs, {});
    expect(Object.keys(value as object)).toEqual(['c', 'a', 't1', 't2', 'b', 'o']);
  });

  it("places theirs' new key first when nothing precedes it in theirs", () => {
    const { value } = mergeCheckpointValues({ a: 1 }, { a: 2 }, { z: 0, a: 1 }, {});
    expect(Object.keys(value as object)).toEqual(['z', 'a']);
  });
});

describe('instant policy', () => {
  it('keeps the later updated_at, comparing instants across offsets', () => {
    // 10:30+02:00 is 08:30Z: earlier than 09:00Z although it sorts later as text.
    const ours = edit((d) => (d.updated_at = '2026-03-02T10:30:00+02:00'));
    const theirs = edit((d) => (d.updated_at = '2026-03-02T09:00:00Z'));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as JsonObject).updated_at).toBe('2026-03-02T09:00:00Z');
  });

  it('keeps the earlier created_at', () => {
    const ours = edit((d) => (d.created_at = '2026-02-01T00:00:00Z'));
    const theirs = edit((d) => (d.created_at = '2026-02-15T00:00:00Z'));
    expect((merge3(BASE, ours, theirs).value as JsonObject).created_at).toBe('2026-02-01T00:00:00Z');
  });

  it('picks the same text either way when both sides spell one instant differently', () => {
    const ours = edit((d) => (d.updated_at = '2026-03-02T09:00:00Z'));
    const theirs = edit((d) => (d.updated_at = '2026-03-02T09:00:00+00:00'));
    expect(merge3(BASE, ours, theirs).conflicts).toEqual([]);
  });

  it('falls back to the value rules when a side does not parse as an instant', () => {
    const ours = edit((d) => (d.updated_at = 'yesterday-ish'));
    const theirs = edit((d) => (d.updated_at = '2026-03-02T09:00:00Z'));
    expect(displays(merge3(BASE, ours, theirs).conflicts)).toEqual(['updated_at']);
  });

  it('applies to nested instant fields named in the table (cost.updated_at)', () => {
    const base = edit((d) => (d.cost = { total_usd: 1, updated_at: '2026-03-01T00:00:00Z' }));
    const ours = edit((d) => (d.cost.updated_at = '2026-03-03T00:00:00Z'), base);
    const theirs = edit((d) => (d.cost.updated_at = '2026-03-02T00:00:00Z'), base);
    expect((merge3(base, ours, theirs).value as any).cost.updated_at).toBe('2026-03-03T00:00:00Z');
  });
});

describe('log policy', () => {
  it('keeps base entries both kept and every entry either side added, additions ordered by time', () => {
    const ours = edit((d) => d.eval_scores.push({ rubric: 'ours', score: 8, at: '2026-03-02T12:00:00Z' }));
    const theirs = edit((d) => d.eval_scores.push({ rubric: 'theirs', score: 6, at: '2026-03-02T11:00:00Z' }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).eval_scores.map((e: any) => e.rubric)).toEqual(['auditor', 'theirs', 'ours']);
  });

  it('keeps an entry added by both sides once', () => {
    const entry = { rubric: 'shared', score: 5, at: '2026-03-02T12:00:00Z' };
    const ours = edit((d) => d.eval_scores.push(entry, { rubric: 'o', score: 1 }));
    const theirs = edit((d) => d.eval_scores.push({ ...entry }));
    const { value } = merge3(BASE, ours, theirs);
    expect((value as any).eval_scores.map((e: any) => e.rubric)).toEqual(['auditor', 'shared', 'o']);
  });

  it('leaves removed an entry one side removed and the other kept', () => {
    const ours = edit((d) => (d.eval_scores = []));
    const theirs = edit((d) => d.eval_scores.push({ rubric: 'new', score: 1 }));
    const { value } = merge3(BASE, ours, theirs);
    expect((value as any).eval_scores).toEqual([{ rubric: 'new', score: 1 }]);
  });

  it('places each side\'s additions by time beside a base log of one entry, as its sides run (a rebase step: red team 12-06)', () => {
    // A rebase replays `done` onto the other machine's log: the base holds the one entry before it.
    const ours = edit((d) => d.recently_done.push({ at: '2026-02-28T10:00:00Z', action: 'a2' }, { at: '2026-02-27T10:00:00Z', action: 'a1' }));
    const theirs = edit((d) => d.recently_done.unshift({ at: '2026-03-02T10:00:00Z', action: 'b2' }));
    for (const [o, t] of [[ours, theirs], [theirs, ours]]) {
      const { value, conflicts } = merge3(BASE, o!, t!);
      expect(conflicts).toEqual([]);
      expect((value as any).recently_done.map((e: any) => e.action)).toEqual(['b2', 'zero', 'a2', 'a1']);
    }
  });

  it('dates a recently_done entry by completed_at (or another time key agents write) where it has no `at` (red team 12-06 evening)', () => {
    const ours = edit((d) => d.recently_done.unshift({ action: 'ours, later', completed_at: '2026-03-02T12:00:00Z' }));
    const theirs = edit((d) => d.recently_done.unshift({ at: '2026-03-02T11:00:00Z', action: 'theirs' }));
    for (const [o, t] of [[ours, theirs], [theirs, ours]]) {
      const { value, conflicts } = merge3(BASE, o!, t!);
      expect(conflicts).toEqual([]);
      expect((value as any).recently_done.map((e: any) => e.action)).toEqual(['ours, later', 'theirs', 'zero']);
    }
  });

  it('puts additions in front, newest first, for newest-first logs (recently_done)', () => {
    const ours = edit((d) => d.recently_done.unshift({ at: '2026-03-02T10:00:00Z', action: 'ours' }));
    const theirs = edit((d) => d.recently_done.unshift({ at: '2026-03-02T11:00:00Z', action: 'theirs' }, { at: '2026-03-02T08:00:00Z', action: 'early' }));
    const { value } = merge3(BASE, ours, theirs);
    expect((value as any).recently_done.map((e: any) => e.action)).toEqual(['theirs', 'ours', 'early', 'zero']);
  });

  it('deduplicates string logs by content (context_primer.key_decisions)', () => {
    const ours = edit((d) => d.context_primer.key_decisions.push('Auth: passkeys', 'DB: D1'));
    const theirs = edit((d) => d.context_primer.key_decisions.push('DB: D1'));
    const { value } = merge3(BASE, ours, theirs);
    expect((value as any).context_primer.key_decisions).toEqual(['Stack: Hono', 'Auth: passkeys', 'DB: D1']);
  });

  it('identifies entries by id: an entry changed on one side is merged, not duplicated', () => {
    const ours = edit((d) => (d.skill_state.run_history[0].ok = false));
    const theirs = edit((d) => d.skill_state.run_history.push({ id: 'r2', at: '2026-03-02T00:00:00Z', ok: true }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.run_history).toEqual([
      { id: 'r1', at: '2026-03-01T09:00:00Z', ok: false },
      { id: 'r2', at: '2026-03-02T00:00:00Z', ok: true },
    ]);
  });

  it('keeps both of two different additions with the same id (identity is the whole record)', () => {
    const ours = edit((d) => d.skill_state.run_history.push({ id: 'r2', at: '2026-03-02T00:00:00Z', ok: true }));
    const theirs = edit((d) => d.skill_state.run_history.push({ id: 'r2', at: '2026-03-02T00:00:00Z', ok: false }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    const added = (value as any).skill_state.run_history.slice(1);
    expect(added).toHaveLength(2);
    expect(added).toEqual(expect.arrayContaining([{ id: 'r2', at: '2026-03-02T00:00:00Z', ok: true }, { id: 'r2', at: '2026-03-02T00:00:00Z', ok: false }]));
  });

  it('applies to logs the project declares in config (compileExtraLogs)', () => {
    const base = edit((d) => (d.skill_state.audits = [{ at: '2026-03-01T00:00:00Z', n: 0 }]));
    const ours = edit((d) => d.skill_state.audits.push({ at: '2026-03-02T00:00:00Z', n: 1 }), base);
    const theirs = edit((d) => d.skill_state.audits.push({ at: '2026-03-03T00:00:00Z', n: 2 }), base);
    expect(displays(merge3(base, ours, theirs).conflicts)).toEqual(['skill_state.audits']);
    const rules = compileExtraLogs({ logs: ['skill_state.audits'] });
    const { value, conflicts } = merge3(base, ours, theirs, rules);
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.audits.map((a: any) => a.n)).toEqual([0, 1, 2]);
  });
});

describe('records policy', () => {
  it('blockers written as strings are known by their text: one added on a branch, another resolved on the other, merge (red team, 12-05)', () => {
    const base = edit((d) => (d.blockers = ['waiting on design']));
    const ours = edit((d) => d.blockers.push('need API key'), base);
    const theirs = edit((d) => (d.blockers = []), base);
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as JsonObject).blockers).toEqual(['need API key']);
    // Mixed with records, each known its own way.
    const mixed = edit((d) => (d.blockers = [{ id: 'b1', description: 'flaky CI', needs: 'code_fix' }, 'waiting on design']));
    const addRecord = edit((d) => d.blockers.push({ id: 'b2', description: 'no key', needs: 'external_dep' }), mixed);
    const dropText = edit((d) => d.blockers.splice(1, 1), mixed);
    expect((merge3(mixed, addRecord, dropText).value as JsonObject).blockers).toEqual([{ id: 'b1', description: 'flaky CI', needs: 'code_fix' }, { id: 'b2', description: 'no key', needs: 'external_dep' }]);
  });

  const ids = (value: JsonValue, key: string) => (value as any)[key].map((r: any) => r.id);

  it('keeps records added on either side and merges edits to different fields of one record', () => {
    const ours = edit((d) => {
      d.progress_table[1].label = 'Sprint 1: Auth';
      d.progress_table.push({ id: 'sprint-2', label: 'S2', status: 'not_started' });
    });
    const theirs = edit((d) => (d.progress_table[1].status = 'complete'));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).progress_table[1]).toEqual({ id: 'sprint-1', label: 'Sprint 1: Auth', status: 'complete' });
    expect(ids(value, 'progress_table')).toEqual(['planning', 'sprint-1', 'sprint-2']);
  });

  it('project_dir written by two machines (each its own clone\'s path) takes the later save\'s, no conflict (red team, 12-06)', () => {
    const at = (dir: string, saved: string) => edit((d) => {
      d.project_dir = dir;
      d.updated_at = saved;
    });
    for (const base of [BASE, undefined]) {
      const [alice, bob] = [at('/home/alice/gtrack', '2026-03-04T10:00:00Z'), at('/Users/bob/gtrack', '2026-03-04T11:00:00Z')];
      for (const [o, t] of [[alice, bob], [bob, alice]]) {
        const { value, conflicts } = merge3(base, o!, t!);
        expect(conflicts).toEqual([]);
        expect((value as any).project_dir).toBe('/Users/bob/gtrack');
      }
    }
  });

  it('rows written with a name and no id or label are known by it: edits of different rows and rows added on both sides merge (red team, 12-06)', () => {
    const named = edit((d) => (d.progress_table = [{ name: 'Auth', status: 'in_progress' }, { name: 'DB schema', status: 'pending' }]));
    const ours = edit((d) => (d.progress_table[0].status = 'complete'), named);
    const theirs = edit((d) => {
      d.progress_table[1].status = 'in_progress';
      d.progress_table.push({ name: 'Cache', status: 'pending' });
    }, named);
    for (const [o, t] of [[ours, theirs], [theirs, ours]]) {
      const { value, conflicts } = merge3(named, o!, t!);
      expect(conflicts).toEqual([]);
      expect((value as any).progress_table).toEqual([{ name: 'Auth', status: 'complete' }, { name: 'DB schema', status: 'in_progress' }, { name: 'Cache', status: 'pending' }]);
    }
  });

  it('a status one side only respelled (the printed fix, "done" for complete) beside the other side\'s change: the change stands; a reason after it is more than a spelling (red team, 12-06)', () => {
    const at = (status: string, row = 'in_progress') => edit((d) => {
      d.status = status;
      d.progress_table[1].status = row;
    });
    const cases: [string, string, string, string | 'conflict'][] = [
      ['In Progress', 'in_progress', 'complete', 'complete'],
      ['in_progress', 'done', 'complete', 'complete'],
      ['in-progress', 'in_progress', 'blocked', 'blocked'],
      ['blocked - waiting on the API key', 'blocked - waiting on the vendor', 'in_progress', 'conflict'],
    ];
    for (const [b, o, t, want] of cases) {
      for (const [x, y] of [[o, t], [t, o]]) {
        const { value, conflicts } = merge3(at(b, b === 'blocked - waiting on the API key' ? 'blocked' : 'In Progress'), at(x!, x === o ? 'in_progress' : 'In Progress'), at(y!, y === o ? 'in_progress' : 'In Progress'));
        if (want === 'conflict') expect(displays(conflicts), `${b} ${x} ${y}`).toEqual(['status']);
        else {
          expect(conflicts, `${b} ${x} ${y}`).toEqual([]);
          expect((value as any).status).toBe(want);
        }
      }
    }
  });

  it('both sides spelling one status their own way, neither the protocol\'s, take the protocol\'s spelling, for the status and a row\'s, either way round (red team 64 r2)', () => {
    const at = (status: string, row: string) => edit((d) => {
      d.status = status;
      d.progress_table[1].status = row;
    });
    for (const [o, t] of [['Complete', 'completed'], ['Done', 'COMPLETE']] as [string, string][]) {
      for (const [x, y] of [[o, t], [t, o]] as [string, string][]) {
        const { value, conflicts } = merge3(at('in_progress', 'in_progress'), at(x, x), at(y, y));
        expect(conflicts, `${x} ${y}`).toEqual([]);
        expect([(value as any).status, (value as any).progress_table[1].status]).toEqual(['complete', 'complete']);
      }
    }
  });

  it('a row or blocker stamped on its own (its updated_at) takes the later stamp, the edits of both sides merged (red team, 12-06)', () => {
    const ours = edit((d) => {
      d.progress_table[1].status = 'complete';
      d.progress_table[1].updated_at = '2026-03-04T11:00:00Z';
    });
    const theirs = edit((d) => {
      d.progress_table[1].note = 'flaky on CI';
      d.progress_table[1].updated_at = '2026-03-04T10:00:00Z';
    });
    for (const [o, t] of [[ours, theirs], [theirs, ours]]) {
      const { value, conflicts } = merge3(BASE, o!, t!);
      expect(conflicts).toEqual([]);
      expect((value as any).progress_table[1]).toMatchObject({ id: 'sprint-1', status: 'complete', note: 'flaky on CI', updated_at: '2026-03-04T11:00:00Z' });
    }
  });

  it('removes a record removed on one side and untouched on the other', () => {
    const ours = edit((d) => (d.blockers = []));
    const theirs = edit((d) => d.blockers.push({ id: 'b2', description: 'new' }));
    expect(ids(merge3(BASE, ours, theirs).value, 'blockers')).toEqual(['b2']);
  });

  it('reports a record removed on one side and changed on the other, keeping the changed record', () => {
    const ours = edit((d) => (d.blockers = []));
    const theirs = edit((d) => (d.blockers[0].needs = 'user_decision'));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toMatchObject([{ display: 'blockers[0]', ours: undefined, theirs: { id: 'b1', needs: 'user_decision' } }]);
    expect(ids(value, 'blockers')).toEqual(['b1']);
  });

  it('inserts a record after its predecessor, and sorts records both sides put at one place by id', () => {
    const ours = edit((d) => d.progress_table.splice(1, 0, { id: 'design-b', label: 'B', status: 'not_started' }));
    const theirs = edit((d) => {
      d.progress_table.splice(1, 0, { id: 'design-a', label: 'A', status: 'not_started' });
      d.progress_table.push({ id: 'sprint-9', label: 'S9', status: 'not_started' });
    });
    expect(ids(merge3(BASE, ours, theirs).value, 'progress_table')).toEqual(['planning', 'design-a', 'design-b', 'sprint-1', 'sprint-9']);
  });

  it('keeps a run of records one side added together', () => {
    const ours = edit((d) => d.progress_table.push({ id: 'z1', label: 'z1', status: 'not_started' }, { id: 'a2', label: 'a2', status: 'not_started' }));
    const theirs = edit((d) => d.progress_table.push({ id: 'm', label: 'm', status: 'not_started' }));
    expect(ids(merge3(BASE, ours, theirs).value, 'progress_table')).toEqual(['planning', 'sprint-1', 'm', 'z1', 'a2']);
  });

  it("follows the order of the one side that reordered", () => {
    const ours = edit((d) => d.progress_table.reverse());
    const theirs = edit((d) => (d.progress_table[0].status = 'failed'));
    const { value } = merge3(BASE, ours, theirs);
    expect(ids(value, 'progress_table')).toEqual(['sprint-1', 'planning']);
    expect((value as any).progress_table[1].status).toBe('failed');
  });

  it('falls back to one conflict on the whole array when a record lacks an id', () => {
    const ours = edit((d) => d.blockers.push({ description: 'no id' }));
    const theirs = edit((d) => d.blockers.push({ id: 'b2', description: 'two' }));
    expect(displays(merge3(BASE, ours, theirs).conflicts)).toEqual(['blockers']);
  });
});

describe("a skill's own lists of records (red team s21)", () => {
  // skill_state lists the protocol does not name, written as people keep them: findings and
  // agents with an id, a nested updated_at, a last_run inside a record.
  const withState = (state: JsonObject) => edit((d) => (d.skill_state = state));
  const base = withState({
    findings: [{ id: 'f1', file: 'src/a.ts', line: 10, severity: 'high' }, { id: 'f2', file: 'src/b.ts (PR 12)', line: 20, severity: 'low' }],
    lint: { updated_at: '2026-03-02T00:00:00Z', errors: 3 },
    agents: [{ id: 'reviewer', last_run: { at: '2026-03-02T00:00:00Z', ok: true } }],
  });

  it('an edit to one record and a record added on the other branch merge per id', () => {
    const ours = edit((d) => (d.skill_state.findings[0].severity = 'fixed'), base);
    const theirs = edit((d) => d.skill_state.findings.push({ id: 'f3', file: 'src/c.ts', line: 30, severity: 'medium' }), base);
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.findings).toEqual([
      { id: 'f1', file: 'src/a.ts', line: 10, severity: 'fixed' },
      { id: 'f2', file: 'src/b.ts (PR 12)', line: 20, severity: 'low' },
      { id: 'f3', file: 'src/c.ts', line: 30, severity: 'medium' },
    ]);
  });

  it('the same field of one record changed both ways is a conflict at that field only', () => {
    const ours = edit((d) => (d.skill_state.findings[1].severity = 'medium'), base);
    const theirs = edit((d) => (d.skill_state.findings[1].severity = 'none'), base);
    expect(displays(merge3(base, ours, theirs).conflicts)).toEqual(['skill_state.findings[1].severity']);
  });

  it('telemetry inside: a nested updated_at takes the later save, a record\'s last_run the later run', () => {
    const stamp = (at: string, ok: boolean) => edit((d) => {
      d.skill_state.lint.updated_at = at;
      d.skill_state.agents[0].last_run = { at, ok };
    }, base);
    const { value, conflicts } = merge3(base, stamp('2026-03-03T00:00:00Z', false), stamp('2026-03-04T00:00:00Z', true));
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state.lint).toEqual({ updated_at: '2026-03-04T00:00:00Z', errors: 3 });
    expect((value as any).skill_state.agents).toEqual([{ id: 'reviewer', last_run: { at: '2026-03-04T00:00:00Z', ok: true } }]);
  });

  it('a list whose items lack ids is still one value: changed both ways, one conflict on the list', () => {
    const plain = withState({ notes: ['a', 'b'] });
    const ours = edit((d) => d.skill_state.notes.push('c'), plain);
    const theirs = edit((d) => d.skill_state.notes.push('d'), plain);
    expect(displays(merge3(plain, ours, theirs).conflicts)).toEqual(['skill_state.notes']);
  });
});

describe("a project's own counters (config.json \"counters\")", () => {
  it('add each branch\'s increase; without the rule the same change is a conflict', () => {
    const base = edit((d) => (d.skill_state = { runs: 5, retries: 1.0 }));
    const ours = edit((d) => (d.skill_state = { runs: 6, retries: 1.0 }));
    const theirs = edit((d) => (d.skill_state = { runs: 7, retries: 3.0 }));
    const rules = compileExtraLogs({ counters: ['skill_state.runs'] });
    const { value, conflicts } = merge3(base, ours, theirs, rules);
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state).toEqual({ runs: 8, retries: 3 });
    expect(displays(merge3(base, ours, theirs).conflicts)).toEqual(['skill_state.runs']);
    // A branch that lowered it (a reset) beside one that raised it: a person decides.
    expect(displays(merge3(base, edit((d) => (d.skill_state = { runs: 0, retries: 1.0 })), theirs, rules).conflicts)).toEqual(['skill_state.runs']);
  });
});

describe('counter policy (cost spend)', () => {
  const COST = { currency: 'USD', total_usd: 1.0, budget_usd: 50, by_phase: { spec: 3.1, build: 8 }, tokens: { input: 10, note: 'approx' }, updated_at: '2026-03-01T09:00:00Z' };
  const base = edit((d) => (d.cost = structuredClone(COST)));
  const spend = (fn: (cost: any) => void) => edit((d) => fn(d.cost), base);
  const cost = (value: JsonValue) => (value as any).cost;

  it("adds both branches' spend: base + each side's increment, on every counter", () => {
    const ours = spend((c) => Object.assign(c, { total_usd: 3.5, updated_at: '2026-03-02T00:00:00Z' }, { tokens: { input: 100, note: 'approx' } }));
    const theirs = spend((c) => Object.assign(c, { total_usd: 4.25, updated_at: '2026-03-03T00:00:00Z' }, { tokens: { input: 300, note: 'approx' } }));
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(cost(value)).toEqual({ ...COST, total_usd: 6.75, tokens: { input: 390, note: 'approx' }, updated_at: '2026-03-03T00:00:00Z' });
  });

  it('adds counts nested at any depth under the free-form tokens like the flat ones (red team 62a 06)', () => {
    // As a telemetry tool writes them: cache reads and writes under tokens.cache, per-model under tokens.by_model.
    const nested = spend((c) => (c.tokens = { input: 1000, cache: { read: 100, write: { '5m': 8.0 } }, note: 'approx' }));
    const session = (input: number, read: number, write: number, at: string) =>
      edit((d) => Object.assign(d.cost, { updated_at: at, tokens: { input, cache: { read, write: { '5m': write } }, note: 'approx' } }), nested);
    const { value, conflicts } = merge3(nested, session(1100, 150, 12.0, '2026-03-02T00:00:00Z'), session(1050, 130, 9.5, '2026-03-03T00:00:00Z'));
    expect(conflicts).toEqual([]);
    expect(cost(value).tokens).toEqual({ input: 1150, cache: { read: 180, write: { '5m': 13.5 } }, note: 'approx' });
    // A count one side lowered beside the other's spend is still no sum; a string under it stays a plain value.
    const lowered = merge3(nested, session(1100, 50, 8.0, '2026-03-02T00:00:00Z'), session(1050, 130, 8.0, '2026-03-03T00:00:00Z'));
    expect(displays(lowered.conflicts)).toEqual(['cost.tokens.cache.read']);
    const notes = merge3(nested, edit((d) => (d.cost.tokens.cache.note = 'exact'), nested), edit((d) => (d.cost.tokens.cache.note = 'rough'), nested));
    expect(displays(notes.conflicts)).toEqual(['cost.tokens.cache.note']);
  });

  it('counts both sessions that raised a counter to the same value in saves of their own; one save on both sides (a cherry-pick) once', () => {
    // Red team 12-06: a +1 run counter and a flat per-session cost on two machines lost a session.
    const session = (at: string) => edit((d) => ((d.updated_at = at), (d.cost.total_usd = 1.25), (d.cost.tokens.input = 60), (d.skill_state = { runs: 6 })), edit((d) => (d.skill_state = { runs: 5 }), base));
    const rules = compileExtraLogs({ counters: ['skill_state.runs'] });
    const before = edit((d) => (d.skill_state = { runs: 5 }), base);
    for (const [o, t] of [[session('2026-03-02T10:00:00Z'), session('2026-03-02T11:30:00Z')], [session('2026-03-02T11:30:00Z'), session('2026-03-02T10:00:00Z')]]) {
      const { value, conflicts } = merge3(before, o!, t!, rules);
      expect(conflicts).toEqual([]);
      expect([cost(value).total_usd, cost(value).tokens.input, (value as any).skill_state.runs]).toEqual([1.5, 110, 7]);
    }
    // The same save on both sides (one commit cherry-picked, then the branches merged): counted once.
    const same = session('2026-03-02T10:00:00Z');
    const picked = edit((d) => (d.step = 'review'), same);
    const { value, conflicts } = merge3(before, picked, same, rules);
    expect(conflicts).toEqual([]);
    expect([cost(value).total_usd, cost(value).tokens.input, (value as any).skill_state.runs, (value as any).step]).toEqual([1.25, 60, 6, 'review']);
  });

  it('writes no float noise: the sum rounded to the most decimals a side has', () => {
    const ours = spend((c) => ((c.by_phase.spec = 3.3), (c.by_model = { opus: 0.1 })));
    const theirs = spend((c) => ((c.by_phase.spec = 3.2), (c.by_model = { opus: 0.2, haiku: 1e-7 })));
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    // 3.3 + 3.2 - 3.1 and 0.1 + 0.2 are 3.4000000000000004 and 0.30000000000000004 in doubles.
    expect(cost(value).by_phase).toEqual({ spec: 3.4, build: 8 });
    expect(cost(value).by_model).toEqual({ opus: 0.3, haiku: 1e-7 });
  });

  it('keeps budget_usd and currency plain values: different changes conflict', () => {
    const ours = spend((c) => ((c.budget_usd = 80), (c.currency = 'EUR')));
    const theirs = spend((c) => ((c.budget_usd = 60), (c.currency = 'GBP')));
    expect(displays(merge3(base, ours, theirs).conflicts)).toEqual(['cost.currency', 'cost.budget_usd']);
  });

  it('falls back to the plain rules for a non-number, a negative value or a negative sum', () => {
    const text = spend((c) => (c.total_usd = '3.50'));
    const other = spend((c) => (c.total_usd = 2));
    expect(displays(merge3(base, text, other).conflicts)).toEqual(['cost.total_usd']);
    const negative = spend((c) => (c.tokens.input = -5));
    const up = spend((c) => (c.tokens.input = 20));
    expect(displays(merge3(base, negative, up).conflicts)).toEqual(['cost.tokens.input']);
    // Both lowered the total (a reset, a correction): 0.5 + 0.25 - 1.0 < 0, a person decides.
    const reset = spend((c) => (c.total_usd = 0.5));
    const corrected = spend((c) => (c.total_usd = 0.25));
    expect(displays(merge3(base, reset, corrected).conflicts)).toEqual(['cost.total_usd']);
    // A string under tokens is the project's own note: plain.
    const note = spend((c) => (c.tokens.note = 'exact'));
    const otherNote = spend((c) => (c.tokens.note = 'rough'));
    expect(displays(merge3(base, note, otherNote).conflicts)).toEqual(['cost.tokens.note']);
  });

  it('conflicts where one side lowered a counter (a reset) and the other spent more: a decrease is not spend', () => {
    const base5 = spend((c) => ((c.total_usd = 5), (c.by_phase.build = 8.0)));
    const reset = edit((d) => ((d.cost.total_usd = 0), (d.cost.by_phase.build = 0)), base5);
    const spent = edit((d) => ((d.cost.total_usd = 7), (d.cost.by_phase.build = 9.5), (d.cost.tokens.input = 300)), base5);
    const { value, conflicts } = merge3(base5, reset, spent);
    // 0 + 7 - 5 = 2 and 0 + 9.5 - 8 = 1.5 meant neither side: both values stay, a person decides.
    expect(displays(conflicts)).toEqual(['cost.total_usd', 'cost.by_phase.build']);
    expect(conflicts.map((c) => [c.base, c.ours, c.theirs])).toEqual([
      [5, 0, 7],
      [8, 0, 9.5],
    ]);
    expect(conflicts[0]!.why).toMatch(/^ours lowered it \(a reset or a correction\)/);
    expect(mergeCheckpointValues(base5, spent, reset).conflicts[0]!.why).toMatch(/^theirs lowered it/);
    // A counter only one side touched merges as before.
    expect(cost(value).tokens.input).toBe(300);
    // A correction down on one side and spend on the other: 5 -> 4 and 5 -> 6 is not 5.
    const down = edit((d) => (d.cost.total_usd = 4), base5);
    const up = edit((d) => (d.cost.total_usd = 6), base5);
    expect(displays(merge3(base5, down, up).conflicts)).toEqual(['cost.total_usd']);
    // A reset both sides made alike, or one side made alone: the plain rules, no conflict.
    const resetToo = edit((d) => ((d.cost.total_usd = 0), (d.cost.by_phase.build = 0), (d.cost.tokens.input = 20)), base5);
    const both = merge3(base5, reset, resetToo);
    expect(both.conflicts).toEqual([]);
    expect(cost(both.value)).toMatchObject({ total_usd: 0, by_phase: { build: 0 }, tokens: { input: 20 } });
    const alone = merge3(base5, reset, edit((d) => (d.cost.tokens.input = 20), base5));
    expect(alone.conflicts).toEqual([]);
    expect(cost(alone.value)).toMatchObject({ total_usd: 0, tokens: { input: 20 } });
  });

  describe('a currency switched on one side', () => {
    const usd = spend((c) => ((c.total_usd = 5), (c.by_model = { opus: 2 })));
    // Ours moved the checkpoint to EUR, converting what it had, and spent on by_model.opus.
    const eur = edit((d) => Object.assign(d.cost, { currency: 'EUR', total_usd: 4.6, budget_usd: 46, by_phase: { spec: 2.85, build: 7.36 }, by_model: { opus: 2.5 } }), usd);

    it('conflicts on every amount the other side spent in the old currency, sums nothing across currencies', () => {
      // Theirs spent 2 USD more on the total and on build, and counted tokens.
      const spent = edit((d) => Object.assign(d.cost, { total_usd: 7, by_phase: { spec: 3.1, build: 10 }, tokens: { input: 300, note: 'approx' } }), usd);
      const { value, conflicts } = merge3(usd, eur, spent);
      expect(displays(conflicts)).toEqual(['cost.total_usd', 'cost.by_phase.build']);
      expect(conflicts.map((c) => [c.base, c.ours, c.theirs])).toEqual([
        [5, 4.6, 7],
        [8, 7.36, 10],
      ]);
      expect(conflicts[0]!.why).toBe('amounts in different currencies (base "USD", ours "EUR", theirs "USD")');
      // What only ours changed is in EUR, as the merged currency: taken. Tokens are no money: summed as ever.
      expect(cost(value)).toMatchObject({ currency: 'EUR', budget_usd: 46, by_phase: { spec: 2.85 }, by_model: { opus: 2.5 }, tokens: { input: 300 } });
      // No side switched: an absent currency is USD, a respelled code the same currency, and spend adds up as ever.
      const absent = edit((d) => delete d.cost.currency, usd);
      const lower = edit((d) => Object.assign(d.cost, { currency: ' usd', total_usd: 6 }), absent);
      const more = edit((d) => (d.cost.total_usd = 7), absent);
      const same = merge3(absent, lower, more);
      expect(same.conflicts).toEqual([]);
      expect(cost(same.value)).toMatchObject({ currency: ' usd', total_usd: 8 });
    });

    it("conflicts on an amount only the old-currency side changed: its dollars are not the merged document's euros", () => {
      const spent = edit((d) => ((d.cost.by_model.haiku = 0.5), (d.cost.budget_usd = 60)), usd);
      const { value, conflicts } = merge3(usd, eur, spent);
      expect(displays(conflicts)).toEqual(['cost.budget_usd', 'cost.by_model.haiku']);
      expect(cost(value).by_model.opus).toBe(2.5);
      // A whole map added in dollars, beside a switch to euros.
      const noModels = edit((d) => delete d.cost.by_model, usd);
      const eurNoModels = edit((d) => ((d.cost.currency = 'EUR'), (d.cost.total_usd = 4.6)), noModels);
      const models = edit((d) => (d.cost.by_model = { haiku: 0.5 }), noModels);
      expect(displays(merge3(noModels, eurNoModels, models).conflicts)).toEqual(['cost.by_model']);
    });

    it('conflicts when both switched and both spent: the base amount is in the old currency; sums where it is 0 or absent', () => {
      const a = edit((d) => Object.assign(d.cost, { currency: 'EUR', total_usd: 5.6, by_model: { opus: 2, sonnet: 1 } }), usd);
      const b = edit((d) => Object.assign(d.cost, { currency: 'EUR', total_usd: 6.6, by_model: { opus: 2, sonnet: 2 } }), usd);
      const { value, conflicts } = merge3(usd, a, b);
      expect(displays(conflicts)).toEqual(['cost.total_usd']);
      expect(cost(value).currency).toBe('EUR');
      expect(cost(value).by_model).toEqual({ opus: 2, sonnet: 3 });
    });

    it('conflicts on every amount both sides changed when each switched to another currency', () => {
      const a = edit((d) => Object.assign(d.cost, { currency: 'EUR', total_usd: 4.6 }), usd);
      const b = edit((d) => Object.assign(d.cost, { currency: 'GBP', total_usd: 4 }), usd);
      expect(displays(merge3(usd, a, b).conflicts)).toEqual(['cost.currency', 'cost.total_usd']);
    });
  });

  it('sums a counter both sides added without a base; takes one added by one side alone', () => {
    const ours = edit((d) => (d.cost = { total_usd: 1.25, by_phase: { build: 1.25 } }));
    const theirs = edit((d) => (d.cost = { total_usd: 2, by_phase: { audit: 2 } }));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(cost(value)).toEqual({ total_usd: 3.25, by_phase: { build: 1.25, audit: 2 } });
  });
});

describe('queue policy (next_actions)', () => {
  const actions = (value: JsonValue) => (value as any).next_actions;

  it('removes every item popped by either side', () => {
    const ours = edit((d) => d.next_actions.shift());
    const theirs = edit((d) => d.next_actions.splice(0, 2));
    expect(actions(merge3(BASE, ours, theirs).value)).toEqual(['three']);
  });

  it("keeps both sides' appended items, each side's block in its own order, blocks of equal times by canonical JSON", () => {
    const ours = edit((d) => d.next_actions.push('b: second', 'a: first'));
    const theirs = edit((d) => d.next_actions.push('c: third'));
    // ours' block ["b: second","a: first"] sorts before theirs' ["c: third"], and stays in its own order.
    expect(actions(merge3(BASE, ours, theirs).value)).toEqual(['one', 'two', 'three', 'b: second', 'a: first', 'c: third']);
  });

  it('a one-action queue whose action both sides edited differently (same words) is a conflict, never the action twice (red team, 12-05)', () => {
    const base = edit((d) => (d.next_actions = [{ text: 'Run the evals', priority: 1 }]));
    const ours = edit((d) => (d.next_actions[0].priority = 2), base);
    const theirs = edit((d) => (d.next_actions[0].priority = 3), base);
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts.length).toBe(1);
    expect(displays(conflicts)[0]).toMatch(/^next_actions/);
    expect(actions(value).filter((a: { text?: string }) => a.text === 'Run the evals').length).toBeLessThanOrEqual(1);
    // One side's edit alone is taken; the same edit on both is taken once.
    expect(actions(merge3(base, ours, base).value)).toEqual([{ text: 'Run the evals', priority: 2 }]);
    expect(actions(merge3(base, ours, ours).value)).toEqual([{ text: 'Run the evals', priority: 2 }]);
    // Done and a new action on one side, the old one edited on the other: still pops + appends
    // there, never an edit of the action into "Ship"; the action done is gone, its new priority
    // with it (red team, 12-06: done is done), and "Ship" stays.
    const popped = edit((d) => (d.next_actions = ['Ship']), base);
    for (const [a, b] of [[ours, popped], [popped, ours]]) {
      const r = merge3(base, a!, b!);
      expect(r.conflicts).toEqual([]);
      expect(actions(r.value)).toEqual(['Ship']);
    }
  });

  it('pops and appends together: popped on one side, appended on both', () => {
    const ours = edit((d) => {
      d.next_actions.shift();
      d.next_actions.push({ text: 'deploy', done_when: 'npm run deploy' });
    });
    const theirs = edit((d) => {
      d.next_actions.splice(0, 2);
      d.next_actions.push('write docs');
    });
    expect(actions(merge3(BASE, ours, theirs).value)).toEqual(['three', 'write docs', { text: 'deploy', done_when: 'npm run deploy' }]);
  });

  it('keeps an item one side appended behind every older item the other side reordered', () => {
    const base = edit((d) => (d.next_actions = ['Write the auth middleware', 'Add rate limiting']));
    const ours = edit((d) => (d.next_actions = ['Add rate limiting', 'Write the auth middleware']), base);
    const theirs = edit((d) => d.next_actions.push('C'), base);
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(actions(value)).toEqual(['Add rate limiting', 'Write the auth middleware', 'C']);
    // A block of moved and new items: up to its last moved one before both sides' new items, which go by the side saved earlier.
    const mixed = edit((d) => ((d.updated_at = '2026-03-01T11:00:00Z'), (d.next_actions = ['Add rate limiting', 'Urgent fix', 'Write the auth middleware', 'Later'])), base);
    // theirs (still at base's 10:00) saved before mixed (11:00): its new item first.
    expect(actions(merge3(base, mixed, theirs).value)).toEqual(['Add rate limiting', 'Urgent fix', 'Write the auth middleware', 'C', 'Later']);
    const laterTheirs = edit((d) => ((d.updated_at = '2026-03-01T12:00:00Z'), d.next_actions.unshift('Z first'), d.next_actions.push('C')), base);
    expect(actions(merge3(base, mixed, laterTheirs).value)).toEqual(['Z first', 'Add rate limiting', 'Urgent fix', 'Write the auth middleware', 'Later', 'C']);
  });

  it("orders two sides' appended blocks by the side saved earlier, not by their text", () => {
    const ours = edit((d) => ((d.updated_at = '2026-03-02T09:00:00Z'), d.next_actions.push('Zap prod config')));
    const theirs = edit((d) => ((d.updated_at = '2026-03-02T10:00:00+00:00'), d.next_actions.push('Add docs', 'Ship')));
    expect(actions(merge3(BASE, ours, theirs).value)).toEqual(['one', 'two', 'three', 'Zap prod config', 'Add docs', 'Ship']);
    const later = edit((d) => ((d.updated_at = '2026-03-03T00:00:00Z'), d.next_actions.push('Zap prod config')));
    expect(actions(merge3(BASE, later, theirs).value)).toEqual(['one', 'two', 'three', 'Add docs', 'Ship', 'Zap prod config']);
    // A side without a valid time goes after the one with a time.
    const undated = edit((d) => ((d.updated_at = 'yesterday'), d.next_actions.push('A undated')));
    expect(actions(merge3(BASE, undated, theirs).value)).toEqual(['one', 'two', 'three', 'Add docs', 'Ship', 'A undated']);
  });

  it('keeps an item appended by both sides once', () => {
    const ours = edit((d) => d.next_actions.push('shared', 'ours only'));
    const theirs = edit((d) => d.next_actions.push('shared'));
    expect(actions(merge3(BASE, ours, theirs).value)).toEqual(['one', 'two', 'three', 'shared', 'ours only']);
  });

  it('reads a replaced whole queue as pops + appends (done + append on a one-item queue, on both sides)', () => {
    const base = edit((d) => (d.next_actions = ['only']));
    const ours = edit((d) => (d.next_actions = ['ours next']), base);
    const theirs = edit((d) => (d.next_actions = ['theirs next']), base);
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(actions(value)).toEqual(['ours next', 'theirs next']);
  });

  it('takes an in-place edit when the other side popped a different item', () => {
    const ours = edit((d) => (d.next_actions[1] = 'two, reworded'));
    const theirs = edit((d) => d.next_actions.shift());
    expect(actions(merge3(BASE, ours, theirs).value)).toEqual(['two, reworded', 'three']);
  });

  it('reports an in-place edit against a removal of that item, at its position', () => {
    const ours = edit((d) => (d.next_actions[0] = 'one, reworded'));
    const theirs = edit((d) => d.next_actions.shift());
    const { conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toMatchObject([{ display: 'next_actions[0]', base: ['one'], ours: ['one, reworded'], theirs: [], span: 1 }]);
  });

  it('reports two different in-place edits of one item', () => {
    const ours = edit((d) => (d.next_actions[1] = 'two (ours)'));
    const theirs = edit((d) => (d.next_actions[1] = 'two (theirs)'));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(displays(conflicts)).toEqual(['next_actions[1]']);
    expect(actions(value)).toHaveLength(3);
  });

  it('reports two different edits of the last item when other items stay', () => {
    const ours = edit((d) => (d.next_actions[2] = 'three (ours)'));
    const theirs = edit((d) => (d.next_actions[2] = 'three (theirs)'));
    expect(displays(merge3(BASE, ours, theirs).conflicts)).toEqual(['next_actions[2]']);
  });

  it('keeps an item one side inserted where the other removed around it', () => {
    const ours = edit((d) => d.next_actions.splice(2, 0, 'inserted'));
    const theirs = edit((d) => d.next_actions.splice(0, 3, 'fresh'));
    const { value, conflicts } = merge3(BASE, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(actions(value)).toEqual(['inserted', 'fresh']);
  });

  it('keeps an action both sides added, one in place of the only item and one at the back, once', () => {
    const base = edit((d) => (d.next_actions = ['Audit the spec (PR 12)']));
    const ours = edit((d) => (d.next_actions = ['Write docs for src/x.ts']), base);
    const theirs = edit((d) => d.next_actions.push('Write docs for src/x.ts'), base);
    const { value, conflicts } = merge3(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(actions(value)).toEqual(['Write docs for src/x.ts']);
  });

  it('aligns a long queue in near-linear time', () => {
    const long = Array.from({ length: 50_000 }, (_, i) => `action ${i}`);
    const base = edit((d) => (d.next_actions = long));
    const ours = edit((d) => {
      d.next_actions.splice(0, 10);
      d.next_actions.push('ours');
    }, base);
    const theirs = edit((d) => {
      d.next_actions.splice(0, 20);
      d.next_actions.push('theirs');
    }, base);
    // A quadratic alignment would not finish within the test's timeout; speed itself is bench/'s.
    const { value } = mergeCheckpointValues(base, ours, theirs, {});
    expect(actions(value)).toHaveLength(50_000 - 20 + 2);
  });
});

describe('safety', () => {
  it('never copies __proto__, constructor or prototype keys, and pollutes nothing', () => {
    const evil = edit((d) => (d.phase = 'x'));
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      Object.defineProperty(evil, key, { value: { polluted: true }, enumerable: true, configurable: true, writable: true });
    }
    const { value } = mergeCheckpointValues(BASE, evil, edit((d) => (d.step = 'y')), {});
    expect(Object.keys(value as object)).not.toContain('__proto__');
    // Even when only one side changed, so the merge would hand that side through whole.
    const handedThrough = mergeCheckpointValues(BASE, evil, BASE, {}).value;
    expect(Object.keys(handedThrough as object).filter((k) => ['__proto__', 'constructor', 'prototype'].includes(k))).toEqual([]);
    expect(Object.prototype.hasOwnProperty.call(value, 'constructor')).toBe(false);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as any).polluted).toBeUndefined();
  });

  it('reads a missing key as absent even when Object.prototype has it', () => {
    const ours = edit((d) => (d.skill_state.toString = 'mine'));
    const theirs = edit((d) => (d.skill_state.scores.final = 3));
    const { value, conflicts } = mergeCheckpointValues(BASE, ours, theirs, {});
    expect(conflicts).toEqual([]);
    expect((value as any).skill_state).toMatchObject({ toString: 'mine', scores: { final: 3 } });
  });

  it('does not throw on nesting far deeper than parseJson allows', () => {
    const deep = (leaf: JsonValue): JsonValue => {
      let v: JsonValue = leaf;
      for (let i = 0; i < 10_000; i++) v = { d: v };
      return v;
    };
    const { conflicts } = mergeCheckpointValues(deep(0), deep(1), deep(2), {});
    expect(conflicts).toHaveLength(1);
  });

  it('merges non-object documents by the value rules', () => {
    expect(mergeCheckpointValues(1, 2, 1, {}).value).toBe(2);
    expect(mergeCheckpointValues([1], [2], [3], {}).conflicts.map((c) => c.display)).toEqual(['(document)']);
  });
});

describe('issue 9: real-repo shapes', () => {
  const history = (v: JsonValue) => (v as any).skill_state.run_history;

  it('keeps two different records with the same id that one side logged', () => {
    const ours = edit((d) => d.skill_state.run_history.push({ id: 'nightly', ok: true }, { id: 'nightly', ok: false, note: 'REGRESSION' }));
    const theirs = edit((d) => d.eval_scores.push({ rubric: 'x', score: 1 }));
    for (const [a, b] of [[ours, theirs], [theirs, ours]] as const) {
      const { value, conflicts } = merge3(BASE, a, b);
      expect(conflicts).toEqual([]);
      expect(history(value).slice(1)).toEqual([{ id: 'nightly', ok: true }, { id: 'nightly', ok: false, note: 'REGRESSION' }]);
    }
  });

  it('keeps both copies of a record one side appended twice, and one copy of a record both appended', () => {
    const twice = { id: 'r9', at: '2026-03-03T00:00:00Z', ok: true };
    const ours = edit((d) => d.skill_state.run_history.push(twice, { ...twice }));
    const theirs = edit((d) => d.skill_state.run_history.push({ ...twice }, { id: 'r10', ok: true }));
    for (const [a, b] of [[ours, theirs], [theirs, ours]] as const) {
      const { value, conflicts } = merge3(BASE, a, b);
      expect(conflicts).toEqual([]);
      expect(history(value).filter((e: any) => e.id === 'r9')).toHaveLength(2);
      expect(history(value).filter((e: any) => e.id === 'r10')).toHaveLength(1);
    }
  });

  it('keeps the edited record when the other side removed (rotated out) the original', () => {
    const ours = edit((d) => (d.skill_state.run_history = []));
    const theirs = edit((d) => (d.skill_state.run_history[0].status = 'FAILED: see log'));
    for (const [a, b] of [[ours, theirs], [theirs, ours]] as const) {
      const { value, conflicts } = merge3(BASE, a, b);
      expect(conflicts).toEqual([]);
      expect(history(value)).toEqual([{ id: 'r1', at: '2026-03-01T09:00:00Z', ok: true, status: 'FAILED: see log' }]);
    }
  });

  it('reads an absent log as an empty one (a cherry-picked append onto a branch without the log)', () => {
    const ours = edit((d) => delete d.skill_state.run_history);
    const theirs = edit((d) => d.skill_state.run_history.push({ id: 'r2', ok: true }));
    for (const [a, b] of [[ours, theirs], [theirs, ours]] as const) {
      const { value, conflicts } = merge3(BASE, a, b);
      expect(conflicts).toEqual([]);
      expect(history(value)).toEqual([{ id: 'r2', ok: true }]);
    }
  });

  it('keeps an edited one-item queue in front of the other side\'s append', () => {
    const base = edit((d) => (d.next_actions = ['Write tests']));
    const ours = edit((d) => (d.next_actions = ['Write tests for auth']), base);
    const theirs = edit((d) => (d.next_actions = ['Write tests', 'Deploy']), base);
    for (const [a, b] of [[ours, theirs], [theirs, ours]] as const) {
      const { value, conflicts } = merge3(base, a, b);
      expect(conflicts).toEqual([]);
      expect((value as any).next_actions).toEqual(['Write tests for auth', 'Deploy']);
    }
  });

  describe('snapshots (skill_state.last_run, streak)', () => {
    const run = (at: string, verdict: string, ms: number) => ({ at, verdict, duration_ms: ms, checks: [verdict], changed_files: ['src/x.ts (PR 12)'] });
    const base = edit((d) => Object.assign(d.skill_state, { last_run: run('2026-03-01T09:00:00Z', 'pass', 100), streak: 3 }));

    it('takes the whole last_run of the later run and the streak of the later document', () => {
      const ours = edit((d) => {
        d.updated_at = '2026-03-02T10:00:00Z';
        d.skill_state.last_run = run('2026-03-02T10:00:00Z', 'fail', 250);
        d.skill_state.streak = 0;
      }, base);
      const theirs = edit((d) => {
        d.updated_at = '2026-03-02T11:00:00Z';
        d.skill_state.last_run = run('2026-03-02T09:00:00Z', 'pass', 90);
        d.skill_state.streak = 4;
      }, base);
      for (const [a, b] of [[ours, theirs], [theirs, ours]] as const) {
        const { value, conflicts } = merge3(base, a, b);
        expect(conflicts).toEqual([]);
        // last_run by its own `at` (ours ran later), streak by the document time (theirs is later).
        expect((value as any).skill_state.last_run).toEqual(run('2026-03-02T10:00:00Z', 'fail', 250));
        expect((value as any).skill_state.streak).toBe(4);
      }
    });

    it('picks one whole snapshot, the same both ways round, when the times are equal', () => {
      const ours = edit((d) => (d.skill_state.last_run = run('2026-03-02T10:00:00Z', 'fail', 1)), base);
      const theirs = edit((d) => (d.skill_state.last_run = run('2026-03-02T10:00:00Z', 'pass', 2)), base);
      const one = merge3(base, ours, theirs);
      const other = merge3(base, theirs, ours);
      expect(one.conflicts).toEqual([]);
      expect(one.value).toEqual(other.value);
      expect([run('2026-03-02T10:00:00Z', 'fail', 1), run('2026-03-02T10:00:00Z', 'pass', 2)]).toContainEqual((one.value as any).skill_state.last_run);
    });

    it('takes capsule.mechanical whole from the later `pause --auto`, never field by field (two branches that compacted)', () => {
      const capsule = (mechanical: object) => ({
        context: { goal: 'ship auth (PR 12)', acceptance: 'tests pass', next: 'write tests', constraints: [], decisions: [], evidence: [], pending: ['worktree /work/wt-a'] },
        origin: { root: '/work/demo', head: '01ed59b', saved_at: '2026-03-01T09:00:00Z' },
        mechanical,
      });
      const b = edit((d) => (d.capsule = capsule({ head: null, branch: null, at: '2026-03-01T09:00:00Z' })), base);
      const feat = { head: 'ceb77d2', branch: 'feat/auth', uncommitted: ['src/x.ts (PR 12)', 'docs/*.md'], uncommitted_count: 14, at: '2026-03-02T10:00:00+02:00' };
      const main = { head: '01ed59b', branch: 'main', uncommitted: [], uncommitted_count: 0, at: '2026-03-02T09:30:00Z' };
      const ours = edit((d) => (d.capsule = capsule(main)), b);
      const theirs = edit((d) => (d.capsule = capsule(feat)), b);
      for (const [x, y] of [[ours, theirs], [theirs, ours]] as const) {
        const { value, conflicts } = merge3(b, x, y);
        expect(conflicts).toEqual([]);
        // 10:00+02:00 is 08:00Z: main's save is the later one, whole (its branch with its head).
        expect((value as any).capsule.mechanical).toEqual(main);
      }
      // The same instant on both: one whole side, the same both ways round.
      const tied = edit((d) => (d.capsule = capsule({ ...feat, at: main.at })), b);
      const one = merge3(b, ours, tied);
      expect(one.conflicts).toEqual([]);
      expect(one.value).toEqual(merge3(b, tied, ours).value);
      expect([main, { ...feat, at: main.at }]).toContainEqual((one.value as any).capsule.mechanical);
    });

    describe('capsule.origin', () => {
      // What a first `pause --auto` writes: the placeholder claims, origin and mechanical state of one HEAD and time.
      const placeholder = { goal: 'unknown: not recorded yet', acceptance: 'unknown: not recorded yet', constraints: ['unknown: not recorded yet'], decisions: [], evidence: [], pending: [], next: 'unknown: see next_actions[0]' };
      const firstAuto = (root: string, head: string, branch: string, at: string, context: object = placeholder) => ({
        context,
        origin: { root, head, saved_at: at },
        mechanical: { head, branch, uncommitted: [`src/${branch}.ts (PR 12)`], uncommitted_count: 1, at },
      });
      const a = firstAuto('/work/wt-a', '01ed59b', 'feat/a', '2026-03-02T09:00:00Z');
      const b = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T09:30:00+00:00');

      it('two branches\' first `pause --auto` merge by themselves: the earlier origin, the later mechanical state', () => {
        const ours = edit((d) => (d.capsule = a), base);
        const theirs = edit((d) => (d.capsule = b), base);
        for (const [x, y] of [[ours, theirs], [theirs, ours]] as const) {
          const { value, conflicts } = merge3(base, x, y);
          expect(conflicts).toEqual([]);
          expect((value as any).capsule).toEqual({ context: placeholder, origin: a.origin, mechanical: b.mechanical });
        }
        // Nothing of the later session is lost: its origin's HEAD and time are its mechanical state's.
        expect([b.mechanical.head, b.mechanical.at]).toEqual([b.origin.head, b.origin.saved_at]);
      });

      it('compares saved_at as instants, and an equal instant picks the same origin both ways round', () => {
        const later = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T10:00:00+02:00'); // 08:00Z: earlier than a
        expect((merge3(base, edit((d) => (d.capsule = a), base), edit((d) => (d.capsule = later), base)).value as any).capsule.origin).toEqual(later.origin);
        const tied = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T09:00:00.000Z');
        const one = merge3(base, edit((d) => (d.capsule = a), base), edit((d) => (d.capsule = tied), base));
        expect(one.conflicts).toEqual([]);
        expect([a.origin, tied.origin]).toContainEqual((one.value as any).capsule.origin);
      });

      it('also for the same claims saved on both sides over an older capsule', () => {
        const older = edit((d) => (d.capsule = firstAuto('/work/demo', '0000001', 'main', '2026-03-01T09:00:00Z')), base);
        const claims = { ...placeholder, goal: 'ship auth (PR 12)' };
        const ours = edit((d) => (d.capsule = firstAuto('/work/wt-a', '01ed59b', 'feat/a', '2026-03-02T09:00:00Z', claims)), older);
        const theirs = edit((d) => (d.capsule = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T09:30:00Z', claims)), older);
        const { value, conflicts } = merge3(older, ours, theirs);
        expect(conflicts).toEqual([]);
        expect((value as any).capsule.origin).toEqual((ours as any).capsule.origin);
      });

      it('stays a conflict beside different claims, or when a saved_at is not an instant', () => {
        const ours = edit((d) => (d.capsule = a), base);
        const claimed = edit((d) => (d.capsule = { ...b, context: { ...placeholder, goal: 'ship auth (PR 12)' } }), base);
        expect(displays(merge3(base, ours, claimed).conflicts)).toEqual(['capsule.context.goal', 'capsule.origin.root', 'capsule.origin.head', 'capsule.origin.saved_at']);
        const undated = edit((d) => (d.capsule = { ...b, origin: { ...b.origin, saved_at: 'yesterday' } }), base);
        expect(displays(merge3(base, ours, undated).conflicts)).toEqual(['capsule.origin.root', 'capsule.origin.head', 'capsule.origin.saved_at']);
        // The base's own claims saved again on both sides: nothing new the sides agree on (and the driver's markers re-merge the same).
        const older = edit((d) => (d.capsule = firstAuto('/work/demo', '0000001', 'main', '2026-03-01T09:00:00Z')), base);
        expect(displays(merge3(older, edit((d) => (d.capsule = a), older), edit((d) => (d.capsule = b), older)).conflicts)).toEqual(['capsule.origin.root', 'capsule.origin.head', 'capsule.origin.saved_at']);
      });

      it('one side that saved the base\'s claims again under an origin of its own takes the other side\'s new claims with their whole origin, both ways round (soak, 12-05)', () => {
        const older = edit((d) => (d.capsule = firstAuto('/work/demo', '0000001', 'main', '2026-03-01T09:00:00Z')), base);
        // The base's claims, saved again on another HEAD and time (a hand edit, another tool).
        const resaved = edit((d) => (d.capsule = firstAuto('/work/demo', '01ed59b', 'main', '2026-03-02T09:00:00Z')), older);
        const claimed = edit((d) => (d.capsule = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T09:30:00Z', { ...placeholder, goal: 'ship auth (PR 12)' })), older);
        for (const [x, y] of [[resaved, claimed], [claimed, resaved]] as const) {
          const { value, conflicts } = merge3(older, x, y);
          expect(conflicts).toEqual([]);
          expect((value as any).capsule.context.goal).toBe('ship auth (PR 12)');
          // Field by field it would mix the two (root from one side) or conflict on head and saved_at.
          expect((value as any).capsule.origin).toEqual((claimed as any).capsule.origin);
        }
      });

      it("a side whose claims are all pause --auto's placeholders takes the other side's new claims with their origin, both ways round; over the same claims in base it stays the plain rules' (red team, 12-05)", () => {
        const unknown = 'unknown: not recorded yet';
        const auto = { goal: `${unknown} (add it: checkpoint-protocol pause api --context ...); see the checkpoint's phase, step and progress_summary`, acceptance: `${unknown} (add it: checkpoint-protocol pause api --context ...)`, constraints: [unknown], decisions: [`${unknown}; see context_primer.key_decisions`], evidence: [unknown], pending: [`${unknown}; see next_actions`], next: `${unknown}; see next_actions[0]` };
        const real = { goal: 'Ship auth (PR 12)', acceptance: 'npm test green', constraints: ['no new deps'], decisions: ['Hono'], evidence: ['CI run 42'], pending: ['rate limit'], next: 'write middleware' };
        const hook = edit((d) => (d.capsule = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T09:30:00Z', auto)), base);
        const saved = edit((d) => (d.capsule = firstAuto('/work/wt-a', '01ed59b', 'feat/a', '2026-03-02T09:00:00Z', real)), base);
        for (const [x, y] of [[hook, saved], [saved, hook]] as const) {
          const { value, conflicts } = merge3(base, x, y);
          expect(conflicts).toEqual([]);
          expect((value as any).capsule.context).toEqual(real);
          expect((value as any).capsule.origin).toEqual((saved as any).capsule.origin);
          // Where and when each session paused stays the later one's (a snapshot).
          expect((value as any).capsule.mechanical).toEqual((hook as any).capsule.mechanical);
        }
        // The base already held those claims: a side replacing them with placeholders changed them, the plain rules decide.
        const older = edit((d) => (d.capsule = firstAuto('/work/demo', '0000001', 'main', '2026-03-01T09:00:00Z', real)), base);
        const blanked = edit((d) => (d.capsule = firstAuto('/work/wt-b', 'ceb77d2', 'feat/b', '2026-03-02T09:30:00Z', auto)), older);
        expect(merge3(older, blanked, older).value).toEqual(blanked);
      });

      it('leaves an origin only one side changed to the plain rules', () => {
        const older = edit((d) => (d.capsule = a), base);
        const ours = edit((d) => (d.capsule = { ...a, mechanical: b.mechanical }), older);
        const theirs = edit((d) => (d.capsule = b), older);
        const { value, conflicts } = merge3(older, ours, theirs);
        expect(conflicts).toEqual([]);
        expect((value as any).capsule.origin).toEqual(b.origin);
      });
    });

    it('applies project-declared telemetry from config', () => {
      const extraRules = compileExtraLogs({ telemetry: ['skill_state.**.coverage'] });
      const b = edit((d) => (d.skill_state.coverage = { pct: 80 }), base);
      const ours = edit((d) => ((d.updated_at = '2026-03-02T10:00:00Z'), (d.skill_state.coverage = { pct: 81 })), b);
      const theirs = edit((d) => ((d.updated_at = '2026-03-02T09:00:00Z'), (d.skill_state.coverage = { pct: 79 })), b);
      const { value, conflicts } = mergeCheckpointValues(b, theirs, ours, { extraRules });
      expect(conflicts).toEqual([]);
      expect((value as any).skill_state.coverage).toEqual({ pct: 81 });
      expect(mergeCheckpointValues(b, theirs, ours).conflicts.map((c) => c.display)).toEqual(['skill_state.coverage.pct']);
    });
  });
});

describe('log order when both sides added (red team, 12-04)', () => {
  it('keeps each side\'s own order of entries without a time (or with one time), whichever side is ours', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 12 }), fc.integer({ min: 0, max: 12 }), fc.boolean(), (entries, cut, timed) => {
        const at = '2026-03-02T00:00:00Z';
        const shape = (e: string): JsonValue => (timed ? { at, run: e } : e);
        const [mine, other] = [entries.slice(0, cut).map(shape), entries.slice(cut).map(shape)];
        const doc = (runs: JsonValue[]) => ({ ...BASE, skill_state: { run_history: runs } });
        const forward = mergeCheckpointValues(doc([]), doc(mine), doc(other), {}).value as any;
        const backward = mergeCheckpointValues(doc([]), doc(other), doc(mine), {}).value as any;
        expect(forward).toEqual(backward);
        const merged: JsonValue[] = forward.skill_state.run_history;
        const key = (v: JsonValue) => JSON.stringify(v);
        expect(merged.map(key).sort()).toEqual(entries.map(shape).map(key).sort());
        for (const side of [mine, other]) {
          const wanted = new Set(side.map(key));
          expect(merged.map(key).filter((k) => wanted.has(k))).toEqual(side.map(key));
        }
      }),
    );
  });
});

describe('log additions go where the sides put them (red team, 12-04)', () => {
  const done = (action: string, day: number) => ({ at: `2026-03-0${day}T10:00:00Z`, action });
  const oldestFirst = edit((d) => (d.recently_done = [done('one', 1), done('two', 2)]));

  it('a recently_done written oldest-first gets both sides\' new entries at its end, oldest first', () => {
    const ours = edit((d) => d.recently_done.push(done('ours', 4)), oldestFirst);
    const theirs = edit((d) => d.recently_done.push(done('theirs', 3)), oldestFirst);
    const { value, conflicts } = merge3(oldestFirst, ours, theirs);
    expect(conflicts).toEqual([]);
    expect((value as any).recently_done.map((e: any) => e.action)).toEqual(['one', 'two', 'theirs', 'ours']);
  });

  it('an append log written newest-first gets both sides\' new entries in front, newest first', () => {
    const run = (id: string, day: number) => ({ id, at: `2026-03-0${day}T10:00:00Z`, ok: true });
    const base = edit((d) => (d.skill_state.run_history = [run('r2', 2), run('r1', 1)]));
    const ours = edit((d) => d.skill_state.run_history.unshift(run('r3', 3)), base);
    const theirs = edit((d) => d.skill_state.run_history.unshift(run('r4', 4)), base);
    const { value } = merge3(base, ours, theirs);
    expect((value as any).skill_state.run_history.map((e: any) => e.id)).toEqual(['r4', 'r3', 'r2', 'r1']);
  });

  it('sides that disagree (one appends, one prepends) put each record where its time falls beside the kept ones, whichever side is ours', () => {
    const actions = (v: unknown) => (v as any).recently_done.map((e: any) => e.action);
    // Both newer than every kept entry: behind them, oldest first.
    const ours = edit((d) => d.recently_done.push(done('ours', 4)), oldestFirst);
    const theirs = edit((d) => d.recently_done.unshift(done('theirs', 3)), oldestFirst);
    expect(actions(merge3(oldestFirst, ours, theirs).value)).toEqual(['one', 'two', 'theirs', 'ours']);
    expect(actions(merge3(oldestFirst, theirs, ours).value)).toEqual(['one', 'two', 'theirs', 'ours']);
    // One branch restored an older record in front, the other logged a new one behind (red team 12-06 #3).
    const later = edit((d) => (d.recently_done = [done('two', 2), done('three', 3)]));
    const restored = edit((d) => d.recently_done.unshift(done('one', 1)), later);
    const logged = edit((d) => d.recently_done.push(done('four', 4)), later);
    expect(actions(merge3(later, restored, logged).value)).toEqual(['one', 'two', 'three', 'four']);
    expect(actions(merge3(later, logged, restored).value)).toEqual(['one', 'two', 'three', 'four']);
    // Records that do not say when: the field's declared order (newest first: in front).
    const untimed = edit((d) => (d.recently_done = [{ action: 'one' }, { action: 'two' }]));
    const front = edit((d) => d.recently_done.unshift({ action: 'zero' }), untimed);
    const end = edit((d) => d.recently_done.push({ action: 'three' }), untimed);
    expect(actions(merge3(untimed, front, end).value)).toEqual(actions(merge3(untimed, end, front).value));
    expect(actions(merge3(untimed, front, end).value).slice(2)).toEqual(['one', 'two']);
  });

  it('property: one side adding older records, the other newer ones, each at its end of a timed log: time order, every record once, whichever side is ours', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 28 }), { minLength: 3, maxLength: 12 }), fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), (days, a, b, oursOlder, newestFirst) => {
        const sorted = [...days].sort((x, y) => x - y);
        const from = a % (sorted.length - 2);
        const baseDays = sorted.slice(from, from + 2 + (b % 3));
        const older = sorted.filter((d) => d < baseDays[0]!);
        const newer = sorted.filter((d) => d > baseDays[baseDays.length - 1]!);
        const entry = (d: number) => ({ at: `2026-03-${String(d).padStart(2, '0')}T10:00:00Z`, action: `d${d}` });
        const inOrder = (ds: number[]) => (newestFirst ? [...ds].sort((x, y) => y - x) : [...ds].sort((x, y) => x - y)).map(entry);
        const field = newestFirst ? 'recently_done' : 'eval_scores';
        const doc = (ds: number[]) => edit((d) => (d[field] = inOrder(ds)));
        // What restore (older records) and a new run (a newer one) each write, at the end time puts them.
        const [withOlder, withNewer] = [doc([...older, ...baseDays]), doc([...baseDays, ...newer])];
        const [o, t] = oursOlder ? [withOlder, withNewer] : [withNewer, withOlder];
        const merged = merge3(doc(baseDays), o, t);
        expect(merged.conflicts).toEqual([]);
        const got = ((merged.value as any)[field] as { action: string }[]).map((e) => e.action);
        expect(((merge3(doc(baseDays), t, o).value as any)[field] as { action: string }[]).map((e) => e.action)).toEqual(got);
        expect(got).toEqual(inOrder([...older, ...baseDays, ...newer]).map((e) => e.action));
      }),
      { numRuns: 400 },
    );
  });

  it('property: when every side that added put its entries at the same end, they are all there, each side in its own order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 999 }), { minLength: 3, maxLength: 14 }), fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), (ids, a, b, front, newestFirst) => {
        const kept = ids.slice(0, 1 + (a % (ids.length - 2)));
        const rest = ids.slice(kept.length);
        const cut = b % (rest.length + 1);
        const entry = (n: number) => ({ id: `e${n}` });
        const grow = (more: number[]) => (front ? [...more, ...kept] : [...kept, ...more]).map(entry);
        const field = newestFirst ? 'recently_done' : 'eval_scores';
        const doc = (list: JsonValue[]) => edit((d) => (d[field] = list));
        const [mine, other] = [rest.slice(0, cut), rest.slice(cut)];
        const { value, conflicts } = merge3(doc(kept.map(entry)), doc(grow(mine)), doc(grow(other)));
        expect(conflicts).toEqual([]);
        const merged = ((value as any)[field] as { id: string }[]).map((e) => e.id);
        const keptIds = kept.map((n) => `e${n}`);
        expect(front ? merged.slice(merged.length - kept.length) : merged.slice(0, kept.length)).toEqual(keptIds);
        expect([...merged].sort()).toEqual(ids.map((n) => `e${n}`).sort());
        for (const side of [mine, other]) {
          const want = side.map((n) => `e${n}`);
          expect(merged.filter((id) => want.includes(id))).toEqual(want);
        }
      }),
    );
  });
});

describe('progress_table rows written without an id (red team, 12-04)', () => {
  const rows = [{ label: 'Zero', status: 'complete' }, { id: 'p1', label: 'One', status: 'complete' }, { id: 'p2', label: 'Two', status: 'not_started' }];
  const base = edit((d) => (d.progress_table = structuredClone(rows)));
  const at = (i: number, status: string) => edit((d) => (d.progress_table[i].status = status), base);

  it('are known by their label: edits to different rows merge, the id-less row\'s included, either way round', () => {
    const { value, conflicts } = merge3(base, at(0, 'failed'), at(2, 'blocked'));
    expect(conflicts).toEqual([]);
    expect((value as any).progress_table).toEqual([{ label: 'Zero', status: 'failed' }, rows[1], { id: 'p2', label: 'Two', status: 'blocked' }]);
  });

  it('the same id-less row set apart on both sides is one conflict at that row, not at the whole table', () => {
    const { conflicts } = merge3(base, at(0, 'failed'), at(0, 'blocked'));
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.path).toEqual(['progress_table', 0, 'status']);
  });

  it('an id given to the row on one side while the other edits it is a conflict, never a silent loss', () => {
    const named = edit((d) => (d.progress_table[0] = { id: 'row-1', ...d.progress_table[0] }), base);
    const { conflicts } = merge3(base, named, at(0, 'failed'));
    expect(conflicts.length).toBeGreaterThan(0);
  });

  it('property: any edits of labelled rows without ids merge the same whichever side is ours, and keep every row a side kept', () => {
    const status = fc.constantFrom('complete', 'in_progress', 'not_started', 'blocked', 'failed');
    const table = fc.uniqueArray(fc.constantFrom('A', 'B', 'C', 'D', 'E'), { minLength: 1, maxLength: 5 }).chain((labels) => fc.tuple(...labels.map((label) => status.map((s) => ({ label, status: s })))));
    const sideOf = (t: { label: string; status: string }[]) => fc.tuple(fc.subarray(t.map((_, i) => i)), fc.array(status, { minLength: t.length, maxLength: t.length })).map(([kept, st]) => kept.map((i) => ({ ...t[i]!, status: st[i]! })));
    fc.assert(fc.property(table.chain((t) => fc.tuple(fc.constant(t), sideOf(t), sideOf(t))), ([b, o, th]) => {
      const doc = (t: unknown) => edit((d) => (d.progress_table = t), base);
      const { value, conflicts } = merge3(doc(b), doc(o), doc(th));
      if (conflicts.length) return;
      const labels = new Set(((value as any).progress_table as { label: string }[]).map((r) => r.label));
      // A row both sides kept is in the merge.
      for (const r of o) if (th.some((x) => x.label === r.label)) expect(labels.has(r.label)).toBe(true);
    }), { numRuns: 200 });
  });
});
