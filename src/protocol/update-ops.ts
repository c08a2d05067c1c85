// `checkpoint update <skill> --a.b=value --list+=value --obj:json='{...}'`: parsing the
// operators and applying them to a document. Pure; the store does the read and write.
import deepmerge from 'deepmerge';
import { CheckpointError } from '../errors.js';
import { quoted, shown } from '../one-line.js';
import { pasteArg, PLACEHOLDER, placeholder, shellQuote } from '../shell-words.js';
import { FORBIDDEN_KEYS, policyFor, PROTOCOL_FIELDS, type LogPolicy } from './fields.js';
import { recordedText, rekeyItems } from './format.js';
import { JsonNumberRangeError, JsonSyntaxError, literalPlace, NAME_SUFFIX, parseJson, POSITION_ROOT, positionKey, type ItemKeyCache, type LiteralTexts } from './json.js';
import type { JsonObject, JsonValue } from './types.js';
import { DOTTED_SEGMENT, splitPath } from './path.js';
import { CLI_SPELLING, type OpSpelling } from './op-spelling.js';
import { runsOldestFirst } from './rotation.js';
import { splitUpdateFlag } from './update-flag.js';
import { fitsProtocolField, fitsSchemaAt, protocolListAt, validAt } from './validate.js';
import { MAX_FIX_TEXT } from './repairable.js';
import { newRecord, recordKind } from './record-lists.js';

export interface UpdateOp {
  /** Object keys, or array indices written as digits. */
  path: string[];
  mode: 'set' | 'append';
  value: JsonValue;
  /** The flag as typed. */
  flag: string;
  /** The op as messages name it, in the caller's words (op-spelling.ts). */
  given: string;
  /** How hints spell an op to send instead. */
  spelling: OpSpelling;
  /** Literal texts of a :json value as typed (`9.0`, `"Caf\u00e9"`), keyed from the value's root. */
  texts?: LiteralTexts;
  /** Given as plain text (`--a=9`, no :json): it keeps the type of a number or boolean it replaces. */
  plain?: true;
}

/** `given` names the op as the caller gave it, already shown on one line and bounded (a flag may hold a newline or a whole file). */
function usage(given: string, why: string, hint?: string, spelling: OpSpelling = CLI_SPELLING): CheckpointError {
  return new CheckpointError('E_USAGE', `${given}: ${why}`, {
    hint: hint ?? (spelling.caller === 'cli' ? "forms: --a.b=text, --list+=text, --a.b:json='<json>', --list+:json='<json>'" : 'the checkpoint was not changed'),
  });
}

