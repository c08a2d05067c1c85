// The pure rotation planner and rotation-file append: which entries move, which stay,
// the pointer, and identity-based deduplication. No fs, no clock.
import { describe, expect, it } from 'vitest';
import { compileExtraLogs, logEntryTime, policyFor, type LogPolicy } from '../../src/protocol/fields.js';
import {
  appendToRotationFile,
  restoreRotatedEntries,
  newestIndices,
  planRotation,
  rotationFileProblem,
  rotationLogPaths,
} from '../../src/protocol/rotation.js';
import { canonicalJson, entryIdentity } from '../../src/protocol/identity.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const TARGET = '.checkpoints/history/api.2026-11-30.json';
const AT_LOG: LogPolicy = { kind: 'log', order: 'append', timeKey: 'at', rotate: true };

const doc = (skillState: JsonObject, over: JsonObject = {}): JsonObject => checkpointDoc({ skill_state: skillState, ...over });

const runs = (n: number, at = (i: number) => `2026-10-${String(i + 1).padStart(2, '0')}T00:00:00Z`) =>
  Array.from({ length: n }, (_, i) => ({ id: `r${i}`, at: at(i) }));

describe('planRotation', () => {
  it('keeps the newest N by timestamp when every entry has one; both sides keep array order', () => {
    // array order is not time order here: r0 is the newest
    const entries = [
      { id: 'a', at: '2026-10-09T00:00:00Z' },
      { id: 'b', at: '2026-10-01T00:00:00Z' },
      { id: 'c', at: '2026-10-05T00:00:00Z' },
      { id: 'd', at: '2026-10-02T00:00:00Z' },
      { id: 'e', at: '2026-10-07T00:00:00Z' },
    ];
    const p = planRotation(doc({ run_history: entries }), { keep: 2, target: TARGET });
    const kept = (p.doc.skill_state as JsonObject).run_history as { id: string }[];
    expect(kept.map((e) => e.id)).toEqual(['a', 'e']);
    expect(p.logs[0]!.moved.map((e) => (e as { id: string }).id)).toEqual(['b', 'c', 'd']);
    expect(p.moved).toBe(3);
  });

  it('falls back to the last N in array order when some entry has no timestamp', () => {
    const entries: JsonValue[] = [{ id: 'a', at: '2026-10-09T00:00:00Z' }, { id: 'b' }, { id: 'c', at: '2026-10-01T00:00:00Z' }, 'plain', 42];
    const p = planRotation(doc({ merged_prs: entries }), { keep: 2, target: TARGET });
    expect((p.doc.skill_state as JsonObject).merged_prs).toEqual(['plain', 42]);
    expect(p.logs[0]!.moved).toEqual(entries.slice(0, 3));
  });

  it('times entries by the policy\'s time key alone, strict ISO, and keeps array order on equal times', () => {
    const entries = [
      { n: 1, at: '2026-10-03T00:00:00Z' },
      { n: 2, at: '2026-10-01T00:00:00Z' },
      { n: 3, at: '2026-10-03T00:00:00Z' },
    ];
    expect([...newestIndices(entries, 2, AT_LOG)].sort()).toEqual([0, 2]);
    expect([...newestIndices(entries, 0, AT_LOG)]).toEqual([]);
    expect([...newestIndices(entries, 9, AT_LOG)].sort()).toEqual([0, 1, 2]);
    // Another key, or a time only a lenient parse reads (in the machine's own zone): untimed, so array order.
    const messy: JsonValue[] = [{ n: 1, timestamp: '2026-10-09T00:00:00Z', at: '2026-10-09T00:00:00Z' }, { n: 2, timestamp: '2026-10-01T00:00:00Z' }, { n: 3, at: '2026-10-02 10:00' }];
    expect([...newestIndices(messy, 2, AT_LOG)].sort()).toEqual([1, 2]);
  });

  it('orders a log the way the merge does: both read logEntryTime', () => {
    const policy = policyFor(['skill_state', 'run_history']) as LogPolicy;
    const entries = [{ at: '2026-10-05T00:00:00+02:00' }, { at: '2026-10-04T23:00:00Z' }, { at: '2026-02-30T00:00:00Z' }, { at: 'Oct 6 2026' }];
    expect(entries.map((e) => logEntryTime(e, policy))).toEqual([Date.parse('2026-10-04T22:00:00Z'), Date.parse('2026-10-04T23:00:00Z'), undefined, undefined]);
    expect([...newestIndices(entries.slice(0, 2), 1, policy)]).toEqual([1]);
  });

  it('rotates only telemetry logs and configured logs; the rest of the document is untouched', () => {
    const input = doc(
      {
        run_history: runs(8),
        nested: { deeper: { bypasses: runs(7) } },
        audits: runs(9),
        scores: [1, 2, 3, 4, 5, 6, 7, 8, 9],
        current_sprint: 2,
      },
      { recently_done: runs(12).map((r) => ({ at: r.at, action: r.id })), eval_scores: runs(9).map((r) => ({ rubric: 'x', score: 1, at: r.at })) },
    );
    const before = structuredClone(input);
    const extra = compileExtraLogs({ logs: ['skill_state.audits'] });
    const p = planRotation(input, { keep: 3, target: TARGET, extra });
    expect(input).toEqual(before); // the input is not modified
    expect(p.logs.map((l) => l.dotted).sort()).toEqual(['skill_state.audits', 'skill_state.nested.deeper.bypasses', 'skill_state.run_history']);
    const state = p.doc.skill_state as JsonObject;
    expect((state.run_history as JsonValue[]).length).toBe(3);
    expect(((state.nested as JsonObject).deeper as JsonObject).bypasses).toEqual(runs(7).slice(4));
    expect((state.audits as JsonValue[]).length).toBe(3);
    expect(state.scores).toEqual(before.skill_state && (before.skill_state as JsonObject).scores);
    expect(state.current_sprint).toBe(2);
    expect(p.doc.recently_done).toEqual(before.recently_done);
    expect(p.doc.eval_scores).toEqual(before.eval_scores);
    expect(state.rotated_to).toEqual([TARGET]);
    expect(validateCheckpoint(p.doc).errors).toEqual([]);
  });

  it('the pointer is never itself a log, even when config logs would match it', () => {
    for (const pattern of ['skill_state.*', 'skill_state.**', 'skill_state.rotated_to']) {
      const extra = compileExtraLogs({ logs: [pattern] });
      const pointers = Array.from({ length: 9 }, (_, i) => `.checkpoints/history/api.2026-10-0${i + 1}.json`);
      const input = doc({ rotated_to: pointers, run_history: runs(7) });
      expect(rotationLogPaths(input, extra).map((p) => p.join('.'))).not.toContain('skill_state.rotated_to');
      const p = planRotation(input, { keep: 2, target: TARGET, extra });
      expect((p.doc.skill_state as JsonObject).rotated_to).toEqual([...pointers, TARGET]);
    }
  });

  it('records each target once in rotated_to', () => {
    const input = doc({ run_history: runs(7), rotated_to: [TARGET] });
    const p = planRotation(input, { keep: 2, target: TARGET });
    expect((p.doc.skill_state as JsonObject).rotated_to).toEqual([TARGET]);
  });

  it('drops entries history already holds, then keeps the newest N of the rest', () => {
    const entries = runs(9);
    const old = '.checkpoints/history/api.2026-11-01.json';
    const inHistory = (dotted: string, e: JsonValue) => (dotted === 'skill_state.run_history' && ['r0', 'r1', 'r2'].includes((e as { id: string }).id) ? old : null);
    const p = planRotation(doc({ run_history: entries }), { keep: 5, target: TARGET, inHistory });
    expect(((p.doc.skill_state as JsonObject).run_history as { id: string }[]).map((e) => e.id)).toEqual(['r4', 'r5', 'r6', 'r7', 'r8']);
    expect(p.logs[0]).toMatchObject({ total: 9, alreadyRotated: 3, kept: 5 });
    expect(p.logs[0]!.moved).toEqual([entries[3]]);
    expect((p.doc.skill_state as JsonObject).rotated_to).toEqual([old, TARGET]);
  });

  it('changes nothing when every log is within the limit', () => {
    const input = doc({ run_history: runs(5) });
    const p = planRotation(input, { keep: 5, target: TARGET });
    expect(p.changed).toBe(false);
    expect(p.doc).toEqual(input);
  });

  it('keep 0 empties the logs (the arrays stay); a negative or fractional keep is refused', () => {
    const p = planRotation(doc({ run_history: runs(3) }), { keep: 0, target: TARGET });
    expect((p.doc.skill_state as JsonObject).run_history).toEqual([]);
    expect(() => planRotation(doc({}), { keep: -1, target: TARGET })).toThrow(/whole number/);
    expect(() => planRotation(doc({}), { keep: 1.5, target: TARGET })).toThrow(/whole number/);
  });

  it('refuses a rotated_to that names no paths (a number, a list holding one), and reads one path written as a string as a list of it', () => {
    expect(() => planRotation(doc({ run_history: runs(7), rotated_to: 5 }), { keep: 1, target: TARGET })).toThrow(/rotated_to/);
    expect(() => planRotation(doc({ run_history: runs(7), rotated_to: ['.checkpoints/history/api.2026-05-01.json', 8.0] }), { keep: 1, target: TARGET })).toThrow(/rotated_to/);
    const plan = planRotation(doc({ run_history: runs(7), rotated_to: '.checkpoints/history/api.2026-05-01.json' }), { keep: 1, target: TARGET });
    expect((plan.doc.skill_state as JsonObject).rotated_to).toEqual(['.checkpoints/history/api.2026-05-01.json', TARGET]);
  });
});

