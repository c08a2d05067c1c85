// Fields kept one level down that people and agents also write at the top level:
// generated_files (the protocol keeps it under context_primer) and verified_for_sha (a skill's
// own state: under skill_state, where doctor reads it). The one place that says where each is:
// doctor checks both places, validate names the field's home, update notes the op that writes
// there. The top-level copy is never moved or dropped; merge treats it as any field of a
// project's own. Pure.
import { joinPath } from './path.js';
import { ownValue } from './identity.js';
import type { JsonValue } from './types.js';

/**
 * Each such field's home (the field holding it), and whether the protocol itself names it there:
 * a session resuming by the protocol reads context_primer.generated_files alone, while
 * verified_for_sha is no protocol field (skill_state is where the protocol keeps a skill's own
 * state), so a top-level one is only advice.
 */
export const FIELD_HOMES = {
  generated_files: { home: 'context_primer', protocol: true },
  verified_for_sha: { home: 'skill_state', protocol: false },
} as const;

export type HomedField = keyof typeof FIELD_HOMES;

/** Where each is read: "context_primer.generated_files". */
export const homePath = (field: HomedField): string => `${FIELD_HOMES[field].home}.${field}`;

/** The field a top-level key is when it is one kept one level down (`generated_files`), else null. */
export function homedField(key: string): HomedField | null {
  return Object.hasOwn(FIELD_HOMES, key) ? (key as HomedField) : null;
}

/** A value of a field where it stands, with its JSON path as findings name it. */
export interface FieldPlace {
  path: string;
  value: unknown;
}

/** `field` where `doc` holds it: its home first, then the top level. */
export function fieldPlaces(doc: unknown, field: HomedField): FieldPlace[] {
  // Own keys only, as every reader of a file's fields (identity.ts ownValue).
  const json = doc as JsonValue | undefined;
  const [atHome, atTop] = [ownValue(ownValue(json, FIELD_HOMES[field].home), field), ownValue(json, field)];
  return [...(atHome === undefined ? [] : [{ path: homePath(field), value: atHome }]), ...(atTop === undefined ? [] : [{ path: field, value: atTop }])];
}

/** One entry of a list field, with its JSON path (`generated_files[2]`). */
export interface ListEntry {
  path: string;
  entry: unknown;
}

/**
 * The entries of list `field` in every place, in order (home first). A string where the list
 * belongs is one entry, at the field's own path: readers take a primer's string so (repairable.ts),
 * and a top-level one is written the same way.
 */
export function listEntries(doc: unknown, field: HomedField): ListEntry[] {
  return fieldPlaces(doc, field).flatMap(({ path, value }) =>
    Array.isArray(value) ? value.map((entry, i) => ({ path: joinPath(path, i), entry })) : typeof value === 'string' ? [{ path, entry: value }] : [],
  );
}

/** Why `field` belongs in its home, as validate's warning and update's note say it. */
export function whyHome(field: HomedField): string {
  const { home, protocol } = FIELD_HOMES[field];
  return protocol ? `the protocol keeps ${field} under ${home}, where a resuming session reads it` : `the protocol keeps a skill's own state under ${home}`;
}

/** What validate says of `field` written at the top level: where it belongs, and that doctor still checks it. */
export const topLevelMessage = (field: HomedField): string => `written at the top level; ${whyHome(field)}: move it to ${homePath(field)} (doctor checks it in either place)`;
