// The recovery capsule (recovery-capsule.md): seven fields a session saves before its
// context is compacted and reads first afterwards. Strict and bounded: anything invalid
// or oversized is refused with the reason, never truncated. Its shape (the fields, which are
// lists, at most how many items, the messages) is schema.json's `capsule`, walked by
// shape-check.ts; this module adds what a schema cannot state: the byte budgets.

import schema from './schema.json' with { type: 'json' };
import { ShapeChecker, type Shape } from './shape-check.js';
import { isJsonObject } from './identity.js';
import { hasNoZone, instantMs, isIsoInstant } from './instant.js';
import { CAPSULE_FIELDS, type Capsule, type CapsuleContext, type JsonObject, type JsonValue } from './types.js';

export { CAPSULE_FIELDS };

export const CAPSULE_INPUT_MAX_BYTES = 12_000;
export const CAPSULE_STORED_MAX_BYTES = 16_384;

const CAPSULE = '#/properties/capsule';
const CONTEXT = `${CAPSULE}/properties/context`;
const shape = new ShapeChecker(schema as unknown as Shape);

export interface CapsuleProblem {
  path: string;
  message: string;
}

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * The size CAPSULE_INPUT_MAX_BYTES limits ("Input is at most 12000 UTF-8 bytes"): the capsule's
 * parsed value as compact JSON, in UTF-8 bytes, as the stored capsule is measured. How the input
 * was written (indentation, `\u00e9` escapes) does not count, so a capsule saved by Python's
 * json.dump(indent=2) and the same capsule sent to the MCP pause tool measure the same.
 */
export function capsuleInputBytes(parsed: JsonValue): number {
  return utf8Bytes(JSON.stringify(parsed));
}

/** The schema's problems with `value` at `pointer`, paths from `base` ('' for the capsule itself). */
function problemsAt(pointer: string, value: unknown, base: string[]): CapsuleProblem[] {
  const problems: CapsuleProblem[] = [];
  shape.checkAt(pointer, value, (path, message) => problems.push({ path: path === '(root)' ? '' : path, message }), base);
  return problems;
}

/** Problems with the seven-field context object (empty list when valid). */
export function validateCapsuleContext(context: unknown): CapsuleProblem[] {
  return problemsAt(CONTEXT, context, ['context']);
}

/** The stored capsule's size problem, or null: the one rule the schema cannot state. */
export function capsuleSizeProblem(capsule: unknown): string | null {
  const size = utf8Bytes(JSON.stringify(capsule) ?? '');
  return size > CAPSULE_STORED_MAX_BYTES ? `stored capsule is ${size} bytes (at most ${CAPSULE_STORED_MAX_BYTES})` : null;
}

/** Problems with a stored capsule (context + origin + optional mechanical state, and its size). */
export function validateCapsule(capsule: unknown): CapsuleProblem[] {
  const problems = problemsAt(CAPSULE, capsule, []);
  const size = capsuleSizeProblem(capsule);
  if (size !== null) problems.push({ path: '', message: size });
  return problems;
}

/**
 * When `pause` last wrote a stored capsule, in ms since the epoch: the later of its mechanical
 * state's `at` (every pause writes it, `--auto` included) and its origin's `saved_at` (what
 * `--context` wrote); -Infinity when neither is an instant. The PreCompact hook's `pause <skill>
 * --auto` runs just before compaction, so the capsule written last is the compacted session's
 * unless another pause ran after it. Pure.
 */
export function lastPausedAt(capsule: unknown): number {
  const at = (part: unknown, key: string): number => {
    const v = isJsonObject(part as JsonValue) ? (part as JsonObject)[key] : undefined;
    // A time written without its zone (Python's utcnow().isoformat()) as UTC, as every reader takes it.
    const ms = isIsoInstant(v) ? Date.parse(v) : typeof v === 'string' && hasNoZone(v) ? instantMs(v) : NaN;
    return Number.isNaN(ms) ? -Infinity : ms;
  };
  if (!isJsonObject(capsule as JsonValue)) return -Infinity;
  const c = capsule as JsonObject;
  return Math.max(at(c.mechanical, 'at'), at(c.origin, 'saved_at'));
}

/** Whether the capsule field `k` holds a list (constraints, ...) rather than one text. */
const isList = (k: string) => shape.node(`${CONTEXT}/properties/${k}`).type === 'array';

/** The seven fields as a reader sees them, lists marked: `{goal, acceptance, constraints[], ..., next}`. */
export function capsuleFieldsText(): string {
  return `{${CAPSULE_FIELDS.map((k) => (isList(k) ? `${k}[]` : k)).join(', ')}}`;
}

