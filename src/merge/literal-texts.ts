// 3-way merge of literal texts. The value merge compares values, so a side that only changed a
// literal's text (12345678901234567890 -> ...891, 8.0 -> 8, "Caf\u00e9" -> "Café") looks unchanged
// to it. Here each number, string and object key of the merged value takes its text the way a
// value would: one side changed it -> that side's text; both to the same text -> that text; both
// to different texts -> for a number, a conflict (which spelling of a 20-digit id or a measured
// 8.0 is meant is a choice a person makes); for a string, ours' text (a string's escapes are
// only encoding: every text decodes to the same characters, so no reader can tell them apart
// and there is nothing to ask a person). Pure.

import { recordedText, sortedBelow } from '../protocol/format.js';
import { addLiteralText, denotes, itemKeys, literalKey, NAME_SUFFIX, POSITION_ROOT, positionKey, type LiteralTexts } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import { formatPath, type Conflict, type PathSegment } from './conflict.js';
import { sumText } from './counter.js';

type Side = 'base' | 'ours' | 'theirs';

export interface LiteralTextMerge {
  /** The texts to write the merged value with (only those JSON.stringify would not produce). */
  texts: LiteralTexts;
  /** Numbers both sides rewrote to different texts of one double. */
  conflicts: Conflict[];
  /** Some literal takes a text other than ours': ours' bytes are not the merge. */
  changedFromOurs: boolean;
  /** Paths (as displayed) of text conflicts `settle` decided. */
  settled: string[];
}

const stands = (text: string | undefined, v: number | string): text is string => text !== undefined && denotes(text, v);

/** The text a writer gives a literal standing at `key` (else at `position`): a recorded one, else JSON's. */
const textOf = (texts: LiteralTexts | undefined, key: string, position: string | null, v: number | string): string => recordedText(texts, key, position, v) ?? JSON.stringify(v);

/**
 * Whether any of `keys` starts with a given prefix, in log time: sorted, the keys starting with
 * `p` are the run at p's insertion point. (A scan of every key per node made a merge of a few
 * thousand records with literal texts take tens of seconds.)
 */
function prefixSearch(keys: ReadonlySet<string>): (p: string) => boolean {
  const sorted = [...keys].sort();
  return (p) => sorted[sortedBelow(sorted, p)]?.startsWith(p) ?? false;
}

/**
 * Visits every number, string and object key below `value` that may have a recorded text: a
 * container is entered only when some key in `recorded` lies below it (by content key or by
 * position), so a long log without an odd literal is never keyed (naming its items costs their
 * canonical JSON); an object key only when some side recorded a text for it. An object key is
 * visited with its member's path and the member's keys plus NAME_SUFFIX, before (and whether or
 * not) its value is skipped. `path` is reused: copy it to keep it.
 */
function eachLiteral(
  value: JsonValue,
  recorded: ReadonlySet<string>,
  visit: (v: number | string, key: string, position: string, path: PathSegment[], items: readonly string[], inArray: boolean) => void,
  skip?: ReadonlySet<string>,
  held?: Set<string>,
): void {
  const path: PathSegment[] = [];
  // The keys of the items (named by content, not by id) the walk is inside, outermost first.
  const items: string[] = [];
  // How many arrays the walk is inside: outside them a position key names what the content key does.
  let arrays = 0;
  const starts = prefixSearch(recorded);
  const below = (key: string, position: string): boolean => starts(key) || starts(position);
  const walk = (v: JsonValue, key: string, position: string): void => {
    if (skip?.size && skip.has(JSON.stringify(path))) return;
    if (typeof v === 'number' || typeof v === 'string') visit(v, key, position, path, items, arrays > 0);
    else if (v === null || typeof v !== 'object' || !below(key, position)) return;
    else if (Array.isArray(v)) {
      // Items are keyed by content: enter them only when something is recorded below this array at all.
      if (!starts(`${key}[`) && !starts(`${position}[`)) return;
      // A repeated item by its order among its equals: the second `8` of a side is that side's second.
      const keys = itemKeys(key, v);
      arrays++;
      v.forEach((item, i) => {
        const byContent = !isIdNamed(item);
        if (byContent) held?.add(keys[i]!);
        path.push(i);
        if (byContent) items.push(keys[i]!);
        walk(item, keys[i]!, positionKey(position, i));
        if (byContent) items.pop();
        path.pop();
      });
      arrays--;
    } else
      for (const k of Object.keys(v)) {
        path.push(k);
        const [member, at] = [literalKey(key, false, k), positionKey(position, k)];
        if (recorded.has(member + NAME_SUFFIX) || recorded.has(at + NAME_SUFFIX)) visit(k, member + NAME_SUFFIX, at + NAME_SUFFIX, path, items, arrays > 0);
        walk(v[k]!, member, at);
        path.pop();
      }
  };
  walk(value, '', POSITION_ROOT);
}

/** Is the array item named by its `id` (literalKey), rather than by its content? */
function isIdNamed(item: JsonValue): boolean {
  if (item === null || typeof item !== 'object' || Array.isArray(item) || !Object.prototype.hasOwnProperty.call(item, 'id')) return false;
  return typeof item.id === 'string' || typeof item.id === 'number';
}

