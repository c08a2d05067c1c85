import { describe, expect, it } from 'vitest';
import { detectFormat, formatJson, type TextFormat } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointValues } from '../../src/merge/merge.js';
import { renderMerged, summarizeConflicts } from '../../src/merge/render.js';

type Side = 'ours' | 'base' | 'theirs';

/** Resolves every marker block by keeping one side, as a person deleting the others would. */
function pick(text: string, side: Side, size = 7): string {
  const out: string[] = [];
  let current: Side | null = null;
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('<'.repeat(size) + ' ')) current = 'ours';
    else if (line.startsWith('|'.repeat(size) + ' ')) current = 'base';
    else if (line.startsWith('='.repeat(size)) && current) current = 'theirs';
    else if (line.startsWith('>'.repeat(size) + ' ')) current = null;
    else if (current === null || current === side) out.push(line);
  }
  return out.join('');
}

function renderMerge(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue, format?: TextFormat, markerSize?: number) {
  const { value, conflicts } = mergeCheckpointValues(base, ours, theirs, {});
  return { text: renderMerged(value, conflicts, { format, markerSize }), conflicts };
}

const BASE: JsonObject = { skill: 'demo', phase: 'spec', step: 'draft', skill_state: { a: 1, b: 2 } };

describe('renderMerged without conflicts', () => {
  const doc: JsonObject = { a: [1, { b: [] }], c: {}, d: 'x\ny', e: null };
  const formats: TextFormat[] = [
    { indent: '  ', eol: '\n', finalNewline: true, bom: false },
    { indent: '\t', eol: '\r\n', finalNewline: false, bom: true },
    { indent: '    ', eol: '\n', finalNewline: true, bom: false },
    { indent: '', eol: '\n', finalNewline: false, bom: false },
  ];
  it.each(formats)('lays the document out exactly as formatJson does (%o)', (format) => {
    expect(renderMerged(doc, [], { format })).toBe(formatJson(doc, format));
  });
});

