// Writes a changed value back into the text it was read from, keeping the layout a person or
// an agent gave the file. Checkpoints are written by hand too (an inline `["a.ts", "b.ts"]`, a
// one-line object, blank lines, `"k":1`); a write that re-laid out the whole document would
// make `git diff` of a one-field change touch most lines. Here every value that did not change
// keeps its source text byte for byte (with the whitespace around it), and what changed is
// written in the style of the container it stands in: on lines of its own at the container's
// indent in a multi-line container, inline with the container's separators in a one-line one.
// A file laid out as formatJson lays it out comes back exactly as formatJson writes it (but
// for a literal's text formatJson loses and this keeps: an unchanged 8.0 in a changed array).
// Kept apart from format.ts so the merge driver's bundle does not carry it. Pure.

import { formatJson, hasNameTexts, recordedText, sortedBelow, stringifyKeepingTexts, type TextFormat } from './format.js';
import { itemKeys, literalKey, mayHoldOddLiteral, NAME_SUFFIX, POSITION_ROOT, positionKey, type LiteralTexts } from './json.js';
import type { JsonValue } from './types.js';

/** A value's place in the source text; a container with its members and the text between them. */
type Node = Scalar | Container;
interface Scalar {
  kind: 'scalar';
  start: number;
  end: number;
}
interface Container {
  kind: 'array' | 'object';
  start: number;
  end: number;
  members: Member[];
  /** The blanks between the last member (or the opening bracket) and the closing one. */
  close: string;
  multiline: boolean;
}
interface Member {
  /** The blanks before the member, after the opening bracket or the comma. */
  lead: string;
  /** Object members: the decoded key, its source text, and the text from the key to the value (`: `). */
  name?: string;
  nameText?: string;
  colon?: string;
  value: Node;
  /** The blanks between the value and its comma ('' for the last member). */
  mid: string;
}

/** Separators seen in the file, for a container that has none of its own to copy. */
interface Style {
  inlineLead?: string;
  inlineColon?: string;
  multiColon?: string;
}

/** Whether blanks (or a container's text) hold a line end: LF, CRLF, or a lone CR (format.ts detectFormat). */
const hasBreak = (text: string): boolean => text.includes('\n') || text.includes('\r');

/** Something the writer cannot place exactly: the whole document is then written by formatJson. */
class Unplaceable extends Error {}

// Sticky patterns: native scans of blanks, a string, and a number / true / false / null.
const BLANKS = /[ \t\r\n]*/y;
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/y;
const SCALAR = /[^\s,\]}]+/y;

/** The source text's value tree with positions. `text` already passed parseJson, so this only locates. */
function scan(text: string, style: Style): { root: Node; start: number; end: number } {
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const blanks = (): string => {
    BLANKS.lastIndex = i;
    BLANKS.test(text);
    const from = i;
    i = BLANKS.lastIndex;
    return text.slice(from, i);
  };
  const skipString = (): void => {
    STRING.lastIndex = i;
    if (!STRING.test(text)) throw new Unplaceable('unterminated string');
    i = STRING.lastIndex;
  };
  const value = (): Node => {
    const start = i;
    const c = text[i];
    if (c === '"') {
      skipString();
      return { kind: 'scalar', start, end: i };
    }
    if (c !== '{' && c !== '[') {
      SCALAR.lastIndex = i;
      if (!SCALAR.test(text)) throw new Unplaceable(`unexpected ${c ?? 'end'}`);
      i = SCALAR.lastIndex;
      return { kind: 'scalar', start, end: i };
    }
    const object = c === '{';
    const closer = object ? '}' : ']';
    const members: Member[] = [];
    // A duplicate key leaves one member for two texts: which one a reader keeps is not ours to guess.
    const names = object ? new Set<string>() : null;
    i++;
    let lead = blanks();
    let close = '';
    if (text[i] === closer) close = lead;
    else
      for (;;) {
        const member: Member = { lead, value: null as unknown as Node, mid: '' };
        if (names) {
          const keyAt = i;
          if (text[i] !== '"') throw new Unplaceable('expected a key');
          skipString();
          member.nameText = text.slice(keyAt, i);
          member.name = JSON.parse(member.nameText) as string;
          if (names.has(member.name)) throw new Unplaceable(`duplicate key ${member.nameText}`);
          names.add(member.name);
          const colonAt = i;
          blanks();
          if (text[i] !== ':') throw new Unplaceable("expected ':'");
          i++;
          blanks();
          member.colon = text.slice(colonAt, i);
        }
        member.value = value();
        const after = blanks();
        members.push(member);
        if (text[i] === ',') {
          member.mid = after;
          i++;
          lead = blanks();
          continue;
        }
        if (text[i] !== closer) throw new Unplaceable(`expected ',' or '${closer}'`);
        close = after;
        break;
      }
    i++;
    const multiline = members.length > 0 && hasBreak(text.slice(start, i));
    if (!multiline && members.length > 1) style.inlineLead ??= members[members.length - 1]!.lead;
    const colon = members[0]?.colon;
    if (colon !== undefined && !hasBreak(colon)) {
      if (multiline) style.multiColon ??= colon;
      else style.inlineColon ??= colon;
    }
    return { kind: object ? 'object' : 'array', start, end: i, members, close, multiline };
  };
  blanks();
  const start = i;
  const root = value();
  const end = i;
  blanks();
  if (i !== n) throw new Unplaceable('content after the value');
  return { root, start, end };
}

