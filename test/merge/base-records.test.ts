// A record both branches added under one id the base has no record of (a progress_table row, an
// item of a list skill_state keeps), each its own way. The merge marks its conflicts as under a
// record the base lacks (Conflict.baseLacks), and both renderers, renderMerged (formatJson's
// layout) and renderKeepingLayout (a hand-made one), show that record as one block whose base
// holds nothing: never the record with the conflicted members left out (`{"id": "p2"}`), which the
// base never had. So is an object both added under one key the base lacks. Taking a side gives
// that side's record exactly.
import { describe, expect, it } from 'vitest';
import { mergeCheckpointTexts, type MergeTextsInput } from '../../src/merge/driver.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { parseMarkedText, splitConflictMarkers, type MarkedBlock } from '../../src/merge/markers.js';
import { mergeMarkedText } from '../../src/merge/settle-markers.js';
import { parseJson } from '../../src/protocol/json.js';
import { formatKeepingLayout } from '../../src/protocol/layout.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const FILE = '.checkpoints/demo.checkpoint.json';
const P1 = { id: 'p1', label: 'Plan', status: 'complete' };
const OURS_P2 = { id: 'p2', label: 'Build: API', status: 'in_progress' };
const THEIRS_P2 = { id: 'p2', label: 'Build: UI', status: 'not_started' };

const doc = (rows: JsonValue[], state: JsonObject = {}): JsonObject =>
  checkpointDoc({ skill: 'demo', progress_table: rows, next_actions: ['Ship the API'], recently_done: [], skill_state: state });
const [BASE, OURS, THEIRS] = [doc([P1]), doc([P1, OURS_P2]), doc([P1, THEIRS_P2])];

/** A layout, and whether the driver gets the writer that keeps it (renderKeepingLayout) or lays conflicts out as formatJson does (renderMerged). */
interface Layout {
  name: string;
  write: (d: JsonObject) => string;
  keepLayout?: MergeTextsInput['keepLayout'];
}
const LAYOUTS: Layout[] = [
  { name: "formatJson's layout (renderMerged)", write: (d) => `${JSON.stringify(d, null, 2)}\n` },
  {
    name: 'a hand-made layout: 4 spaces, each row on one line, CRLF (renderKeepingLayout)',
    write: (d) => `${JSON.stringify(d, null, 4).replace(/\{\n\s+("id": "[^"]*",)\n\s+("label": "[^"]*",)\n\s+("status": "[^"]*")\n\s+\}/g, '{$1 $2 $3}')}\n`.replace(/\n/g, '\r\n'),
    keepLayout: () => formatKeepingLayout,
  },
];

const blocksOf = (text: string): MarkedBlock[] => parseMarkedText(text)!.segments.filter((s): s is MarkedBlock => typeof s !== 'string');
/** The lines of a marked text outside its blocks. */
const outsideBlocks = (text: string): string[] => parseMarkedText(text)!.segments.flatMap((s) => (typeof s === 'string' ? s.split('\n').filter(Boolean) : []));

/** What keeping each side's blocks reads as. */
function readings(text: string): Record<'base' | 'ours' | 'theirs', JsonValue> {
  const sides = splitConflictMarkers(text)!;
  return { base: parseJson(sides.base!).value, ours: parseJson(sides.ours).value, theirs: parseJson(sides.theirs).value };
}

describe('the merge marks the conflicts inside a record both sides added under an id the base lacks', () => {
  it('as under that record, the outermost the base lacks, the same both ways round; a record the base has is not marked', () => {
    const marks = (b: JsonObject, o: JsonObject, t: JsonObject) => mergeCheckpointValues(b, o, t).conflicts.map((c) => [c.display, c.baseLacks]);
    expect(marks(BASE, OURS, THEIRS)).toEqual([
      ['progress_table[1].label', 2],
      ['progress_table[1].status', 2],
    ]);
    expect(marks(BASE, THEIRS, OURS)).toEqual(marks(BASE, OURS, THEIRS));
    // A list of skill_state's own merged by id, a record inside it holding one of its own: the outer one.
    const item = (note: string) => ({ id: 'i1', checks: [{ id: 'c1', note }] });
    expect(marks(doc([P1], { items: [] }), doc([P1], { items: [item('ours')] }), doc([P1], { items: [item('theirs')] }))).toEqual([['skill_state.items[0].checks[0].note', 3]]);
    // Both sides changed a row the base has: its base is the base's row, nothing to mark.
    expect(marks(BASE, doc([{ ...P1, label: 'Plan A' }]), doc([{ ...P1, label: 'Plan B' }]))).toEqual([['progress_table[0].label', undefined]]);
    // An object both sides added under one key the base lacks: as under that object.
    expect(marks(doc([P1]), doc([P1], CFG_OURS), doc([P1], CFG_THEIRS))).toEqual([['skill_state.cfg.mode', 2]]);
    // A key of an object the base has, both added: its own conflict, nothing around it to mark.
    expect(marks(doc([P1], { cfg: { level: 8.5 } }), doc([P1], CFG_OURS), doc([P1], CFG_THEIRS))).toEqual([['skill_state.cfg.mode', undefined]]);
  });
});

