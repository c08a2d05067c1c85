// What a file under .checkpoints/ must be, judged by its name (file-names.ts): a checkpoint
// (named for its skill), an archived checkpoint (reset's stamped name kept), or a rotation
// file. One judgement of a merged result for the merge driver and for the store's write of
// `resolve`'s result, so the two cannot disagree on what a merge may leave behind.
import { fileKind, ROTATION_NAME } from './file-names.js';
import type { JsonValue } from './json-types.js';
import { canonicalJson } from './identity.js';
import { pathKeys } from './path.js';
import { rotationFileProblem } from './rotation.js';
import { MAX_CHECKPOINT_BYTES, validateCheckpoint } from './validate.js';
import { numberTextIn } from './format.js';
import type { LiteralTexts } from './json.js';

export interface FileError {
  path: string;
  message: string;
}

/** A parsed file and its text (the size rules read the text), with its literal texts where known (messages quote a number as written). */
export interface FileContent {
  value: JsonValue;
  text: string;
  texts?: LiteralTexts;
}

function baseName(fileName: string): string {
  return fileName.slice(fileName.replace(/\\/g, '/').lastIndexOf('/') + 1);
}

/**
 * The errors of a file of this name (undefined: a checkpoint whose name is not checked).
 * `known`: documents whose errors the caller discounts (validate.ts ValidateContext.known).
 */
export function fileErrors(fileName: string | undefined, file: FileContent, known?: readonly JsonValue[]): FileError[] {
  const kind = fileName === undefined ? 'checkpoint' : fileKind(fileName);
  if (kind === 'rotation') {
    // The same check rotate and restore use (protocol/rotation.ts).
    const problem = rotationFileProblem(file.value, ROTATION_NAME.exec(baseName(fileName!))?.[1]);
    return problem === null ? [] : [{ path: '(root)', message: `not a rotation file {skill, rotated_at, entries: {<log path>: [...]}}: ${problem}` }];
  }
  // An archive keeps its stamped name: only a live checkpoint's name must be its skill's.
  const name = fileName === undefined || kind === 'archive' ? undefined : baseName(fileName);
  return validateCheckpoint(file.value, { fileName: name, known, sizeBytes: utf8SizeNearCap(file.text), numberText: numberTextIn(file.value, () => file.texts) }).errors;
}

/**
 * The text's size in UTF-8 where it could pass the cap (an error: a merge must not make a file
 * the readers refuse); undefined where it cannot, at up to 3 bytes per UTF-16 unit, so the
 * common file is never encoded just to be measured.
 */
function utf8SizeNearCap(text: string): number | undefined {
  return text.length * 3 <= MAX_CHECKPOINT_BYTES ? undefined : new TextEncoder().encode(text).length;
}

/**
 * The errors of a merged file that none of the sides it was merged from already had: a merge
 * refuses only what it introduced (an error one side committed, a status outside the enum
 * say, is that side's, and blocking two clean appends on it helps no one).
 */
export function introducedErrors(fileName: string | undefined, merged: FileContent, sides: readonly FileContent[]): FileError[] {
  // What the merge took unchanged from a side is that side's: its errors are discounted below.
  return notAlreadyIn(fileName, fileErrors(fileName, merged, sides.map((side) => side.value)), sides, merged.value);
}

/**
 * `errors` of a new text (a merge's, or a command's write) that none of `sides` already had:
 * the rule both the merge driver and the store's writes follow (a write may not make a file
 * worse, but a problem already there does not block a write that leaves it as it was).
 */
export function notAlreadyIn(fileName: string | undefined, errors: FileError[], sides: readonly FileContent[], merged?: JsonValue): FileError[] {
  if (errors.length === 0) return errors;
  // An error at a scalar is the same error only over the same value: a row status "Done ✅"
  // replaced by "bogus" (or by a fix's unfilled placeholder) is a new mistake, not the old one.
  const key = (e: FileError, doc: JsonValue | undefined) => `${e.path}\0${e.message}\0${scalarAt(doc, e.path)}`;
  const sideErrors = sides.map((side) => ({ side, errors: fileErrors(fileName, side) }));
  const already = new Set(sideErrors.flatMap((s) => s.errors.map((e) => key(e, merged === undefined ? undefined : s.side.value))));
  const left = errors.filter((e) => !already.has(key(e, merged)));
  if (left.length === 0 || merged === undefined) return left;
  // A list item a write moved (done puts a record before it, takes an action off the front; a
  // merge adds both sides' records) keeps its own error at another index: matched by the item.
  const moved = new Set(sideErrors.flatMap(({ side, errors: es }) => es.flatMap((e) => itemKey(side.value, e) ?? [])));
  return left.filter((e) => {
    const item = itemKey(merged, e);
    return item === null || !moved.has(item);
  });
}

/** The value at the keys of a validator path in `doc`, own members only (undefined where there is none). */
function valueAt(doc: JsonValue | undefined, keys: readonly (string | number)[]): JsonValue | undefined {
  let node = doc;
  for (const k of keys) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? (typeof k === 'number' ? node[k] : undefined) : typeof k === 'string' && Object.hasOwn(node, k) ? node[k] : undefined;
  }
  return node;
}

/** The JSON text of the scalar at validate's `path` in `doc` ('' for a container, a missing value or no document). */
function scalarAt(doc: JsonValue | undefined, path: string): string {
  const keys = doc === undefined ? null : pathKeys(path);
  const node = keys === null ? undefined : valueAt(doc, keys);
  return node === undefined || (node !== null && typeof node === 'object') ? '' : JSON.stringify(node);
}

const sameJson = (a: JsonValue | undefined, b: JsonValue | undefined) => (a === undefined || b === undefined ? a === b : canonicalJson(a) === canonicalJson(b));

/**
 * Whether a write changed the value at an error's `path` that the file had before it and still
 * has (`blockers` written into, still a map where a list belongs): the error is the file's, but
 * not "left as it was". A list item the write only moved (done takes an action off the front) is unchanged.
 */
export function changedAt(before: JsonValue, after: JsonValue, path: string): boolean {
  const keys = pathKeys(path);
  if (keys === null || sameJson(valueAt(before, keys), valueAt(after, keys))) return false;
  const first = keys.findIndex((k) => typeof k === 'number');
  if (first === -1) return true;
  const item = valueAt(after, keys.slice(0, first + 1));
  const list = valueAt(before, keys.slice(0, first));
  return !(item !== undefined && Array.isArray(list) && list.some((was) => sameJson(was, item)));
}

/**
 * An error inside a list item, keyed by the items' contents instead of their indexes
 * (`recently_done[{...}].at`), or null when the path passes through no list item of `value`.
 */
function itemKey(value: JsonValue, e: FileError): string | null {
  const keys = pathKeys(e.path);
  if (keys === null || !keys.some((k) => typeof k === 'number')) return null;
  let node: JsonValue | undefined = value;
  let out = '';
  for (const k of keys) {
    if (typeof k === 'number') {
      if (!Array.isArray(node) || k >= node.length) return null;
      node = node[k];
      out += `[${JSON.stringify(node)}]`;
    } else {
      node = node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, k) ? node[k] : undefined;
      out += `.${JSON.stringify(k)}`;
    }
  }
  return `${out}\0${e.message}`;
}