/**
 * Equal values with the same key order; numbers by Object.is (-0 is not 0: its text differs).
 * Each container pair's answer is kept (`known`, by the old container): the writer asks again at
 * every level it descends, and a hostile file nested 256 deep must not cost 256 passes.
 */
type Same = (a: JsonValue, b: JsonValue) => boolean;
function sameValues(): Same {
  const known = new WeakMap<object, { b: JsonValue; same: boolean }>();
  const same: Same = (a, b) => {
    if (typeof a === 'number') return Object.is(a, b);
    if (a === b) return true;
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
    const hit = known.get(a);
    if (hit && hit.b === b) return hit.same;
    const answer = compare(a, b);
    known.set(a, { b, same: answer });
    return answer;
  };
  const compare = (a: JsonValue[] | { [k: string]: JsonValue }, b: JsonValue[] | { [k: string]: JsonValue }): boolean => {
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let k = 0; k < a.length; k++) if (!same(a[k]!, b[k]!)) return false;
      return true;
    }
    if (Array.isArray(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (let k = 0; k < ka.length; k++) if (ka[k] !== kb[k] || !same(a[ka[k]!]!, b[kb[k]!]!)) return false;
    return true;
  };
  return same;
}

/** A value's names in LiteralTexts (see writeKeepingLayout). */
type Named = { key: string; position: string } | null;

/** Where a value is written: in a multi-line container (its lines at `indent`) or inline with its separators. */
interface Place {
  multiline: boolean;
  indent: string;
  comma: string;
  colon: string;
}

/** The keys whose recorded texts the write changed (update-ops: `8` typed over an old `8.0`): their literals are written anew. */
function changedTexts(before: LiteralTexts | undefined, after: LiteralTexts | undefined): string[] {
  const out: string[] = [];
  const differs = (x: string[] | undefined, y: string[] | undefined): boolean => (x?.length ?? 0) !== (y?.length ?? 0) || (x ?? []).some((t, k) => t !== y![k]);
  for (const [key, known] of after ?? []) if (differs(known, before?.get(key))) out.push(key);
  for (const key of before?.keys() ?? []) if (!after?.has(key)) out.push(key);
  return out;
}

/** Puts `sep` after each `,` and `colon` after each `:` outside strings of compact JSON. */
function respace(compact: string, comma: string, colon: string): string {
  if (comma === ',' && colon === ':') return compact;
  let out = '';
  let from = 0;
  for (let k = 0; k < compact.length; k++) {
    const c = compact.charCodeAt(k);
    if (c === 34) {
      for (k++; compact.charCodeAt(k) !== 34; k++) if (compact.charCodeAt(k) === 92) k++;
    } else if (c === 44 || c === 58) {
      out += compact.slice(from, k) + (c === 44 ? comma : colon);
      from = k + 1;
    }
  }
  return out + compact.slice(from);
}

/** The recorded `id` of an array item (as literalKey names items), for pairing an edited item with its old self. */
function idOf(v: JsonValue | undefined): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.prototype.hasOwnProperty.call(v, 'id')) return undefined;
  const id = v.id;
  return typeof id === 'string' || typeof id === 'number' ? JSON.stringify(id) : undefined;
}

/**
 * For each new item, the old item it continues (its index) or -1 (a new item): first an equal
 * item, then one with the same `id`, then the one at the same index when of the same kind (an
 * item edited in place keeps the layout of what it did not change). Order may differ: a
 * container is written in the new value's order.
 */
