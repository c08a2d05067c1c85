// The recovery capsule (recovery-capsule.md): seven fields a session saves before its
// context is compacted and reads first afterwards. Strict and bounded: anything invalid
// or oversized is refused with the reason, never truncated.

import type { Capsule, CapsuleContext } from './types.js';

export const CAPSULE_INPUT_MAX_BYTES = 12_000;
export const CAPSULE_STORED_MAX_BYTES = 16_384;
export const CAPSULE_LIST_MAX_ITEMS = 12;

export const CAPSULE_TEXT_FIELDS = ['goal', 'acceptance', 'next'] as const;
export const CAPSULE_LIST_FIELDS = ['constraints', 'decisions', 'evidence', 'pending'] as const;
const CAPSULE_FIELDS: readonly string[] = [...CAPSULE_TEXT_FIELDS, ...CAPSULE_LIST_FIELDS];

export interface CapsuleProblem {
  path: string;
  message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Problems with the seven-field context object (empty list when valid). */
export function validateCapsuleContext(context: unknown, base = 'context'): CapsuleProblem[] {
  const problems: CapsuleProblem[] = [];
  if (!isObj(context)) return [{ path: base, message: 'the capsule context must be a JSON object with the seven fields' }];
  for (const key of Object.keys(context)) {
    if (!CAPSULE_FIELDS.includes(key)) problems.push({ path: `${base}.${key}`, message: `unknown field "${key}" (allowed: ${CAPSULE_FIELDS.join(', ')})` });
  }
  for (const key of CAPSULE_TEXT_FIELDS) {
    const v = context[key];
    if (typeof v !== 'string' || !v.trim()) problems.push({ path: `${base}.${key}`, message: `"${key}" must be a non-empty string` });
  }
  for (const key of CAPSULE_LIST_FIELDS) {
    const v = context[key];
    if (!Array.isArray(v)) {
      problems.push({ path: `${base}.${key}`, message: `"${key}" must be an array of non-empty strings (empty means none)` });
      continue;
    }
    if (v.length > CAPSULE_LIST_MAX_ITEMS) problems.push({ path: `${base}.${key}`, message: `"${key}" has ${v.length} items (at most ${CAPSULE_LIST_MAX_ITEMS}); use references to files instead` });
    v.forEach((item, i) => {
      if (typeof item !== 'string' || !item.trim()) problems.push({ path: `${base}.${key}[${i}]`, message: 'must be a non-empty string' });
    });
  }
  return problems;
}

/** Problems with a stored capsule (context + origin + optional mechanical state). */
export function validateCapsule(capsule: unknown): CapsuleProblem[] {
  if (!isObj(capsule)) return [{ path: '', message: 'capsule must be an object' }];
  const problems = validateCapsuleContext(capsule.context);
  const origin = capsule.origin;
  if (!isObj(origin) || typeof origin.root !== 'string' || typeof origin.saved_at !== 'string' || !(origin.head === null || typeof origin.head === 'string')) {
    problems.push({ path: 'origin', message: 'origin must be {root, head, saved_at}' });
  }
  if (capsule.mechanical !== undefined && !isObj(capsule.mechanical)) problems.push({ path: 'mechanical', message: 'mechanical must be an object' });
  for (const key of Object.keys(capsule)) {
    if (!['context', 'origin', 'mechanical'].includes(key)) problems.push({ path: key, message: `unknown capsule field "${key}"` });
  }
  const size = utf8Bytes(JSON.stringify(capsule));
  if (size > CAPSULE_STORED_MAX_BYTES) problems.push({ path: '', message: `stored capsule is ${size} bytes (at most ${CAPSULE_STORED_MAX_BYTES})` });
  return problems;
}

export function isCapsuleContext(v: unknown): v is CapsuleContext {
  return validateCapsuleContext(v).length === 0;
}

/** What `pause` observes of the repository (read at the I/O edge). */
export interface MechanicalState {
  head: string | null;
  branch: string | null;
  uncommitted: string[];
  uncommitted_count: number;
}

export type Mechanical = NonNullable<Capsule['mechanical']> & { uncommitted_count: number };

/** The seven fields in the protocol's order (the input's order is not kept). */
export function orderedContext(c: CapsuleContext): CapsuleContext {
  const pick = (k: string) => (c as unknown as Record<string, unknown>)[k];
  const out: Record<string, unknown> = {};
  for (const k of ['goal', 'acceptance', ...CAPSULE_LIST_FIELDS, 'next'] as const) out[k] = pick(k);
  return out as unknown as CapsuleContext;
}

/**
 * The capsule with mechanical state attached, listing as many uncommitted paths as fit
 * within CAPSULE_STORED_MAX_BYTES (the count stays exact); without mechanical state when
 * even an empty list does not fit. Pure.
 */
export function withMechanical(base: Pick<Capsule, 'context' | 'origin'>, state: MechanicalState, at: string): Capsule {
  let n = state.uncommitted.length;
  for (;;) {
    const mechanical: Mechanical = { head: state.head, branch: state.branch, uncommitted: state.uncommitted.slice(0, n), uncommitted_count: state.uncommitted_count, at };
    const capsule: Capsule = { context: base.context, origin: base.origin, mechanical };
    if (utf8Bytes(JSON.stringify(capsule)) <= CAPSULE_STORED_MAX_BYTES) return capsule;
    if (n === 0) return { context: base.context, origin: base.origin };
    n = Math.floor(n / 2);
  }
}
