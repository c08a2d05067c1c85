// A conflicted merge written in ours' layout (inline arrays, 4-space indent, CRLF kept), not
// re-laid-out as formatJson would: the merged value goes through the layout writer with a
// placeholder at each conflict, then each line holding placeholders becomes a diff3 block (the
// line once per side, that side's values in place; markers on lines of their own). A run of
// array items in conflict (a queue region; one per file), or one conflict no placeholder can
// stand for (a record one side removed; several conflicts inside one record, taken as that
// record), is written another way: each side's text with its own value in place, and the lines
// where the three differ make one block. Keeping one side's blocks gives that side's text, so the
// file stays valid JSON for each side: checked here, and any case it cannot do so (two runs, two
// conflicts no placeholder stands for) returns null and renderMerged lays the file out. A record
// the base has none of (base-records.ts) is one conflict whose base block drops the record: its
// placeholder's line, or the lines where the sides' texts differ. Pure.

import { recordedText, stringifyKeepingTexts, type TextFormat } from '../protocol/format.js';
import { addLiteralText, literalKey, parseJson, POSITION_ROOT, positionKey, type LiteralTexts } from '../protocol/json.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { formatPath, type Conflict, type PathSegment } from './conflict.js';
import { jsonEqual, setOwn } from './json-value.js';
import { putAt } from './settle.js';
import { wholeRecords } from './base-records.js';
import { DEFAULT_LABELS, DEFAULT_MARKER_SIZE, markerLine, type ConflictLabels } from './render.js';

type Side = 'ours' | 'base' | 'theirs';
const SIDES: readonly Side[] = ['ours', 'base', 'theirs'];

export interface LayoutRenderInput {
  /** Ours' text and value: the layout kept. */
  original: string;
  before: JsonValue;
  /** The merged value (each conflict's path holds a stand-in). */
  value: JsonValue;
  conflicts: readonly Conflict[];
  /** Ours' format, its texts the merged literal texts. */
  format: TextFormat;
  sideTexts: Partial<Record<Side, LiteralTexts>>;
  markerSize?: number;
  labels?: Partial<ConflictLabels>;
  write: (original: string, before: JsonValue, after: JsonValue, format: TextFormat, originalTexts?: LiteralTexts) => string;
}

/** `root` with `v` at `path` (undefined: the member removed); null when the path does not lead there. */
function setAt(root: JsonValue, path: readonly PathSegment[], v: JsonValue | undefined): boolean {
  let at: JsonValue = root;
  for (const seg of path.slice(0, -1)) {
    const next: JsonValue | undefined = at !== null && typeof at === 'object' ? (at as Record<string | number, JsonValue>)[seg] : undefined;
    if (next === undefined || next === null || typeof next !== 'object') return false;
    at = next;
  }
  const last = path[path.length - 1]!;
  if (Array.isArray(at)) {
    if (typeof last !== 'number' || v === undefined || last >= at.length) return false;
    at[last] = v;
  } else if (at !== null && typeof at === 'object' && typeof last === 'string') {
    if (v === undefined) delete (at as JsonObject)[last];
    else setOwn(at as JsonObject, last, v);
  } else return false;
  return true;
}

/** The content key a writer names the literal at `path` by, standing `v` there (as renderMerged's blocks name theirs). */
function keyAt(root: JsonValue, path: readonly PathSegment[], v: JsonValue): string {
  let key = '';
  let at: JsonValue = root;
  path.forEach((seg, i) => {
    const inArray = Array.isArray(at);
    const child: JsonValue = i === path.length - 1 ? v : (at as Record<string | number, JsonValue>)[seg]!;
    key = literalKey(key, inArray, inArray ? child : (seg as string));
    at = child;
  });
  return key;
}

/**
 * The format `side`'s block of a lone conflict is written with: the merged texts (the conflicted
 * literal has none: literal-texts.ts leaves it to the blocks) plus that side's own text of it. Two
 * texts of one double (1175928473617715201 beside ...200, 7.50 beside 7.5) otherwise both read as
 * JSON's, and keeping either block would stage a value neither side wrote. An object in conflict
 * takes the side's texts below it, where its keys name them.
 */