function pairItems(before: JsonValue[], after: JsonValue[], sameValue: Same): number[] {
  const pairs = new Array<number>(after.length).fill(-1);
  const used = new Uint8Array(before.length);
  const take = (j: number, k: number): void => {
    pairs[j] = k;
    used[k] = 1;
  };
  // The common head and tail (an append, a removal, an entry put first) pair without keying anything.
  let head = 0;
  while (head < after.length && head < before.length && sameValue(before[head]!, after[head]!)) {
    take(head, head);
    head++;
  }
  let tail = 0;
  while (tail < after.length - head && tail < before.length - head && sameValue(before[before.length - 1 - tail]!, after[after.length - 1 - tail]!)) {
    take(after.length - 1 - tail, before.length - 1 - tail);
    tail++;
  }
  const end = after.length - tail;
  const endBefore = before.length - tail;
  // In between: an item still at its index first, so a duplicate pairs with its own text.
  for (let j = head; j < end && j < endBefore; j++) if (sameValue(before[j]!, after[j]!)) take(j, j);
  // Equal texts, each list in index order with a cursor past the used ones: linear however many items repeat.
  const byText = new Map<string, { at: number[]; next: number }>();
  for (let k = head; k < endBefore; k++) {
    if (used[k]) continue;
    const t = JSON.stringify(before[k]);
    const list = byText.get(t);
    if (list) list.at.push(k);
    else byText.set(t, { at: [k], next: 0 });
  }
  for (let j = head; j < end && byText.size; j++) {
    if (pairs[j] !== -1) continue;
    const v = after[j]!;
    const list = byText.get(JSON.stringify(v));
    if (!list) continue;
    while (list.next < list.at.length && used[list.at[list.next]!]) list.next++;
    let k: number | undefined = list.at[list.next];
    // Equal texts, unequal values (-0 and 0 both print 0): look further, a rare case.
    if (k !== undefined && !sameValue(before[k]!, v)) k = list.at.find((c) => !used[c] && sameValue(before[c]!, v));
    if (k !== undefined) take(j, k);
  }
  const byId = new Map<string, number>();
  for (let k = head; k < endBefore; k++) {
    const id = idOf(before[k]);
    if (!used[k] && id !== undefined && !byId.has(id)) byId.set(id, k);
  }
  for (let j = head; j < end && byId.size; j++) {
    const id = pairs[j] === -1 ? idOf(after[j]) : undefined;
    const k = id === undefined ? undefined : byId.get(id);
    if (k !== undefined && !used[k]) take(j, k);
  }
  const kind = (v: JsonValue | undefined): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
  for (let j = head; j < end && j < endBefore; j++) {
    const v = after[j]!;
    if (pairs[j] === -1 && !used[j] && typeof v === 'object' && v !== null && kind(before[j]) === kind(v)) take(j, j);
  }
  return pairs;
}

/**
 * `after` written into `original` (whose parse is `before`), keeping the layout of what did not
 * change (see the top of this file); formatJson's text when the original has something this
 * writer cannot place exactly. `format`: the file's (its `texts` the ones the write keeps);
 * `originalTexts`: the texts the original was read with, so a literal whose text the write
 * changed (`8` typed over `8.0`) is written anew though its value is equal.
 */
export function formatKeepingLayout(original: string, before: JsonValue, after: JsonValue, format: TextFormat, originalTexts?: LiteralTexts): string {
  const out = writeKeepingLayout(original, before, after, format, originalTexts);
  // A last check, as cheap as a read: the text must read back as `after`, keys in order (the
  // property tests say it does; if some layout ever fooled the writer, nothing is lost).
  if (out === null || JSON.stringify(JSON.parse(out.charCodeAt(0) === 0xfeff ? out.slice(1) : out)) !== JSON.stringify(after)) return formatJson(after, format);
  return out;
}

/**
 * Whether any of `keys` starts with a given prefix, by binary search in the sorted keys: asked at
 * every node, a scan of every key made a file of a few thousand recorded texts (floats written
 * 8.0, as Python's json.dump writes them) take minutes to merge (literal-texts.ts does the same).
 */
function prefixSearch(keys: readonly string[]): (prefix: string) => boolean {
  const sorted = [...keys].sort();
  return (prefix) => sorted[sortedBelow(sorted, prefix)]?.startsWith(prefix) ?? false;
}

