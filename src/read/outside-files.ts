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
  /** The entry's other parts that stay in the repository, still files to load ("src/config.ts" of "src/config.ts, ~/.app/settings.json"). */
  inRepo: string[];
}

/** Judged per part of an entry (entryParts, as doctor splits it): only the parts leading out are marked. */
export function outsideFiles(cp: Checkpoint, root: string): OutsideFile[] {
  const exists = existsIn(root);
  const targets = generatedTargets(cp, root, new Map(), exists).map((t) => ({ t, out: outOfRepo(t, root, exists) }));
  return targets.flatMap(({ t, out }) => {
    if (out === null) return [];
    const inRepo = targets.filter((o) => o.t.path === t.path && o.out === null).map((o) => o.t.part);
    return [{ path: t.path, ...out, inRepo: [...new Set(inRepo)] }];
  });
}
