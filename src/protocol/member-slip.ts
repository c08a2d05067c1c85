// A member name one level down that is a slip for one the protocol defines there: a blocker's
// "neds" (needs), a row's "stauts", `context_primer.key-decisions`, `cost.total-usd`. Written as
// given, such a member is read by nobody: resume never asks about the blocker's decision, the
// budget gate never sees the spend. The members come from the schema; the slip rule is the one
// top-level fields use (field-slip.ts). Pure.
import schema from './schema.json' with { type: 'json' };
import { memberSlipOf } from './field-slip.js';
import type { JsonValue } from './types.js';

type Props = { properties?: Record<string, unknown>; items?: Props & { oneOf?: Props[] }; oneOf?: Props[] };

/** The members the schema names for an object field, or for each item of a list field. */
function membersOf(field: Props | undefined): { list: boolean; names: string[] } | null {
  if (!field) return null;
  if (field.properties) return { list: false, names: Object.keys(field.properties) };
  const item = field.items;
  const shape = item?.properties ? item : item?.oneOf?.find((o) => o.properties);
  return shape?.properties ? { list: true, names: Object.keys(shape.properties) } : null;
}

const FIELDS = schema.properties as Record<string, Props>;

/** Protocol fields whose members (or whose items' members) are the schema's own; skill_state and capsule aside (the project's, and a fixed shape). */
const KNOWN: ReadonlyMap<string, { list: boolean; names: readonly string[] }> = new Map(
  ['context_primer', 'cost', 'blockers', 'progress_table', 'next_actions', 'recently_done', 'eval_scores', 'pm_refs'].flatMap((name) => {
    const m = membersOf(FIELDS[name]);
    return m ? [[name, m] as const] : [];
  }),
);

export interface MemberSlip {
  /** The member as given, and the one it most likely means. */
  given: string;
  meant: string;
  /** Where it stands, in words: "a blocker", "context_primer". */
  where: string;
}

const isObject = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);
const WHERE: Record<string, string> = { blockers: 'a blocker', progress_table: 'a progress_table row', next_actions: 'an action', recently_done: 'a recently_done entry', eval_scores: 'an eval_scores entry', pm_refs: 'a pm_ref' };

/**
 * The first member an update would write below a protocol field that is a slip for one the
 * protocol defines there: by its path (`blockers.0.neds`, `context_primer.key-decisions`) or in
 * the object it writes (`--blockers+:json={"neds": …}`). `has(path)`: whether the file already
 * holds a value there (a member the project already keeps is its own).
 */
export function memberSlip(path: readonly string[], value: JsonValue, append: boolean, has: (path: readonly (string | number)[]) => boolean): MemberSlip | null {
  const field = path[0];
  const known = field === undefined ? undefined : KNOWN.get(field);
  if (!known) return null;
  const where = known.list ? WHERE[field!] ?? `an item of ${field}` : field!;
  // Where the object holding the members stands, and the members named on the way there.
  const depth = known.list ? 2 : 1;
  // `at` null: a new item, holding nothing yet.
  const check = (name: string, at: readonly (string | number)[] | null): MemberSlip | null => {
    if (known.names.includes(name) || (at !== null && has(at))) return null;
    const meant = memberSlipOf(name, known.names);
    return meant === null ? null : { given: name, meant, where };
  };
  if (path.length > depth) return check(path[depth]!, path.slice(0, depth + 1));
  // The value is the object (an item appended or set, or the field itself): its own keys.
  const holder = path.length === depth || (known.list && append && path.length === 1);
  const wholeList = known.list && path.length === 1 && !append;
  const objects = holder ? [value] : wholeList && Array.isArray(value) ? value : [];
  let found: MemberSlip | null = null;
  objects.forEach((object, i) => {
    if (!isObject(object)) return;
    // Where each member would stand in the file: an appended item is new.
    const base = holder ? (append ? null : path) : [...path, i];
    for (const name of Object.keys(object)) found ??= check(name, base === null ? null : [...base, name]);
  });
  return found;
}
