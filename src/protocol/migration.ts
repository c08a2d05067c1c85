// `checkpoint migrate`, pure: stamp wire "1.0" files "1.1" (additive, nothing else changes)
// and repair what older update parsers left behind anywhere in a document:
//   "x+":      an append they did not understand  -> its value(s) merged into the array x
//   "x:json":  a JSON value kept as a string      -> parsed and set (or merged) into x
//   "x+:json": both                                -> parsed and appended to x
// Only a provable leftover is repaired: its value is text, as a parser wrote a flag's value
// (a string; for "x+" also a list of strings, a flag given twice), and x is beside it or is a
// field the protocol knows there (cost, next_actions, skill_state.…merged_prs). Any other key
// of that shape ("B+": 3 in a table of grades, "C:json" in a project's own data) is data, kept.
// A repair that could lose data (x is not an array, the JSON does not parse, x already
// holds a different value) is not made: the leftover stays and is reported.
import { FORBIDDEN_KEYS, policyFor, PROTOCOL_FIELDS } from './fields.js';
import { JsonSyntaxError, literalPlace, parseJson, type LiteralTexts } from './json.js';
import { numberTextIn, rebaseTexts } from './format.js';
import { notTheVersion, unquotedWireVersion, versionText } from './wire-version.js';
import { keepTypedTexts } from './update-ops.js';
import { canonicalJson } from './identity.js';
import type { JsonObject, JsonValue } from './types.js';
import { joinPath } from './validate.js';

export const MIGRATE_FROM = '1.0';
export const MIGRATE_TO = '1.1';

export interface MigrationChange {
  path: string;
  action: 'stamp' | 'append' | 'json';
  detail: string;
}

export interface MigrationProblem {
  path: string;
  message: string;
}

export interface MigrationResult {
  doc: JsonValue;
  changes: MigrationChange[];
  problems: MigrationProblem[];
  changed: boolean;
}

// A key update's parser could have produced: one path segment, then "+", ":json" or both.
const LEFTOVER = /^([A-Za-z0-9_$][A-Za-z0-9_$-]*)(\+)?(:json)?$/;

type Obj = { [k: string]: JsonValue };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const same = (a: JsonValue, b: JsonValue) => canonicalJson(a) === canonicalJson(b);

export function leftoverKey(key: string): { base: string; append: boolean; json: boolean } | null {
  const m = LEFTOVER.exec(key);
  if (!m || (!m[2] && !m[3])) return null;
  return { base: m[1]!, append: Boolean(m[2]), json: Boolean(m[3]) };
}

/**
 * Whether key `lo` holding `value` in an object at `objAt` is provably what an old update parser
 * left: its value text, as a parser writes a flag's value, and its target beside it or a field
 * the protocol knows at that place.
 */
function provable(lo: { base: string; append: boolean; json: boolean }, value: JsonValue, obj: Obj, objAt: Path): boolean {
  const strings = (v: JsonValue) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string');
  if (typeof value !== 'string' && !(lo.append && !lo.json && strings(value))) return false;
  if (Object.hasOwn(obj, lo.base)) return true;
  if (!objAt.length) return PROTOCOL_FIELDS.includes(lo.base);
  // Array indices are no part of a policy path: a field below a list item is not known by place.
  if (objAt.some((seg) => typeof seg === 'number')) return false;
  return policyFor([...(objAt as string[]), lo.base]).kind !== 'value';
}

function parseLeftover(text: string): { ok: true; value: JsonValue; texts?: LiteralTexts } | { ok: false; why: string } {
  try {
    const { value, texts } = parseJson(text);
    return { ok: true, value, ...(texts ? { texts } : {}) };
  } catch (e) {
    return { ok: false, why: e instanceof JsonSyntaxError ? `${e.reason} at column ${e.column}` : String(e) };
  }
}

