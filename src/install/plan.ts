// What an install step will do, decided before anything is written: every refusal (a link out
// of the project, a FIFO, a foreign value) is thrown while planning, so a refused init or
// install-driver leaves the repository as it was (exit 2 means nothing changed).
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

/** Applies plans already made (all of them decided first), in order. */
export function applyPlans(plans: InstallPlan[]): InstallResult {
  for (const p of plans) p.apply();
  return { changes: plans.flatMap((p) => p.changes), notes: plans.flatMap((p) => p.notes) };
}
