// 3-way merge of number texts. The value merge compares numbers as doubles, so a side that
// only changed a number's text (12345678901234567890 -> ...891, 1e-400 -> 2e-400, 8.0 -> 8)
// looks unchanged to it. Here each number of the merged value takes its text the way a value
// would: one side changed it -> that side's text; both to the same text -> that text; both to
// different texts of the same double -> a conflict. Pure.

import { recordedText } from '../protocol/format.js';
import { addNumberText, numberKey, POSITION_ROOT, positionKey, type NumberTexts } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import { formatPath, type Conflict, type PathSegment } from './conflict.js';

type Side = 'base' | 'ours' | 'theirs';

export interface NumberTextMerge {
  /** The texts to write the merged value with (only those JSON.stringify would not produce). */
  numbers: NumberTexts;
  /** Numbers both sides rewrote to different texts of one double. */
  conflicts: Conflict[];
  /** Some number takes a text other than ours': ours' bytes are not the merge. */
  changedFromOurs: boolean;
  /** Paths (as displayed) of text conflicts `settle` decided. */
  settled: string[];
}

const denotes = (text: string | undefined, v: number): text is string => text !== undefined && Object.is(Number(text), v);

/** The text a writer gives a number standing at `key` (else at `position`): a recorded one, else JSON's. */
const textOf = (numbers: NumberTexts | undefined, key: string, position: string | null, v: number): string => recordedText(numbers, key, position, v) ?? JSON.stringify(v);

/**
 * Visits every number below `value` that may have a recorded text: a container is entered only
 * when some key in `recorded` lies below it (by content key or by position), so a long log without
 * an odd number is never keyed (naming its items costs their canonical JSON). `path` is reused:
 * copy it to keep it.
 */
function eachNumber(
  value: JsonValue,
  recorded: readonly string[],
  visit: (v: number, key: string, position: string, path: PathSegment[]) => void,
  skip?: ReadonlySet<string>,
): void {
  const path: PathSegment[] = [];
  const below = (key: string, position: string): boolean => recorded.some((r) => r.startsWith(key) || r.startsWith(position));
  const walk = (v: JsonValue, key: string, position: string): void => {
    if (skip?.size && skip.has(JSON.stringify(path))) return;
    if (typeof v === 'number') visit(v, key, position, path);
    else if (v === null || typeof v !== 'object' || !below(key, position)) return;
    else if (Array.isArray(v)) {
      // Items are keyed by content: enter them only when something is recorded below this array at all.
      if (!recorded.some((r) => r.startsWith(`${key}[`) || r.startsWith(`${position}[`))) return;
      v.forEach((item, i) => {
        path.push(i);
        walk(item, numberKey(key, true, item), positionKey(position, i));
        path.pop();
      });
    } else
      for (const k of Object.keys(v)) {
        path.push(k);
        walk(v[k]!, numberKey(key, false, k), positionKey(position, k));
        path.pop();
      }
  };
  walk(value, '', POSITION_ROOT);
}

/** Every (reachable, see eachNumber) number's text in one side, by content key and by position key. */
function sideTexts(value: JsonValue | undefined, numbers: NumberTexts | undefined, recorded: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>();
  if (value === undefined) return texts;
  eachNumber(value, recorded, (v, key, position) => {
    const text = textOf(numbers, key, position, v);
    if (!texts.has(key)) texts.set(key, text);
    if (!texts.has(position)) texts.set(position, text);
  });
  return texts;
}

/**
 * Texts for the numbers of `merged` (conflicted subtrees are skipped: each side's block is
 * written with that side's own texts). `values`/`numbers` are the parsed sides. Run after
 * `resolve` settled value conflicts: a settled number then denotes only its side's text.
 * `settle` decides a text conflict the same way.
 */
export function mergeNumberTexts(
  merged: JsonValue,
  valueConflicts: readonly Conflict[],
  values: Record<Side, JsonValue | undefined>,
  numbers: Partial<Record<Side, NumberTexts>>,
  settle?: (display: string) => 'ours' | 'theirs' | undefined,
): NumberTextMerge {
  const result: NumberTextMerge = { numbers: new Map(), conflicts: [], changedFromOurs: false, settled: [] };
  // A number no side recorded a text for is written by JSON on every side: nothing to merge.
  const recorded = [...new Set([numbers.base, numbers.ours, numbers.theirs].flatMap((m) => [...(m?.keys() ?? [])]))];
  const texts = { base: sideTexts(values.base, numbers.base, recorded), ours: sideTexts(values.ours, numbers.ours, recorded), theirs: sideTexts(values.theirs, numbers.theirs, recorded) };
  const skip = new Set(valueConflicts.map((c) => JSON.stringify(c.path)));
  eachNumber(
    merged,
    recorded,
    (v, key, position, path) => {
      // By content key; by position only where no side has the content (an id-less item changed
      // on every side): a side without the item must not lend the text of another at its index.
      const byKey = texts.base.has(key) || texts.ours.has(key) || texts.theirs.has(key) ? key : position;
      const at = (side: Side): string | undefined => texts[side].get(byKey);
      const [b, o, t] = [at('base'), at('ours'), at('theirs')];
      let pick: string | undefined;
      if (o === b) pick = t;
      else if (t === b || o === t) pick = o;
      else if (denotes(o, v) && denotes(t, v)) {
        const display = formatPath(path);
        const side = settle?.(display);
        if (side) {
          pick = side === 'ours' ? o : t;
          result.settled.push(display);
        } else {
          const baseValue = b === undefined ? undefined : Number(b);
          result.conflicts.push({ path: [...path], display, base: baseValue, ours: v, theirs: v, texts: { base: b, ours: o, theirs: t } });
          return;
        }
      }
      // A side that changed the value itself wins over one that only respelled it.
      if (!denotes(pick, v)) pick = [o, t, b].find((x) => denotes(x, v));
      if (pick === undefined) return;
      if (pick !== o) result.changedFromOurs = true;
      if (pick === JSON.stringify(v)) return;
      addNumberText(result.numbers, key, pick);
      addNumberText(result.numbers, position, pick);
    },
    skip,
  );
  return result;
}

/** Each side's text of a conflict's number values (for its summary line), where the side recorded one. */
export function conflictNumberTexts(conflict: Conflict, numbers: Partial<Record<Side, NumberTexts>>): Conflict['texts'] {
  if (conflict.span !== undefined || conflict.path.length === 0) return undefined;
  let out: Conflict['texts'];
  // Object members are keyed by name; an array item by its own content, which for a number is the number.
  let parent = '';
  const last = conflict.path.length - 1;
  for (let k = 0; k < last; k++) {
    const seg = conflict.path[k]!;
    if (typeof seg === 'number') return undefined; // an item's key depends on content that differs by side
    parent = numberKey(parent, false, seg);
  }
  const seg = conflict.path[last]!;
  for (const side of ['base', 'ours', 'theirs'] as const) {
    const v = conflict[side];
    if (typeof v !== 'number') continue;
    const key = typeof seg === 'number' ? numberKey(parent, true, v) : numberKey(parent, false, seg);
    const text = textOf(numbers[side], key, null, v);
    if (text !== JSON.stringify(v)) (out ??= {})[side] = text;
  }
  return out;
}