/** Merges `add` into `into` without overwriting anything; the first conflicting path, or null. */
function mergeInto(into: JsonValue, add: JsonValue, path: string): { value: JsonValue; conflict: string | null } {
  if (same(into, add)) return { value: into, conflict: null };
  if (Array.isArray(into) && Array.isArray(add)) {
    // As multisets (a log's equal entries are separate records): each value as many times as the
    // side that holds it more often, so neither side loses one.
    const out = [...into];
    const unmatched = into.map(canonicalJson);
    for (const item of add) {
      const at = unmatched.indexOf(canonicalJson(item));
      if (at === -1) out.push(item);
      else unmatched[at] = '';
    }
    return { value: out, conflict: null };
  }
  if (isObj(into) && isObj(add)) {
    const out: Obj = { ...into };
    for (const [k, v] of Object.entries(add)) {
      if (FORBIDDEN_KEYS.has(k)) return { value: into, conflict: joinPath(path, k) };
      if (!(k in out)) {
        out[k] = v;
        continue;
      }
      const r = mergeInto(out[k]!, v, joinPath(path, k));
      if (r.conflict) return { value: into, conflict: r.conflict };
      out[k] = r.value;
    }
    return { value: out, conflict: null };
  }
  return { value: into, conflict: path };
}

type Path = Array<string | number>;

/**
 * `texts`, the file's literal texts, is updated in place as applyUpdateOps does: a number in a
 * repaired value keeps the text it was written with (`"x:json": "8.0"` becomes `"x": 8.0`, and
 * an `"x+": [2.50]` item moved into x stays 2.50).
 */
