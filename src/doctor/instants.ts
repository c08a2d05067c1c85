// When a commit counts as made after a checkpoint write: one rule for doctor (landed work, changed
// files, pushed tips) and for next, status and resume (actions shown as landed). Pure.
//
// Commit times are whole seconds; updated_at usually carries milliseconds. A commit in the write's
// own second may have been made before or after it, and nothing in git says which. It counts as
// after: the commit is in HEAD's history and names the work, so calling it landed costs a
// reconcile the message points at (and a push blocked until then), while calling it not landed
// sends the next session to redo merged work, silently. Where the commit that recorded the
// instant has that commit in its history, the graph says it came first (after.ts, the tie).
import type { Checkpoint } from '../protocol/types.js';
import { instantMs } from '../protocol/instant.js';

/** The second an ISO instant falls in (NaN when it does not parse); a time without its zone is read as UTC, as everywhere. */
export function toSeconds(iso: string): number {
  return Math.floor(instantMs(iso) / 1000);
}

/** Whether a commit at `commitTime` (whole seconds) counts as made after a write in second `writtenSec`. */
export function committedAfter(commitTime: number, writtenSec: number): boolean {
  return commitTime >= writtenSec;
}

/**
 * The second each queued text of `cp` was queued: its date from the checkpoint file's revisions
 * (`dates`, queued.ts; a text a re-save kept keeps its date), else the last save. Later than that
 * save only for a text a hand edit queued without a new updated_at (dated by the commit that added it).
 */
export function queuedAt(cp: Pick<Checkpoint, 'updated_at'>, dates: ReadonlyMap<string, number> | undefined): (text: string) => number {
  const saved = toSeconds(cp.updated_at);
  return (text) => dates?.get(text) ?? saved;
}
