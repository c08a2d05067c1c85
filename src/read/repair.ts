// Why a checkpoint needs repair and what to do, as every reader names it (status, next, list,
// show): apart from agenda.ts so a reader that walks no history (show) loads none of it.
import { basename } from 'node:path';
import { handRepair, unreadableErrors } from '../protocol/repairable.js';
import { REQUIRED_FIELDS } from '../protocol/fields.js';
import type { Issue } from '../protocol/validate.js';
import { placeholder } from '../shell-words.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import type { Loaded } from './load.js';

/** Why a checkpoint needs repair, and how: one line for `next` and `status` to print on stdout. */
export function repairReason(b: Loaded): string {
  if (b.misnamed) return b.problem!; // names the file and the rename
  if (b.conflict) return `${b.problem} (${b.conflict.repair})`; // each way out of the merge, named
  const first = blockingError(b);
  const what = b.problem ?? (first ? `${first.path}: ${first.message}` : 'invalid');
  const how = needsResolve(b) ? 'checkpoint resolve' : 'checkpoint validate';
  const hand = !b.problem && first ? (handRepair(first) ?? setMissing(b, first)) : null;
  return `${what} (${hand ? `${hand}; then ` : ''}${how} .checkpoints/${b.skill}.checkpoint.json)`;
}

/** Every write stamps these; update refuses to set them. */
const STAMPED = new Set(['protocol_version', 'updated_at']);

/**
 * For an error at a required field the file lacks or leaves blank: the update that sets it (the
 * value is the user's), else null. Read from the file, not from the error's words.
 */
function setMissing(b: Loaded, e: Issue): string | null {
  const field = e.path;
  if (!REQUIRED.has(field) || STAMPED.has(field)) return null;
  const doc = b.file?.value;
  const v = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>)[field] : undefined;
  return v === undefined || (typeof v === 'string' && !v.trim()) ? `set it: checkpoint update ${b.skill} --${field}=${placeholder(field)}` : null;
}

const REQUIRED: ReadonlySet<string> = new Set(REQUIRED_FIELDS);

/**
 * The error to name first: one no hand-written slip covers, since slips alone would not have
 * kept the file from being read (a created_at written "2026-12-01 10:00" beside a row without a
 * label: the row is why, and named so the user fixes that first).
 */
export function blockingError(b: Loaded): Issue | undefined {
  const errors = b.validation?.errors ?? [];
  return (b.file && errors.length > 1 ? unreadableErrors(b.file.value, errors, b.skill, () => b.file!.format.texts)[0] : undefined) ?? errors[0];
}

/** Whether `b` is unreadable because a merge left it conflicted: `checkpoint resolve` repairs it, never `reset`. */
export function needsResolve(b: Loaded): boolean {
  if (b.conflict) return true;
  const first = b.validation?.errors[0];
  return /conflict/i.test(b.problem ?? (first ? `${first.path}: ${first.message}` : ''));
}

/**
 * A checkpoint that needs repair as --json gives it: the skill, why and what to do; a misnamed
 * file also by its real name (`skill` its stem, `file` its path), which JSON escapes itself; one
 * git's index holds unmerged also by the conflict's code (`conflict`: UU, AA, DU, UD, AU, UA, DD).
 */
export function repairEntry(b: Loaded): { skill: string; problem: string; file?: string; conflict?: string } {
  return { skill: b.skill, problem: repairReason(b), ...(b.misnamed ? { file: `${CHECKPOINTS_DIR}/${basename(b.path)}` } : {}), ...(b.conflict ? { conflict: b.conflict.code } : {}) };
}