function runFormat(format: TextFormat, value: JsonValue, run: Conflict, side: Side, own: LiteralTexts | undefined): TextFormat {
  const v = run[side];
  if (v === undefined || run.span !== undefined) return format;
  const key = keyAt(value, run.path, v);
  const texts = new Map(format.texts ?? []);
  if (typeof v === 'number') {
    const text = run.texts?.[side] ?? recordedText(own, key, null, v);
    if (text === undefined || text === JSON.stringify(v)) return format;
    addLiteralText(texts, key, text);
    // By position too inside an array, as parseJson records a literal there.
    if (run.path.some((seg) => typeof seg === 'number')) addLiteralText(texts, run.path.reduce<string>(positionKey, POSITION_ROOT), text);
  } else if (v !== null && typeof v === 'object' && own?.size) {
    for (const [k, known] of own) if (k.startsWith(`${key}.`) || k.startsWith(`${key}[`)) texts.set(k, known);
  } else return format;
  return { ...format, texts };
}

// A line that is one object member and nothing else (its comma aside): a side without the member drops it.
// `\s*(?:,\s*)?$`, not `\s*,?\s*$`: the two blank runs around a missing comma split a long run every way (quadratic).
const MEMBER_ONLY = /^\s*"(?:[^"\\]|\\.)*"\s*:\s*(?:,\s*)?$/;

// A line that is one array item and nothing else: the base's block of a record it lacks drops it.
const ITEM_ONLY = /^\s*(?:,\s*)?$/;

/** Past this many conflicts a file is not tried with each as the run (each try writes the file three times). */
const MAX_RUN_TRIES = 8;

export function renderKeepingLayout(found: LayoutRenderInput): string | null {
  // A record the base lacks is one conflict, the base's block without it (base-records.ts).
  const input = { ...found, conflicts: wholeRecords(found.value, found.conflicts) };
  const all = input.conflicts;
  if (!all.length || all.filter((c) => c.span !== undefined).length > 1 || all.some((c) => c.path.length === 0)) return null;
  // Several conflicts inside one record (a row both sides added under one id, its label and status
  // each set differently) are that record's block, each side's block the record with its values.
  // Tried as they are first: a record on one line keeps its layout when each block stands for no
  // more than one record (its members' conflicts on its line make one block).
  const plain = layoutOf(input);
  const grouped = byRecord(input.value, all);
  if (grouped === null || (plain !== null && blockCount(plain) <= grouped.conflicts.length)) return plain;
  // A record's block is written as a run (the record in the writer's own layout, one line where
  // ours keeps its records on one), the other conflicts by placeholder.
  const regrouped = { ...input, conflicts: grouped.conflicts };
  for (const text of [...grouped.records.map((r) => render(regrouped, r)), layoutOf(regrouped)]) {
    // Checked against the conflicts themselves too: keeping a side's blocks gives that side's values.
    if (text !== null && eachSideReads(text, input.value, all, undefined)) return text;
  }
  return plain;
}

/** How many conflict blocks a marked text holds. */
function blockCount(text: string): number {
  return text.split('\n').filter((l) => /^<{7,}(?: |\r?$)/.test(l)).length;
}

function layoutOf(input: LayoutRenderInput): string | null {
  const all = input.conflicts;
  const runs = all.filter((c) => c.span !== undefined);
  // A lone list or object in conflict as a run: each side's block that side's text in ours'
  // layout (an inline `[9.5, 7, 1000]` stays on its line), and keeping ours' gives ours' bytes.
  const lone = all.length === 1 && !runs.length && SIDES.some((side) => isContainer(all[0]![side])) ? render(input, all[0]) : null;
  if (lone !== null) return lone;
  const first = render(input, runs[0]);
  if (first !== null || runs.length) return first;
  // A conflict no placeholder can stand for (a record one side removed, on a line it shares or
  // over lines of its own; a member base lacks, beside others on its line) takes the run's way:
  // the lines where the sides' texts differ, the other conflicts by placeholder.
  for (const c of all.length <= MAX_RUN_TRIES ? all : []) {
    const text = render(input, c);
    if (text !== null) return text;
  }
  return null;
}

