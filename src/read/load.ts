// Loads every checkpoint for the read-side commands, keeping unreadable ones as findings
// instead of aborting: one broken file must not hide the state of the others.
import { lstatSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { CONFLICT_REASON } from '../protocol/json.js';
import { checkpointsIndex, conflictedCheckpoints, conflictReport, type ConflictCode } from '../store/index-conflicts.js';
import type { IndexUnder } from '../git/unmerged.js';
import { validateCheckpoint, type ValidationResult } from '../protocol/validate.js';
import { numberTextIn } from '../protocol/format.js';
import type { Checkpoint, JsonObject } from '../protocol/types.js';
import { checkpointPath, checkpointsDir, display, listCheckpointFiles, readCheckpointFile, type CheckpointFile } from '../store/checkpoints.js';
import { misnamedProblem, misnamedStem } from '../store/skill-name.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { pathArg } from '../store/paste-path.js';
import { Verdicts } from '../store/verdicts.js';
import { readableView, type RepairNote } from '../protocol/repairable.js';
import { stampWrite } from '../protocol/scaffold.js';
import { readChecked } from './checked.js';

export interface Loaded {
  skill: string;
  path: string;
  file?: CheckpointFile;
  /** Present when the file parsed and has no validation errors. */
  checkpoint?: Checkpoint;
  validation?: ValidationResult;
  /** Why the file could not be read or parsed. */
  problem?: string;
  /**
   * A `*.checkpoint.json` whose name is not a valid skill name: never read, shown as needing
   * repair (`skill` is then the file's stem as it is, for --json: text shows it through
   * skillLabel; `problem` says how to rename it).
   */
  misnamed?: true;
  /**
   * git's index holds the file unmerged (withConflicts): the conflict's code (git status's two
   * letters) and what ends it. Such a checkpoint is never read as the state to continue.
   */
  conflict?: { code: ConflictCode; repair: string };
}

/**
 * Every checkpoint, then each misnamed `*.checkpoint.json` as one needing repair (never read); with
 * `verdicts` (read-only callers), files unchanged since judged are not judged again.
 */
export function loadAll(root: string, now: Date, verdicts?: Verdicts): Loaded[] {
  const { skills, misnamed: names } = listCheckpointFiles(root);
  return [...skills.map((skill) => loadOne(root, skill, now, verdicts)), ...names.map((name) => misnamed(root, name))];
}

function misnamed(root: string, name: string): Loaded {
  return { skill: misnamedStem(name), path: join(checkpointsDir(root), name), problem: misnamedProblem(name), misnamed: true };
}

/**
 * The checkpoints (one skill's, or all) as the read-only commands and doctor load them: a file
 * unchanged since a run judged it is not judged again, and what this run judged is kept.
 */
export function loadRemembered(root: string, now: Date, skill?: string): Loaded[] {
  const verdicts = Verdicts.open(root);
  const loaded = skill === undefined ? loadAll(root, now, verdicts) : [loadOne(root, skill, now, verdicts)];
  verdicts.save();
  return loaded;
}

/**
 * `loaded` with every checkpoint git's index holds unmerged marked as such (one skill's, when
 * `only` is given): a file holding conflict markers keeps its reader's message; any other (a
 * modify/delete conflict's changed version, a file settled by hand but not yet staged) is not
 * read as a checkpoint; and one removed from the work tree mid-merge is added, never passed over.
 */
export function withConflicts(root: string, loaded: Loaded[], only?: string, index: IndexUnder | null = checkpointsIndex(root)): Loaded[] {
  const conflicts = conflictedCheckpoints(root, index);
  if (only !== undefined) for (const skill of conflicts.keys()) if (skill !== only) conflicts.delete(skill);
  if (conflicts.size === 0) return loaded;
  const marked = loaded.map((l): Loaded => {
    const code = l.misnamed ? undefined : conflicts.get(l.skill);
    if (code === undefined) return l;
    conflicts.delete(l.skill);
    if (l.problem?.includes(CONFLICT_REASON)) return { ...l, conflict: { code, repair: `checkpoint resolve ${pathArg(root, `${CHECKPOINTS_DIR}/${l.skill}.checkpoint.json`)}` } };
    const report = conflictReport(root, l.skill, code, lstatSync(l.path, { throwIfNoEntry: false }) !== undefined);
    return { skill: l.skill, path: l.path, problem: report.problem, conflict: { code, repair: report.repair } };
  });
  // Gone from the work tree, still in the index: listed with the rest, in their order.
  const gone = [...conflicts].map(([skill, code]): Loaded => {
    const report = conflictReport(root, skill, code, false);
    return { skill, path: checkpointPath(root, skill), problem: report.problem, conflict: { code, repair: report.repair } };
  });
  if (gone.length === 0) return marked;
  const named = [...marked.filter((l) => !l.misnamed), ...gone].sort((a, b) => (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0));
  return [...named, ...marked.filter((l) => l.misnamed)];
}

export function loadOne(root: string, skill: string, now: Date, verdicts?: Verdicts): Loaded {
  const path = checkpointPath(root, skill);
  try {
    let file: CheckpointFile;
    let validation: ValidationResult;
    if (verdicts) {
      const checked = readChecked(root, path, { fileName: basename(path), now, verdicts, needValue: true });
      if (checked === null) throw new CheckpointError('E_NOT_FOUND', `${display(root, path)} does not exist`);
      file = checked.file!;
      validation = checked.validation;
    } else {
      file = readCheckpointFile(root, path);
      validation = validateCheckpoint(file.value, { fileName: basename(path), now, sizeBytes: file.sizeBytes, numberText: numberTextIn(file.value, () => file.format.texts) });
    }
    return { skill, path, file, validation, ...(validation.errors.length ? {} : { checkpoint: file.value as unknown as Checkpoint }) };
  } catch (e) {
    if (!isCheckpointError(e)) throw e;
    return { skill, path, problem: e.message };
  }
}

/** A loaded checkpoint as the read-side commands and doctor read it. */
export interface Readable {
  /** As meant: what ranking, staleness and drift checks read (a slip's clear did-you-mean applied). */
  checkpoint: Checkpoint;
  /** As written, for display (an action object without text read as its words). */
  shown: Checkpoint;
  /** The hand-written slips it was read despite, each with its fix; none for a valid file. */
  notes: RepairNote[];
}

/**
 * `l` as status, next, resume and doctor read it: a valid file as it is; one whose only errors
 * are repairable slips through readableView; null for any other (it needs repair).
 */
export function readable(l: Loaded): Readable | null {
  if (l.checkpoint) return { checkpoint: l.checkpoint, shown: l.checkpoint, notes: [] };
  const r = l.file && l.validation && !l.misnamed ? readableView(l.file.value, l.validation.errors, () => l.file!.format.texts, l.skill, dirname(dirname(l.path))) : null;
  return r && { checkpoint: r.meaning, shown: r.view, notes: r.notes };
}

/**
 * `l` as a write at `at` leaves it (updated_at and protocol_version stamped, as stampWrite does),
 * when the file as it is cannot be read: an updated_at an agent wrote as epoch seconds keeps every
 * reader from it, and the write about to be made (done's) repairs it, so what that write decides
 * (which actions landed) is judged as `next` will read the file after it. Any other `l` as it is.
 */
export function asStamped(l: Loaded, at: Date, now: Date): Loaded {
  const f = l.file;
  if (l.checkpoint || l.conflict || l.misnamed || !f || !l.validation || readable(l)) return l;
  if (f.value === null || typeof f.value !== 'object' || Array.isArray(f.value)) return l;
  let value: JsonObject;
  try {
    value = stampWrite(structuredClone(f.value), at, undefined, f.format.texts);
  } catch (e) {
    if (!isCheckpointError(e)) throw e;
    return l; // a newer protocol's file: the write refuses it too
  }
  const file: CheckpointFile = { skill: f.skill, path: f.path, text: f.text, value, format: f.format, sizeBytes: f.sizeBytes };
  const validation = validateCheckpoint(value, { fileName: basename(l.path), now, sizeBytes: f.sizeBytes, numberText: numberTextIn(value, () => f.format.texts) });
  return { skill: l.skill, path: l.path, file, validation, ...(validation.errors.length ? {} : { checkpoint: value as unknown as Checkpoint }) };
}
