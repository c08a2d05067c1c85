// Logs whose records the branches move, rewrite in place, remove, insert and append (the shapes
// the move rule and key_decisions' conflict open, red team rtA 02/03): the merge is the same either
// way round, loses no record (a conflict only where both rewrote one key decision in place,
// differently, and settling it with a side keeps everything else), and a branch's moves stand
// beside the other branch's edits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/protocol/identity.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues, type Conflict } from '../../src/merge/merge.js';
import { settleConflicts } from '../../src/merge/settle.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { parseMarkedText } from '../../src/merge/markers.js';
import { mergeMarkedText } from '../../src/merge/settle-markers.js';
import { formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import { checkpointDoc } from '../helpers/fixtures.js';

type Op = { kind: 'move'; from: number; to: number } | { kind: 'replace' | 'insert'; at: number; text: string } | { kind: 'remove'; at: number } | { kind: 'append'; text: string };

// A small pool, so both branches often write the same text, and base records repeat.
const text = fc.constantFrom('Stack: Hono', 'Use passkeys', 'Rate limit', 'No plaintext', 'Use zod', 'Use D1', 'Tabs');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.tuple(fc.nat(), fc.nat()).map(([from, to]): Op => ({ kind: 'move', from, to })),
  fc.tuple(fc.nat(), text).map(([at, t]): Op => ({ kind: 'replace', at, text: t })),
  fc.tuple(fc.nat(), text).map(([at, t]): Op => ({ kind: 'insert', at, text: t })),
  fc.nat().map((at): Op => ({ kind: 'remove', at })),
  text.map((t): Op => ({ kind: 'append', text: t })),
);

function apply<T>(list: readonly T[], ops: readonly Op[], make: (text: string) => T): T[] {
  const out = [...list];
  for (const o of ops) {
    if (o.kind === 'append') out.push(make(o.text));
    else if (o.kind === 'insert') out.splice(o.at % (out.length + 1), 0, make(o.text));
    else if (out.length === 0) continue;
    else if (o.kind === 'remove') out.splice(o.at % out.length, 1);
    else if (o.kind !== 'move') out[o.at % out.length] = make(o.text);
    else {
      const [moved] = out.splice(o.from % out.length, 1);
      out.splice(o.to % (out.length + 1), 0, moved!);
    }
  }
  return out;
}

// A timed telemetry log too: each text stands for a run at its own time.
const run = (t: string): JsonValue => ({ at: `2026-03-01T${String(10 + t.length).padStart(2, '0')}:00:00Z`, what: t });
const LOGS = { decisions: ['context_primer', 'key_decisions'], preferences: ['context_primer', 'user_preferences'], runs: ['skill_state', 'run_history'] } as const;

const doc = (decisions: string[], preferences: string[], runs: JsonValue[]): JsonObject => ({
  skill: 'api',
  updated_at: '2026-03-01T12:00:00Z',
  context_primer: { key_decisions: decisions, user_preferences: preferences },
  skill_state: { run_history: runs },
});

const at = (value: JsonValue, path: readonly string[]): JsonValue[] => path.reduce<any>((v, k) => v?.[k], value) ?? [];
function counts(list: readonly JsonValue[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const v of list) out.set(canonicalJson(v), (out.get(canonicalJson(v)) ?? 0) + 1);
  return out;
}
/** A log's multiset rule: the base's kept by both, plus the larger addition of the two sides. */
function expectedCount(id: string, b: Map<string, number>, o: Map<string, number>, t: Map<string, number>): number {
  const [nb, no, nt] = [b.get(id) ?? 0, o.get(id) ?? 0, t.get(id) ?? 0];
  return Math.min(nb, no, nt) + Math.max(no - nb, nt - nb, 0);
}
const view = (c: Conflict, swapped = false) => [c.display, c.base, swapped ? c.theirs : c.ours, swapped ? c.ours : c.theirs];

