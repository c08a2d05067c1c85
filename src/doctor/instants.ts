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
import { hasNoZone, instantMs, isDay } from '../protocol/instant.js';

/** The second an ISO instant falls in (NaN when it does not parse); a time without its zone is read as UTC, as everywhere. */
export function toSeconds(iso: string): number {
  return Math.floor(instantMs(iso) / 1000);
}

/**
 * How a save's updated_at, as its file writes it, leaves its instant open (savedWithoutZone):
 * `time`, a time without its zone ("2026-12-05T09:00:00", read as UTC); `day`, a day alone
 * ("2026-12-05", read as its start in UTC).
 */
export type Unzoned = 'time' | 'day';

/**
 * Whether a commit at `commitTime`, dated after a save stamped without its zone (`unzoned`: as the
 * file writes it, savedWithoutZone; `updatedAt` is read as UTC), may yet have come before it. Read
 * as UTC, a zone-less time stands for an instant up to twelve hours later (a writer at UTC-12; New
 * York's `datetime.now()` five); a day, for any instant of it in the writer's zone (a change
 * committed that morning and saved that evening, in California too, is in the save). A change
 * there is not shown to be drift, so it is said without blocking a push (unzonedSave says why);
 * one on a later day, wherever the writer is, is drift. So is one the commit graph places after
 * the save (`afterByGraph`: it descends from the commit that recorded it, which came after the
 * save whatever the zone), as it places a commit from a clock ahead (after.ts).
 */
export function mayPrecedeUnzonedSave(unzoned: Unzoned | undefined, updatedAt: string, commit: { sha: string; time: number }, afterByGraph: (c: { sha: string }) => boolean): boolean {
  if (unzoned === undefined) return false;
  // A day is its 24 hours in the writer's own zone: up to twelve more past its UTC end (UTC-12).
  return commit.time < toSeconds(updatedAt) + (unzoned === 'day' ? 36 : 12) * 3600 && !afterByGraph(commit);
}

/** How a checkpoint's updated_at, as its file writes it, leaves its instant open (its readable view reads it as UTC), if it does. */
export function savedWithoutZone(doc: unknown): Unzoned | undefined {
  const at = doc !== null && typeof doc === 'object' ? (doc as { updated_at?: unknown }).updated_at : undefined;
  if (typeof at !== 'string') return undefined;
  return hasNoZone(at) ? 'time' : isDay(at) ? 'day' : undefined;
}

/** What a change `mayPrecedeUnzonedSave` is told with. */
export function unzonedSave(unzoned: Unzoned): string {
  return unzoned === 'day'
    ? '; updated_at is a day, not an instant, so this change that day may have come before the save (write updated_at as the instant of the save, with its zone)'
    : '; updated_at has no time zone, so this may have come before the save (write updated_at with its zone)';
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
