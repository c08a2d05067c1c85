// A doctor finding: one claim of a checkpoint checked against the repo, with its evidence.
// error: the file is unusable; warning: drift (the checkpoint says something git contradicts);
// advice: hygiene that never fails a push; info: context, including entries that are notes.
export type Level = 'error' | 'warning' | 'advice' | 'info';

export interface Finding {
  level: Level;
  check: string;
  /** null for repository-wide findings. */
  skill: string | null;
  /** JSON path inside the checkpoint ("next_actions[0]"), or "" for the whole file. */
  path: string;
  message: string;
  evidence?: { sha?: string; date?: string; file?: string; missing?: boolean; renamed_to?: string; url?: string; queued_at?: string };
  /** The command that fixes what the finding names, run in this checkout, when there is one (hand-written slips, landed work, a listed file gone: fix-commands.ts). */
  fix?: string;
  /** A command the reader completes before running it: its `<…>` placeholders (a summary only they can write) are refused as they stand, so it is never `fix`. */
  fix_template?: string;
  /** Set by doctor: whether this finding fails `--fail-on-warnings` (under --pushed: only what the push causes or carries). */
  blocks?: boolean;
}
