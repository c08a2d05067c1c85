// Writes a merge result as text: the merged document laid out exactly as formatJson would
// (ours' indent, line ends, final newline, BOM), with diff3-style markers around the
// conflicting fields only. Keeping one side's block and deleting the other blocks and
// the markers yields valid JSON for each side.

import { DEFAULT_FORMAT, recordedText, stringifyKeepingTexts, type TextFormat } from '../protocol/format.js';
import { itemKeys, literalKey, NAME_SUFFIX, POSITION_ROOT, positionKey, type LiteralTexts } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import type { Conflict, PathSegment } from './conflict.js';
import { wholeRecords } from './base-records.js';
import { quoted } from '../one-line.js';

export const DEFAULT_MARKER_SIZE = 7;

export interface ConflictLabels {
  ours: string;
  base: string;
  theirs: string;
}

export const DEFAULT_LABELS: ConflictLabels = { ours: 'ours', base: 'base', theirs: 'theirs' };
/**
 * The driver's fallback to git's line merge labels its markers apart, so `resolve` knows they
 * are git's (taken from the index stages, naming the side that is really broken), not ours.
 */
export const LINE_MERGE_LABELS: ConflictLabels = { ours: 'ours (line merge)', base: 'base (line merge)', theirs: 'theirs (line merge)' };

export interface RenderOptions {
  format?: TextFormat;
  /** Each side's own literal texts, for its block in a conflict (format.texts holds the merged ones). */
  sideTexts?: Partial<Record<Side, LiteralTexts>>;
  markerSize?: number;
  labels?: Partial<ConflictLabels>;
}

type Side = keyof ConflictLabels;
const SIDES: readonly Side[] = ['ours', 'base', 'theirs'];

/** One property (`"key": value`) or one array element. */
interface Item {
  prefix: string;
  value: JsonValue;
  /** Where the value stands, as literalKey names it: its literals keep their source text. */
  key: string;
  /** Its position (positionKey), the fallback for an id-less item whose content changed; null inside a conflict's side. */
  position: string | null;
  /** Set for an item in a conflict's block: written with that side's literal texts. */
  side?: Side;
}

type Entry = { kind: 'plain'; item: Item; path: PathSegment[] } | { kind: 'conflict'; sides: Record<Side, Item[]> };

const pathKey = (path: readonly PathSegment[]): string => JSON.stringify(path);

