// Loads every checkpoint for the read-side commands, keeping unreadable ones as findings
// instead of aborting: one broken file must not hide the state of the others.
import { basename, join } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { validateCheckpoint, type ValidationResult } from '../protocol/validate.js';
import type { Checkpoint } from '../protocol/types.js';
import { checkpointPath, checkpointsDir, display, listCheckpointFiles, readCheckpointFile, type CheckpointFile } from '../store/checkpoints.js';
import { misnamedProblem, misnamedStem } from '../store/skill-name.js';
import { Verdicts } from '../store/verdicts.js';
import { readableView, type RepairNote } from '../protocol/repairable.js';
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
      validation = validateCheckpoint(file.value, { fileName: basename(path), now, sizeBytes: file.sizeBytes });
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
  const r = l.file && l.validation && !l.misnamed ? readableView(l.file.value, l.validation.errors, () => l.file!.format.texts) : null;
  return r && { checkpoint: r.meaning, shown: r.view, notes: r.notes };
}
