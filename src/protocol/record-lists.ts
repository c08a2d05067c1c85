// The protocol lists whose entries are records with one text of their own (blockers,
// progress_table), and the record a text becomes in one: update names it when it refuses text
// for such a list, and a fix that keeps a status's reason in a new blocker appends it. Pure.
import type { JsonObject } from './types.js';

/**
 * An entry's id prefix, the key its words go under and the other keys it needs (as a new entry of
 * its own kind holds them). Written by hand as a map instead, an entry's key names it (`keyNames`:
 * the members the key fills) and a text entry is its `mapText` (`"b1": "need key"`, a row's
 * `"planning": "complete"`).
 */
export interface RecordKind {
  idPrefix: string;
  textKey: string;
  rest: JsonObject;
  keyNames: readonly string[];
  mapText: string;
}

export const RECORD_LISTS: Readonly<Record<string, RecordKind>> = {
  blockers: { idPrefix: 'b', textKey: 'description', rest: {}, keyNames: ['id'], mapText: 'description' },
  progress_table: { idPrefix: 'row', textKey: 'label', rest: { status: 'not_started' }, keyNames: ['id', 'label'], mapText: 'status' },
};

/** The kind of record list `field` is, or undefined for any other field. */
export const recordKind = (field: string): RecordKind | undefined => (Object.hasOwn(RECORD_LISTS, field) ? RECORD_LISTS[field] : undefined);

/** `text` as a new entry of record list `kind`, after `current`: its words under the next id free in it. */
export function newRecord(kind: RecordKind, text: string, current: readonly unknown[] | undefined): JsonObject {
  const taken = new Set((current ?? []).map((e) => (typeof e === 'object' && e !== null && !Array.isArray(e) ? String((e as JsonObject).id) : '')));
  let n = (current?.length ?? 0) + 1;
  while (taken.has(`${kind.idPrefix}${n}`)) n++;
  return { id: `${kind.idPrefix}${n}`, [kind.textKey]: text, ...kind.rest };
}
