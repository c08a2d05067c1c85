// The names files take under .checkpoints/, in one place: the store lists and archives by
// them, and the merge driver picks its rules by them.

/** history/<skill>.<ISO stamp, colons as dashes>[-n].checkpoint.json: a checkpoint archived by reset. */
export const ARCHIVE_NAME = /^([a-z0-9][a-z0-9._-]*?)\.(\d{4}-\d{2}-\d{2}T[\d-]+(?:\.\d+)?Z(?:-\d+)?)\.checkpoint\.json$/;
/**
 * history/<skill>.<YYYY-MM-DD>[-n].json: log entries moved out by rotate (and done). -n: a later
 * rotation of that day whose checkpoint no longer named the first file (its entries restored).
 */
export const ROTATION_NAME = /^([a-z0-9][a-z0-9._-]*?)\.(\d{4}-\d{2}-\d{2}(?:-\d+)?)\.json$/;

export type CheckpointFileKind = 'checkpoint' | 'archive' | 'rotation';

/** Whether a repo path is a file directly in a .checkpoints/history/ folder (a nested project's too). */
export function inHistory(path: string): boolean {
  const parts = path.replace(/\\/g, '/').split('/');
  return parts[parts.length - 2] === 'history' && parts[parts.length - 3] === '.checkpoints';
}

/**
 * Why a file in history/ named as neither an archive nor a rotation (notes.json, Api.2026-12-05.json)
 * is merged by git's lines and settled by hand: the driver, resolve and --check all say it.
 */
export const HAND_MERGED_HISTORY_NOTE = "not named as a history archive or rotation file, so git's line merge merges it, not checkpoint";

/** What a repo path under .checkpoints/ holds, judged by its name. */
export function fileKind(path: string): CheckpointFileKind {
  const parts = path.replace(/\\/g, '/').split('/');
  const name = parts[parts.length - 1]!;
  if (parts[parts.length - 2] === 'history') {
    if (ARCHIVE_NAME.test(name)) return 'archive';
    if (ROTATION_NAME.test(name)) return 'rotation';
  }
  return 'checkpoint';
}

/** The .gitattributes lines that route checkpoint and history files to the merge driver (install writes, doctor checks). */
export const ATTRIBUTES_LINE = '.checkpoints/*.checkpoint.json merge=checkpoint';
export const HISTORY_ATTRIBUTES_LINE = '.checkpoints/history/*.json merge=checkpoint';