/** Whether JS lists `key` among an object's integer keys (an array index), ahead of every other key whatever the order it was read in. */
const isIndexKey = (key: string): boolean => /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * The order an object's members are written in: `now`'s, but for integer keys (`"2"`, `"10"`),
 * which a JS object lists first, ascending, however the file had them (`{"b": 1, "2": 3}`, a
 * newest-first `{"3": …, "2": …}`): one the file had stays after the member it followed there,
 * and a new one goes after the file's nearest smaller one (first when there is none, where
 * formatJson writes it), so a write into the object does not move its other members.
 */
function memberOrder(now: { [k: string]: JsonValue }, old: readonly Member[]): string[] {
  const keys = Object.keys(now);
  // JS lists integer keys first: none leads, none is there.
  if (!keys.length || !isIndexKey(keys[0]!) || !old.some((m) => isIndexKey(m.name!))) return keys;
  const FRONT = '\0front';
  // What follows each key: the new integer keys placed after it, then the file's own that followed it.
  const added = new Map<string, string[]>();
  const kept = new Map<string, string[]>();
  const put = (lists: Map<string, string[]>, anchor: string, key: string): void => void (lists.get(anchor) ?? lists.set(anchor, []).get(anchor)!).push(key);
  const present = new Set(keys);
  const had = new Set<string>();
  let anchor = FRONT;
  for (const m of old) {
    const name = m.name!;
    if (!present.has(name)) continue;
    had.add(name);
    if (isIndexKey(name)) put(kept, anchor, name);
    else anchor = name;
  }
  // Integer keys come ascending: each new one after the largest old one below it.
  let below = FRONT;
  for (const key of keys) {
    if (!isIndexKey(key)) break;
    if (had.has(key)) below = key;
    else put(added, below, key);
  }
  const out: string[] = [];
  const emit = (key: string): void => {
    if (key !== FRONT) out.push(key);
    for (const next of added.get(key) ?? []) emit(next);
    for (const next of kept.get(key) ?? []) emit(next);
  };
  emit(FRONT);
  for (const key of keys) if (!isIndexKey(key)) emit(key);
  return out;
}