/** One `--path=value` flag; `spelling` and `index` say how messages name it (the MCP tool's ops[index]). */
export function parseUpdateFlag(flag: string, spelling: OpSpelling = CLI_SPELLING, index = 0): UpdateOp {
  const parts = splitUpdateFlag(flag);
  if (!parts) throw usage(shown(flag), 'expected --path=value');
  const { path: rawPath, value: raw, json } = parts;
  const plus = parts.plus ? '+' : undefined;
  const given = spelling.given(flag, index, rawPath, plus ? 'append' : 'set');
  // `--next_actions-=Third` reads as removal, but there is no -= : it would name a new field "next_actions-".
  if (rawPath.endsWith('-')) {
    const field = rawPath.slice(0, -1);
    const cli = spelling.caller === 'cli';
    throw usage(
      given,
      `there is no ${cli ? '-=' : 'removing op'} (this would write a new field ${JSON.stringify(rawPath.split('.').pop())})`,
      `to set the list without that item: ${cli ? `--${field}:json='[...]'` : spelling.op(field, 'set', '[...]')}${field === 'next_actions' ? `; to record the action next names as done: ${cli ? 'checkpoint done <skill>' : 'the done tool'}` : ''}; the checkpoint was not changed`,
    );
  }
  const path = pathSegments(given, rawPath);
  let value: JsonValue = raw;
  let texts: LiteralTexts | undefined;
  if (json) {
    // The parser's own word for nothing ("empty file") names the wrong thing here.
    if (!raw.trim()) throw usage(given, spelling.caller === 'cli' ? 'no JSON value after "="' : 'no JSON text in value', spelling.caller === 'cli' ? "give one (--a:json=null, --a:json='[]'), or set an empty string without :json (--a=)" : 'send JSON text ("null", "[]"), or drop "json" to send the value itself');
    try {
      ({ value, texts } = parseJson(raw));
    } catch (e) {
      if (e instanceof JsonNumberRangeError) throw usage(given, e.reason.replace(' at the top level', ''), 'the checkpoint was not changed');
      const why = e instanceof JsonSyntaxError ? `${e.reason} at column ${e.column}` : String(e);
      // Refused for what it holds (the parser's word for it is still "not valid"): quoting it for the shell would not help.
      const held = e instanceof JsonSyntaxError ? HELD.find(([re]) => re.test(e.reason)) : undefined;
      // Valid JSON refused for what it holds says so ("holds a forbidden key"), not "not valid".
      throw usage(
        given,
        held ? `value ${held[2]} (${why})` : `value is not valid JSON (${why})`,
        held ? `${held[1]}; the checkpoint was not changed` : spelling.caller === 'cli' ? "quote the JSON for your shell, e.g. --a:json='{\"k\":1}'" : 'send valid JSON text, or drop "json" to send the value itself; the checkpoint was not changed',
      );
    }
  }
  // A placeholder our hints print ('<phase>', '<in_progress|blocked|…>'), pasted as printed: the
  // hint's value left for the user to fill in, never a value to write.
  if (!json && PLACEHOLDER.test(raw)) throw usage(given, `${raw} is a placeholder from a hint, not a value`, `write the real value in its place (to write that text itself: ${flag.slice(0, flag.length - raw.length - 1)}:json=${shellQuote(JSON.stringify(raw))}); the checkpoint was not changed`);
  // `--list+=:json{...}`: the type written after the "=" lands as text beginning ":json", a record
  // appended as a string. Refused with the flag meant; that text itself is still one :json away.
  const typed = json ? null : /^:json=?([\s\S]*)$/.exec(raw);
  if (typed) {
    const head = `--${rawPath}${plus ?? ''}`;
    throw usage(given, 'the value starts with ":json", which goes before the "="', `did you mean ${head}:json=${shellQuote(typed[1]!.trim() || '<json>')}? (to write that text itself: ${head}:json=${shellQuote(JSON.stringify(raw))}); the checkpoint was not changed`);
  }
  return { path, mode: plus ? 'append' : 'set', value, flag, given, spelling, ...(texts ? { texts } : {}), ...(json ? {} : { plain: true as const }) };
}

/** What shell-words.ts placeholder() prints, once the shell has taken its quotes off. */

/** Parser refusals of a :json value that shell quoting cannot cause (json.ts), with what to do instead. */
const HELD: ReadonlyArray<readonly [RegExp, string, string]> = [
  [/^forbidden key /, 'choose another key name (__proto__, prototype and constructor are refused)', 'holds a key no checkpoint may hold'],
  [/^duplicate key /, 'give each key once', 'holds a key twice'],
  [/^nesting deeper than /, 'flatten the value (or store it as a string)', 'is nested too deep'],
];

// A JSON number as typed on a command line: `9`, `-0.5`, `8.0`, `1e3` (no `+`, `.5`, `0x1`, `Infinity`).
const NUMBER_TEXT = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Plain text given over a number or a boolean keeps that type when it reads as one: `--score=9`
 * over 8.0 writes the number 9 (as typed), `--done=true` over false the boolean. Anything else
 * stays text, as `--a=text` always writes; `:json` sets any type on purpose. So does a value that
 * is wrong where it stands (`keepsType` false: a `done_when` written as 8.0 is fixed with `=8.0`).
 */
