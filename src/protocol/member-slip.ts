// A member name one level down that is a slip for one the protocol defines there: a blocker's
// "neds" (needs), a row's "stauts", `context_primer.key-decisions`, `cost.total-usd`. Written as
// given, such a member is read by nobody: resume never asks about the blocker's decision, the
// budget gate never sees the spend. The members come from the schema; the slip rule is the one
// top-level fields use (field-slip.ts). Pure.
import schema from './schema.json' with { type: 'json' };
import { memberSlipOf } from './field-slip.js';
import type { JsonValue } from './types.js';

type Props = { properties?: Record<string, unknown>; items?: Props & { oneOf?: Props[] }; oneOf?: Props[] };

interface Members {
  list: boolean;
  names: readonly string[];
  /** The schema pointer of the object holding them (each member's is this plus `/<name>`). */
  pointer: string;
}

/** The members the schema names for an object field, or for each item of a list field. */
function membersOf(name: string, field: Props | undefined): Members | null {
  if (!field) return null;
  const at = `#/properties/${name}`;
  if (field.properties) return { list: false, names: Object.keys(field.properties), pointer: `${at}/properties` };
  const item = field.items;
  if (item?.properties) return { list: true, names: Object.keys(item.properties), pointer: `${at}/items/properties` };
  const k = item?.oneOf?.findIndex((o) => o.properties) ?? -1;
  return k >= 0 ? { list: true, names: Object.keys(item!.oneOf![k]!.properties!), pointer: `${at}/items/oneOf/${k}/properties` } : null;
}

const FIELDS = schema.properties as Record<string, Props>;

/** Protocol fields whose members (or whose items' members) are the schema's own; skill_state and capsule aside (the project's, and a fixed shape). */
const KNOWN: ReadonlyMap<string, Members> = new Map(
  ['context_primer', 'cost', 'blockers', 'progress_table', 'next_actions', 'recently_done', 'eval_scores', 'pm_refs'].flatMap((name) => {
    const m = membersOf(name, FIELDS[name]);
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

/** What memberSlip asks of the file and the schema. */
export interface MemberSlipContext {
  /** The file's value at a path (undefined: none there). */
  at: (path: readonly (string | number)[]) => unknown;
  /** Whether `value` is valid where the schema pointer `pointer` stands. */
  fits: (pointer: string, value: unknown) => boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const WHERE: Record<string, string> = { blockers: 'a blocker', progress_table: 'a progress_table row', next_actions: 'an action', recently_done: 'a recently_done entry', eval_scores: 'an eval_scores entry', pm_refs: 'a pm_ref' };

/**
 * The first member an update would write below a protocol field that is a slip for one the
 * protocol defines there: by its path (`blockers.0.neds`, `context_primer.key-decisions`) or in
 * the object it writes (`--blockers+:json={"neds": …}`). Not a slip, as at the top level, when
 * its value would not fit the member it nearly names (`"scorer": "claude-opus"` beside `score`,
 * `"state": "draft"` beside `status`), when the object it is given in also gives that member
 * (`iid` beside `id`, `test` beside `text`), or when the file already keeps a member of that name
 * there or on another item of the list: then it is the project's own.
 */
export function memberSlip(path: readonly string[], value: JsonValue, append: boolean, ctx: MemberSlipContext): MemberSlip | null {
  const field = path[0];
  const known = field === undefined ? undefined : KNOWN.get(field);
  if (!known) return null;
  const where = known.list ? WHERE[field!] ?? `an item of ${field}` : field!;
  const list = known.list ? ctx.at([field!]) : undefined;
  const keptOnAnItem = (name: string) => Array.isArray(list) && list.some((item) => isObject(item) && Object.hasOwn(item, name));
  // `beside`: the members given with it in one object (one named beside the member it nearly names is meant as another).
  const check = (name: string, given: unknown, beside: Record<string, unknown>): MemberSlip | null => {
    if (known.names.includes(name) || keptOnAnItem(name)) return null;
    const meant = memberSlipOf(name, known.names, true);
    if (meant === null || Object.hasOwn(beside, meant) || !ctx.fits(`${known.pointer}/${meant}`, given)) return null;
    return { given: name, meant, where };
  };
  const depth = known.list ? 2 : 1;
  const existing = (at: readonly (string | number)[]): Record<string, unknown> => {
    const v = ctx.at(at);
    return isObject(v) ? v : {};
  };
  if (path.length > depth) {
    const holderPath = path.slice(0, depth);
    if (path.length > depth + 1) return null; // deeper: inside a member's own value
    // Set alone on an item: a slip for the member it nearly names even where the item has that one (`--progress_table.0.stauts=complete`).
    return Object.hasOwn(existing(holderPath), path[depth]!) ? null : check(path[depth]!, append ? [value] : value, {});
  }
  // The value is the object (an item appended or set, or the field itself): its own keys.
  const holderValue = path.length === depth || (known.list && append && path.length === 1);
  const wholeList = known.list && path.length === 1 && !append;
  const objects = holderValue ? [value] : wholeList && Array.isArray(value) ? value : [];
  let found: MemberSlip | null = null;
  objects.forEach((object, i) => {
    if (!isObject(object)) return;
    // The item as it will stand: a new one (appended) holds only what is given; a set one merges into the file's.
    const before = holderValue ? (append ? {} : existing(path)) : existing([...path, i]);
    for (const name of Object.keys(object)) if (!Object.hasOwn(before, name)) found ??= check(name, object[name], object);
  });
  return found;
}
