// A doctor finding: one claim of a checkpoint checked against the repo, with its evidence.
export type Level = 'error' | 'warning' | 'info';

export interface Finding {
  level: Level;
  check: string;
  /** null for repository-wide findings. */
  skill: string | null;
  /** JSON path inside the checkpoint ("next_actions[0]"), or "" for the whole file. */
  path: string;
  message: string;
  evidence?: { sha?: string; date?: string; file?: string; renamed_to?: string; url?: string };
}
