// Where history/ is and how it is named, with no other store module under it: the rotation
// journal (store/rotation-journal.ts), which every checkpoint write reads, checks rotation files
// through these without the store's readers.
import { join, relative } from 'node:path';
import { CHECKPOINTS_DIR } from './root.js';

export const HISTORY_DIR = 'history';

export function historyDir(root: string): string {
  return join(root, CHECKPOINTS_DIR, HISTORY_DIR);
}

/** The pointer form of a history path (as skill_state.rotated_to records it): relative to the root, with forward slashes. */
export function pointerOf(root: string, path: string): string {
  return (relative(root, path) || path).split('\\').join('/');
}

/**
 * Rotation files are read whole up to this: rotate appends a day's entries into one, so one can
 * pass the 4 MiB a checkpoint may hold (a merge left the checkpoint up to 16 MiB, rotate reads
 * that much). Restore reads what rotate may write: every archive written can be restored.
 */
export const MAX_ROTATION_FILE_BYTES = 16 * 1024 * 1024;
