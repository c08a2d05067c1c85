import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { splitConflictMarkers } from '../../src/merge/markers.js';
import { compileExtraLogs } from '../../src/protocol/fields.js';
import { formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import type { JsonObject } from '../../src/protocol/types.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import { MAX_CHECKPOINT_BYTES } from '../../src/protocol/validate.js';

const FILE = '.checkpoints/demo.checkpoint.json';

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
  next_actions: ['one', 'two'],
  recently_done: [],
  skill_state: { audits: [] },
};

/** Whether line i of a marked text is a marker or inside a block. */
function inBlock(lines: readonly string[], i: number): boolean {
  let depth = false;
  for (let n = 0; n <= i; n++) {
    if (lines[n]!.startsWith('<<<<<<<')) depth = true;
    if (n === i) return depth;
    if (lines[n]!.startsWith('>>>>>>>')) depth = false;
  }
  return depth;
}

const text = (doc: JsonObject, indent = '  ') => formatJson(doc, { indent, eol: '\n', finalNewline: true, bom: false });
const edited = (fn: (d: any) => void) => {
  const d = structuredClone(BASE);
  fn(d);
  return d;
};

function merge(base: string | null, ours: string, theirs: string, extra: Partial<Parameters<typeof mergeCheckpointTexts>[0]> = {}) {
  return mergeCheckpointTexts({ base, ours, theirs, fileName: FILE, ...extra });
}