function keepingType(current: JsonValue | undefined, op: UpdateOp, keepsType: () => boolean, asText: () => void): UpdateOp {
  if (!op.plain || typeof op.value !== 'string' || (typeof current !== 'boolean' && typeof current !== 'number') || !keepsType()) return op;
  if (typeof current === 'boolean' && (op.value === 'true' || op.value === 'false')) return { ...op, value: op.value === 'true' };
  if (typeof current === 'number' && NUMBER_TEXT.test(op.value)) {
    try {
      const { value, texts } = parseJson(op.value);
      if (typeof value === 'number') return { ...op, value, ...(texts ? { texts } : {}) };
    } catch {
      // out of a double's range (1e400): written as the text it is, and said so
    }
  }
  asText();
  return op;
}

/** The path's segments (path.ts splitPath); every key, bracketed or not, meets the forbidden-key rule. */
function pathSegments(given: string, rawPath: string): string[] {
  const { segments, bad } = splitPath(rawPath);
  const forbidden = segments.find((seg) => FORBIDDEN_KEYS.has(seg)) ?? (bad !== undefined && FORBIDDEN_KEYS.has(bad) ? bad : undefined);
  if (forbidden !== undefined) throw usage(given, `path segment "${forbidden}" is forbidden (prototype pollution)`, 'choose another key name');
  if (bad !== undefined) throw usage(given, `invalid path ${quoted(rawPath)} (segment ${quoted(bad)})`, 'write keys as a.b.1.c, or as conflicts show them: a["key with . or space"][1]');
  return segments;
}

/** A path as it was typed where it could be (`a.b.1`), a key holding other characters bracketed (`x["a.b"]`). */
const pathText = (segs: readonly string[]): string =>
  segs.map((seg, i) => (DOTTED_SEGMENT.test(seg) ? (i ? `.${seg}` : seg) : `[${JSON.stringify(seg)}]`)).join('');

const isPlainObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An own value only: `toString`, `valueOf` and friends inherited from Object.prototype are not data. */
const own = (container: JsonObject | JsonValue[], key: string | number): JsonValue | undefined =>
  Object.prototype.hasOwnProperty.call(container, key) ? (container as Record<string | number, JsonValue>)[key] : undefined;

// Arrays given in an update replace the old array (deepmerge's default would concatenate).
const mergeObjects = (a: JsonObject, b: JsonObject): JsonObject =>
  deepmerge<JsonObject>(a, b, { arrayMerge: (_old, given) => given, isMergeableObject: isPlainObject });

/**
 * Applies ops in order. Objects set onto objects are merged (never clobbered); arrays and scalars replace.
 * `texts`, the document's literal texts, is updated in place: a number the user gives is written
 * exactly as typed (`9.0` stays 9.0), but one typed as JSON writes it (`8`, or any number from an
 * MCP agent, which has no spelling) over an equal number keeps the file's text (`8.0`): the value
 * did not change, so neither does the file. A string keeps its old text when the user gives the
 * same string, unless typed with escapes of its own: an escape is encoding, not a change the user asked for.
 */