describe('logs moved, rewritten in place, removed and added on both branches', () => {
  it('merge the same either way round, lose no record, and conflict only on one key decision both rewrote in place, differently', () => {
    let conflicted = 0;
    // Often both sides first rewrite one and the same entry, each its own way (or alike), then go on.
    const rewritten = fc.constantFrom('Auth: passkeys only', 'Auth: TOTP', 'Auth: SSO');
    const rewrite = fc.option(fc.tuple(fc.nat(), rewritten, rewritten), { freq: 6 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 6 }), rewrite, fc.array(op, { maxLength: 4 }), fc.array(op, { maxLength: 4 }), (start, both, oursOps, theirsOps) => {
        const first = (t: string): Op[] => (both ? [{ kind: 'replace', at: both[0], text: t }] : []);
        const sides = [start, apply(start, [...first(both?.[1] ?? ''), ...oursOps], String), apply(start, [...first(both?.[2] ?? ''), ...theirsOps], String)] as const;
        const [base, ours, theirs] = sides.map((list) => doc(list, [...list].reverse(), list.map(run)));
        const forward = mergeCheckpointValues(base!, ours!, theirs!);
        const backward = mergeCheckpointValues(base!, theirs!, ours!);
        expect(backward.value).toEqual(forward.value);
        expect(backward.conflicts.map((c) => view(c, true))).toEqual(forward.conflicts.map((c) => view(c)));

        for (const c of forward.conflicts) {
          conflicted++;
          // Only a key decision, rewritten on both sides: two texts, each held by its side, the base's gone from both.
          expect(c.path.slice(0, 2)).toEqual(LOGS.decisions);
          expect(c.path).toHaveLength(3);
          const [o, t, b] = [at(ours!, LOGS.decisions), at(theirs!, LOGS.decisions), at(base!, LOGS.decisions)];
          expect(typeof c.ours === 'string' && typeof c.theirs === 'string' && c.ours !== c.theirs).toBe(true);
          expect(o).toContain(c.ours);
          expect(t).toContain(c.theirs);
          const n = (list: JsonValue[]) => list.filter((x) => x === c.base).length;
          expect(n(o)).toBeLessThan(n(b));
          expect(n(t)).toBeLessThan(n(b));
        }
        // The other logs never conflict and keep every record by the multiset rule.
        for (const path of [LOGS.preferences, LOGS.runs]) {
          const [b, o, t, m] = [base!, ours!, theirs!, forward.value].map((d) => counts(at(d, path)));
          for (const id of new Set([...b!.keys(), ...o!.keys(), ...t!.keys(), ...m!.keys()])) expect(m!.get(id) ?? 0, `${path.join('.')}: ${id}`).toBe(expectedCount(id, b!, o!, t!));
        }
        // Decisions settled with either side: the rule, each side's rewrites in a conflict counted
        // out of its additions, and the chosen side's put back (nothing else lost, nothing doubled).
        for (const side of ['ours', 'theirs'] as const) {
          const settled = settleConflicts(forward.value, forward.conflicts, { [side]: forward.conflicts.map((c) => c.display) });
          expect(settled.conflicts).toEqual([]);
          const [b, o, t, m] = [base!, ours!, theirs!, settled.value].map((d) => counts(at(d, LOGS.decisions)));
          for (const id of new Set([...b!.keys(), ...o!.keys(), ...t!.keys(), ...m!.keys()])) {
            const contested = (s: 'ours' | 'theirs') => forward.conflicts.filter((c) => canonicalJson(c[s]!) === id).length;
            const [nb, no, nt] = [b!.get(id) ?? 0, o!.get(id) ?? 0, t!.get(id) ?? 0];
            const expected = Math.min(nb, no, nt) + Math.max(no - nb - contested('ours'), nt - nb - contested('theirs'), 0) + contested(side);
            expect(m!.get(id) ?? 0, `key_decisions settled with ${side}: ${id}`).toBe(expected);
          }
        }
      }),
      { numRuns: 400 },
    );
    expect(conflicted).toBeGreaterThan(0);
  });

  it("one branch's moves stand beside anything the other did but move: the records both kept stand in the mover's order", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(text, { minLength: 2, maxLength: 7 }),
        fc.array(
          fc.tuple(fc.nat(), fc.nat()).map(([from, to]): Op => ({ kind: 'move', from, to })),
          { minLength: 1, maxLength: 3 },
        ),
        fc.array(
          op.filter((o) => o.kind !== 'move'),
          { maxLength: 4 },
        ),
        (start, moves, edits) => {
          // The other branch's new texts are its own, so a record both hold is one the base had.
          const mine = apply(start, moves, String);
          const other = apply(start, edits, (t) => `new: ${t}`);
          for (const [log, make] of [[LOGS.decisions, String], [LOGS.runs, run]] as const) {
            const put = (list: string[]) => (log === LOGS.decisions ? doc(list, [], []) : doc([], [], list.map(make)));
            for (const [o, t] of [[mine, other], [other, mine]]) {
              const r = mergeCheckpointValues(put(start), put(o!), put(t!));
              expect(r.conflicts).toEqual([]);
              const keptByBoth = new Set(start.filter((x) => mine.includes(x) && other.includes(x)).map((x) => canonicalJson(make(x))));
              const order = (list: JsonValue[]) => list.map((v) => canonicalJson(v)).filter((k) => keptByBoth.has(k));
              expect(order(at(r.value, log))).toEqual(order(mine.map(make)));
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a key decision rewritten two ways, through the driver: its markers merge again to the same text, and settling them with a side keeps everything else as merged', () => {
    const fileName = '.checkpoints/api.checkpoint.json';
    const rewritten = fc.constantFrom('Auth: passkeys only', 'Auth: TOTP', 'Auth: SSO');
    let conflicts = 0;
    fc.assert(
      fc.property(fc.uniqueArray(text, { minLength: 2, maxLength: 5 }), fc.nat(), rewritten, rewritten, fc.array(op, { maxLength: 3 }), fc.array(op, { maxLength: 3 }), fc.boolean(), (start, at, a, b, oursOps, theirsOps, multiline) => {
        const rewrite = (t: string): Op => ({ kind: 'replace', at, text: t });
        const docText = (list: string[]) => formatJson(checkpointDoc({ context_primer: { key_decisions: list } }), multiline ? undefined : { indent: '', eol: '\n', finalNewline: true, bom: false });
        const [base, ours, theirs] = [start, apply(start, [rewrite(a), ...oursOps], String), apply(start, [rewrite(b), ...theirsOps], String)];
        const driver = mergeCheckpointTexts({ base: docText(base), ours: docText(ours), theirs: docText(theirs), fileName });
        const values = mergeCheckpointValues(checkpointDoc({ context_primer: { key_decisions: base } }), checkpointDoc({ context_primer: { key_decisions: ours } }), checkpointDoc({ context_primer: { key_decisions: theirs } }));
        expect(driver.conflicts.map((c) => c.display)).toEqual(values.conflicts.map((c) => c.display));
        if (driver.status === 'clean') return;
        conflicts++;
        const marked = parseMarkedText(driver.text!)!;
        const again = mergeMarkedText({ marked, fileName });
        expect(again.text).toBe(driver.text);
        expect(again.conflicts.map((c) => c.display)).toEqual(driver.conflicts.map((c) => c.display));
        const displays = driver.conflicts.map((c) => c.display);
        for (const side of ['ours', 'theirs'] as const) {
          const settled = mergeMarkedText({ marked, fileName, settle: { [side]: displays } });
          expect(settled.status).toBe('clean');
          const expected = settleConflicts(values.value, values.conflicts, { [side]: displays }).value;
          expect(parseJson(settled.text!).value).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
    expect(conflicts).toBeGreaterThan(20);
  });
});