/**
 * Every (reachable, see eachLiteral) literal's text in one side, by content key and by position
 * key; `held`: the keys of the side's items named by content in the arrays the walk entered. Such
 * an item holds the very content its key names, so the side has every literal below that key; one
 * the walk did not visit has no recorded text (the walk enters all that leads to one): JSON's.
 */
function sideTexts(value: JsonValue | undefined, texts: LiteralTexts | undefined, recorded: ReadonlySet<string>): { texts: Map<string, string>; held: Set<string> } {
  const out = { texts: new Map<string, string>(), held: new Set<string>() };
  if (value === undefined) return out;
  eachLiteral(
    value,
    recorded,
    (v, key, position, _path, _items, inArray) => {
      const text = textOf(texts, key, position, v);
      if (!out.texts.has(key)) out.texts.set(key, text);
      // Outside arrays the position names only what the key does (see mergeLiteralTexts).
      if (inArray && !out.texts.has(position)) out.texts.set(position, text);
    },
    undefined,
    out.held,
  );
  return out;
}

/**
 * Texts for the literals of `merged` (conflicted subtrees are skipped: each side's block is
 * written with that side's own texts; so are the paths of `skipped` whose text the value merge
 * decided, counters past 2^53). `values`/`texts` are the parsed sides. Run after
 * `resolve` settled value conflicts: a settled literal then denotes only its side's text.
 * `settle` decides a number text conflict the same way.
 */
export function mergeLiteralTexts(
  merged: JsonValue,
  skipped: readonly { path: PathSegment[] }[],
  values: Record<Side, JsonValue | undefined>,
  texts: Partial<Record<Side, LiteralTexts>>,
  settle?: (display: string) => 'ours' | 'theirs' | undefined,
): LiteralTextMerge {
  const result: LiteralTextMerge = { texts: new Map(), conflicts: [], changedFromOurs: false, settled: [] };
  // A literal no side recorded a text for is written by JSON on every side: nothing to merge.
  const recorded = new Set([texts.base, texts.ours, texts.theirs].flatMap((m) => [...(m?.keys() ?? [])]));
  const sides = { base: sideTexts(values.base, texts.base, recorded), ours: sideTexts(values.ours, texts.ours, recorded), theirs: sideTexts(values.theirs, texts.theirs, recorded) };
  const skip = new Set(skipped.map((c) => JSON.stringify(c.path)));
  eachLiteral(
    merged,
    recorded,
    (v, key, position, path, items, inArray) => {
      // By content key; by position only where no side has the content (an id-less item changed
      // on every side): a side without the item must not lend the text of another at its index.
      // A side holds the content also where it holds an item around it, though the walk did not
      // visit this literal there (the merged item was entered by its position only): JSON's text.
      const own = (side: Side): string | undefined => sides[side].texts.get(key) ?? (items.some((k) => sides[side].held.has(k)) ? JSON.stringify(v) : undefined);
      const byKey = [own('base'), own('ours'), own('theirs')];
      // (Outside arrays a side has the literal at its position only where it has it at its key.)
      const [b, o, t] = byKey.some((x) => x !== undefined) || !inArray ? byKey : [sides.base.texts.get(position), sides.ours.texts.get(position), sides.theirs.texts.get(position)];
      let pick: string | undefined;
      if (o === b) pick = t;
      else if (t === b || o === t) pick = o;
      else if (stands(o, v) && stands(t, v)) {
        // Strings: ours, never a conflict (see the top of this file).
        if (typeof v === 'string') pick = o;
        else {
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
      }
      // A side that changed the value itself wins over one that only respelled it.
      if (!stands(pick, v)) pick = [o, t, b].find((x) => stands(x, v));
      // A number no side holds is a counter's sum (counter.ts): the sides' decimals, 8.0 staying 8.0.
      if (pick === undefined && typeof v === 'number') pick = sumText(v, [b, o, t]);
      if (pick === undefined) return;
      if (pick !== o) result.changedFromOurs = true;
      if (pick === JSON.stringify(v)) return;
      addLiteralText(result.texts, key, pick);
      // By position too only inside an array, as parseJson records texts: outside one the position
      // names what the key does, and a text a side did not record there reads as one the merge
      // changed (layout.ts changedTexts), which made the writer write every such literal anew.
      if (inArray) addLiteralText(result.texts, position, pick);
    },
    skip,
  );
  return result;
}

/** Each side's text of a conflict's number values (for its summary line), where the side recorded one. */
export function conflictNumberTexts(conflict: Conflict, texts: Partial<Record<Side, LiteralTexts>>): Conflict['texts'] {
  if (conflict.span !== undefined || conflict.path.length === 0) return undefined;
  let out: Conflict['texts'];
  // Object members are keyed by name; an array item by its own content, which for a number is the number.
  let parent = '';
  const last = conflict.path.length - 1;
  for (let k = 0; k < last; k++) {
    const seg = conflict.path[k]!;
    if (typeof seg === 'number') return undefined; // an item's key depends on content that differs by side
    parent = literalKey(parent, false, seg);
  }
  const seg = conflict.path[last]!;
  for (const side of ['base', 'ours', 'theirs'] as const) {
    const v = conflict[side];
    if (typeof v !== 'number') continue;
    const key = typeof seg === 'number' ? literalKey(parent, true, v) : literalKey(parent, false, seg);
    const text = textOf(texts[side], key, null, v);
    if (text !== JSON.stringify(v)) (out ??= {})[side] = text;
  }
  return out;
}