export function applyUpdateOps(
  doc: JsonObject,
  ops: readonly UpdateOp[],
  texts?: LiteralTexts,
  opts: {
    keepsType?: (at: ReadonlyArray<string | number>) => boolean;
    /** Plain text replaced a valid number or boolean and stays text ("high" over 8.0): said in a note. */
    onTextOverTyped?: (change: { path: string; was: string; text: string }) => void;
  } = {},
): JsonObject {
  const root = doc;
  // The file's own texts, before any op: what "the value did not change" is judged against.
  const before = texts && new Map(texts);
  // Where each op's value landed (array indices as numbers), for its literal texts.
  const placed: Array<{ op: UpdateOp; at: Array<string | number>; was?: JsonValue }> = [];
  // A value from the file as it is written there (`8.0` stays 8.0), bounded for the message.
  const valueText = (v: JsonValue, at: Array<string | number>): string =>
    typeof v === 'number' || typeof v === 'string' ? (recordedText(texts, ...literalPlace(root, at), v) ?? JSON.stringify(v)) : JSON.stringify(v);
  for (const given of ops) {
    const at: Array<string | number> = [];
    const parentPath = given.path.slice(0, -1);
    const key = given.path[given.path.length - 1]!;
    let parent: JsonObject | JsonValue[] = root;
    parentPath.forEach((seg, i) => {
      const container: JsonObject | JsonValue[] = parent;
      const here = pathText(given.path.slice(0, i + 1));
      const slot = Array.isArray(container) ? index(container, seg, given, pathText(given.path.slice(0, i))) : seg;
      at.push(slot);
      let child: JsonValue | undefined = own(container, slot);
      if (isPlainObject(child)) refuseIndexIntoMap(given, child, given.path.slice(0, i + 1), given.path[i + 1]!, root);
      if (child === undefined) {
        child = {};
        (container as JsonObject)[seg] = child;
      }
      if (typeof child !== 'object' || child === null) {
        // A primer written as prose (read as its key decisions): the update that makes it the object it is read as.
        const hint = i === 0 && seg === 'context_primer' && typeof child === 'string' ? `make it the object it is read as first (${primerObjectOp(given.spelling, child, valueText(child, at))}); the checkpoint was not changed` : undefined;
        throw usage(given.given, `cannot write inside ${here}: it is ${shown(valueText(child, at))}, not an object`, hint, given.spelling);
      }
      parent = child;
    });
    const target: JsonObject | JsonValue[] = parent;
    const slot = Array.isArray(target) ? index(target, key, given, pathText(parentPath)) : key;
    const current = own(target, slot);
    const asText = () => opts.onTextOverTyped?.({ path: pathText(given.path), was: valueText(current!, [...at, slot]), text: given.value as string });
    const op = given.mode === 'set' ? keepingType(current, given, () => opts.keepsType?.([...at, slot]) ?? true, asText) : given;
    let next: JsonValue;
    if (given.path.length === 1 && typeof op.value === 'string' && (current === undefined || Array.isArray(current))) refuseTextAsRecord(op, current);
    if (op.mode === 'append') {
      if (current !== undefined && !Array.isArray(current)) throw notAList(op, current, valueText(current, [...at, slot]));
      const list = current ?? [];
      if (list.length && inFront(given.path, list)) {
        // The newest entry of a newest-first log goes where `done` puts it, so the two agree on
        // which entries are newest (and `done`'s cut archives the oldest, not what += just added).
        next = [op.value, ...list];
        const arrayAt = [...at, slot];
        const moved = [undefined, ...list.map((_, i) => i)];
        // Every item moves down one place: its texts (8.0, escapes) move with it.
        for (const known of [texts, before]) if (known) rekeyItems(known, literalPlace(root, arrayAt), list, next as JsonValue[], moved);
        for (const earlier of placed) if (earlier.at.length > arrayAt.length && arrayAt.every((seg, i) => earlier.at[i] === seg)) (earlier.at[arrayAt.length] as number)++;
        placed.push({ op, at: [...arrayAt, 0] });
      } else {
        next = [...list, op.value];
        placed.push({ op, at: [...at, slot, (next as JsonValue[]).length - 1] });
      }
    } else {
      if (op.plain || op.spelling.caller === 'mcp') refuseListDropped(op, current);
      next = isPlainObject(current) && isPlainObject(op.value) ? mergeObjects(current, op.value) : op.value;
      placed.push({ op, at: [...at, slot], ...(current !== undefined && { was: current }) });
    }
    (target as Record<string | number, JsonValue>)[slot] = next;
  }
  // The document no longer changes: each of its arrays' item keys is worked out once for all ops.
  const rootKeys: ItemKeyCache = new WeakMap();
  if (texts) for (const { op, at, was } of placed) keepTypedTexts(root, at, op, texts, before, rootKeys, was);
  return root;
}

/**
 * Each number of `op`'s value, where it now stands in `root`, takes the text the user typed (none: JSON's),
 * unless that is JSON's own spelling of the number the file's text there (in `before`) already denotes;
 * each string and object key, a text typed with escapes. Also migrate's, for the JSON it parses out of a leftover.
 */
