// 3-way merge of literal texts. The value merge compares values, so a side that only changed a
// literal's text (12345678901234567890 -> ...891, 8.0 -> 8, "Caf\u00e9" -> "Café") looks unchanged
// to it. Here each number, string and object key of the merged value takes its text the way a
// value would: one side changed it -> that side's text; both to the same text -> that text; both
// to different texts -> for two numbers that only read as one double (a 20-digit id and its
// neighbour, 1e-400 and 2e-400), a conflict (which one is meant is a choice a person makes); for
// two spellings of one number (6.0 and 6, two tools re-saving 6.00), one of them by a rule that
// does not look at which side is ours (counter.ts keptSpelling); for a string, ours' text (a
// string's escapes are only encoding: every text decodes to the same characters, so no reader can
// tell them apart and there is nothing to ask a person). Pure.

import { recordedText, sortedBelow, stringifyKeepingTexts } from '../protocol/format.js';
import { addLiteralText, denotes, itemKeys, literalKey, NAME_SUFFIX, POSITION_ROOT, positionKey, type LiteralTexts } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import { isJsonObject, ownValue } from '../protocol/identity.js';
import { formatPath, type Conflict, type PathSegment } from './conflict.js';
import { keptSpelling, sumText } from './counter.js';
import { jsonEqual } from './json-value.js';
import { exactNumber, type LogSide, type LogSource } from './log-texts.js';

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
function prefixSearch(sorted: readonly string[]): (p: string) => boolean {
  return (p) => sorted[sortedBelow(sorted, p)]?.startsWith(p) ?? false;
}

/**
 * Visits every number, string and object key below `value` that may have a recorded text: a
 * container is entered only when some key in `recorded` lies below it (by content key or by
 * position), so a long log without an odd literal is never keyed (naming its items costs their
 * canonical JSON); an object key only when some side recorded a text for it. An object key is
 * visited with its member's path and the member's keys plus NAME_SUFFIX, before (and whether or
 * not) its value is skipped; a subtree in `recorded.unchanged` (unchangedSubtrees) is left out whole.
 * `path` is reused: copy it to keep it.
 */
function eachLiteral(
  value: JsonValue,
  recorded: Recorded,
  visit: (v: number | string, key: string, position: string, path: PathSegment[], items: readonly string[], inArray: boolean, pin: Pinned | undefined) => void,
  skip?: ReadonlySet<string>,
  held?: Set<string>,
  pins?: ReadonlyMap<string, Pin>,
): void {
  const path: PathSegment[] = [];
  // The keys of the items (named by content, not by id) the walk is inside, outermost first.
  const items: string[] = [];
  // How many arrays the walk is inside: outside them a position key names what the content key does.
  let arrays = 0;
  // The pinned log entry (a merged log's, named by its sides' entries) the walk is inside: all of it is entered.
  let pinned: Pinned | undefined;
  const { starts, unchanged, anyName } = recorded;
  const below = (key: string, position: string): boolean => pinned !== undefined || starts(key) || starts(position);
  const walk = (v: JsonValue, key: string, position: string): void => {
    if (unchanged.has(key)) return;
    if (skip?.size && skip.has(JSON.stringify(path))) return;
    if (typeof v === 'number' || typeof v === 'string') visit(v, key, position, path, items, arrays > 0, pinned);
    else if (v === null || typeof v !== 'object' || !(below(key, position))) return;
    else if (Array.isArray(v)) {
      // Items are keyed by content: enter them only when something is recorded below this array at all.
      if (!pinned && !starts(`${key}[`) && !starts(`${position}[`)) return;
      // A repeated item by its order among its equals: the second `8` of a side is that side's second.
      const keys = itemKeys(key, v);
      arrays++;
      v.forEach((item, i) => {
        const byContent = !isIdNamed(item);
        if (byContent) held?.add(keys[i]!);
        path.push(i);
        if (byContent) items.push(keys[i]!);
        const outer = pinned;
        const pin = pins?.get(keys[i]!);
        if (pin) pinned = { key: keys[i]!, sides: pin };
        walk(item, keys[i]!, positionKey(position, i));
        pinned = outer;
        if (byContent) items.pop();
        path.pop();
      });
      arrays--;
    } else
      for (const k of Object.keys(v)) {
        const member = literalKey(key, false, k);
        // Left out before its position is named (the object key's own text aside, visited first).
        if (!anyName && unchanged.has(member)) continue;
        const at = positionKey(position, k);
        path.push(k);
        if (anyName && (pinned || recorded.keys.has(member + NAME_SUFFIX) || recorded.keys.has(at + NAME_SUFFIX))) visit(k, member + NAME_SUFFIX, at + NAME_SUFFIX, path, items, arrays > 0, pinned);
        walk(v[k]!, member, at);
        path.pop();
      }
  };
  walk(value, '', POSITION_ROOT);
}

