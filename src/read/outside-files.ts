// Which of a checkpoint's generated_files lead out of the repository (a path outside it, a
// committed symlink out of it, what lies through one) or to no plain file (a FIFO), as doctor's
// generated_files check notes them. The protocol has a new session load the files resume lists:
// resume marks these, never lists one as a file to read. From the work tree alone, no history,
// so they are marked when git cannot be read too.
import { existsIn, generatedTargets, outOfRepo, type OutOfRepo } from '../doctor/checks.js';
import type { Checkpoint } from '../protocol/types.js';

export interface OutsideFile extends OutOfRepo {
  /** The entry's JSON path (`context_primer.generated_files[1]`, or a top-level `generated_files[0]`). */
  path: string;
}

export function outsideFiles(cp: Checkpoint, root: string): OutsideFile[] {
  const exists = existsIn(root);
  return generatedTargets(cp, root, new Map(), exists).flatMap((t) => {
    const out = outOfRepo(t, root, exists);
    return out === null ? [] : [{ path: t.path, ...out }];
  });
}