export function keepTypedTexts(
  root: JsonObject,
  at: ReadonlyArray<string | number>,
  op: Pick<UpdateOp, 'value' | 'texts'>,
  texts: LiteralTexts,
  before?: LiteralTexts,
  rootKeys: ItemKeyCache = new WeakMap(),
  was?: JsonValue,
): void {
  // Apart from rootKeys: the op's arrays stand in the document too, under other keys.
  const valueKeys: ItemKeyCache = new WeakMap();
  // The numbers of the value the op replaced, by their key within it: a number typed in JSON's
  // spelling where an equal one stood keeps that one's text, the k-th of equal items the k-th's
  // (`[8, 8.0]` given again as `[8, 8]`, or reordered, stays `[8, 8.0]`).
  const replaced = was !== undefined && before?.size ? numbersByKey(was) : null;
  const valueAt = (path: ReadonlyArray<string | number>): JsonValue | undefined => {
    let here: JsonValue | undefined = root;
    for (const seg of path) here = here !== null && typeof here === 'object' ? own(here, seg) : undefined;
    return here;
  };
  const visit = (v: JsonValue, rel: Array<string | number>): void => {
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, [...rel, i]));
    else if (isPlainObject(v))
      for (const k of Object.keys(v)) {
        const [key, position] = literalPlace(op.value, [...rel, k], valueKeys);
        const name = recordedText(op.texts, key + NAME_SUFFIX, position + NAME_SUFFIX, k);
        const path = [...at, ...rel, k];
        if (name !== undefined && valueAt(path) !== undefined) for (const place of literalPlace(root, path, rootKeys)) texts.set(place + NAME_SUFFIX, [name]);
        visit(v[k]!, [...rel, k]);
      }
    else if (typeof v === 'number' || typeof v === 'string') {
      const path = [...at, ...rel];
      // A later op may have replaced it: then that op decides.
      if (!Object.is(valueAt(path), v)) return;
      const typed = recordedText(op.texts, ...literalPlace(op.value, rel, valueKeys), v);
      if (typed === undefined && typeof v === 'string') return;
      const places = literalPlace(root, path, rootKeys);
      const old = replaced?.get(literalPlace(op.value, rel, valueKeys)[0]);
      if (typeof v === 'number' && (typed === undefined || typed === JSON.stringify(v)) && old !== undefined && Object.is(old.value, v)) {
        // Its text is where it was read: by position below an array (recorded there), else at its key, which is this one.
        const oldPath = [...at, ...old.path];
        const read = before!.get(oldPath.some((seg) => typeof seg === 'number') ? oldPath.reduce<string>(positionKey, POSITION_ROOT) : places[0])?.find((t) => NUMBER_TEXT.test(t) && Object.is(Number(t), v));
        for (const key of places) {
          if (read === undefined) texts.delete(key);
          else texts.set(key, [read]);
        }
        return;
      }
      if (typeof v === 'number' && (typed === undefined || typed === JSON.stringify(v)) && unchangedNumber(before, places, v)) {
        for (const key of places) {
          const old = before!.get(key);
          if (old) texts.set(key, old);
        }
        return;
      }
      for (const key of places) {
        if (typed === undefined) texts.delete(key);
        else texts.set(key, [typed]);
      }
    }
  };
  visit(op.value, []);
}

/** Every number below `value`, by its key within it (literalPlace from `value`): its value and its path. */
function numbersByKey(value: JsonValue): Map<string, { value: number; path: Array<string | number> }> {
  const out = new Map<string, { value: number; path: Array<string | number> }>();
  const cache: ItemKeyCache = new WeakMap();
  const walk = (v: JsonValue, path: Array<string | number>): void => {
    if (typeof v === 'number') out.set(literalPlace(value, path, cache)[0], { value: v, path });
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i]));
    else if (isPlainObject(v)) for (const k of Object.keys(v)) walk(v[k]!, [...path, k]);
  };
  walk(value, []);
  return out;
}

/** Whether the file's text at one of `places` (before any op) spells the number `v`: `8.0` for 8. */
function unchangedNumber(before: LiteralTexts | undefined, places: readonly string[], v: number): boolean {
  const old = before && places.map((key) => before.get(key)?.[0]).find((t) => t !== undefined);
  return old !== undefined && NUMBER_TEXT.test(old) && Object.is(Number(old), v);
}