/** formatKeepingLayout's text, unchecked; null when the original cannot be placed exactly. */
export function writeKeepingLayout(original: string, before: JsonValue, after: JsonValue, format: TextFormat, originalTexts?: LiteralTexts): string | null {
  const style: Style = {};
  const sameValue = sameValues();
  let parsed: ReturnType<typeof scan>;
  try {
    parsed = scan(original, style);
  } catch (e) {
    // Duplicate keys (a reader keeps one, so which text a kept value has is unknowable), or a
    // text that is not the parse of `before`: the whole document is laid out as formatJson does.
    if (e instanceof Unplaceable) return null;
    throw e;
  }
  const texts = format.texts;
  const changed = changedTexts(originalTexts, texts);
  // Where a value stands as LiteralTexts names it (literalKey, positionKey), or null where no text
  // is recorded at or below it: then nothing needs naming (an item's name costs its canonical JSON).
  const recorded = prefixSearch(texts?.size ? [...texts.keys(), ...changed] : changed);
  const changedBelow = prefixSearch(changed);
  const changedSet = new Set(changed);
  const below = (starts: (prefix: string) => boolean, at: Named): boolean => at !== null && (starts(at.key) || starts(at.position));
  const child = (at: Named, name: string): Named =>
    at === null || !below(recorded, at) ? null : { key: literalKey(at.key, false, name), position: positionKey(at.position, name) };
  /** Each item's names (a repeated item by its order among its equals: itemKeys), or null where none is needed. */
  const items = (at: Named, list: readonly JsonValue[]): Named[] | null =>
    at === null || !below(recorded, at) ? null : itemKeys(at.key, list).map((key, j) => ({ key, position: positionKey(at.position, j) }));
  const { indent: unit, eol } = format;
  const multiFile = unit !== '';
  const inlineLead = style.inlineLead ?? (multiFile ? ' ' : '');
  const inlineColon = style.inlineColon ?? (multiFile ? ': ' : ':');
  const source = (node: Node): string => original.slice(node.start, node.end);

  /** A value written whole: formatJson's text (with recorded literal texts) at this place. */
  // Asked once: each fresh value would otherwise go over every recorded text for it.
  const anyName = texts?.size ? hasNameTexts(texts) : false;
  const fresh = (v: JsonValue, named: Named, at: Place): string => {
    const keep = texts?.size && named !== null;
    if (!at.multiline) return respace(keep ? stringifyKeepingTexts(v, '', texts, named.key, named.position, anyName) : JSON.stringify(v), at.comma, at.colon);
    const text = keep ? stringifyKeepingTexts(v, unit, texts, named.key, named.position, anyName) : JSON.stringify(v, null, unit);
    return text.replace(/\n/g, eol + at.indent);
  };

  /** The indent of the line `at` stands on. */
  const lineIndent = (at: number): string => {
    // Back to the line's start only (a lastIndexOf of a break the file lacks, '\r' in an LF file, scans it all, at every container).
    let from = at;
    while (from > 0 && original[from - 1] !== '\n' && original[from - 1] !== '\r') from--;
    return /^[ \t]*/.exec(original.slice(from, at))![0];
  };

  /** The text a literal `v` is given where `named` stands: its recorded one, else JSON's. */
  const placedText = (v: JsonValue, named: Named): string =>
    (named !== null && (typeof v === 'number' || typeof v === 'string') ? recordedText(texts, named.key, named.position, v) : undefined) ?? JSON.stringify(v);

  /**
   * `moved`: the value was read elsewhere (an array item now at another index or another among its
   * equals, or inside one). Its source text is then kept only where it is the text this place is
   * given: an equal value paired with it may have been written otherwise (`1e2` read where `100` now
   * stands, the twin of a repeated entry), so a literal there is checked, and written anew if it differs.
   */
  const render = (node: Node, was: JsonValue, now: JsonValue, named: Named, at: Place, moved: boolean): string => {
    if (sameValue(was, now)) {
      if (!moved) {
        if (!below(changedBelow, named)) return source(node);
      } else if (node.kind === 'scalar' ? source(node) === placedText(now, named) : named === null && !mayHoldOddLiteral(source(node))) return source(node);
    }
    if (node.kind === 'scalar' || now === null || typeof now !== 'object' || Array.isArray(now) !== (node.kind === 'array')) return fresh(now, named, at);
    return container(node, was as JsonValue[] | { [k: string]: JsonValue }, now, named, at, moved);
  };

  const container = (node: Container, was: JsonValue[] | { [k: string]: JsonValue }, now: JsonValue[] | { [k: string]: JsonValue }, named: Named, at: Place, moved: boolean): string => {
    const old = node.members;
    const last = old[old.length - 1];
    // An empty container takes the file's style: on lines of its own in a multi-line file (unless it sits inline).
    const multiline = old.length ? node.multiline : at.multiline && multiFile;
    const base = lineIndent(node.start);
    const withBreak = [...old].reverse().find((m) => hasBreak(m.lead));
    const memberIndent = withBreak ? withBreak.lead.slice(Math.max(withBreak.lead.lastIndexOf('\n'), withBreak.lead.lastIndexOf('\r')) + 1) : base + unit;
    const firstLead = old.length ? old[0]!.lead : multiline ? eol + memberIndent : '';
    const restLead = multiline ? eol + memberIndent : old.length > 1 ? last!.lead : inlineLead;
    const colon = old.find((m) => m.colon !== undefined && !hasBreak(m.colon))?.colon ?? (multiline ? (style.multiColon ?? ': ') : inlineColon);
    const inner: Place = { multiline, indent: memberIndent, comma: `,${multiline ? inlineLead : restLead}`, colon: multiline ? inlineColon : colon };
    const close = old.length ? node.close : multiline ? eol + base : '';
    // An array of one-line records (`[\n  {"a":1},\n  {"a":2}\n]`, or all on one line): a new
    // item follows its siblings, on one line with their separators (not the array's own between
    // items, nor laid out over lines of its own).
    const siblings = node.kind === 'array' ? inlineSiblings(old) : null;

    // Each new member: its old self (index into `old`) or -1, and its written text.
    const parts: Array<{ from: number; body: string }> = [];
    if (Array.isArray(now)) {
      const before = was as JsonValue[];
      const names = items(named, now);
      const pairs = pairItems(before, now, sameValue);
      // The leading items equal at each index stand where they were read; past them, an item at its
      // old index may still be another among its equals (its key changed): the old keys, made once if asked.
      let same = 0;
      while (same < pairs.length && pairs[same] === same && sameValue(before[same]!, now[same]!)) same++;
      let oldKeys: string[] | undefined;
      const keyWas = (k: number): string => (oldKeys ??= itemKeys(named!.key, before))[k]!;
      pairs.forEach((k, j) => {
        const v = now[j]!;
        const item = names && names[j]!;
        const like = k === -1 && siblings ? nearest(siblings, j) : null;
        // (This array stands where it was read, unless it moved itself: then every item did.)
        const itemMoved = moved || k !== j || (j >= same && item !== null && keyWas(k) !== item.key);
        parts.push({ from: k, body: k === -1 ? (like ? inlineLike(v, item, like) : fresh(v, item, inner)) : render(old[k]!.value, before[k]!, v, item, inner, itemMoved) });
      });
    } else {
      const before = was as { [k: string]: JsonValue };
      const index = new Map(old.map((m, k) => [m.name!, k]));
      for (const name of memberOrder(now, old)) {
        const member = child(named, name);
        const k = index.get(name) ?? -1;
        const nameKeys = member && ([member.key + NAME_SUFFIX, member.position + NAME_SUFFIX] as const);
        const renamed = k === -1 || (nameKeys && (changedSet.has(nameKeys[0]) || changedSet.has(nameKeys[1])));
        const placedName = () => (nameKeys && recordedText(texts, nameKeys[0], nameKeys[1], name)) || JSON.stringify(name);
        // A moved member keeps its name's text only where it is the one its new place gives (as a literal does).
        const nameText = renamed ? placedName() : moved && old[k]!.nameText !== placedName() ? placedName() : old[k]!.nameText!;
        const value = k === -1 ? fresh(now[name]!, member, inner) : render(old[k]!.value, before[name]!, now[name]!, member, inner, moved);
        parts.push({ from: k, body: nameText + (k === -1 ? colon : old[k]!.colon!) + value });
      }
    }
    if (parts.length === 0) return node.kind === 'array' ? '[]' : '{}';
    let out = node.kind === 'array' ? '[' : '{';
    parts.forEach(({ from, body }, j) => {
      const was = from === -1 ? undefined : old[from]!;
      // A member keeps the blanks before it while it stays first (or not first), and on a line of
      // its own always (its line's indent is its own: a tab stays a tab); its comma's blanks while it is not last.
      out += was && ((from === 0) === (j === 0) || (multiline && hasBreak(was.lead))) ? was.lead : j === 0 ? firstLead : restLead;
      out += body;
      if (j < parts.length - 1) out += (was && from < old.length - 1 ? was.mid : '') + ',';
    });
    return out + close + (node.kind === 'array' ? ']' : '}');
  };

  /**
   * The one-line records of a multi-line array (with their indexes), when its container items are
   * all on one line each and at least one is not empty: a new item is then written like them. Else null.
   */
  const inlineSiblings = (old: readonly Member[]): Array<{ at: number; record: Container }> | null => {
    const records: Array<{ at: number; record: Container }> = [];
    for (const [at, m] of old.entries()) {
      if (m.value.kind === 'scalar') continue;
      if (m.value.multiline) return null;
      if (m.value.members.length) records.push({ at, record: m.value });
    }
    return records.length ? records : null;
  };

  /** The record nearest to index `j`, the one a new item there is written like. */
  const nearest = (records: ReadonlyArray<{ at: number; record: Container }>, j: number): Container =>
    records.reduce((best, r) => (Math.abs(r.at - j) < Math.abs(best.at - j) ? r : best)).record;

  /** `v` on one line with `record`'s separators, and its blanks inside the brackets (`{ "id": "b" }`) when of its kind. */
  const inlineLike = (v: JsonValue, named: Named, record: Container): string => {
    const colon = record.members.find((m) => m.colon !== undefined)?.colon ?? inlineColon;
    const lead = record.members[1]?.lead ?? (colon.endsWith(' ') ? ' ' : '');
    const text = fresh(v, named, { multiline: false, indent: '', comma: `,${lead}`, colon });
    if (text.length <= 2 || text[0] !== original[record.start]) return text;
    return text[0] + record.members[0]!.lead + text.slice(1, -1) + record.close + text.slice(-1);
  };

  const top: Place = { multiline: multiFile, indent: '', comma: `,${inlineLead}`, colon: inlineColon };
  const body = render(parsed.root, before, after, { key: '', position: POSITION_ROOT }, top, false);
  return original.slice(0, parsed.start) + body + original.slice(parsed.end);
}
