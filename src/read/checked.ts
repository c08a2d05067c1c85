// A checkpoint read with its validation, for the read-only commands (validate, status, next,
// resume, doctor): through verdicts.ts, a file unchanged since a run judged it is neither parsed strictly
// nor checked again; validate, which needs no value, does not even read it.
import { ownValue } from '../protocol/identity.js';
import { futureSkew, validateCheckpoint, type ValidationResult } from '../protocol/validate.js';
import { numberTextIn } from '../protocol/format.js';
import { readCheckpointKnown, type CheckpointFile } from '../store/checkpoints.js';
import { nonAsciiRuns } from '../store/trusted-json.js';
import type { Verdict, Verdicts } from '../store/verdicts.js';

export interface Checked {
  /** Null when only the verdict was asked for and it was known. */
  file: CheckpointFile | null;
  validation: ValidationResult;
}

export interface CheckOptions {
  /** The name the file is judged under (validateCheckpoint's fileName). */
  fileName: string;
  now: Date;
  verdicts: Verdicts;
  /** False when only the validation is wanted (validate): a known file is then left unread. */
  needValue: boolean;
}

/** The checkpoint at `path` and its validation, as validateCheckpoint gives it; null when there is no file. Throws what reading throws. */
export function readChecked(root: string, path: string, opts: CheckOptions): Checked | null {
  const key = `${path}\0${opts.fileName}`;
  let verdict: Verdict | undefined;
  const read = readCheckpointKnown(root, path, (st) => ((verdict = opts.verdicts.lookup(key, st)) ? (opts.needValue ? verdict : 'skip') : undefined));
  if (read === null) return null;
  if (verdict === undefined) {
    const file = read.file!;
    // Judged without the clock, so the verdict holds tomorrow too; the clock rule runs below.
    const v = validateCheckpoint(file.value, { fileName: opts.fileName, sizeBytes: file.sizeBytes, numberText: numberTextIn(file.value, () => file.format.texts) });
    verdict = { errors: v.errors, warnings: v.warnings, updatedAt: ownValue(file.value, 'updated_at'), nonAscii: nonAsciiRuns(file.text) };
    opts.verdicts.remember(key, read.stat, verdict);
  }
  // validateCheckpoint's order: the clock's warning comes before every other.
  const skew = futureSkew(verdict.updatedAt, opts.now, opts.fileName.replace(/\.checkpoint\.json$/, ''));
  return { file: read.file, validation: { errors: [...verdict.errors], warnings: skew ? [skew, ...verdict.warnings] : [...verdict.warnings] } };
}