describe('mergeCheckpointTexts: clean merges', () => {
  it('merges, formats with ours layout and reports no messages', () => {
    const ours = edited((d) => {
      d.updated_at = '2026-03-02T10:00:00Z';
      d.next_actions.shift();
      d.recently_done.push({ at: '2026-03-02T10:00:00Z', action: 'one' });
    });
    const theirs = edited((d) => {
      d.updated_at = '2026-03-02T11:00:00Z';
      d.next_actions.push('three');
    });
    const r = merge(text(BASE), text(ours, '\t'), text(theirs));
    expect(r.status).toBe('clean');
    expect(r.messages).toEqual([]);
    expect(r.text).toContain('\n\t"phase"');
    expect(parseJson(r.text!).value).toMatchObject({ updated_at: '2026-03-02T11:00:00Z', next_actions: ['two', 'three'] });
  });

  it("returns ours' bytes untouched when the merge equals ours", () => {
    const oursText = JSON.stringify(edited((d) => (d.phase = 'build')), null, 3).replace(/\n/g, '\r\n');
    const r = merge(text(BASE), oursText, text(BASE));
    expect(r).toMatchObject({ status: 'clean', text: oursText });
  });

  it('treats a null or empty base as no common ancestor (add/add)', () => {
    const ours = edited((d) => d.recently_done.push({ at: '2026-03-02T10:00:00Z', action: 'a' }));
    const theirs = edited((d) => d.recently_done.push({ at: '2026-03-02T11:00:00Z', action: 'b' }));
    for (const base of [null, '', '\n']) {
      const r = merge(base, text(ours), text(theirs));
      expect(r.status).toBe('clean');
      expect((parseJson(r.text!).value as any).recently_done).toHaveLength(2);
    }
  });

  describe("in ours' layout (keepLayout)", () => {
    // Kept by hand: tabs, CRLF, inline arrays and one-line objects, `"k":v`, 8.0, a blank line, notes in paths.
    const hand = (over: { updated?: string; files?: string; actions?: string; scores?: string } = {}) =>
      [
        '{',
        '\t"protocol_version": "1.1", "skill": "demo",',
        '\t"project": "demo", "project_dir": "/work/demo",',
        '\t"created_at": "2025-11-01T10:00:00Z",',
        `\t"updated_at": "${over.updated ?? '2026-01-05T10:00:00Z'}",`,
        '\t"phase":"build", "step": "orders endpoint", "status": "in_progress",',
        '\t"progress_summary": "Orders half done; see src/orders.ts (PR 12)",',
        '',
        `\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts"${over.files ?? ''}],`,
        '\t"next_actions": [',
        `\t\t{"text": "Ship PR #12", "done_when": "merged, score 8.0+"}${over.actions ?? ''}`,
        '\t],',
        `\t"eval_scores": [{"rubric": "auditor", "score": 8.0, "at": "2026-01-05T10:00:00Z"}${over.scores ?? ''}]`,
        '}',
        '',
      ].join('\r\n');
    const keepLayout = () => formatKeepingLayout;

    it("keeps every value ours did not change as it was; the other side's changes take their container's style", () => {
      const base = hand();
      const ours = hand({ updated: '2026-01-06T10:00:00Z', files: ', "docs/api.md"' });
      const theirs = hand({ updated: '2026-01-07T09:00:00Z', actions: ',\r\n\t\t"Run evaluator on src/**/*.ts (skip vendor/)"', scores: ', {"rubric": "auditor", "score": 9.0, "at": "2026-01-07T09:00:00Z"}' });
      const r = merge(base, ours, theirs, { keepLayout });
      expect(r.status, r.messages.join('\n')).toBe('clean');
      expect(r.text).toBe(
        hand({
          updated: '2026-01-07T09:00:00Z',
          files: ', "docs/api.md"',
          actions: ',\r\n\t\t"Run evaluator on src/**/*.ts (skip vendor/)"',
          scores: ', {"rubric": "auditor", "score": 9.0, "at": "2026-01-07T09:00:00Z"}',
        }),
      );
      // Without the writer (the API's default), formatJson's layout, as before.
      expect(merge(base, ours, theirs).text).toBe(formatJson(parseJson(r.text!).value, { indent: '\t', eol: '\r\n', finalNewline: true, bom: false, texts: parseJson(r.text!).texts }));
    });

    it('a zero one side turned into the other sign (-0 -> 0, 1e-400 -> -0.0) is that side\'s change: its text is the merge, either way round (red team)', () => {
      const withZero = (zero: string, updated?: string) => hand({ updated }).replace('"phase":"build"', `"delta": ${zero}, "phase":"build"`);
      for (const [from, to] of [['-0', '0'], ['-0', '1e-400'], ['0', '-0'], ['1e-400', '-0'], ['0.0', '-0.0'], ['-0.0', '0.0']]) {
        const base = withZero(from!);
        const ours = withZero(from!, '2026-01-06T10:00:00Z');
        const theirs = withZero(to!);
        for (const [a, b] of [[ours, theirs], [theirs, ours]]) {
          const r = merge(base, a!, b!, { keepLayout });
          expect(r.status, `${from} -> ${to}`).toBe('clean');
          expect(r.text, `${from} -> ${to}`).toBe(withZero(to!, '2026-01-06T10:00:00Z'));
        }
      }
    });

    it('symmetric in value: each side as ours gets the same merged value in its own layout', () => {
      const base = hand();
      const ours = hand({ files: ', "docs/api.md"' });
      const theirs = JSON.stringify(parseJson(hand({ updated: '2026-01-07T09:00:00Z', actions: ', "Deploy"' })).value, null, 2) + '\n';
      const one = merge(base, ours, theirs, { keepLayout });
      const other = merge(base, theirs, ours, { keepLayout });
      expect([one.status, other.status]).toEqual(['clean', 'clean']);
      expect(parseJson(one.text!).value).toEqual(parseJson(other.text!).value);
      expect(one.text).toContain('\r\n\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md"],\r\n');
      // Theirs is canonical: as ours, the merge is formatJson's text of the merged value (8.0 kept, as every writer keeps it).
      expect(other.text).toBe(formatJson(parseJson(other.text!).value, { indent: '  ', eol: '\n', finalNewline: true, bom: false, texts: parseJson(other.text!).texts }));
    });

    it("property: a conflict on a line shared with other members keeps ours' layout elsewhere, and each side's blocks give exactly that side's file", () => {
      // Any scalar for "step" on each side (strings with quotes, marker-like text, newlines; numbers), on the line it shares with "phase" and "status".
      const value = fc.oneof(fc.string(), fc.constant('<<<<<<< ours\n======='), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
      fc.assert(
        fc.property(value, value, (a, b) => {
          fc.pre(JSON.stringify(a) !== JSON.stringify(b) && JSON.stringify(a) !== '"orders endpoint"' && JSON.stringify(b) !== '"orders endpoint"');
          const side = (v: unknown, updated: string) => hand({ updated }).replace('"step": "orders endpoint"', () => `"step": ${JSON.stringify(v)}`);
          const r = merge(hand(), side(a, '2026-01-06T10:00:00Z'), side(b, '2026-01-07T10:00:00Z'), { keepLayout });
          expect(r.status).toBe('conflict');
          const sides = splitConflictMarkers(r.text!)!;
          expect(parseJson(sides.ours).value).toEqual({ ...(parseJson(side(a, '2026-01-06T10:00:00Z')).value as object), updated_at: '2026-01-07T10:00:00Z' });
          // As theirs' file holds it (JSON.stringify writes -0 as 0).
          expect((parseJson(sides.theirs).value as { step: unknown }).step).toEqual((parseJson(side(b, '2026-01-07T10:00:00Z')).value as { step: unknown }).step);
          expect((parseJson(sides.base!).value as { step: unknown }).step).toBe('orders endpoint');
          // Outside the conflicted line, ours' text: the tabs, CRLF, the blank line and the inline lists.
          expect(r.text).toContain('\r\n\r\n\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts"],\r\n\t"next_actions": [\r\n');
        }),
        { numRuns: 60 },
      );
    });

    it("a queue conflict (a run of actions) keeps ours' layout around one block of the run's lines (red team, 12-04)", () => {
      const queue = (items: string) => hand().replace('\t\t{"text": "Ship PR #12", "done_when": "merged, score 8.0+"}', () => items);
      const base = queue('\t\t"one",\r\n\t\t"two"');
      const ours = queue('\t\t"one",\r\n\t\t"ours-a",\r\n\t\t"ours-b"');
      const theirs = queue('\t\t"one",\r\n\t\t"theirs"');
      const r = merge(base, ours, theirs, { keepLayout });
      expect(r.status).toBe('conflict');
      expect(r.text).toBe(queue(['\t\t"one",', '<<<<<<< ours', '\t\t"ours-a",', '\t\t"ours-b"', '||||||| base', '\t\t"two"', '=======', '\t\t"theirs"', '>>>>>>> theirs'].join('\r\n')));
    });

    it("a record one side removed and the other edited, on a line it shares, keeps ours' layout around that line's block", () => {
      const withBlockers = (rows: string, updated?: string) => hand({ updated }).replace('\t"next_actions": [', () => `\t"blockers": [${rows}],\r\n\t"next_actions": [`);
      const [b1, b2] = ['{"id": "b1", "description": "x", "needs": "code_fix"}', '{"id": "b2", "description": "y", "needs": "code_fix"}'];
      const edited = b1.replace('"x"', '"edited"');
      const r = merge(withBlockers(`${b1}, ${b2}`), withBlockers(`${edited}, ${b2}`, '2026-01-06T10:00:00Z'), withBlockers(b2, '2026-01-07T10:00:00Z'), { keepLayout });
      expect(r.status).toBe('conflict');
      const line = (rows: string) => `\t"blockers": [${rows}],`;
      expect(r.text).toBe(withBlockers(`${edited}, ${b2}`, '2026-01-07T10:00:00Z').replace(line(`${edited}, ${b2}`), () => ['<<<<<<< ours', line(`${edited}, ${b2}`), '||||||| base', line(`${b1}, ${b2}`), '=======', line(b2), '>>>>>>> theirs'].join('\r\n')));
    });

    it("a record both sides added whose number differs only in its text (one double: a 64-bit id, 1e-400 beside 2e-400) shows each side's text in its block, so keeping one keeps that side's record (red team, 12-05); in a log, two different numbers are two records, both kept (12-06); one number spelled two ways (7.50, 7.5) is one record (62a 07)", () => {
      // A log (run_history), a log of the protocol (eval_scores), and a row named by its id.
      const before = (member: string) => (n: string, updated?: string) => hand({ updated }).replace('\t"next_actions": [', () => `${member.replace('$N', n)}\r\n\t"next_actions": [`);
      const shapes = [
        (n: string, updated?: string) => before(`\t"skill_state": {"run_history": [{"at": "2026-04-01T10:00:00Z", "trace_id": 1175928473617715000}${n ? ', {"at": "2026-04-02T10:00:00Z", "trace_id": $N}' : ''}]},`)(n, updated),
        (n: string, updated?: string) => hand({ updated, scores: n && `, {"rubric": "auditor", "score": ${n}, "at": "2026-04-02T10:00:00Z"}` }),
        (n: string, updated?: string) => before(`\t"progress_table": [{"id": "sprint-1", "status": "complete"}${n ? ', {"id": "sprint-2", "score": $N}' : ''}],`)(n, updated),
      ];
      fc.assert(
        fc.property(fc.constantFrom(...shapes), fc.constantFrom(['1175928473617715201', '1175928473617715200'], ['1e-400', '2e-400'], ['7.50', '7.5'], ['8.0', '8']), fc.boolean(), (doc, pair, swap) => {
          const [a, b] = swap ? [pair[1]!, pair[0]!] : pair;
          const ours = doc(a, '2026-01-06T10:00:00Z');
          const theirs = doc(b, '2026-01-07T10:00:00Z');
          let r = merge(doc(''), ours, theirs, { keepLayout });
          // One number spelled two ways (7.50 and 7.5): one record, in the spelling with more decimals, whichever side is ours (red team 62a 07).
          if ((pair as readonly string[]).includes('8') || (pair as readonly string[]).includes('7.5')) {
            // A log's record both added in saves of their own is two sessions' records, each its own text (red team 64 r2); from one save, one record.
            if (shapes.indexOf(doc) < 2) {
              expect(r.status, r.messages.join('\n')).toBe('clean');
              for (const n of pair) expect(r.text).toMatch(new RegExp(`[ :]${n.replace(/[.+]/g, '\\$&')}[,}\\]]`));
              r = merge(doc(''), ours, doc(b, '2026-01-06T10:00:00Z'), { keepLayout });
            }
            expect(r.status, r.messages.join('\n')).toBe('clean');
            expect(r.text).toMatch(new RegExp(`[ :]${pair[0]!.replace(/[.+]/g, '\\$&')}[,}\\]]`));
            expect(r.text).not.toMatch(new RegExp(`[ :]${pair[1]!.replace(/[.+]/g, '\\$&')}[,}\\]]`));
            return;
          }
          // Two log records whose numbers are different numbers (not respellings of one) are two runs: both kept (red team 12-06).
          if (shapes.indexOf(doc) < 2) {
            expect(r.status, r.messages.join('\n')).toBe('clean');
            for (const n of pair) expect(r.text).toMatch(new RegExp(`[ :]${n.replace(/[.+]/g, '\\$&')}[,}\\]]`));
            return;
          }
          expect(r.status).toBe('conflict');
          const sides = splitConflictMarkers(r.text!)!;
          // Each side's blocks give that side's file, every number as that side wrote it (the stamp aside: merged).
          const stamp = (t: string) => t.replace(/"updated_at": "[^"]*"/, '"updated_at": ""');
          expect(stamp(sides.ours)).toBe(stamp(ours));
          expect(stamp(sides.theirs)).toBe(stamp(theirs));
        }),
      );
    });

    it("a one-line list of numbers in conflict: each block is that side's line as written, and the message shows each side's texts (red team, 12-05)", () => {
      const scores = (list: string, updated?: string) => hand({ updated }).replace('\t"next_actions": [', () => `\t"skill_state": {"scores": [${list}], "seen": 1},\r\n\t"next_actions": [`);
      const ours = scores('9.5, 7.50, 1e3, 12345678901234567891', '2026-01-06T10:00:00Z');
      const theirs = scores('9.25, 7.50, 2e3, 12345678901234567890', '2026-01-07T10:00:00Z');
      const r = merge(scores('8.0, 7.50, 1e3, 12345678901234567890'), ours, theirs, { keepLayout });
      expect(r.status).toBe('conflict');
      const block = (list: string) => `\t"skill_state": {"scores": [${list}], "seen": 1},`;
      expect(r.text).toContain(['<<<<<<< ours', block('9.5, 7.50, 1e3, 12345678901234567891'), '||||||| base', block('8.0, 7.50, 1e3, 12345678901234567890'), '=======', block('9.25, 7.50, 2e3, 12345678901234567890'), '>>>>>>> theirs'].join('\r\n'));
      const stamp = (t: string) => t.replace(/"updated_at": "[^"]*"/, '"updated_at": ""');
      expect(stamp(splitConflictMarkers(r.text!)!.ours)).toBe(stamp(ours));
      expect(r.messages.join('\n')).toContain('conflict at skill_state.scores: ours [9.5,7.50,1e3,12345678901234567891] vs theirs [9.25,7.50,2e3,12345678901234567890] (base [8.0,7.50,1e3,12345678901234567890])');
    });

    it("a one-line list in conflict beside another conflict stays on its line: each block is that side's line as written, not the list laid out over lines (12-07)", () => {
      const doc = (list: string, step: string, updated?: string) => hand({ updated }).replace('"step": "orders endpoint"', () => `"step": "${step}"`).replace('\t"next_actions": [', () => `\t"skill_state": {"seen": 1, "nested": {"scores": [${list}]}},\r\n\t"next_actions": [`);
      const ours = doc('1.0, 4', 'ours-step', '2026-01-06T10:00:00Z');
      const theirs = doc('1.0, 3', 'theirs-step', '2026-01-07T10:00:00Z');
      const r = merge(doc('1.0, 2.00', 'orders endpoint'), ours, theirs, { keepLayout });
      expect(r.status).toBe('conflict');
      expect(r.conflicts.map((c) => c.display)).toEqual(['step', 'skill_state.nested.scores']);
      const block = (list: string) => `\t"skill_state": {"seen": 1, "nested": {"scores": [${list}]}},`;
      expect(r.text).toContain(['<<<<<<< ours', block('1.0, 4'), '||||||| base', block('1.0, 2.00'), '=======', block('1.0, 3'), '>>>>>>> theirs'].join('\r\n'));
      const stamp = (t: string) => t.replace(/"updated_at": "[^"]*"/, '"updated_at": ""');
      const sides = splitConflictMarkers(r.text!)!;
      expect(stamp(sides.ours)).toBe(stamp(ours));
      expect(stamp(sides.theirs)).toBe(stamp(theirs));
    });

    it("a one-line list in conflict beside a row both sides added under one id stays on its line in each block, and keeping a side's blocks gives that side's text (12-07)", () => {
      const doc = (list: string, row: string, updated?: string) =>
        hand({ updated }).replace('\t"next_actions": [', () => `\t"progress_table": [\r\n\t\t{"id": "p1", "label": "Phase 1", "status": "complete"}${row}\r\n\t],\r\n\t"skill_state": {"x": 2.50, "nested": {"a": [${list}]}},\r\n\t"next_actions": [`);
      const row = (label: string, status: string) => `,\r\n\t\t{"id": "p2", "label": "${label}", "status": "${status}"}`;
      const ours = doc('1.0, 6', row('Server', 'pending'), '2026-01-06T10:00:00Z');
      const theirs = doc('1.0, 5', row('Client', 'in_progress'), '2026-01-07T10:00:00Z');
      const r = merge(doc('1.0, 4.00', ''), ours, theirs, { keepLayout });
      expect(r.status).toBe('conflict');
      const line = (list: string) => `\t"skill_state": {"x": 2.50, "nested": {"a": [${list}]}},`;
      expect(r.text).toContain(['<<<<<<< ours', line('1.0, 6'), '||||||| base', line('1.0, 4.00'), '=======', line('1.0, 5'), '>>>>>>> theirs'].join('\r\n'));
      // The row's block as before: the base's without p2.
      const p1 = '\t\t{"id": "p1", "label": "Phase 1", "status": "complete"}';
      expect(r.text).toContain(['<<<<<<< ours', p1 + row('Server', 'pending'), '||||||| base', p1, '=======', p1 + row('Client', 'in_progress'), '>>>>>>> theirs'].join('\r\n'));
      const stamp = (t: string) => t.replace(/"updated_at": "[^"]*"/, '"updated_at": ""');
      const sides = splitConflictMarkers(r.text!)!;
      expect(stamp(sides.ours)).toBe(stamp(ours));
      expect(stamp(sides.theirs)).toBe(stamp(theirs));
      expect(stamp(sides.base ?? '')).toBe(stamp(doc('1.0, 4.00', '')));
    });

    it("several conflicts keep ours' layout too: a row both sides added under one id (its label and status each differ) is one block; a removed record beside another conflict takes its own (red team, 12-05)", () => {
      const rows = (extra: string, updated?: string, phase = 'build') => hand({ updated }).replace('"phase":"build"', () => `"phase":"${phase}"`).replace('\t"next_actions": [', () => `\t"progress_table": [\r\n\t\t{"id": "sprint-1", "label": "Sprint 1: Auth", "status": "complete"}${extra}\r\n\t],\r\n\t"blockers": [{"id": "b1", "description": "rate limiting", "needs": "user_decision"}],\r\n\t"next_actions": [`);
      const row = (label: string, status: string) => `,\r\n\t\t{"id": "sprint-2", "label": "${label}", "status": "${status}"}`;
      const ours = rows(row('Sprint 2: CRUD', 'in_progress'), '2026-01-06T10:00:00Z');
      const theirs = rows(row('Sprint 2: UI', 'not_started'), '2026-01-07T10:00:00Z');
      const outside = (text: string) => text.split('\n').filter((_, i, lines) => !inBlock(lines, i));
      const a = merge(rows(''), ours, theirs, { keepLayout });
      expect(a.status).toBe('conflict');
      expect(a.conflicts.map((c) => c.display)).toEqual(['progress_table[1].label', 'progress_table[1].status']);
      const stamp = (t: string) => t.replace(/"updated_at": "[^"]*"/, '"updated_at": ""');
      const sides = splitConflictMarkers(a.text!)!;
      expect(stamp(sides.ours)).toBe(stamp(ours));
      expect(stamp(sides.theirs)).toBe(stamp(theirs));
      // Every line outside the block is ours' own, in ours' layout.
      const oursLines = stamp(ours).split('\n');
      for (const line of outside(stamp(a.text!))) expect(oursLines).toContain(line);
      // Beside a conflict elsewhere (phase), the row is still one block, never split member by member (red team round 2).
      const withPhase = merge(rows(''), rows(row('Sprint 2: CRUD', 'in_progress'), '2026-01-06T10:00:00Z', 'review'), rows(row('Sprint 2: UI', 'not_started'), '2026-01-07T10:00:00Z', 'deploy'), { keepLayout });
      expect(withPhase.conflicts.map((c) => c.display)).toEqual(['phase', 'progress_table[1].label', 'progress_table[1].status']);
      const blocks = withPhase.text!.split('\n').filter((l) => l.startsWith('<<<<<<<'));
      expect(blocks).toHaveLength(2);
      expect(withPhase.text).not.toMatch(/^\s*,"/m);
      const pSides = splitConflictMarkers(withPhase.text!)!;
      expect(JSON.parse(pSides.ours)).toMatchObject({ phase: 'review', progress_table: [{}, { label: 'Sprint 2: CRUD', status: 'in_progress' }] });
      expect(JSON.parse(pSides.theirs)).toMatchObject({ phase: 'deploy', progress_table: [{}, { label: 'Sprint 2: UI', status: 'not_started' }] });
      // Ours removed the blocker and set phase; theirs edited the blocker and set phase otherwise.
      const withBlockers = (blockers: string, phase: string, updated: string) => rows('', updated, phase).replace(/\t"blockers": \[.*\],/, () => `\t"blockers": [${blockers}],`);
      const b = merge(rows(''), withBlockers('', 'review', '2026-01-06T10:00:00Z'), withBlockers('{"id": "b1", "description": "rate limiting on /auth", "needs": "user_decision"}', 'deploy', '2026-01-07T10:00:00Z'), { keepLayout });
      expect(b.conflicts.map((c) => c.display)).toEqual(['phase', 'blockers[0]']);
      const bSides = splitConflictMarkers(b.text!)!;
      expect(JSON.parse(bSides.ours)).toMatchObject({ phase: 'review', blockers: [] });
      expect(JSON.parse(bSides.theirs)).toMatchObject({ phase: 'deploy', blockers: [{ description: 'rate limiting on /auth' }] });
      const oursB = stamp(withBlockers('', 'review', '2026-01-06T10:00:00Z')).split('\n');
      for (const line of outside(stamp(b.text!))) expect(oursB).toContain(line);
    });

    it("a queue conflict in an inline array beside a row both sides changed in two members: each side's blocks give that side's queue, never the run nested in it", () => {
      const doc = (label: string, status: string, action: string) =>
        `${JSON.stringify({ ...BASE, progress_table: [{ id: 'p1', label: 'Plan', status: 'complete' }, { id: 'p2', label, status }], next_actions: ['one', action, 'three'] }, null, 4)}\n`.replace(/\[\n\s+("[^"\n]*"),\n\s+("[^"\n]*"),\n\s+("[^"\n]*")\n\s+\]/g, '[$1, $2, $3]');
      const [base, ours, theirs] = [doc('Build', 'not_started', 'two'), doc('Build: API', 'in_progress', 'two (ours)'), doc('Build: UI', 'blocked', 'two (theirs)')];
      expect(ours).toContain('"next_actions": ["one", "two (ours)", "three"]');
      for (const [a, b] of [[ours, theirs], [theirs, ours]]) {
        const r = merge(base, a!, b!, { keepLayout });
        expect(r.conflicts.map((c) => c.display)).toEqual(['next_actions[1]', 'progress_table[1].label', 'progress_table[1].status']);
        const sides = splitConflictMarkers(r.text!)!;
        for (const [side, text] of [[sides.ours, a], [sides.base, base], [sides.theirs, b]]) expect((parseJson(side!).value as any).next_actions).toEqual((parseJson(text!).value as any).next_actions);
        expect(parseJson(sides.ours).value).toEqual(parseJson(a!).value);
        expect(parseJson(sides.theirs).value).toEqual(parseJson(b!).value);
      }
    });

    it("property: any queue conflict in a hand layout keeps every line outside its block, and each side's blocks give exactly that side's queue", () => {
      const items = fc.array(fc.constantFrom('a', 'b', 'c', 'ship src/x.ts (PR 12)', 'd'), { maxLength: 4 });
      let runs = 0;
      fc.assert(
        fc.property(items, items, items, fc.boolean(), (b, o, t, inline) => {
          const write = (q: string[]) => inline ? q.map((x) => JSON.stringify(x)).join(', ') : q.map((x) => `\r\n\t\t${JSON.stringify(x)}`).join(',') + '\r\n\t';
          const doc = (q: string[], updated?: string) => hand({ updated }).replace(/"next_actions": \[[^\]]*\]/, () => `"next_actions": [${write(q)}]`);
          const texts = [doc(b), doc(o, '2026-01-06T10:00:00Z'), doc(t, '2026-01-07T10:00:00Z')] as const;
          const r = merge(...texts, { keepLayout });
          if (r.status !== 'conflict' || !r.conflicts.some((c) => c.span !== undefined)) return;
          runs++;
          // Each side of the blocks reads as that side of the markers laid out afresh (no layout writer).
          const [sides, afresh] = [splitConflictMarkers(r.text!)!, splitConflictMarkers(merge(...texts).text!)!];
          for (const side of ['ours', 'base', 'theirs'] as const) expect(parseJson(sides[side]!).value).toEqual(parseJson(afresh[side]!).value);
          // Outside the blocks, the sides' own lines (one hand layout on all three), but for the comma an
          // item gains or loses when another comes after it: nothing laid out afresh. An empty queue of
          // ours has no item layout to keep: items written into it take the writer's (seed 1079795087).
          // Two runs in one queue are laid out afresh (render-layout.ts: one run per file).
          if (o.length === 0 || r.conflicts.filter((c) => c.span !== undefined).length > 1) return;
          const bare = (l: string) => l.replace(/,$/, '');
          const outside = r.text!.split('\r\n').filter((_, i, all) => !inBlock(all, i));
          const sideLines = new Set([...texts[1].split('\r\n'), ...texts[2].split('\r\n')].map(bare));
          expect(outside.filter((l) => !sideLines.has(bare(l)))).toEqual([]);
          expect(r.text).toContain('\r\n\r\n\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts"],\r\n');
        }),
        { numRuns: 200 },
      );
      expect(runs).toBeGreaterThan(20);
    });

    it('never loads the writer for ours laid out as formatJson writes (two spaces), a conflict included', () => {
      const unused = () => {
        throw new Error('the layout writer was asked for');
      };
      const ours = edited((d) => d.next_actions.push('three'));
      const theirs = edited((d) => (d.updated_at = '2026-03-02T11:00:00Z'));
      expect(merge(text(BASE), text(ours), text(theirs), { keepLayout: unused }).status).toBe('clean');
      const bom = `\uFEFF${JSON.stringify(ours, null, 2)}`; // no final newline, a BOM: still formatJson's layout
      expect(merge(text(BASE), bom, text(theirs), { keepLayout: unused }).text).toBe(`\uFEFF${JSON.stringify({ ...ours, updated_at: '2026-03-02T11:00:00Z' }, null, 2)}`);
      const r = merge(text(BASE), text(edited((d) => (d.phase = 'audit'))), text(edited((d) => (d.phase = 'ship'))), { keepLayout: unused });
      expect(r.status).toBe('conflict');
      expect(r.text).toContain('<<<<<<< ours');
    });
  });

  it('uses the extra log rules it is given', () => {
    const ours = edited((d) => d.skill_state.audits.push({ at: '2026-03-02T00:00:00Z' }));
    const theirs = edited((d) => d.skill_state.audits.push({ at: '2026-03-03T00:00:00Z' }));
    expect(merge(text(BASE), text(ours), text(theirs)).status).toBe('conflict');
    const r = merge(text(BASE), text(ours), text(theirs), { extraRules: compileExtraLogs({ logs: ['skill_state.audits'] }) });
    expect(r.status).toBe('clean');
  });
});

describe('mergeCheckpointTexts: a counter sum written with the decimals its sides wrote', () => {
  // As Python's json.dump writes floats: every amount with its `.0`; budget_usd as an int.
  const spent = (total: string, build: string) =>
    text(edited((d) => (d.cost = { currency: 'USD', total_usd: 0.5, budget_usd: 50, by_phase: { spec: 3.1, build: 0.25 } })))
      .replace('"total_usd": 0.5', `"total_usd": ${total}`)
      .replace('"build": 0.25', `"build": ${build}`);
  const sums = (base: [string, string], ours: [string, string], theirs: [string, string]) => {
    const r = merge(spent(...base), spent(...ours), spent(...theirs));
    const back = merge(spent(...base), spent(...theirs), spent(...ours));
    expect([r.status, back.status]).toEqual(['clean', 'clean']);
    // Both ways round: the same text.
    expect(back.text).toBe(r.text);
    return [r.text!.match(/"total_usd": (.*),/)![1], r.text!.match(/"build": (.*)\n/)![1]];
  };

  it('keeps `.0` on a sum of amounts written x.0: 5.0 + (6.0 - 5.0) + (7.0 - 5.0) is 8.0, not 8', () => {
    expect(sums(['5.0', '8.0'], ['6.0', '9.0'], ['7.0', '9.5'])).toEqual(['8.0', '10.5']);
    expect(sums(['5.0', '8'], ['6.5', '9'], ['7.0', '10'])).toEqual(['8.5', '11']);
    // One side's spelling is enough: base 5, ours 6, theirs 7.0.
    expect(sums(['5', '0'], ['6', '1'], ['7.0', '2'])).toEqual(['8.0', '3']);
  });

  it('writes as many decimals as the most precise spelling, and no more than JSON needs otherwise', () => {
    expect(sums(['5.00', '1.0'], ['6.50', '1.25'], ['7.00', '1.75'])).toEqual(['8.50', '2.00']);
    expect(sums(['5.00', '1.5e1'], ['6.5', '16'], ['7.25', '1.70e1'])).toEqual(['8.75', '18.0']);
    // No side wrote more decimals than JSON: JSON's text, as before (0.25 + 0.75 is 1).
    expect(sums(['0', '0'], ['0.25', '0.5'], ['0.75', '0.75'])).toEqual(['1', '1.25']);
    // A sum JSON writes with an exponent keeps JSON's text.
    expect(sums(['0.0', '1e-7'], ['1e-7', '2e-7'], ['2e-7', '3e-7'])).toEqual(['3e-7', '4e-7']);
  });

  it('keeps the text of every counter neither side changed, in two saves of their own (red team 12-06 evening, 01)', () => {
    // Two sessions that left cost alone: 1e3 and 2.5e-05 (as Python writes a small cost) stay as written.
    const saved = (at: string, step: string) =>
      text(edited((d) => ((d.updated_at = at), (d.step = step), (d.cost = { currency: 'USD', total_usd: 1.5, by_model: { haiku: 0 }, tokens: { input: 0, output: 250 } }))))
        .replace('"haiku": 0', '"haiku": 2.5e-05')
        .replace('"input": 0', '"input": 1e3');
    const base = saved('2026-03-01T10:00:00Z', 'auth');
    for (const [ours, theirs] of [[saved('2026-03-02T10:00:00Z', 'routes'), saved('2026-03-02T11:00:00Z', 'auth')], [saved('2026-03-02T11:00:00Z', 'auth'), saved('2026-03-02T10:00:00Z', 'routes')]]) {
      const r = merge(base, ours!, theirs!);
      expect(r.status).toBe('clean');
      expect(r.text).toContain('"haiku": 2.5e-05');
      expect(r.text).toContain('"input": 1e3');
      expect(r.text).toContain('"total_usd": 1.5,');
    }
  });

  it("adds the digits each side wrote exactly, past a double's 17: none lost, none invented (red team 47, 06)", () => {
    // 12.345 + 0.0006789012345678 + 0.055, not 12.4006789012345690 (the doubles' sum padded to 16 decimals).
    expect(sums(['12.345', '1e3'], ['12.3456789012345678', '1.5e3'], ['12.4', '2000.5'])).toEqual(['12.4006789012345678', '2500.5']);
    expect(sums(['0.1', '1.5E-2'], ['0.30000000000000004', '2.5e-2'], ['0.2', '3.5e-2'])).toEqual(['0.40000000000000004', '0.045']);
    // Exponents where a side wrote them, and the sum JSON's text of its double spells exactly.
    expect(sums(['1e-7', '1e3'], ['2.5e-7', '1.5e3'], ['3e-7', '2e3'])).toEqual(['4.5e-7', '2500']);
  });
});

describe('mergeCheckpointTexts: a spend counter past 2^53 is added on its digits (red team s13 #2)', () => {
  const tokens = (n: string) => text(edited((d) => (d.cost = { currency: 'USD', total_usd: 1.5, tokens: { in: 0 } }))).replace('"in": 0', `"in": ${n}`);
  const sum = (base: string, ours: string, theirs: string) => {
    const r = merge(tokens(base), tokens(ours), tokens(theirs));
    const back = merge(tokens(base), tokens(theirs), tokens(ours));
    expect(back.text).toBe(r.text);
    expect(back.status).toBe(r.status);
    return r;
  };
  const written = (r: ReturnType<typeof merge>) => r.text!.match(/"in": ([^}\s]+)/)![1];

  it('base + 1 + 2 past 2^53 is base + 3, not the doubles\' sum', () => {
    const r = sum('9007199254740993', '9007199254740994', '9007199254740995');
    expect(r.status, r.messages.join('\n')).toBe('clean');
    expect(written(r)).toBe('9007199254740996');
  });

  it('three texts one double holds (+100, +200) add up instead of conflicting', () => {
    const r = sum('12345678901234567000', '12345678901234567100', '12345678901234567200');
    expect(r.status, r.messages.join('\n')).toBe('clean');
    expect(written(r)).toBe('12345678901234567300');
  });

  it('a sum of safe counters that passes 2^53 is exact too; exponents and decimals are read as written', () => {
    expect(written(sum('0', '9007199254740991', '9007199254740990'))).toBe('18014398509481981');
    expect(written(sum('1e21', '1.5e21', '2000000000000000000001'))).toBe('2500000000000000000001');
    expect(written(sum('9007199254740990.5', '9007199254740995', '9007199254740991.25'))).toBe('9007199254740995.75');
  });

  it('one side changed it: that side\'s digits; both to the same: taken once; a decrease conflicts, saying so', () => {
    expect(written(sum('9007199254740993', '9007199254740993', '9007199254740999'))).toBe('9007199254740999');
    expect(written(sum('9007199254740993', '9007199254740997', '9007199254740997'))).toBe('9007199254740997');
    // Both to one amount spelled two ways (two tools' re-saves): one spelling, whichever side is ours (red team 62a 07).
    expect(written(sum('12345678901234567000', '12345678901234567100.0', '12345678901234567100'))).toBe('12345678901234567100.0');
    const lowered = merge(tokens('9007199254740993'), tokens('9007199254740992'), tokens('9007199254740995'));
    expect(lowered.status).toBe('conflict');
    expect(lowered.messages).toEqual([`checkpoint: ${FILE}: conflict at cost.tokens.in: ours 9007199254740992 vs theirs 9007199254740995 (base 9007199254740993): ours lowered it (a reset or a correction), and a decrease is not spend`]);
  });
});

describe('mergeCheckpointTexts: conflicts', () => {
  it('renders markers only around the colliding field and summarizes it', () => {
    const r = merge(text(BASE), text(edited((d) => (d.phase = 'build'))), text(edited((d) => (d.phase = 'audit'))), { markerSize: 9 });
    expect(r.status).toBe('conflict');
    expect(r.conflicts.map((c) => c.display)).toEqual(['phase']);
    expect(r.messages).toEqual([`checkpoint: ${FILE}: conflict at phase: ours "build" vs theirs "audit" (base "spec")`]);
    expect(r.text!.match(/^<{9} ours$/gm)).toHaveLength(1);
    expect(r.text).toContain('<<<<<<<<< ours\n  "phase": "build",\n||||||||| base\n  "phase": "spec",\n=========\n  "phase": "audit",\n>>>>>>>>> theirs\n');
  });

  it('marks a clean merge that fails validation as a conflict, unmarked, with the reasons', () => {
    // Each side popped a different action: both valid, the merge has none left while in_progress.
    const ours = edited((d) => d.next_actions.splice(0, 1));
    const theirs = edited((d) => d.next_actions.splice(1, 1));
    const r = merge(text(BASE), text(ours), text(theirs));
    expect(r.status).toBe('conflict');
    expect(r.conflicts).toEqual([]);
    expect(r.text).not.toContain('<<<<<<<');
    expect((parseJson(r.text!).value as any).next_actions).toEqual([]);
    expect(r.messages).toEqual([`checkpoint: ${FILE}: the merged result is invalid at next_actions: next_actions must not be empty while in_progress`]);
  });

  it('does not refuse a merge for invalidity a side already committed', () => {
    const invalidBase = edited((d) => (d.status = 'ready-to-deploy'));
    const ours = structuredClone(invalidBase);
    ours.skill_state = { audits: [{ at: '2026-03-02T10:00:00Z', ok: true }] };
    const theirs = structuredClone(invalidBase);
    theirs.recently_done = [{ at: '2026-03-02T11:00:00Z', action: 'shipped' }];
    for (const [a, b] of [[ours, theirs], [theirs, ours]]) {
      const r = merge(text(invalidBase), text(a!), text(b!), { extraRules: compileExtraLogs({ logs: ['skill_state.audits'] }) });
      expect(r.messages).toEqual([]);
      expect(r.status).toBe('clean');
      expect((parseJson(r.text!).value as any).status).toBe('ready-to-deploy');
    }
    // Only on ours (committed there, theirs is valid): still that side's problem, not the merge's.
    const theirsValid = edited((d) => d.recently_done.push({ at: '2026-03-02T11:00:00Z', action: 'shipped' }));
    expect(merge(text(BASE), text(edited((d) => (d.status = 'ready-to-deploy'))), text(theirsValid)).status).toBe('clean');
  });

  it('does not refuse a hand-written error that the merge only moved: both sides put records before it', () => {
    // A date-only `at` (hand-written) sits last in recently_done; each side's done puts a record
    // first, so the merge has it at index 2, where neither side had it.
    const handWritten = { at: '2026-11-30', action: 'Set up the repo' };
    const base = edited((d) => (d.recently_done = [handWritten]));
    const ours = edited((d) => {
      d.next_actions = ['two'];
      d.recently_done = [{ at: '2026-03-02T10:00:00Z', action: 'one' }, handWritten];
    });
    const theirs = edited((d) => {
      d.next_actions = ['one', 'two', 'three'];
      d.recently_done = [{ at: '2026-03-02T11:00:00Z', action: 'reviewed' }, handWritten];
    });
    for (const [a, b] of [[ours, theirs], [theirs, ours]]) {
      const r = merge(text(base), text(a!), text(b!));
      expect(r.messages).toEqual([]);
      expect(r.status).toBe('clean');
      expect((parseJson(r.text!).value as any).recently_done).toHaveLength(3);
    }
  });

  it('refuses a merge whose result is over the 4 MiB a checkpoint may hold, each side under it', () => {
    // A hand-kept file: off-enum status, a number written 8.0, CRLF; each branch appended ~60 KB of runs.
    const bulk = (tag: string, n: number) => Array.from({ length: n }, (_, i) => ({ id: `${tag}${i}`, at: '2026-06-02T00:00:00Z', note: `${tag} run ${i} (PR 12) `.padEnd(600, '.') }));
    const crlf = (doc: JsonObject) => text(doc).replace(/\n/g, '\r\n').replace('"last_score": 8', '"last_score": 8.0');
    const messyWith = (n: number) =>
      edited((d) => {
        d.status = 'ready-to-deploy';
        d.skill_state = { run_history: bulk('old', n), last_score: 8 };
      });
    // Enough old runs that the base sits ~100 KB under the cap: each side's ~70 KB fits, both do not.
    const perRun = crlf(messyWith(1)).length - crlf(messyWith(0)).length;
    const old = Math.floor((MAX_CHECKPOINT_BYTES - 100_000) / perRun);
    const messy = messyWith(old);
    const add = (tag: string) => {
      const d = structuredClone(messy) as any;
      d.skill_state.run_history.push(...bulk(tag, 100));
      return crlf(d);
    };
    const [base, ours, theirs] = [crlf(messy), add('ours'), add('theirs')];
    for (const side of [base, ours, theirs]) expect(new TextEncoder().encode(side).length).toBeLessThan(MAX_CHECKPOINT_BYTES);
    for (const [a, b] of [[ours, theirs], [theirs, ours]]) {
      const r = merge(base, a!, b!);
      expect(r.status).toBe('conflict');
      const bytes = new TextEncoder().encode(r.text!).length;
      expect(bytes).toBeGreaterThan(MAX_CHECKPOINT_BYTES);
      // Nothing lost: every run of both sides is in the (unmarked) text left for the user to rotate.
      expect((parseJson(r.text!).value as any).skill_state.run_history).toHaveLength(old + 200);
      expect(r.messages).toHaveLength(1);
      expect(r.messages[0]).toContain(`${FILE}: the merged result would be ${bytes} bytes, which is over the 4 MiB`);
      expect(r.messages[0]).toContain('`git add` it, `checkpoint rotate` the skill, then `git add` it again');
      // The off-enum status both sides committed is not the merge's to refuse.
      expect(r.messages[0]).not.toContain('status');
    }
  });

  it("checks the file name's base name against the skill", () => {
    const ours = text(edited((d) => (d.phase = 'build')));
    const theirs = text(edited((d) => (d.step = 'x')));
    expect(merge(text(BASE), ours, theirs, { fileName: 'nested/dir/demo.checkpoint.json' }).status).toBe('clean');
    // A name both sides already had wrong is not the merge's doing: it does not block it.
    expect(merge(text(BASE), ours, theirs, { fileName: '.checkpoints/other.checkpoint.json' }).status).toBe('clean');

  });
});

describe('mergeCheckpointTexts: unparseable sides', () => {
  const good = text(BASE);
  const cases: Array<[string, string, RegExp]> = [
    ['broken JSON', '{\n  "phase": "spec",\n}', /at 3:1: expected a double-quoted property name/],
    ['conflict markers', '{\n<<<<<<< ours\n  "a": 1\n', /holds committed conflict markers at 2:1/],
    ['a duplicate key', '{\n  "phase": 1,\n  "phase": 2\n}', /at 3:3: duplicate key "phase"/],
    ['a forbidden key', '{"__proto__": {}}', /at 1:2: forbidden key "__proto__"/],
    ['an empty file', '', /at 1:1: empty file/],
    ['nesting 10,000 levels deep', '['.repeat(10_000) + ']'.repeat(10_000), /nesting deeper than 256 levels/],
  ];
  for (const side of ['ours', 'theirs', 'base'] as const) {
    it.each(cases)(side === 'base' ? 'merges the sides over a base with %s' : `reports ${side} with %s, naming the side and line:column`, (_, bad, reason) => {
      const r = merge(side === 'base' ? bad : good, side === 'ours' ? bad : good, side === 'theirs' ? bad : good);
      if (side === 'base' && bad === '') return expect(r.status).toBe('clean'); // an empty base is an add/add
      // A base no JSON beside two valid sides: they merge against what both hold alike (red team 64 r2).
      if (side === 'base') return expect(r.status, r.messages.join('\n')).toBe('clean');
      expect(r.status).toBe('unparseable');
      expect(r.text).toBeUndefined();
      expect(r.messages).toHaveLength(1);
      expect(r.messages[0]).toMatch(new RegExp(`^checkpoint: cannot merge ${FILE.replace(/\./g, '\\.')} semantically: ${side} (is not valid JSON|holds committed conflict markers|cannot be read) `));
      expect(r.messages[0]).toMatch(reason);
    });
  }

  it('says which side holds committed conflict markers (a hosted merge) and the way out that works', () => {
    // What a merge button commits: git's markers around a real collision, CRLF, the rest hand-kept.
    const hosted = good.replace('  "step": "draft",\n', '<<<<<<< feat/a\n  "step": "a",\n=======\n  "step": "b",\n>>>>>>> feat/b\n').replace(/\n/g, '\r\n');
    const theirs = merge(good, good, hosted).messages;
    expect(theirs).toEqual([
      `checkpoint: cannot merge ${FILE} semantically: theirs holds committed conflict markers at 9:1 (a merge that bypassed the driver): \`git merge --abort\`, run \`checkpoint resolve --add\` on their branch and commit, then merge again`,
    ]);
    expect(merge(good, hosted, good).messages[0]).toMatch(/: ours holds committed conflict markers at 9:1 .*`checkpoint resolve --add` on this branch and commit/);
    expect(merge(hosted, hosted, hosted).messages[0]).toMatch(/base holds .*; ours holds .*; theirs holds .* on each branch and commit, then merge again$/);
    // Not for a side that is merely broken: no advice it would not need.
    expect(merge(good, good, '{\n  "phase": "A",,\n}').messages[0]).not.toContain('git merge --abort');
  });

  it('reports every unparseable side in one line: sides and reasons, in base, ours, theirs order', () => {
    const r = merge('{', '{\n  "phase": 1,\n  "phase": 2\n}', '[');
    expect(r.messages).toEqual([
      `checkpoint: cannot merge ${FILE} semantically: base is not valid JSON at 1:2: the text ends inside an object (cut short?); ours is not valid JSON at 3:3: duplicate key "phase"; theirs is not valid JSON at 1:2: the text ends where a value belongs (cut short?)`,
    ]);
  });

  it('shows a duplicate key from the file escaped and bounded: the message stays one short line', () => {
    // JSON escapes in the file: the key itself holds a newline and ESC.
    const key = `evil\\n\\u001b[2J${'k'.repeat(500)}`;
    const bad = `{"${key}": 1, "${key}": 2}`;
    const [message, ...rest] = merge(good, bad, good).messages;
    expect(rest).toEqual([]);
    // ESC as every text output shows it (\x1b), and the cut key's quote closed after the ellipsis.
    expect(message).toContain('duplicate key "evil\\n\\x1b[2Jkkk');
    expect(message).toMatch(/k…" \(\d+ characters\)$/);
    expect(message).not.toMatch(/[\n\x1b]/);
    expect(message!.length).toBeLessThan(250);
  });
});

describe('mergeCheckpointTexts: the merge of two merge bases (a criss-cross merge\'s virtual ancestor)', () => {
  it('is always clean JSON: each record either base holds, a stand-in where they disagree, a conflicting run of the queue left out; the same whichever base is ours', () => {
    const one = edited((d) => {
      d.phase = 'audit';
      d.next_actions = ['two', 'from one'];
      d.skill_state.audits.push({ id: 'x', at: '2026-03-02T00:00:00Z' });
    });
    const two = edited((d) => {
      d.phase = 'ship';
      d.next_actions = ['one', 'two', 'from two'];
      d.skill_state.audits.push({ id: 'y', at: '2026-03-03T00:00:00Z' });
    });
    const results = [merge(text(BASE), text(one), text(two), { virtualBase: true }), merge(text(BASE), text(two), text(one), { virtualBase: true })];
    const values = results.map((r) => {
      expect(r.status).toBe('clean');
      expect(r.messages).toEqual([]);
      return parseJson(r.text!).value as any;
    });
    expect(values[0]).toEqual(values[1]);
    const v = values[0];
    expect(v.phase).toEqual({ '(checkpoint: the merge bases disagree here)': 'phase' });
    expect(v.skill_state.audits.map((a: { id: string }) => a.id).sort()).toEqual(['x', 'y']);
    // The bases' common action stays; each base's own appended one is in it (they did not conflict).
    expect(v.next_actions).toEqual(expect.arrayContaining(['two']));
    // The plain merge of the same sides conflicts (markers): the stand-in is only for the base.
    expect(merge(text(BASE), text(one), text(two)).status).toBe('conflict');
  });
});
