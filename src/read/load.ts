// Loads every checkpoint for the read-side commands, keeping unreadable ones as findings
// instead of aborting: one broken file must not hide the state of the others.
import { basename } from 'node:path';
import { isCheckpointError } from '../errors.js';
import { validateCheckpoint, type ValidationResult } from '../protocol/validate.js';
import type { Checkpoint } from '../protocol/types.js';
import { checkpointPath, listSkills, readCheckpointFile, type CheckpointFile } from '../store/checkpoints.js';

export interface Loaded {
  skill: string;
  path: string;
  file?: CheckpointFile;
  /** Present when the file parsed and has no validation errors. */
  checkpoint?: Checkpoint;
  validation?: ValidationResult;
  /** Why the file could not be read or parsed. */
  problem?: string;
}

export function loadAll(root: string, now: Date): Loaded[] {
  return listSkills(root).map((skill) => loadOne(root, skill, now));
}

export function loadOne(root: string, skill: string, now: Date): Loaded {
  const path = checkpointPath(root, skill);
  try {
    const file = readCheckpointFile(root, path);
    const validation = validateCheckpoint(file.value, { fileName: basename(path), now, sizeBytes: file.sizeBytes });
    return { skill, path, file, validation, ...(validation.errors.length ? {} : { checkpoint: file.value as unknown as Checkpoint }) };
  } catch (e) {
    if (!isCheckpointError(e)) throw e;
    return { skill, path, problem: e.message };
  }
}