/**
 * Whether `+=` adds to the front of the list at `path`: a newest-first log (recently_done), unless
 * its entries' times show it kept oldest-first by hand, as `done` decides.
 */
function inFront(path: readonly string[], list: readonly JsonValue[]): boolean {
  const policy = policyFor(path);
  return policy.kind === 'log' && policy.order === 'newest-first' && !runsOldestFirst(list, policy as LogPolicy);
}

/**
 * A set that would put something other than a list where a list stands: the "+" forgotten
 * (`--merged_prs=104` over [101, 102, 103]) would drop every entry, and no command drops a
 * record. Refused for a list with entries, and for a protocol list (next_actions) whose items the
 * value could be; a merged object is looked into key by key. Only for an op not typed on purpose:
 * plain text on the command line (`:json` sets any type), and every MCP set, which has no other form.
 */
function refuseListDropped(op: UpdateOp, current: JsonValue | undefined): void {
  const find = (here: JsonValue | undefined, v: JsonValue, at: string[]): { at: string[]; v: JsonValue; entries: number; list: readonly JsonValue[] } | null => {
    if (Array.isArray(v)) return null;
    if (Array.isArray(here) && here.length) return { at, v, entries: here.length, list: here };
    if (isPlainObject(here) && isPlainObject(v)) {
      for (const k of Object.keys(v)) {
        const found = find(own(here, k), v[k]!, [...at, k]);
        if (found) return found;
      }
      return null;
    }
    // An empty or missing protocol list: the value is one of its items, as `+=` would add it.
    const field = at.length === 1 && PROTOCOL_FIELDS.includes(at[0]!) ? at[0]! : '';
    if (field && (here === undefined || Array.isArray(here)) && fitsProtocolField(field, []) && !fitsProtocolField(field, v) && fitsSchemaAt(`#/properties/${field}/items`, v)) return { at, v, entries: 0, list: [] };
    return null;
  };
  const found = find(current, op.value, op.path);
  if (!found) return;
  const at = pathText(found.at);
  const spell = op.spelling;
  const text = typeof found.v === 'string' ? quoted(found.v) : shown(JSON.stringify(found.v));
  const what = found.entries ? `is a list of ${found.entries} entr${found.entries === 1 ? 'y' : 'ies'}; this would replace ${found.entries === 1 ? 'it' : 'them all'} with ${text}` : `is a list; this would make it ${text}`;
  const replace = (list: string) => (spell.caller === 'cli' ? (pasteArg(`--${at}`) === `--${at}` ? `--${at}:json='${list}'` : pasteArg(`--${at}:json=${list}`)) : spell.op(at, 'set', list));
  // Nothing typed (`--next_actions=`): emptying the list, never an empty entry to add.
  if (found.v === '' || (typeof found.v === 'string' && !found.v.trim())) {
    throw usage(op.given, `${at} ${what}`, `to empty the list: ${replace('[]')}; the checkpoint was not changed`);
  }
  // Typed as the entries are: "104" added to a list of numbers is 104, not text.
  const entry = op.plain === true && typeof found.v === 'string' ? typedLike(found.list, found.v) : found.v;
  throw usage(op.given, `${at} ${what}`, `to add an entry: ${appendOp(spell, at, entry, op.plain === true && typeof entry === 'string')}; to replace the whole list: ${replace('[...]')}; the checkpoint was not changed`);
}

/**
 * An item index (`blockers.0`, `progress_table.1.status`) into a map written by hand where the
 * protocol keeps a list: it would land as a new key "0" of the map, the map still no list and
 * the item meant untouched. Refused, with the op that makes the map the list it stands for,
 * every entry kept, or, where no list keeps them all as they are, the shape to make by hand.
 */