export function renderMerged(value: JsonValue, conflictsFound: readonly Conflict[], options: RenderOptions = {}): string {
  // A record the base lacks is one block, the base's empty (base-records.ts).
  const conflicts = wholeRecords(value, conflictsFound);
  const format = options.format ?? DEFAULT_FORMAT;
  // Markers need lines of their own: single-line JSON is laid out with two spaces when it has conflicts.
  const indent = format.indent || (conflicts.length > 0 ? '  ' : '');
  const size = options.markerSize ?? DEFAULT_MARKER_SIZE;
  const labels = { ...DEFAULT_LABELS, ...options.labels };
  const conflictAt = new Map(conflicts.map((c) => [pathKey(c.path), c]));
  const conflictBelow = new Set<string>();
  for (const c of conflicts) for (let k = 0; k < c.path.length; k++) conflictBelow.add(pathKey(c.path.slice(0, k)));
  const lines: string[] = [];
  // A side's block: its own texts first, then the merged ones (what it shares with the merge).
  const sideTexts = {} as Record<Side, LiteralTexts | undefined>;
  for (const side of SIDES) {
    const own = options.sideTexts?.[side];
    sideTexts[side] = own?.size ? new Map([...(format.texts ?? []), ...own]) : format.texts;
  }

  const pushPlain = (item: Item, level: number, lead: string, comma: string): void => {
    const pad = indent.repeat(level);
    const texts = item.side ? sideTexts[item.side] : format.texts;
    const text = texts?.size ? stringifyKeepingTexts(item.value, indent, texts, item.key, item.position) : JSON.stringify(item.value, null, indent);
    const parts = text.split('\n');
    parts.forEach((part, i) => {
      const head = i === 0 ? pad + lead + item.prefix : pad;
      lines.push(head + part + (i === parts.length - 1 ? comma : ''));
    });
  };

  const pushValue = (item: Item, path: PathSegment[], level: number, comma: string): void => {
    const container = item.value;
    if (!conflictBelow.has(pathKey(path)) || container === null || typeof container !== 'object') {
      pushPlain(item, level, '', comma);
      return;
    }
    const pad = indent.repeat(level);
    const isArray = Array.isArray(container);
    lines.push(pad + item.prefix + (isArray ? '[' : '{'));
    pushEntries(isArray ? arrayEntries(container, path, item) : objectEntries(container, path, item), level + 1);
    lines.push(pad + (isArray ? ']' : '}') + comma);
  };

  /** parentKey and, for an object member, its name (an array item is named by its content). */
  const sideItems = (c: Conflict, prefix: string, parentKey: string, name?: string): Record<Side, Item[]> => {
    const keyOf = (value: JsonValue): string => (name === undefined ? literalKey(parentKey, true, value) : literalKey(parentKey, false, name));
    const items = (side: Side): Item[] => {
      const v = c[side];
      if (c.span !== undefined) return Array.isArray(v) ? v.map((value) => ({ prefix, value, key: keyOf(value), position: null, side })) : [];
      return v === undefined ? [] : [{ prefix, value: v, key: c.path.length === 0 ? '' : keyOf(v), position: null, side }];
    };
    return { ours: items('ours'), base: items('base'), theirs: items('theirs') };
  };

  const childPosition = (parent: Item, keyOrIndex: string | number) => (parent.position === null ? null : positionKey(parent.position, keyOrIndex));

  const objectEntries = (obj: { [key: string]: JsonValue }, path: PathSegment[], parent: Item): Entry[] =>
    Object.keys(obj).map((key): Entry => {
      const childPath = [...path, key];
      const member = literalKey(parent.key, false, key);
      const position = childPosition(parent, key);
      // The key's own text, merged like the literals (literal-texts.ts), also for a conflicted member.
      const name = format.texts?.size ? recordedText(format.texts, member + NAME_SUFFIX, position === null ? null : position + NAME_SUFFIX, key) : undefined;
      const prefix = `${name ?? JSON.stringify(key)}: `;
      const c = conflictAt.get(pathKey(childPath));
      return c
        ? { kind: 'conflict', sides: sideItems(c, prefix, parent.key, key) }
        : { kind: 'plain', item: { prefix, value: obj[key]!, key: member, position }, path: childPath };
    });

  const arrayEntries = (arr: JsonValue[], path: PathSegment[], parent: Item): Entry[] => {
    const entries: Entry[] = [];
    const keys = itemKeys(parent.key, arr);
    for (let i = 0; i < arr.length; ) {
      const c = conflictAt.get(pathKey([...path, i]));
      if (c) {
        entries.push({ kind: 'conflict', sides: sideItems(c, '', parent.key) });
        i += Math.max(1, c.span ?? 1);
      } else {
        entries.push({ kind: 'plain', item: { prefix: '', value: arr[i]!, key: keys[i]!, position: childPosition(parent, i) }, path: [...path, i] });
        i++;
      }
    }
    return entries;
  };

  const pushEntries = (entries: readonly Entry[], level: number): void => {
    // follows[side][k]: whether that side has anything after entry k (then entry k needs a comma).
    const follows = {} as Record<Side, boolean[]>;
    for (const side of SIDES) {
      follows[side] = new Array<boolean>(entries.length);
      let any = false;
      for (let k = entries.length - 1; k >= 0; k--) {
        follows[side][k] = any;
        const e = entries[k]!;
        any ||= e.kind === 'plain' || e.sides[side].length > 0;
      }
    }
    // A plain entry followed only by conflicts that some side lacks cannot carry one comma
    // right for every side: it gets none, and each side that has more owes it a leading one.
    const owed: Record<Side, boolean> = { ours: false, base: false, theirs: false };
    entries.forEach((e, k) => {
      if (e.kind === 'plain') {
        const agreed = SIDES.every((side) => follows[side][k] === follows.ours[k]);
        if (!agreed) for (const side of SIDES) owed[side] = follows[side][k]!;
        pushValue(e.item, e.path, level, agreed && follows.ours[k] ? ',' : '');
        return;
      }
      for (const side of SIDES) {
        lines.push(markerLine(side, size, labels));
        const items = e.sides[side];
        items.forEach((item, i) => {
          pushPlain(item, level, owed[side] ? ',' : '', i < items.length - 1 || follows[side][k] ? ',' : '');
          owed[side] = false;
        });
      }
      lines.push(markerLine('end', size, labels));
    });
  };

  const root = conflictAt.get(pathKey([]));
  if (root) pushEntries([{ kind: 'conflict', sides: sideItems(root, '', '') }], 0);
  else pushValue({ prefix: '', value, key: '', position: POSITION_ROOT }, [], 0, '');

  // Markers need lines git and resolve see: a file with lone-CR line ends (one line to git) gets LF here.
  const eol = format.eol === '\r' ? '\n' : format.eol;
  return (format.bom ? '\uFEFF' : '') + lines.join(eol) + (format.finalNewline ? eol : '');
}

