// What an install step will do, decided before anything is written: every refusal (a link out
// of the project, a FIFO, a foreign value) is thrown while planning, so a refused init or
// install-driver leaves the repository as it was (exit 2 means nothing changed).
import { CheckpointError, isCheckpointError } from '../errors.js';

export interface InstallPlan {
  /** What apply() does, one line each, for the user. */
  changes: string[];
  /** What was left alone on purpose and how to finish by hand, one line each. */
  notes: string[];
  apply(): void;
}

export interface InstallResult {
  changes: string[];
  notes: string[];
}

/**
 * Applies plans already made (all of them decided first), in order. A write the system refuses
 * while applying (a stale .git/config.lock, a read-only hooks folder) is not a refusal made while
 * planning: the steps before it are done, and the error says which, so the user is not told
 * "nothing was changed". Every step is idempotent: running the command again does the rest.
 */
export function applyPlans(plans: InstallPlan[]): InstallResult {
  const done: string[] = [];
  for (const p of plans) {
    try {
      p.apply();
    } catch (e) {
      if (!done.length) throw e;
      const message = e instanceof Error ? e.message : String(e);
      throw new CheckpointError(isCheckpointError(e) ? e.code : 'E_PATH', `${message} (already done: ${done.join(', ')})`, {
        hint: 'fix that (permissions, free space, a lock file left by a crashed git), then run it again: it keeps what is done and does the rest',
        cause: e,
      });
    }
    done.push(...p.changes);
  }
  return { changes: plans.flatMap((p) => p.changes), notes: plans.flatMap((p) => p.notes) };
}