/** What `pause` observes of the repository (read at the I/O edge). */
export interface MechanicalState {
  /** Short sha of HEAD, or null (no repository, no commit yet, or no git). */
  head: string | null;
  /** Current branch, or null (detached HEAD, no repository, or no git). */
  branch: string | null;
  /** The first changed or untracked paths (store/git-state.ts MAX_UNCOMMITTED_PATHS), git's order; null when git could not read the index (not known, so not stored). */
  uncommitted: string[] | null;
  /** How many there are in all; null with uncommitted. */
  uncommitted_count: number | null;
}

export type Mechanical = NonNullable<Capsule['mechanical']> & { uncommitted_count?: number };

/** The seven fields in the protocol's order (the input's order is not kept). */
export function orderedContext(c: CapsuleContext): CapsuleContext {
  const out: Record<string, unknown> = {};
  for (const k of CAPSULE_FIELDS) out[k] = c[k];
  return out as unknown as CapsuleContext;
}

/** What `pause` itself writes into `mechanical`; any other key there is the user's and is kept. */
const MECHANICAL_KEYS: ReadonlySet<string> = new Set(['head', 'branch', 'uncommitted', 'uncommitted_count', 'at']);
/** The capsule's own parts; any other top-level key is the user's and is kept. */
const CAPSULE_PARTS: ReadonlySet<string> = new Set(['context', 'origin', 'mechanical']);

/** What `pause` itself writes into `context` and `origin`; any other key there is the user's and is kept. */
const CONTEXT_KEYS: ReadonlySet<string> = new Set(CAPSULE_FIELDS);
const ORIGIN_KEYS: ReadonlySet<string> = new Set(['root', 'head', 'saved_at']);
const PART_KEYS: ReadonlyArray<readonly ['context' | 'origin' | 'mechanical', ReadonlySet<string>]> = [['context', CONTEXT_KEYS], ['origin', ORIGIN_KEYS], ['mechanical', MECHANICAL_KEYS]];

/** The members of `part` (a stored capsule's context, origin or mechanical) that pause does not write. */
function foreignIn(part: JsonValue | undefined, own: ReadonlySet<string>): JsonObject {
  return isJsonObject(part) ? Object.fromEntries(Object.entries(part).filter(([k]) => !own.has(k))) : {};
}

/** Keys a stored capsule holds that `pause` does not write (kept by every pause: nothing is dropped). */
export function foreignCapsuleKeys(capsule: JsonValue | undefined): string[] {
  if (!isJsonObject(capsule)) return [];
  const own = Object.keys(capsule).filter((k) => !CAPSULE_PARTS.has(k));
  return [...own, ...PART_KEYS.flatMap(([part, keys]) => Object.keys(foreignIn(capsule[part], keys)).map((k) => `${part}.${k}`))];
}

/**
 * The stored capsule without the keys foreignCapsuleKeys names: what the protocol defines, as a
 * reader checks and shows it (a user's `my_notes` beside it is theirs, kept by pause, not a claim).
 */
export function ownCapsule(capsule: JsonValue): JsonValue {
  if (!isJsonObject(capsule)) return capsule;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(capsule)) {
    if (!CAPSULE_PARTS.has(k)) continue;
    const own = PART_KEYS.find(([part]) => part === k)![1];
    out[k] = isJsonObject(v) ? Object.fromEntries(Object.entries(v).filter(([key]) => own.has(key))) : v;
  }
  return out;
}

/**
 * `base` (context, origin) with fresh mechanical state, laid into `old` (the stored capsule,
 * when it is an object): its other keys, and the other keys of its context, origin and
 * mechanical, stay in their order.
 */
function assemble(old: JsonObject | null, base: Pick<Capsule, 'context' | 'origin'>, mechanical: Mechanical | undefined): Capsule {
  const extra = foreignIn(old?.mechanical, MECHANICAL_KEYS);
  const mech = mechanical ? { ...mechanical, ...extra } : Object.keys(extra).length ? extra : undefined;
  // New claims and origin replace the old ones; a note of the user's beside them (context.notes) stays.
  const keep = (given: unknown, part: 'context' | 'origin', own: ReadonlySet<string>): unknown => (isJsonObject(given as JsonValue) ? { ...(given as JsonObject), ...foreignIn(old?.[part], own) } : given);
  const parts: Record<string, unknown> = { context: keep(base.context, 'context', CONTEXT_KEYS), origin: keep(base.origin, 'origin', ORIGIN_KEYS), mechanical: mech };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(old ?? {})) out[k] = CAPSULE_PARTS.has(k) ? parts[k] : v;
  for (const k of CAPSULE_PARTS) if (!(k in out)) out[k] = parts[k];
  if (out.mechanical === undefined) delete out.mechanical; // never a key holding undefined
  return out as unknown as Capsule;
}