/** The line that opens a side's block in a conflict (`end`: the line that closes the conflict). */
export function markerLine(side: Side | 'end', size: number, labels: ConflictLabels): string {
  if (side === 'ours') return `${'<'.repeat(size)} ${labels.ours}`;
  if (side === 'base') return `${'|'.repeat(size)} ${labels.base}`;
  if (side === 'theirs') return '='.repeat(size);
  return `${'>'.repeat(size)} ${labels.theirs}`;
}

const MAX_SHOWN = 60;

/** A value as the conflict line shows it; `from`: where a long object or list text starts being shown (the sides' first difference). */
function describe(value: JsonValue | undefined, run: boolean, source?: string, from = 0): string {
  if (run && Array.isArray(value) && value.length <= 1) return describe(value[0], false, undefined, from);
  if (value === undefined) return 'absent';
  if (source !== undefined && typeof value === 'number') return source.length > MAX_SHOWN ? `${source.slice(0, MAX_SHOWN - 1)}…` : source;
  // A list or object with a number written its own way (`8.0`, a 20-digit id): as that side wrote it.
  if (source !== undefined && value !== null && typeof value === 'object') return cut(source, from);
  // A string as every message quotes one: the quote closed after a cut, control characters as \xNN.
  if (typeof value === 'string') return quoted(value, MAX_SHOWN - 2);
  return cut(valueText(value), from);
}

/** An object or list as the file writes it: its keys in the file's order. */
const valueText = (value: JsonValue): string => JSON.stringify(value);

/** `text` shown from `from` (an ellipsis before it), at most MAX_SHOWN characters. */
function cut(text: string, from: number): string {
  const start = from > 0 && from < text.length ? from : 0;
  const head = start > 0 ? `…${text.slice(start)}` : text;
  return head.length > MAX_SHOWN ? `${head.slice(0, MAX_SHOWN - 1)}…` : head;
}

/** How much of the shared start of ours' and theirs' texts to skip so the line shows where they differ (0: none). */
function skipTo(ours: JsonValue | undefined, theirs: JsonValue | undefined, run: boolean, texts?: Conflict['texts']): number {
  const text = (v: JsonValue | undefined, source: string | undefined): string | null => {
    const one = run && Array.isArray(v) && v.length <= 1 ? v[0] : v;
    return one !== undefined && one !== null && typeof one === 'object' ? source ?? valueText(one) : null;
  };
  const [o, t] = [text(ours, texts?.ours), text(theirs, texts?.theirs)];
  if (o === null || t === null || Math.max(o.length, t.length) <= MAX_SHOWN) return 0;
  let same = 0;
  while (same < o.length && same < t.length && o[same] === t[same]) same++;
  // Some context before the difference, and only when the difference would be cut off.
  return same > MAX_SHOWN - 20 ? same - 20 : 0;
}

/** One line per conflict: `checkpoint: conflict at phase: ours "build" vs theirs "audit" (base "spec")`. */
export function summarizeConflicts(conflicts: readonly Conflict[], options: { file?: string } = {}): string[] {
  const where = options.file ? `${options.file}: ` : '';
  return conflicts.map((c) => {
    const run = c.span !== undefined;
    const from = skipTo(c.ours, c.theirs, run, c.texts);
    return `checkpoint: ${where}conflict at ${c.display}: ours ${describe(c.ours, run, c.texts?.ours, from)} vs theirs ${describe(c.theirs, run, c.texts?.theirs, from)} (base ${describe(c.base, run, c.texts?.base, from)})${c.why ? `: ${c.why}` : ''}`;
  });
}
