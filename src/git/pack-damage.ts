// A pack whose trailing checksum is not the one its .idx records. git refuses such a pack
// whole ("packfile ... does not match index") and looks for its objects elsewhere; both engines
// do the same and, when an object is found nowhere else, say so in this one line.
import { isAbsolute, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';

export function packMismatch(packPath: string): CheckpointError {
  return new CheckpointError('E_GIT', `${shownPath(packPath)} does not match its .idx (the pack's trailing checksum is not the one the .idx records), so git refuses every object in it`, {
    hint: 'the pack is damaged or was replaced: run `git fsck` to see what is lost, then fetch it again or clone afresh',
  });
}

/** git's complaint about such a pack in a failed run's stderr (its path resolved against `cwd`), or null. */
export function packMismatchIn(stderr: string, cwd: string): CheckpointError | null {
  const m = /^error: packfile (.+) does not match index$/m.exec(stderr);
  if (!m) return null;
  return packMismatch(isAbsolute(m[1]!) ? m[1]! : resolve(cwd, m[1]!));
}