describe('renderMerged with conflicts', () => {
  it('a file with lone-CR line ends gets its markers on LF lines, as before its line ends were detected (one line to git otherwise)', () => {
    const ours = { ...BASE, phase: 'build' };
    const theirs = { ...BASE, phase: 'audit' };
    const format = detectFormat(`${JSON.stringify(ours, null, 2).replace(/\n/g, '\r')}\r`);
    expect(format.eol).toBe('\r');
    const { text } = renderMerge(BASE, ours, theirs, format);
    expect(text).toBe(renderMerge(BASE, ours, theirs).text);
    expect(text).not.toContain('\r');
  });

  it('wraps only the conflicting property in diff3 markers, in ours format', () => {
    const ours = { ...BASE, phase: 'build', step: 'impl' };
    const theirs = { ...BASE, phase: 'audit' };
    const { text } = renderMerge(BASE, ours, theirs);
    expect(text).toBe(
      [
        '{',
        '  "skill": "demo",',
        '<<<<<<< ours',
        '  "phase": "build",',
        '||||||| base',
        '  "phase": "spec",',
        '=======',
        '  "phase": "audit",',
        '>>>>>>> theirs',
        '  "step": "impl",',
        '  "skill_state": {',
        '    "a": 1,',
        '    "b": 2',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(parseJson(pick(text, 'ours')).value).toEqual(ours);
    expect(parseJson(pick(text, 'theirs')).value).toEqual({ ...ours, phase: 'audit' });
  });

  it('keeps CRLF, tabs, the BOM and the marker size', () => {
    const format = detectFormat('\uFEFF{\r\n\t"a": 1\r\n}');
    const { text } = renderMerge({ a: 1 }, { a: 2 }, { a: 3 }, format, 3);
    expect(text).toBe('\uFEFF{\r\n<<< ours\r\n\t"a": 2\r\n||| base\r\n\t"a": 1\r\n===\r\n\t"a": 3\r\n>>> theirs\r\n}');
  });

  it('renders nested conflicts in place, and a side without the key as an empty block', () => {
    const base = { ...BASE, skill_state: { a: 1, b: 2, c: 3 } };
    const ours = { ...BASE, skill_state: { a: 10, c: 3 } };
    const theirs = { ...BASE, skill_state: { a: 20, b: 5, c: 3 } };
    const { text, conflicts } = renderMerge(base, ours, theirs);
    expect(conflicts.map((c) => c.display)).toEqual(['skill_state.a', 'skill_state.b']);
    expect(text).toContain('<<<<<<< ours\n    "a": 10,\n||||||| base\n    "a": 1,\n=======\n    "a": 20,\n>>>>>>> theirs\n');
    expect(text).toContain('<<<<<<< ours\n||||||| base\n    "b": 2,\n=======\n    "b": 5,\n>>>>>>> theirs\n    "c": 3\n');
    expect(parseJson(pick(text, 'ours')).value).toEqual(ours);
    expect(parseJson(pick(text, 'base')).value).toEqual(base);
    expect(parseJson(pick(text, 'theirs')).value).toEqual(theirs);
  });

  it('keeps every choice valid JSON when the last field is absent on one side', () => {
    const base = { a: 1, z: { keep: true } };
    const ours = { a: 1 };
    const theirs = { a: 1, z: { keep: false } };
    const { text } = renderMerge(base, ours, theirs);
    expect(parseJson(pick(text, 'ours')).value).toEqual(ours);
    expect(parseJson(pick(text, 'base')).value).toEqual(base);
    expect(parseJson(pick(text, 'theirs')).value).toEqual(theirs);
  });

  it('keeps every choice valid when the field before trailing conflicts itself holds a conflict', () => {
    const base = { a: { x: 1 }, z: 1 };
    const ours = { a: { x: 2 } };
    const theirs = { a: { x: 3 }, z: 2 };
    const { text, conflicts } = renderMerge(base, ours, theirs);
    expect(conflicts.map((c) => c.display)).toEqual(['a.x', 'z']);
    expect(parseJson(pick(text, 'ours')).value).toEqual(ours);
    expect(parseJson(pick(text, 'theirs')).value).toEqual(theirs);
    expect(parseJson(pick(text, 'base')).value).toEqual(base);
  });

  it('renders a queue conflict as a run of elements, each side with its own items', () => {
    const base = { next_actions: ['one', 'two', 'three'] };
    const ours = { next_actions: ['one', 'two, reworded', 'three'] };
    const theirs = { next_actions: ['one', 'three'] };
    const { text } = renderMerge(base, ours, theirs);
    expect(text).toContain('    "one",\n<<<<<<< ours\n    "two, reworded",\n||||||| base\n    "two",\n=======\n>>>>>>> theirs\n    "three"\n');
    expect(parseJson(pick(text, 'ours')).value).toEqual(ours);
    expect(parseJson(pick(text, 'theirs')).value).toEqual(theirs);
  });

  it('renders a record removed on one side and changed on the other as an element conflict', () => {
    const base = { blockers: [{ id: 'b0', description: 'x' }, { id: 'b1', description: 'old' }] };
    const ours = { blockers: [{ id: 'b0', description: 'x' }] };
    const theirs = { blockers: [{ id: 'b0', description: 'x' }, { id: 'b1', description: 'new' }] };
    const { text } = renderMerge(base, ours, theirs);
    expect(parseJson(pick(text, 'ours')).value).toEqual(ours);
    expect(parseJson(pick(text, 'theirs')).value).toEqual(theirs);
    expect(parseJson(pick(text, 'base')).value).toEqual(base);
  });

  it('lays out single-line JSON over lines when it needs markers', () => {
    const { text } = renderMerge({ a: 1, b: 1 }, { a: 2, b: 1 }, { a: 3, b: 1 }, detectFormat('{"a":1,"b":1}'));
    expect(text).toBe('{\n<<<<<<< ours\n  "a": 2,\n||||||| base\n  "a": 1,\n=======\n  "a": 3,\n>>>>>>> theirs\n  "b": 1\n}');
  });

  it('wraps the whole document when the conflict is at the root', () => {
    const { text } = renderMerge(undefined, [1], { a: 1 });
    expect(text).toBe('<<<<<<< ours\n[\n  1\n]\n||||||| base\n=======\n{\n  "a": 1\n}\n>>>>>>> theirs\n');
  });
});

describe('summarizeConflicts', () => {
  it('gives one line per conflict with the three versions', () => {
    const { conflicts } = renderMerge({ phase: 'spec' }, { phase: 'build' }, { phase: 'audit' });
    expect(summarizeConflicts(conflicts)).toEqual(['checkpoint: conflict at phase: ours "build" vs theirs "audit" (base "spec")']);
  });

  it('says absent for a missing side, names the file when given, and truncates long values', () => {
    const long = 'x'.repeat(200);
    const { conflicts } = renderMerge({ a: { b: 1 } }, { a: { b: long } }, {});
    const [line] = summarizeConflicts(conflicts, { file: '.checkpoints/demo.checkpoint.json' });
    expect(line).toMatch(/^checkpoint: \.checkpoints\/demo\.checkpoint\.json: conflict at a: ours \{"b":"x+… vs theirs absent \(base \{"b":1\}\)$/);
    expect(line!.length).toBeLessThan(200);
  });

  it('quotes a long string value as cut, the quote closed; ESC in it as \\x1b, like every message', () => {
    const { conflicts } = renderMerge({ phase: 'spec' }, { phase: `red\x1b[31m${'x'.repeat(200)}` }, { phase: 'audit' });
    const [line] = summarizeConflicts(conflicts);
    expect(line).toMatch(/^checkpoint: conflict at phase: ours "red\\x1b\[31mx+…" \(208 characters\) vs theirs "audit" \(base "spec"\)$/);
  });

  it('shows a long object in the file\'s key order, from just before where the sides differ', () => {
    // Red team s21: sorted keys, and a cut before the difference, hid what to choose.
    // A list without ids whose sides both added a record at one place: the whole list is the conflict.
    const rec = (severity: string) => ({ file: 'src/very/long/path/to/the/module/under/review.ts', line: 10, note: 'seen in PR 12', severity });
    const { conflicts } = renderMerge({ findings: [rec('high')] }, { findings: [rec('high'), rec('fixed')] }, { findings: [rec('high'), rec('none')] });
    const [line] = summarizeConflicts(conflicts);
    expect(line).toBe('checkpoint: conflict at findings: ours … PR 12","severity":"fixed"}] vs theirs … PR 12","severity":"none"}] (base [{"file":"src/very/long/path/to/the/module/under/review.ts"…)');
    // Short ones are shown whole, keys as written.
    const short = renderMerge({ a: { z: 1, b: 1 } }, { a: { z: 2, b: 1 } }, { a: { z: 3, b: 1 } });
    expect(summarizeConflicts(short.conflicts)).toEqual(['checkpoint: conflict at a.z: ours 2 vs theirs 3 (base 1)']);
  });

  it('shows a single-item queue run as the item itself', () => {
    const base = { next_actions: ['one', 'two'] };
    const { conflicts } = renderMerge(base, { next_actions: ['one!', 'two'] }, { next_actions: ['two'] });
    expect(summarizeConflicts(conflicts)).toEqual(['checkpoint: conflict at next_actions[0]: ours "one!" vs theirs absent (base "one")']);
  });
});