/** An object both sides added to skill_state under one key, alike but for one member. */
const CFG_OURS = { cfg: { mode: 'safe', level: 8.5, tags: ['x'] } };
const CFG_THEIRS = { cfg: { mode: 'fast', level: 8.5, tags: ['x'] } };

describe.each(LAYOUTS)('the conflict shown in $name', ({ write, keepLayout }) => {
  const merge = (base: JsonObject, ours: JsonObject, theirs: JsonObject, extra: Partial<MergeTextsInput> = {}) =>
    mergeCheckpointTexts({ base: write(base), ours: write(ours), theirs: write(theirs), fileName: FILE, keepLayout, ...extra });

  it("is one block over the row whose base is empty: the base's table as the base had it, each side's row as that side wrote it, both ways round", () => {
    for (const [ours, theirs] of [
      [OURS, THEIRS],
      [THEIRS, OURS],
    ]) {
      const r = merge(BASE, ours!, theirs!);
      expect(r.status).toBe('conflict');
      const blocks = blocksOf(r.text!);
      expect(blocks).toHaveLength(1);
      // Its base: nothing, or (a hand layout's block taking the row before it, whose comma the base lacks) the base's own lines.
      if (!keepLayout) expect(blocks[0]!.base).toBe('');
      for (const line of blocks[0]!.base!.split(/(?<=\n)/).filter(Boolean)) expect(write(BASE).split(/(?<=\n)/)).toContain(line);
      expect(blocks[0]!.base).not.toContain('p2');
      expect(readings(r.text!)).toEqual({ base: BASE, ours, theirs });
      // What each side's block holds is that side's text.
      if (keepLayout) for (const line of splitConflictMarkers(r.text!)!.ours.split('\n')) expect(write(ours!).split('\n')).toContain(line);
      // The conflict lines name each member, as before: the base has none of it.
      const [o, t] = [ours, theirs].map((d) => (d!.progress_table as JsonObject[])[1]!);
      expect(r.messages).toEqual([
        `checkpoint: ${FILE}: conflict at progress_table[1].label: ours ${JSON.stringify(o!.label)} vs theirs ${JSON.stringify(t!.label)} (base absent)`,
        `checkpoint: ${FILE}: conflict at progress_table[1].status: ours ${JSON.stringify(o!.status)} vs theirs ${JSON.stringify(t!.status)} (base absent)`,
      ]);
    }
  });

  it('beside conflicts elsewhere, and beside a row the base has that both changed: only the added row loses its base', () => {
    const [ours, theirs] = [doc([{ ...P1, label: 'Plan A' }, OURS_P2]), doc([{ ...P1, label: 'Plan B' }, THEIRS_P2])];
    [ours.phase, theirs.phase] = ['review', 'deploy'];
    const r = merge(BASE, ours, theirs);
    expect(r.conflicts.map((c) => c.display)).toEqual(['phase', 'progress_table[0].label', 'progress_table[1].label', 'progress_table[1].status']);
    expect(readings(r.text!)).toEqual({ base: BASE, ours, theirs });
    // A row added before one the base has, beside an action each side rewrote (a queue's run):
    // in a hand layout every line outside the blocks is still ours' own.
    const P3 = { id: 'p3', label: 'Ship', status: 'not_started' };
    const [base, o, t] = [doc([P1, P3]), doc([P1, OURS_P2, P3]), doc([P1, THEIRS_P2, P3])];
    [base.next_actions, o.next_actions, t.next_actions] = [['Ship the API', 'Tag it'], ['Ship the API v1', 'Tag it'], ['Ship the API v2', 'Tag it']];
    const q = merge(base, o, t);
    expect(q.conflicts.map((c) => c.display)).toEqual(['progress_table[1].label', 'progress_table[1].status', 'next_actions[0]']);
    expect(readings(q.text!)).toEqual({ base, ours: o, theirs: t });
    if (keepLayout) for (const line of outsideBlocks(q.text!)) expect(write(o).split('\n')).toContain(line);
  });

  it('a number both sides wrote their own way (1e-400, 2e-400: two numbers, one double) in such a record, alone or beside a value both set: the base holds no record', () => {
    const item = (weight: string, owner: string) => `{"id": "w1", "weight": ${weight}, "owner": "${owner}"}`;
    const withItem = (text: string, it: string) => text.replace(/"skill_state": \{\}/, () => `"skill_state": {"items": [${it}]}`);
    const base = withItem(write(doc([P1])), '');
    for (const [owners, conflicts] of [
      [['ann', 'ann'], ['skill_state.items[0].weight']],
      [['ann', 'bob'], ['skill_state.items[0].owner', 'skill_state.items[0].weight']],
    ] as const) {
      const [ours, theirs] = [withItem(write(doc([P1])), item('1e-400', owners[0])), withItem(write(doc([P1])), item('2e-400', owners[1]))];
      const r = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE, keepLayout });
      expect(r.conflicts.map((c) => c.display)).toEqual(conflicts);
      const sides = splitConflictMarkers(r.text!)!;
      expect((parseJson(sides.base!).value as any).skill_state).toEqual({ items: [] });
      expect(sides.ours).toContain('"weight": 1e-400,');
      expect(sides.theirs).toContain('"weight": 2e-400,');
      expect(parseJson(sides.ours).value).toEqual(parseJson(ours).value);
      expect(parseJson(sides.theirs).value).toEqual(parseJson(theirs).value);
    }
  });

  it("taking a side, from git's stages or from the markers, gives that side's row exactly; a member settled alone leaves the rest of the row one block", () => {
    const r = merge(BASE, OURS, THEIRS);
    const marked = parseMarkedText(r.text!)!;
    // The markers merge again to the same text.
    expect(mergeMarkedText({ marked, fileName: FILE, keepLayout }).text).toBe(r.text);
    for (const [side, row] of [
      ['ours', OURS_P2],
      ['theirs', THEIRS_P2],
    ] as const) {
      const settle = { [side]: ['progress_table[1]'] };
      for (const settled of [merge(BASE, OURS, THEIRS, { settle }), mergeMarkedText({ marked, fileName: FILE, settle, keepLayout })]) {
        expect(settled.status).toBe('clean');
        expect((parseJson(settled.text!).value as any).progress_table).toEqual([P1, row]);
      }
    }
    const label = mergeMarkedText({ marked, fileName: FILE, settle: { theirs: ['progress_table[1].label'] }, keepLayout });
    expect(label.conflicts.map((c) => c.display)).toEqual(['progress_table[1].status']);
    expect(readings(label.text!)).toEqual({ base: BASE, ours: doc([P1, { ...OURS_P2, label: THEIRS_P2.label }]), theirs: THEIRS });
  });

  it("an object both sides added under one key the base lacks is one block whose base is empty, never the object's shared members as the base's", () => {
    const base = doc([P1]);
    for (const [ours, theirs] of [
      [doc([P1], CFG_OURS), doc([P1], CFG_THEIRS)],
      [doc([P1], CFG_THEIRS), doc([P1], CFG_OURS)],
    ]) {
      const r = merge(base, ours!, theirs!);
      expect(r.conflicts.map((c) => c.display)).toEqual(['skill_state.cfg.mode']);
      expect(readings(r.text!)).toEqual({ base, ours, theirs });
      expect(blocksOf(r.text!).map((b) => b.base).join('')).not.toContain('cfg');
      // Settled with the member the conflict line names: that side's object.
      const settled = mergeMarkedText({ marked: parseMarkedText(r.text!)!, fileName: FILE, settle: { theirs: ['skill_state.cfg.mode'] }, keepLayout });
      expect(settled.conflicts).toEqual([]);
      expect(parseJson(settled.text!).value).toEqual(theirs);
    }
    // Only a number written as two numbers one double holds (1e-400, 2e-400) in it: the base holds no such object either.
    const cfg = (level: string) => write(doc([P1])).replace(/"skill_state": \{\}/, () => `"skill_state": {"cfg": {"mode": "safe", "level": ${level}}}`);
    const r = mergeCheckpointTexts({ base: write(base), ours: cfg('1e-400'), theirs: cfg('2e-400'), fileName: FILE, keepLayout });
    expect(r.conflicts.map((c) => c.display)).toEqual(['skill_state.cfg.level']);
    const sides = splitConflictMarkers(r.text!)!;
    expect((parseJson(sides.base!).value as any).skill_state).toEqual({});
    expect(sides.ours).toContain('"level": 1e-400');
    expect(sides.theirs).toContain('"level": 2e-400');
    // One number spelled two ways (8.0, 8.00) is no conflict (red team 62a 07): the object, as both added it.
    const alike = mergeCheckpointTexts({ base: write(base), ours: cfg('8.0'), theirs: cfg('8.00'), fileName: FILE, keepLayout });
    expect(alike.status).toBe('clean');
    expect(alike.text).toContain('"level": 8.00');
  });
});