export function migrateCheckpoint(input: JsonValue, texts?: LiteralTexts): MigrationResult {
  const changes: MigrationChange[] = [];
  // Where repaired values landed in the result: parsed JSON with its typed texts, or a value
  // moved from `from` in the input (its texts recorded under the file's keys).
  const placed: Array<{ at: Path; value: JsonValue; texts?: LiteralTexts } | { at: Path; from: Path }> = [];
  const problems: MigrationProblem[] = [];
  if (!isObj(input)) return { doc: input, changes, problems: [{ path: '(root)', message: 'a checkpoint must be a JSON object' }], changed: false };

  // `at`: the object's path in the result; `src`: in the input (null below a repaired value).
  const repairObject = (obj: Obj, base: string, objAt: Path, src: Path | null): Obj => {
    // Ordered pairs, so a repaired value takes the leftover's place when x did not exist.
    const pairs: [string, JsonValue][] = Object.entries(obj);
    const find = (k: string) => pairs.findIndex(([key]) => key === k);
    for (const key of Object.keys(obj)) {
      const lo = leftoverKey(key);
      if (!lo) continue;
      const at = joinPath(base, key);
      const target = joinPath(base, lo.base);
      if (FORBIDDEN_KEYS.has(lo.base)) {
        problems.push({ path: at, message: `left as is: "${lo.base}" is not an allowed key` });
        continue;
      }
      let value = pairs[find(key)]![1];
      if (!provable(lo, value, obj, objAt)) continue;
      let typed: LiteralTexts | undefined;
      const parsedHere = lo.json && typeof value === 'string';
      if (parsedHere) {
        const parsed = parseLeftover(value as string);
        if (!parsed.ok) {
          problems.push({ path: at, message: `left as is: its value is not valid JSON (${parsed.why})` });
          continue;
        }
        value = parsed.value;
        typed = parsed.texts;
      }
      const ti = find(lo.base);
      const existing = ti === -1 ? undefined : pairs[ti]![1];
      let next: JsonValue;
      let detail: string;
      if (lo.append) {
        // "x+" held the raw appended value(s); "x+:json" one parsed value, as update appends it today.
        const items = !lo.json && Array.isArray(value) ? value : [value];
        // The items are the leftover's own array items (each at its index there), or the one value.
        const spread = items === (value as unknown);
        if (existing !== undefined && !Array.isArray(existing)) {
          problems.push({ path: at, message: `left as is: cannot append to ${target}, which is not an array` });
          continue;
        }
        // Every item, equal ones included: the old parser never appended them, and a log's
        // equal entries are separate records (two equal runs are two runs).
        const list = [...((existing as JsonValue[] | undefined) ?? [])];
        items.forEach((item, i) => {
          list.push(item);
          const to = [...objAt, lo.base, list.length - 1];
          if (parsedHere) placed.push({ at: to, value: item, ...(typed ? { texts: typed } : {}) });
          else if (src) placed.push({ at: to, from: [...src, key, ...(spread ? [i] : [])] });
        });
        next = list;
        detail = `${existing === undefined ? 'created' : 'appended to'} ${target}: ${items.length} value${items.length === 1 ? '' : 's'}`;
      } else if (existing === undefined) {
        next = value;
        detail = `set ${target} from the JSON it held`;
        placed.push({ at: [...objAt, lo.base], value, ...(typed ? { texts: typed } : {}) });
      } else {
        const r = mergeInto(existing, value, target);
        if (r.conflict) {
          problems.push({ path: at, message: `left as is: ${target} already holds a different value at ${r.conflict}; resolve by hand` });
          continue;
        }
        next = r.value;
        detail = same(existing, next) ? `dropped: ${target} already holds that value` : `merged into ${target}`;
        placed.push({ at: [...objAt, lo.base], value, ...(typed ? { texts: typed } : {}) });
      }
      const li = find(key);
      if (ti === -1) pairs[li] = [lo.base, next];
      else {
        pairs[ti] = [lo.base, next];
        pairs.splice(li, 1);
      }
      changes.push({ path: at, action: lo.append ? 'append' : 'json', detail });
    }
    const out: Obj = {};
    // A pair still under its own key holds the input's value; a repaired one, a new value.
    for (const [k, v] of pairs) out[k] = repair(v, joinPath(base, k), [...objAt, k], src && Object.hasOwn(obj, k) && obj[k] === v ? [...src, k] : null);
    return out;
  };

  const repair = (value: JsonValue, base: string, at: Path, src: Path | null): JsonValue => {
    if (Array.isArray(value)) return value.map((v, i) => repair(v, joinPath(base, i), [...at, i], src && [...src, i]));
    if (isObj(value)) return repairObject(value, base, at, src);
    return value;
  };

  const doc = repair(input, '', [], []) as JsonObject;
  if (texts) {
    for (const p of placed) {
      if ('from' in p) {
        // By content key and by position, as every move carries texts.
        const [fromKey, fromPosition] = literalPlace(input, p.from);
        const [toKey, toPosition] = literalPlace(doc, p.at);
        rebaseTexts(texts, fromKey, toKey, texts);
        rebaseTexts(texts, fromPosition, toPosition, texts);
      }
      else keepTypedTexts(doc, p.at, p, texts);
    }
  }
  const version = doc.protocol_version;
  // A version written as a number (1.0, 1.1: a hand or a YAML-minded tool dropped the quotes) is
  // the wire version its text is (wire-version.ts: 1.10 is not 1.1), stamped as the protocol writes it.
  const text = versionText(version, (v) => numberTextIn(doc, () => texts)(v, ['protocol_version']));
  // 1 or "1" is version 1, read as its first, 1.0 (wire-version.ts).
  const read = text === undefined ? undefined : unquotedWireVersion(text);
  const was = version === MIGRATE_FROM ? `"${MIGRATE_FROM}"`
    : typeof version === 'number' && read === text ? `a number where the protocol writes the string "${text}"`
    : read !== undefined && version !== MIGRATE_TO ? `${typeof version === 'number' ? `the number ${text}` : `"${text}"`}, read as "${read}"`
    : null;
  const differs = typeof version === 'number' ? notTheVersion(text!, version) : null;
  if (was !== null) {
    doc.protocol_version = MIGRATE_TO;
    // True of this file: the repairs, when there are any, are listed after it.
    const also = changes.length ? `; and ${changes.length} leftover${changes.length === 1 ? '' : 's'} of older update parsers repaired (below)` : '; no other data changes';
    changes.unshift({ path: 'protocol_version', action: 'stamp', detail: `stamped "${MIGRATE_TO}" (was ${was})${also}` });
  } else if (version !== MIGRATE_TO) {
    // Not a version this sweep knows how to bring to 1.1: said, so "nothing to migrate" never hides it.
    problems.unshift({
      path: 'protocol_version',
      message: `left as is: ${version === undefined ? 'missing' : `${typeof version === 'number' ? `${text}${differs === null ? '' : ` (${differs})`}` : JSON.stringify(version)} is no wire version migrate knows`} (it stamps "${MIGRATE_FROM}" as "${MIGRATE_TO}"); write "${MIGRATE_TO}" there by hand if the file is of this protocol (any checkpoint update also stamps it)`,
    });
  }
  return { doc, changes, problems, changed: changes.length > 0 };
}
