// The recovery capsule (recovery-capsule.md): seven fields a session saves before its
// context is compacted and reads first afterwards. Strict and bounded: anything invalid
// or oversized is refused with the reason, never truncated. Its shape (the fields, which are
// lists, at most how many items, the messages) is schema.json's `capsule`, walked by
// shape-check.ts; this module adds what a schema cannot state: the byte budgets.

import schema from './schema.json' with { type: 'json' };
import { ShapeChecker, type Shape } from './shape-check.js';
import { CAPSULE_FIELDS, type Capsule, type CapsuleContext } from './types.js';

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

/** The seven fields as a reader sees them, lists marked: `{goal, acceptance, constraints[], ..., next}`. */
export function capsuleFieldsText(): string {
  const isList = (k: string) => shape.node(`${CONTEXT}/properties/${k}`).type === 'array';
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

/**
 * The capsule with mechanical state attached, listing as many uncommitted paths as fit
 * within CAPSULE_STORED_MAX_BYTES (the count stays exact); without mechanical state when
 * even an empty list does not fit. Pure.
 */
export function withMechanical(base: Pick<Capsule, 'context' | 'origin'>, state: MechanicalState, at: string): Capsule {
  const paths = state.uncommitted;
  let n = paths?.length ?? 0;
  for (;;) {
    // Unknown paths are left out, never stored as [] (which says "none").
    const mechanical: Mechanical = paths === null
      ? { head: state.head, branch: state.branch, at }
      : { head: state.head, branch: state.branch, uncommitted: paths.slice(0, n), uncommitted_count: state.uncommitted_count ?? paths.length, at };
    const capsule: Capsule = { context: base.context, origin: base.origin, mechanical };
    if (utf8Bytes(JSON.stringify(capsule)) <= CAPSULE_STORED_MAX_BYTES) return capsule;
    if (n === 0) return { context: base.context, origin: base.origin };
    n = Math.floor(n / 2);
  }
}