/** A pinned merged log entry's item key (literalKey) in each side that holds it. */
type Pin = Partial<Record<LogSide, string>>;

/** The pinned entry a literal lies in: its merged item key, and its item key in each side. */
interface Pinned {
  key: string;
  sides: Pin;
}

/**
 * The entries of logs merged by exact numbers (log-texts.ts), by merged item key: where two
 * entries read as equal doubles, naming by content cannot tell which side's entry (and texts)
 * each one is, so each takes the texts of the entries the log merge says it is. A log whose
 * merged value is no longer at its path (a conflict above it, settled) is left to the usual way.
 */
function logPins(merged: JsonValue, values: Record<Side, JsonValue | undefined>, sources: readonly LogSource[] | undefined): { pins: Map<string, Pin>; moved: boolean } | undefined {
  if (!sources?.length) return undefined;
  const pins = new Map<string, Pin>();
  // Entries equal as doubles may stand in another order than ours' with every text as ours has it: ours' bytes are not the merge then.
  let moved = false;
  const at = (root: JsonValue | undefined, path: readonly PathSegment[]): JsonValue | undefined => path.reduce<JsonValue | undefined>((v, seg) => (typeof seg === 'string' ? ownValue(v, seg) : undefined), root);
  for (const { path, value, entries } of sources) {
    const log = at(merged, path);
    if (!Array.isArray(log) || (log !== value && !jsonEqual(log, value))) continue;
    const logKey = path.reduce<string>((key, seg) => literalKey(key, false, seg as string), '');
    const sideKeys: Partial<Record<Side, string[]>> = {};
    for (const side of ['base', 'ours', 'theirs'] as const) {
      const list = at(values[side], path);
      if (Array.isArray(list)) sideKeys[side] = itemKeys(logKey, list);
      if (side === 'ours') moved ||= !Array.isArray(list) || list.length !== log.length || entries.some((e, i) => e.ours !== i);
    }
    itemKeys(logKey, log).forEach((key, i) => {
      const pin: Pin = {};
      for (const side of ['base', 'ours', 'theirs'] as const) {
        const index = entries[i]?.[side];
        const sideKey = index === undefined ? undefined : sideKeys[side]?.[index];
        if (sideKey !== undefined) pin[side] = sideKey;
      }
      pins.set(key, pin);
    });
  }
  return { pins, moved };
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
function sideTexts(value: JsonValue | undefined, texts: LiteralTexts | undefined, recorded: Recorded): { texts: Map<string, string>; held: Set<string> } {
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
  logSources?: readonly LogSource[],
): LiteralTextMerge {
  const result: LiteralTextMerge = { texts: new Map(), conflicts: [], changedFromOurs: false, settled: [] };
  // A literal no side recorded a text for is written by JSON on every side: nothing to merge.
  const keys = new Set([texts.base, texts.ours, texts.theirs].flatMap((m) => [...(m?.keys() ?? [])]));
  const sorted = [...keys].sort();
  const starts = prefixSearch(sorted);
  const unchanged = unchangedSubtrees(merged, values, texts, skipped, starts);
  const recorded: Recorded = { keys, anyName: sorted.some((k) => k.endsWith(NAME_SUFFIX)), starts, unchanged: unchanged.keys };
  const sides = { base: sideTexts(values.base, texts.base, recorded), ours: sideTexts(values.ours, texts.ours, recorded), theirs: sideTexts(values.theirs, texts.theirs, recorded) };
  const skip = new Set(skipped.map((c) => JSON.stringify(c.path)));
  const pinned = logPins(merged, values, logSources);
  if (pinned?.moved) result.changedFromOurs = true;
  eachLiteral(
    merged,
    recorded,
    (v, key, position, path, items, inArray, pin) => {
      // By content key; by position only where no side has the content (an id-less item changed
      // on every side): a side without the item must not lend the text of another at its index.
      // A side holds the content also where it holds an item around it, though the walk did not
      // visit this literal there (the merged item was entered by its position only): JSON's text.
      // In a pinned log entry, at the same place in the side's own entry (none where the side has none):
      // the side's walk left that entry out only where nothing in it has a text of its own.
      const own = pin
        ? (side: Side): string | undefined => {
            const entry = pin.sides[side];
            return entry === undefined ? undefined : (sides[side].texts.get(entry + key.slice(pin.key.length)) ?? JSON.stringify(v));
          }
        : (side: Side): string | undefined => sides[side].texts.get(key) ?? (items.some((k) => sides[side].held.has(k)) ? JSON.stringify(v) : undefined);
      const byKey = [own('base'), own('ours'), own('theirs')];
      // (Outside arrays a side has the literal at its position only where it has it at its key.)
      const [b, o, t] = pin || byKey.some((x) => x !== undefined) || !inArray ? byKey : [sides.base.texts.get(position), sides.ours.texts.get(position), sides.theirs.texts.get(position)];
      let pick: string | undefined;
      if (o === b) pick = t;
      else if (t === b || o === t) pick = o;
      else if (stands(o, v) && stands(t, v)) {
        // Strings: ours, never a conflict (see the top of this file).
        if (typeof v === 'string') pick = o;
        // One number spelled two ways: nothing to ask a person (red team 62a 07).
        else if (exactNumber(o) === exactNumber(t)) pick = keptSpelling(o, t);
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
    undefined,
    pinned?.pins,
  );
  // Below an unchanged subtree every literal takes the text all three sides give it, ours':
  // ours' texts there, content and position keys alike, are the merge's.
  const anyPosition = starts(POSITION_ROOT);
  for (const prefix of unchanged.prefixes) {
    if (!anyPosition && prefix.startsWith(POSITION_ROOT)) continue;
    for (let i = sortedBelow(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) for (const text of texts.ours!.get(sorted[i]!)!) addLiteralText(result.texts, sorted[i]!, text);
  }
  return result;
}

/** The keys any side recorded a text at, a prefix search over them, and the unchanged subtrees (content keys) the walks leave out. */
interface Recorded {
  keys: ReadonlySet<string>;
  /** Some key is an object key's (ends in NAME_SUFFIX): else no member's name is looked up. */
  anyName: boolean;
  starts: (prefix: string) => boolean;
  unchanged: ReadonlySet<string>;
}

/**
 * The containers that stand at one object path (no array above them) in the merge and in all
 * three sides with equal values and equal recorded texts at and below them, and no conflict or
 * exact counter (`skipped`) inside: each literal there takes the text base, ours and theirs agree
 * on, ours'. So the walks leave them out (`keys`, their content keys) and ours' texts below them
 * (`prefixes`, by content key and by position) are copied whole: a file written by Python's
 * json.dump records a text for every float, and naming and looking up each of them four times
 * (three sides and the merge) made most of a merge's time. A subtree whose path a conflict
 * passes through is entered, never left out whole.
 */
function unchangedSubtrees(
  merged: JsonValue,
  values: Record<Side, JsonValue | undefined>,
  texts: Partial<Record<Side, LiteralTexts>>,
  skipped: readonly { path: PathSegment[] }[],
  starts: (prefix: string) => boolean,
): { keys: Set<string>; prefixes: string[] } {
  const out = { keys: new Set<string>(), prefixes: [] as string[] };
  const { base, ours, theirs } = values;
  if (!texts.ours?.size || base === undefined || !isJsonObject(merged)) return out;
  // The content keys of the object paths leading to a skipped literal (entered, not left out) and of those that are one (not entered).
  const through = new Set<string>();
  const stops = new Set<string>();
  for (const { path } of skipped) {
    let key = '';
    let whole = true;
    for (const seg of path) {
      if (typeof seg === 'number') {
        whole = false;
        break;
      }
      key = literalKey(key, false, seg);
      through.add(key);
    }
    if (whole) stops.add(key);
  }
  if (stops.has('')) return out;
  const differs = prefixSearch(differingKeys(texts));
  const descend = (m: { [k: string]: JsonValue }, b: JsonValue | undefined, o: JsonValue | undefined, t: JsonValue | undefined, key: string, position: string): void => {
    for (const k of Object.keys(m)) {
      const v = m[k]!;
      if (v === null || typeof v !== 'object') continue;
      const name = JSON.stringify(k);
      const [member, at] = [`${key}.${name}`, `${position}.${name}`];
      // Not entered by the walks either (nothing recorded below), or a skipped literal itself.
      if ((!starts(member) && !starts(at)) || stops.has(member)) continue;
      const [bv, ov, tv] = [ownValue(b, k), ownValue(o, k), ownValue(t, k)];
      const below = Array.isArray(v) ? '[' : '.';
      if (!through.has(member) && !differs(member + below) && !differs(at + below) && sameLiterals(v, ov) && sameLiterals(ov, bv) && sameLiterals(ov, tv)) {
        out.keys.add(member);
        out.prefixes.push(member + below, at + below);
      } else if (isJsonObject(v)) descend(v, bv, ov, tv, member, at);
    }
  };
  descend(merged, base, ours, theirs, '', POSITION_ROOT);
  return out;
}

/** The keys whose recorded texts are not the same in base, ours and theirs (a side without texts records none), sorted. */
function differingKeys(texts: Partial<Record<Side, LiteralTexts>>): string[] {
  const empty: LiteralTexts = new Map();
  const { base = empty, ours = empty, theirs = empty } = texts;
  const same = (x: readonly string[] | undefined, y: readonly string[] | undefined): boolean => x !== undefined && y !== undefined && x.length === y.length && x.every((t, k) => t === y[k]);
  const out: string[] = [];
  for (const [key, known] of ours) if (!same(known, base.get(key)) || !same(known, theirs.get(key))) out.push(key);
  for (const side of [base, theirs]) for (const key of side.keys()) if (!ours.has(key)) out.push(key);
  return out.sort();
}

/** Equal JSON values, numbers by Object.is (-0 is not 0: its text differs); undefined is absent. */
function sameLiterals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (typeof a === 'number' || typeof b === 'number') return Object.is(a, b);
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as JsonValue[]).length && a.every((x, i) => sameLiterals(x, (b as JsonValue[])[i]));
  const ka = Object.keys(a);
  const bo = b as { [k: string]: JsonValue };
  return ka.length === Object.keys(bo).length && ka.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && sameLiterals(a[k], bo[k]));
}

/**
 * Each side's text of a conflict's value (for its summary line) where it holds a recorded number
 * text: the number's own (`7.50`), or a list's or object's written compactly with its texts
 * (`[8.0,1e3]`), so the line shows what each side wrote, not what a double rounds it to.
 */
export function conflictNumberTexts(conflict: Conflict, texts: Partial<Record<Side, LiteralTexts>>): Conflict['texts'] {
  if (conflict.span !== undefined || conflict.path.length === 0) return undefined;
  let out: Conflict['texts'];
  // Object members are keyed by name; an array item by its own content, which for a number is the number.
  let parent = '';
  let position = POSITION_ROOT;
  const last = conflict.path.length - 1;
  for (let k = 0; k < last; k++) {
    const seg = conflict.path[k]!;
    if (typeof seg === 'number') return undefined; // an item's key depends on content that differs by side
    parent = literalKey(parent, false, seg);
    position = positionKey(position, seg);
  }
  const seg = conflict.path[last]!;
  for (const side of ['base', 'ours', 'theirs'] as const) {
    const v = conflict[side];
    const sideTexts = texts[side];
    if (v === undefined || v === null || typeof v === 'string' || typeof v === 'boolean' || sideTexts === undefined) continue;
    const key = typeof seg === 'number' ? literalKey(parent, true, v) : literalKey(parent, false, seg);
    const text = typeof v === 'number' ? textOf(sideTexts, key, null, v) : stringifyKeepingTexts(v, '', sideTexts, key, positionKey(position, seg));
    if (text !== JSON.stringify(v)) (out ??= {})[side] = text;
  }
  return out;
}