describe('rotation files', () => {
  const log = (moved: JsonValue[]) => [{ path: ['skill_state', 'run_history'], dotted: 'skill_state.run_history', total: 0, moved, alreadyRotated: 0, kept: 0 }];

  it('appends every moved entry: an entry equal to an archived one is a new event', () => {
    const first = appendToRotationFile(null, 'api', log([{ id: 1, v: 'a' }, { b: 2, a: 1 }, 'x']), '2026-11-30T01:00:00Z');
    const second = appendToRotationFile(first, 'api', log([{ id: 1, v: 'a' }, { a: 1, b: 2 }, 'x', 'y']), '2026-11-30T02:00:00Z');
    expect(second).toEqual({
      skill: 'api',
      rotated_at: '2026-11-30T02:00:00Z',
      entries: { 'skill_state.run_history': [{ id: 1, v: 'a' }, { b: 2, a: 1 }, 'x', { id: 1, v: 'a' }, { a: 1, b: 2 }, 'x', 'y'] },
    });
    expect(first.rotated_at).toBe('2026-11-30T01:00:00Z'); // not modified in place
  });

  it('two records sharing an id are two records: the archived one is never replaced', () => {
    const first = appendToRotationFile(null, 'api', log([{ id: 'nightly', ok: true }, { id: 'b' }]), 't1');
    const second = appendToRotationFile(first, 'api', log([{ id: 'nightly', ok: false, note: 'REGRESSION' }]), 't2');
    expect(second.entries['skill_state.run_history']).toEqual([{ id: 'nightly', ok: true }, { id: 'b' }, { id: 'nightly', ok: false, note: 'REGRESSION' }]);
  });

  it('restore brings back every archived record, same-id and repeated ones too, and a second restore adds nothing', () => {
    const file = appendToRotationFile(null, 'api', log([{ id: 'nightly', ok: true }, 'x', 'x']), 't1');
    const cp: JsonObject = { skill_state: { run_history: [{ id: 'nightly', ok: false }] } };
    expect(restoreRotatedEntries(cp, file, { mode: 'missing' })).toEqual({ restored: 3, left: 0 });
    expect((cp.skill_state as JsonObject).run_history).toEqual([{ id: 'nightly', ok: true }, 'x', 'x', { id: 'nightly', ok: false }]);
    expect(restoreRotatedEntries(cp, file, { mode: 'missing' })).toEqual({ restored: 0, left: 3 });
  });

  it('moved_from puts a batch back where it stood only while the log is the one rotate left; a bad or stale one is the placement before (red team 63 r2 4)', () => {
    const fp = (l: JsonValue[]) => canonicalJson(l);
    const kept = ['k0', 'k1'];
    const batch = (left: string, at: unknown) => ({ ...appendToRotationFile(null, 'api', log(['m0', 'm1']), 't1'), moved_from: { 'skill_state.run_history': [{ left, at }] } }) as Parameters<typeof restoreRotatedEntries>[1];
    const restored = (file: Parameters<typeof restoreRotatedEntries>[1], live = kept) => {
      const cp: JsonObject = { skill_state: { run_history: [...live] } };
      restoreRotatedEntries(cp, file, { mode: 'all', fingerprint: fp });
      return (cp.skill_state as JsonObject).run_history;
    };
    expect(restored(batch(fp(kept), [[1, 1], [3, 1]]))).toEqual(['k0', 'm0', 'k1', 'm1']);
    // An entry added since: before the log's own.
    expect(restored(batch(fp(kept), [[1, 1], [3, 1]]), ['k0', 'k1', 'k2'])).toEqual(['m0', 'm1', 'k0', 'k1', 'k2']);
    // Runs over the batch's size, past the log, or no runs at all (a hand-edited file): the same.
    for (const at of [[[0, 1e12]], [[5, 2]], 'x']) expect(restored(batch(fp(kept), at))).toEqual(['m0', 'm1', 'k0', 'k1']);
  });

  it('a file the checkpoint names comes back whole, count included, beside equal copies rotate kept (red team s12 #1)', () => {
    // rotate --keep 2 of [a, a, a, b]: the file took two a's, the checkpoint kept one a and b.
    const file = appendToRotationFile(null, 'api', log([{ ok: 1 }, { ok: 1 }]), 't1');
    const named: JsonObject = { skill_state: { run_history: [{ ok: 1 }, { ok: 2 }] } };
    expect(restoreRotatedEntries(named, file, { mode: 'all' })).toEqual({ restored: 2, left: 0 });
    expect((named.skill_state as JsonObject).run_history).toEqual([{ ok: 1 }, { ok: 1 }, { ok: 1 }, { ok: 2 }]);
    // Not named (restored before): only copies past those already there come back.
    const unnamed: JsonObject = { skill_state: { run_history: [{ ok: 1 }, { ok: 2 }] } };
    expect(restoreRotatedEntries(unnamed, file, { mode: 'missing' })).toEqual({ restored: 1, left: 1 });
    // Copies held elsewhere (a killed rotation's journal) are left out in either mode, one for one.
    const elsewhere = new Map([['skill_state.run_history', new Map([[JSON.stringify({ ok: 1 }), 1]])]]);
    const crashed: JsonObject = { skill_state: { run_history: [{ ok: 1 }, { ok: 1 }, { ok: 2 }] } };
    expect(restoreRotatedEntries(crashed, file, { mode: 'all', elsewhere })).toEqual({ restored: 1, left: 1 });
  });

  it('puts entries back where they were taken from: before an appended log, after a newest-first one, newest first', () => {
    const at = (h: number) => ({ at: `2026-11-30T${String(h).padStart(2, '0')}:00:00Z`, action: `a${h}` });
    // done moved 3 and 2 out of recently_done, in two batches (the older batch first in the file).
    const file = appendToRotationFile(appendToRotationFile(null, 'api', [{ ...log([at(3), at(2), at(1)])[0]!, path: ['recently_done'], dotted: 'recently_done' }], 't1'), 'api', [{ ...log([at(5), at(4)])[0]!, path: ['recently_done'], dotted: 'recently_done' }], 't2');
    const cp: JsonObject = { recently_done: [at(7), at(6)], skill_state: { run_history: ['r3'] } };
    const runs = appendToRotationFile(null, 'api', log(['r1', 'r2']), 't3');
    restoreRotatedEntries(cp, file, { mode: 'all' });
    restoreRotatedEntries(cp, runs, { mode: 'all' });
    expect(cp.recently_done).toEqual([7, 6, 5, 4, 3, 2, 1].map(at));
    expect((cp.skill_state as JsonObject).run_history).toEqual(['r1', 'r2', 'r3']);
  });

  it('checks the shape of a rotation file', () => {
    expect(rotationFileProblem({ skill: 'api', rotated_at: 't', entries: { a: [] } }, 'api')).toBeNull();
    expect(rotationFileProblem({ skill: 'web', rotated_at: 't', entries: {} }, 'api')).toMatch(/not "api"/);
    expect(rotationFileProblem({ skill: 'api', rotated_at: 't', entries: { a: 1 } }, 'api')).toMatch(/not an array/);
    expect(rotationFileProblem([], 'api')).toMatch(/object/);
  });

  it('canonical JSON ignores key order; identity prefers the id', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: null })).toBe(canonicalJson({ a: null, b: [1, { c: 2, d: 1 }] }));
    expect(entryIdentity({ id: 7, x: 1 })).toBe(entryIdentity({ x: 2, id: 7 }));
    expect(entryIdentity({ id: '7' })).not.toBe(entryIdentity({ id: 7 }));
    expect(entryIdentity({ x: 1, y: 2 })).toBe(entryIdentity({ y: 2, x: 1 }));
  });
});