const isContainer = (v: JsonValue | undefined): boolean => v !== null && typeof v === 'object';

/** `conflicts` with those lying two or more inside one array item made one conflict at that item (recordRun), and those; null when none are. */
function byRecord(merged: JsonValue, conflicts: readonly Conflict[]): { conflicts: Conflict[]; records: Conflict[] } | null {
  const groups = new Map<string, Conflict[]>();
  for (const c of conflicts) {
    let at = -1;
    if (c.span === undefined) c.path.forEach((seg, k) => typeof seg === 'number' && (at = k));
    const key = at < 0 || at === c.path.length - 1 ? `\0${groups.size}` : JSON.stringify(c.path.slice(0, at + 1));
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const records: Conflict[] = [];
  const out = [...groups.values()].flatMap((group) => {
    const run = recordRun(merged, group);
    if (run === null) return group;
    records.push(run);
    return [run];
  });
  return records.length ? { conflicts: out, records } : null;
}

/**
 * One conflict standing for `conflicts` when they all lie inside one array item: each side's value
 * that item as merged with that side's values in place (a side without a member: left out).
 */
function recordRun(merged: JsonValue, conflicts: readonly Conflict[]): Conflict | null {
  if (conflicts.length < 2) return null;
  let common = conflicts[0]!.path.length;
  for (const c of conflicts) {
    let k = 0;
    while (k < Math.min(common, c.path.length) && c.path[k] === conflicts[0]!.path[k]) k++;
    common = k;
  }
  // The deepest array item above every conflict.
  let at = -1;
  for (let k = 0; k < common; k++) if (typeof conflicts[0]!.path[k] === 'number') at = k;
  if (at < 0) return null;
  const path = conflicts[0]!.path.slice(0, at + 1);
  let item: JsonValue | undefined = merged;
  for (const seg of path) item = item !== null && typeof item === 'object' ? (item as Record<string | number, JsonValue>)[seg] : undefined;
  if (item === undefined) return null;
  // null where a conflict's value cannot be put in the item (then no record run).
  const side = (s: Side): JsonValue | null => {
    const value = structuredClone(item) as JsonValue;
    for (const c of conflicts) if (c.path.length === path.length || !setAt(value, c.path.slice(path.length), c[s])) return null;
    return value;
  };
  const [base, ours, theirs] = [side('base'), side('ours'), side('theirs')];
  return base === null || ours === null || theirs === null ? null : { path, display: formatPath(path), base, ours, theirs };
}

/** The marked text: `run` (a queue run, or a lone conflict) as one block of the lines where the sides' texts differ, the other conflicts by placeholder. */
function render(input: LayoutRenderInput, run: Conflict | undefined): string | null {
  const { format } = input;
  const conflicts = input.conflicts.filter((c) => c !== run);
  // A run of array items has no placeholder: one would stand for one item, and its block write the run as a list there.
  if (conflicts.some((c) => c.span !== undefined)) return null;
  const withMarks = structuredClone(input.value);
  // Placeholders no string of the document holds.
  const plain = JSON.stringify(input.value);
  let tag = '\u0001cpc';
  while (plain.includes(JSON.stringify(tag).slice(1, -1))) tag += '\u0001';
  const marks = conflicts.map((_, i) => JSON.stringify(`${tag}${i}\u0001`));
  if (!conflicts.every((c, i) => setAt(withMarks, c.path, JSON.parse(marks[i]!) as string))) return null;
  let bom = '';
  const linesOf = (value: JsonValue, written: TextFormat = format): string[] => {
    const text = input.write(input.original, input.before, value, written, input.sideTexts.ours);
    bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
    return text.slice(bom.length).split('\n');
  };
  // A run's block: the lines between the three sides' common first and last lines, each side's
  // text written with its own run in place (ours' text the one the placeholders are read from).
  let block: { from: number; to: number; sides: Record<Side, string[]> } | undefined;
  let lines: string[];
  // How ours' text (the lines the placeholders are read from) is written from a value with the
  // placeholders in it: with ours' run in place, in its format.
  let asOurs = (value: JsonValue): [JsonValue, TextFormat] => [value, format];
  if (run) {
    if (run.span !== undefined && !SIDES.every((side) => Array.isArray(run[side]))) return null;
    const [o, b, t] = SIDES.map((side) => {
      const value = putAt(structuredClone(withMarks), run, structuredClone(run[side]));
      return linesOf(value, runFormat(format, value, run, side, input.sideTexts[side]));
    }) as [string[], string[], string[]];
    asOurs = (value) => {
      const put = putAt(structuredClone(value), run, structuredClone(run.ours));
      return [put, runFormat(format, put, run, 'ours', input.sideTexts.ours)];
    };
    const shortest = Math.min(o.length, b.length, t.length);
    let head = 0;
    while (head < shortest && o[head] === b[head] && o[head] === t[head]) head++;
    let tail = 0;
    const end = (l: string[]): string | undefined => l[l.length - 1 - tail];
    while (tail < shortest - head && end(o) === end(b) && end(o) === end(t)) tail++;
    const middle = (l: string[]): string[] => l.slice(head, l.length - tail);
    block = { from: head, to: o.length - tail, sides: { ours: middle(o), base: middle(b), theirs: middle(t) } };
    lines = o;
  } else lines = linesOf(withMarks);
  // Each placeholder exactly once, each on one line, none inside the run's block.
  const lineOf = marks.map((m) => {
    let at = -1;
    lines.forEach((l, n) => {
      const first = l.indexOf(m);
      if (first === -1) return;
      at = at === -1 && l.indexOf(m, first + 1) === -1 ? n : -2;
    });
    return block && at >= block.from && at < block.to ? -2 : at;
  });
  if (lineOf.some((n) => n < 0)) return null;
  const indent = format.indent || '  ';
  const size = input.markerSize ?? DEFAULT_MARKER_SIZE;
  const labels = { ...DEFAULT_LABELS, ...input.labels };
  const texts = {} as Record<Side, LiteralTexts | undefined>;
  for (const side of SIDES) {
    const own = input.sideTexts[side];
    texts[side] = own?.size ? new Map([...(format.texts ?? []), ...own]) : format.texts;
  }
  /**
   * A container standing inside a one-line container (`{"x": 2.50, "nested": {"a": [1.0, 4]}}`):
   * `side`'s text as the writer puts it there, inline with its separators, read off that side's
   * line; undefined where the placeholder stands alone on its line (its value then takes lines of
   * its own at the line's indent) or the writer's line does not hold the rest of ours' as it is.
   * Beside a run (a record both sides added), that side's text is written with ours' run in place,
   * as ours' lines were, so its line n is the placeholder's.
   */
  const inlineText = (i: number, side: Side, n: number): string | undefined => {
    const c = conflicts[i]!;
    const v = c[side];
    if (v === null || typeof v !== 'object') return undefined;
    const line = lines[n]!.replace(/\r$/, '');
    const at = line.indexOf(marks[i]!);
    const [head, tail] = [line.slice(0, at), line.slice(at + marks[i]!.length)];
    if (MEMBER_ONLY.test(head + tail) || ITEM_ONLY.test(head + tail)) return undefined;
    const own = structuredClone(withMarks);
    if (!setAt(own, c.path, structuredClone(v))) return undefined;
    // The conflict's texts named as without the run (its path indexes the merged value), then the run put in.
    const [value, oursFormat] = asOurs(own);
    const sideLines = linesOf(value, runFormat(oursFormat, own, c, side, input.sideTexts[side]));
    const written = sideLines.length === lines.length ? sideLines[n]!.replace(/\r$/, '') : undefined;
    return written !== undefined && written.length >= head.length + tail.length && written.startsWith(head) && written.endsWith(tail) ? written.slice(head.length, written.length - tail.length) : undefined;
  };
  const valueText = (c: Conflict, side: Side, pad: string): string | undefined => {
    const v = c[side];
    if (v === undefined) return undefined;
    const t = texts[side];
    const written = t?.size ? stringifyKeepingTexts(v, indent, t, keyAt(input.value, c.path, v), null) : JSON.stringify(v, null, indent);
    return written.split('\n').join(`\n${pad}`);
  };
  const out: string[] = [];
  for (let n = 0; n <= lines.length; n++) {
    if (block && n === block.from) {
      const cr = (lines[n] ?? lines[n - 1] ?? '').endsWith('\r') ? '\r' : '';
      for (const side of SIDES) out.push(markerLine(side, size, labels) + cr, ...block.sides[side]);
      out.push(markerLine('end', size, labels) + cr);
      n = block.to;
      block = undefined;
    }
    if (n === lines.length) break;
    const here = conflicts.flatMap((c, i) => (lineOf[i] === n ? [i] : []));
    if (!here.length) {
      out.push(lines[n]!);
      continue;
    }
    const cr = lines[n]!.endsWith('\r') ? '\r' : '';
    const line = cr ? lines[n]!.slice(0, -1) : lines[n]!;
    const pad = /^\s*/.exec(line)![0];
    for (const side of [...SIDES, 'end' as const]) {
      out.push(markerLine(side, size, labels) + cr);
      if (side === 'end') break;
      let sideLine = line;
      let dropped = false;
      for (const i of here) {
        const v = inlineText(i, side, n) ?? valueText(conflicts[i]!, side, pad);
        if (v !== undefined) sideLine = sideLine.replace(marks[i]!, () => v);
        else if (here.length === 1 && (MEMBER_ONLY.test(line.replace(marks[i]!, '')) || (isBaseless(conflicts[i]!) && ITEM_ONLY.test(line.replace(marks[i]!, ''))))) dropped = true;
        else return null;
      }
      if (!dropped) out.push(...sideLine.split('\n').map((l) => l + cr));
    }
  }
  const result = bom + out.join('\n');
  return eachSideReads(result, input.value, conflicts, run) ? result : null;
}

/** Whether keeping each side's blocks gives valid JSON holding exactly that side's values. */
function eachSideReads(text: string, merged: JsonValue, conflicts: readonly Conflict[], run: Conflict | undefined): boolean {
  const lines = text.split('\n');
  for (const side of SIDES) {
    const kept: string[] = [];
    let inSide: Side | 'none' = 'none';
    for (const l of lines) {
      if (/^<{7,}(?: |\r?$)/.test(l)) inSide = 'ours';
      else if (/^\|{7,}(?: |\r?$)/.test(l)) inSide = 'base';
      else if (/^={7,}\r?$/.test(l)) inSide = 'theirs';
      else if (/^>{7,}(?: |\r?$)/.test(l)) inSide = 'none';
      else if (inSide === 'none' || inSide === side) kept.push(l);
    }
    // Runs last (the run, or a queue's among the conflicts checked): the others' paths index the
    // merged array, as the runs' own do. So is a record the base lacks (base-records.ts) taken out
    // of the base's: the last of them first.
    let want = structuredClone(merged);
    const spliced = conflicts.filter((c) => c.span !== undefined || (side === 'base' && isBaseless(c)));
    if (!conflicts.every((c) => spliced.includes(c) || setAt(want, c.path, c[side]))) return false;
    for (const c of [...spliced, ...(run ? [run] : [])].sort(laterFirst)) want = putAt(want, c, structuredClone(c[side]));
    try {
      if (!jsonEqual(parseJson(kept.join('\n')).value, want)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** A conflict at a record the base has none of (base-records.ts): the base's block holds no item there. */
const isBaseless = (c: Conflict): boolean => c.baseLacks === c.path.length;

/** Two conflicts' paths, the one further down an array they share first (taking an item out moves those after it). */
function laterFirst(a: Conflict, b: Conflict): number {
  for (let k = 0; k < Math.min(a.path.length, b.path.length); k++) {
    const [x, y] = [a.path[k]!, b.path[k]!];
    if (x !== y) return typeof x === 'number' && typeof y === 'number' ? y - x : 0;
  }
  return 0;
}
