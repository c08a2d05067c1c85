// A blocker waiting on work to land ("Blocked until PR #20 merges") and whether that work has
// landed since the checkpoint: one rule for doctor's finding and for what status, next and
// resume say beside the blocker.
import type { Checkpoint } from '../protocol/types.js';
import type { Evidence } from './evidence.js';
import { findLandings, plainRefs, repoRefNames, workRefs, type Landing } from './landed.js';
import { WAITS_ON } from './follow-ups.js';
import { queuedAt } from './instants.js';
import type { ThisRepo } from './repo-names.js';

/**
 * The work named right after a blocker's waiting words ("until PR #20", "waiting on #21"), joined;
 * '' when it waits on none. "blocked by a flaky test from #20" waits on no PR. The words are read
 * as an action's are (plainRefs): "Blocked by https://github.com/o/r/pull/20" or "by o/r#20" of
 * this repository waits on #20 as "Blocked by #20" does (red team 64); another repository's does not.
 */
export function awaitedWork(description: unknown, repo: ThisRepo = []): string {
  return typeof description === 'string' ? [...plainRefs(description, repo).matchAll(WAITS_ON)].map((m) => m[1]!).join(' ') : '';
}

/**
 * Whether a blocker may wait on work whatever this repository's remotes are (an "o/r#20" read as
 * this repository's, as mayNameWork does): which checkpoints' history is read, before remotes are.
 */
export function mayAwaitWork(description: unknown): boolean {
  return awaitedWork(description) !== '' || (typeof description === 'string' && description.includes('#') && awaitedWork(description, repoRefNames(description)) !== '');
}

/** Whether a blocker of `cp` may wait on named work: else no walk can say it landed. */
export function waitsOnWork(cp: Checkpoint): boolean {
  return (Array.isArray(cp.blockers) ? cp.blockers : []).some((b) => b && mayAwaitWork(b.description));
}

/**
 * For a blocker's description: the landings (after the blocker was written: dated like a queued
 * action, queued.ts, so a re-save that kept it hides none) of the work it waits on when all of it
 * landed; null when it waits on none, or on some that has not landed.
 */
export function waitLandings(cp: Checkpoint, evidence: Evidence, checkpointRel?: string): (description: unknown) => Landing[] | null {
  const at = queuedAt(cp, checkpointRel === undefined ? undefined : evidence.queued.get(checkpointRel));
  return (description) => {
    const waited = awaitedWork(description, evidence.thisRepo);
    if (!waited) return null;
    const text = description as string;
    const landings = findLandings(waited, evidence.commits, evidence.madeAfter(checkpointRel, text, at(text)), evidence.thisRepo);
    return landings.length && landings.length >= workRefs(waited, evidence.thisRepo).length ? landings : null;
  };
}