function refuseIndexIntoMap(op: UpdateOp, map: JsonObject, path: readonly string[], seg: string, root: JsonObject): void {
  if (!/^\d+$/.test(seg) || !protocolListAt(path)) return;
  const at = pathText(path);
  const n = Object.keys(map).length;
  const list = listOfMap(path, map, root);
  const text = list === null ? null : JSON.stringify(list);
  const record = path.length === 1 ? recordKind(path[0]!) : undefined;
  const fix =
    text !== null && text.length <= MAX_FIX_TEXT
      ? `make it the list it stands for, every entry kept: ${op.spelling.op(at, 'set', text)}`
      : `make it a list by hand (${record ? `each entry a record {${['id', record.textKey, ...Object.keys(record.rest)].join(', ')}}` : 'its entries as the items'})`;
  throw usage(op.given, `${at} is a map of ${n} entr${n === 1 ? 'y' : 'ies'} here, not the list the protocol keeps: item ${seg} would be written as a new key "${seg}" of it`, `${fix}, then address its items by index; the checkpoint was not changed`, op.spelling);
}

/**
 * The list a map at `path` stands for, every entry kept: a record list's entries as records named
 * by their keys, any other list's entries in order when its keys only number them ("0", "1", …,
 * or from "1"). Null when no such list is valid there (a key that says more, a row status off the
 * enum): the op a hint names must not be refused in turn.
 */
function listOfMap(path: readonly string[], map: JsonObject, root: JsonObject): JsonValue[] | null {
  const entries = Object.entries(map);
  const record = path.length === 1 ? recordKind(path[0]!) : undefined;
  let list: JsonValue[];
  if (record) {
    list = entries.map(([key, v]) => ({ ...Object.fromEntries(record.keyNames.map((name) => [name, key])), ...(isPlainObject(v) ? v : { [record.mapText]: v }) }));
  } else {
    const from = entries[0]?.[0] === '1' ? 1 : 0;
    if (!entries.every(([key], i) => key === String(i + from))) return null;
    list = entries.map(([, v]) => v);
  }
  return validAt(root, path, list) ? list : null;
}

/**
 * Text given for a list of records (`--blockers+='waiting on review'`): refused with the record
 * to add instead, its words in it, under the next free id (the validation refusal it would
 * otherwise meet, "each blocker must be an object", says nothing of the shape).
 */
function refuseTextAsRecord(op: UpdateOp, current: readonly JsonValue[] | undefined): void {
  const field = op.path[0]!;
  const kind = recordKind(field);
  if (!kind || !(op.plain === true || op.spelling.caller === 'mcp')) return;
  const entry = newRecord(kind, op.value as string, current);
  const record = JSON.stringify(entry);
  const add = op.spelling.caller === 'cli' && record.length > 200 ? `--${field}+:json='{"id": "${String(entry.id)}", "${kind.textKey}": "…"}'` : op.spelling.op(field, 'append', record);
  throw usage(op.given, `each entry of ${field} is a record (${['id', kind.textKey, ...Object.keys(kind.rest)].join(', ')}), not a text`, `add one: ${add}; the checkpoint was not changed`, op.spelling);
}

/** `text` as the JSON number or boolean it spells when every entry of `list` is one (a list of PR numbers), else the text. */
function typedLike(list: readonly JsonValue[], text: string): JsonValue {
  const kind = list.length ? typeof list[0] : '';
  if ((kind !== 'number' && kind !== 'boolean') || !list.every((e) => typeof e === kind)) return text;
  try {
    const v = JSON.parse(text.trim()) as unknown;
    return typeof v === kind ? (v as JsonValue) : text;
  } catch {
    return text;
  }
}

/** The append a forgotten "+" meant, as the caller would send it: `--next_actions+='Write the tests'`, a long value left as "…". */
function appendOp(spell: OpSpelling, path: string, value: JsonValue, plain: boolean): string {
  const text = plain ? (value as string) : JSON.stringify(value);
  if (spell.caller === 'mcp') return text.length > 80 ? spell.op(path, 'append', '…', 'text') : spell.op(path, 'append', text);
  const head = `--${path}+${plain ? '' : ':json'}`;
  if (text.length > 80) return `${pasteArg(head)}=…`;
  // The flag's head as typed where the shell needs no quotes there, the value quoted as one word.
  return pasteArg(head) === head ? `${head}=${pasteArg(text)}` : pasteArg(`${head}=${text}`);
}