/**
 * The capsule with mechanical state attached, listing as many uncommitted paths as fit
 * within CAPSULE_STORED_MAX_BYTES (the count stays exact); without mechanical state when
 * even an empty list does not fit. `old`: the stored capsule, whose keys pause does not
 * write are kept (a hand-kept note, mechanical.custom). Pure.
 */
export function withMechanical(base: Pick<Capsule, 'context' | 'origin'>, state: MechanicalState, at: string, old: JsonValue | null = null): Capsule {
  const keep = isJsonObject(old ?? undefined) ? (old as JsonObject) : null;
  const paths = state.uncommitted;
  let n = paths?.length ?? 0;
  for (;;) {
    // Unknown paths are left out, never stored as [] (which says "none").
    const mechanical: Mechanical = paths === null
      ? { head: state.head, branch: state.branch, at }
      : { head: state.head, branch: state.branch, uncommitted: paths.slice(0, n), uncommitted_count: state.uncommitted_count ?? paths.length, at };
    const capsule = assemble(keep, base, mechanical);
    if (utf8Bytes(JSON.stringify(capsule)) <= CAPSULE_STORED_MAX_BYTES) return capsule;
    if (n === 0) return assemble(keep, base, undefined);
    n = Math.floor(n / 2);
  }
}

/**
 * The context and origin `pause --auto` keeps from a stored capsule, however it was written:
 * what is there stays as it is, what is missing is filled from `fill` (placeholders that say
 * "not recorded", and an origin the caller chose: pause.ts records one as not known). A capsule without a `context` that holds the seven
 * fields at its top level (written by hand) has them moved into `context`, where readers look.
 * `filled`: the paths that were filled, for the message; `lifted`: the fields moved into `context`. Pure.
 */
export function keptClaims(old: JsonObject, fill: Pick<Capsule, 'context' | 'origin'>): { base: Pick<Capsule, 'context' | 'origin'>; rest: JsonObject; filled: string[]; lifted: string[] } {
  const filled: string[] = [];
  const lifted: string[] = [];
  const rest: JsonObject = { ...old };
  const complete = (have: JsonObject, keys: readonly string[], from: Record<string, unknown>, at: string): JsonObject => {
    const out: JsonObject = { ...have };
    for (const k of keys) {
      if (out[k] !== undefined) continue;
      out[k] = from[k] as JsonValue;
      filled.push(`${at}.${k}`);
    }
    return out;
  };
  let context: JsonValue | undefined = old.context;
  if (context === undefined) {
    const claims: JsonObject = {};
    for (const k of CAPSULE_FIELDS) {
      if (old[k] === undefined) continue;
      claims[k] = old[k]!;
      lifted.push(k);
      delete rest[k];
    }
    context = complete(claims, CAPSULE_FIELDS, fill.context as unknown as Record<string, unknown>, 'context');
  } else if (isJsonObject(context)) {
    context = complete(context, CAPSULE_FIELDS, fill.context as unknown as Record<string, unknown>, 'context');
  }
  let origin: JsonValue | undefined = old.origin;
  if (origin === undefined || isJsonObject(origin)) origin = complete(origin ?? {}, ['root', 'head', 'saved_at'], fill.origin, 'origin');
  // A context or origin that is not an object is left exactly as written (validate names it).
  return { base: { context: context as unknown as CapsuleContext, origin: origin as unknown as Capsule['origin'] }, rest, filled, lifted };
}

/**
 * The claims a capsule written by hand holds at its top level, in the flat shape
 * recovery-capsule.md shows (`"capsule": {"goal": …, "next": …}`, no `context`), when moving them
 * into `context` (what `pause --auto` does, keptClaims) makes a valid capsule; [] otherwise. Such
 * a capsule needs that one move, not a repair by hand: readers name `pause --auto`. Pure.
 */
export function topLevelClaims(capsule: JsonValue | undefined): string[] {
  if (!isJsonObject(capsule) || capsule.context !== undefined) return [];
  const claims = CAPSULE_FIELDS.filter((k) => capsule[k] !== undefined);
  if (!claims.length) return [];
  const unknown = 'not recorded';
  const fill = { context: Object.fromEntries(CAPSULE_FIELDS.map((k) => [k, isList(k) ? [unknown] : unknown])) as unknown as CapsuleContext, origin: { root: '/', head: null, saved_at: unknown } };
  const { base, rest } = keptClaims(capsule, fill);
  return validateCapsule(ownCapsule({ ...rest, ...base } as unknown as JsonValue)).length ? [] : claims;
}