/** Top-level fields the protocol holds as one text each (the stamped two are refused before): an append to one is a mistake, not a list to start. */
const ONE_TEXT_FIELDS: ReadonlySet<string> = new Set(['skill', 'project', 'project_dir', 'created_at', 'phase', 'step', 'status', 'progress_summary']);

/**
 * An append onto a value that is no list: what it holds, and for a single value (one action
 * written as a string) the flag that makes it a list holding that value, to append after.
 */
function notAList(op: UpdateOp, current: JsonValue, text: string): CheckpointError {
  const path = pathText(op.path);
  const spell = op.spelling;
  if (isPlainObject(current)) {
    return usage(op.given, `cannot append: ${path} is not an array (it is an object)`, `set a key in it (${spell.op(`${path}.<key>`, 'set', '…', 'text')}), or append to a list inside it (${spell.op(`${path}.<list>`, 'append', '…', 'text')}); the checkpoint was not changed`);
  }
  // The primer is an object of lists: a hand-written text or list becomes its key decisions,
  // and appends go to one of its lists (red team, 12-06: "make it a list" was refused in turn).
  if (op.path.length === 1 && op.path[0] === 'context_primer') {
    return usage(op.given, `cannot append: context_primer is an object of lists (key_decisions, generated_files, user_preferences), and this one holds ${shown(text)}`, `make it one (${primerObjectOp(spell, current, text)}), then append to a list in it (${spell.op('context_primer.key_decisions', 'append', '…', 'text')}); the checkpoint was not changed`);
  }
  // A field the protocol holds as one text is never a list: set it instead.
  if (op.path.length === 1 && ONE_TEXT_FIELDS.has(op.path[0]!)) {
    const value = spell.caller === 'cli' ? placeholder(path) : `<${path}>`;
    return usage(op.given, `cannot append: ${path} holds one text (${shown(text)}), not a list`, `set it instead: ${spell.op(path, 'set', value, 'text')}; the checkpoint was not changed`);
  }
  // null holds nothing to keep: the list starts empty. The value goes in as the file writes it (8.0 stays 8.0).
  const list = current === null ? '[]' : `[${text}]`;
  const fix = list.length <= 200 ? spell.op(path, 'set', list) : `${spell.caller === 'cli' ? `--${path}:json='[...]'` : spell.op(path, 'set', '[...]')} holding what it has`;
  return usage(op.given, `cannot append: ${path} is not an array (it is ${shown(text)})`, `make it a list first (${fix}), then append; the checkpoint was not changed`);
}

/**
 * The op that makes a context_primer written as one value the object of lists it is read as,
 * that value its key decisions: its text as the file writes it (escapes kept), a number or
 * true/false as that text, null as nothing; a long one as `[...]` for the reader to fill.
 */
function primerObjectOp(spell: OpSpelling, current: JsonValue, text: string): string {
  const lines = typeof current === 'string' ? `[${text}]` : current === null ? '[]' : `[${JSON.stringify(text)}]`;
  const object = `{"key_decisions":${lines}}`;
  if (object.length <= 200) return spell.op('context_primer', 'set', object);
  return spell.caller === 'cli' ? `--context_primer:json='{"key_decisions": [...]}'` : spell.op('context_primer', 'set', '{"key_decisions": [...]}');
}

/** `arr`'s index `seg`; `of`: the array's path as messages show it. */
function index(arr: JsonValue[], seg: string, op: UpdateOp, of: string): number {
  if (!/^\d+$/.test(seg)) throw usage(op.given, `${of || 'it'} is an array; address an item by its index`, undefined, op.spelling);
  // "01" may be a typo for 0, 10 or 1: an index is written one way only.
  if (seg.length > 1 && seg.startsWith('0')) throw usage(op.given, `index ${quoted(seg)} has a leading zero`, `write it as ${Number(seg)}`);
  const i = Number(seg);
  if (i >= arr.length) throw usage(op.given, `index ${i} is past the end of ${of || 'it'} (length ${arr.length})`, undefined, op.spelling);
  return i;
}
