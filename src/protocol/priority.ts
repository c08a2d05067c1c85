// The `next` ranking: which checkpoint matters most, and which of its actions to do.
// Pure: drift evidence comes in as a function, so next/status/resume share one rule.
import { actionText, type Checkpoint, type NextAction } from './types.js';
import { suggestEnum } from './enum-slip.js';
import { markedDone } from './marked-done.js';
import { blockerClosed } from './closed-blocker.js';
import { instantMs } from './instant.js';
import { BLOCKER_NEEDS } from './shapes.generated.js';
import { aheadOfClock } from './validate.js';

export { markedDone, blockerClosed };

// The protocol's order: blocked-on-decision > failed > in_progress-at-gate > in_progress >
// complete-with-queued-work > not-started. Blocked on anything else (an outside dependency) is
// not in it: after failed (nothing to do but wait), before plain work (resume still asks).
export const RANKS = {
  userDecision: 1,
  failed: 2,
  blocked: 3,
  atGate: 4,
  inProgress: 5,
  completeWithQueue: 6,
  rest: 7,
} as const;

export const RANK_LABELS: Record<number, string> = {
  1: 'decision waiting on the user',
  2: 'failed',
  3: 'blocked',
  4: 'in progress at a gate',
  5: 'in progress',
  6: 'complete with queued work',
  7: 'nothing queued',
};

/**
 * Staleness thresholds by status, in days. Stale is a question about open work (the protocol's
 * resume asks before continuing it): a complete skill goes stale only while it still queues
 * next_actions (isStale); failed never does, it needs a human anyway.
 */
export const STALE_DAYS: Partial<Record<string, number>> = { in_progress: 7, complete: 14, blocked: 3 };

// Whole words only ("sprint-2-gate", "gate_review", "Awaiting approval", "sign off"): as a bare
// substring, "investigate", "aggregate" and "propagate" ranked ordinary work as waiting at a gate.
const GATE_RE = /(?<![a-z])(?:gat(?:e[sd]?|ing)|approv(?:e[sd]?|al|ing)|sign[- ]?off)(?![a-z])/i;
const DAY_MS = 86_400_000;

export function isOverBudget(cp: Checkpoint): boolean {
  const total = cp.cost?.total_usd;
  const budget = cp.cost?.budget_usd;
  return typeof total === 'number' && typeof budget === 'number' && budget > 0 && total > budget;
}

/**
 * Whether blocker `b` waits on a user decision: `needs` is user_decision, or a hand-written
 * spelling of it ("User Decision", "user-decision") that status and resume read as meant.
 */
export function waitsOnUser(b: unknown): boolean {
  const needs = (b as { needs?: unknown } | null)?.needs;
  if (needs === 'user_decision') return true;
  return typeof needs === 'string' && !(BLOCKER_NEEDS as readonly string[]).includes(needs) && suggestEnum(needs, BLOCKER_NEEDS) === 'user_decision';
}

/**
 * Whether blocker `b`'s `needs` is written outside its enum with no clear meaning ("Dana",
 * "review"): whether it waits on the user is unclear, so no reader takes it for plain work.
 */
export function needsUnclear(b: unknown): boolean {
  const needs = (b as { needs?: unknown } | null)?.needs;
  return typeof needs === 'string' && !(BLOCKER_NEEDS as readonly string[]).includes(needs) && suggestEnum(needs, BLOCKER_NEEDS) === null;
}

/** Why a checkpoint not failed ranked with failed ones (an unclear blocker) ranks so. */
export const UNCLEAR_NEEDS_LABEL = "a blocker's needs is unclear: it may wait on the user";

/** The open blockers of `cp` whose `needs` is unclear (needsUnclear). */
export function unclearBlockers(cp: Checkpoint) {
  return openBlockers(cp).flatMap(({ b }) => (needsUnclear(b) ? [b] : []));
}

/** The blockers of `cp` that still block, each with its place in `blockers`. */
export function openBlockers(cp: Checkpoint): { b: NonNullable<Checkpoint['blockers']>[number]; index: number }[] {
  return (Array.isArray(cp.blockers) ? cp.blockers : []).flatMap((b, index) => (b && !blockerClosed(b) ? [{ b, index }] : []));
}

export function userDecisionBlockers(cp: Checkpoint) {
  return openBlockers(cp).flatMap(({ b }) => (waitsOnUser(b) ? [b] : []));
}

export function isAtGate(cp: Checkpoint): boolean {
  if (GATE_RE.test(`${cp.phase} ${cp.step}`)) return true;
  return (Array.isArray(cp.progress_table) ? cp.progress_table : []).some(
    (row) => row && row.status === 'in_progress' && GATE_RE.test(`${row.id} ${row.label}`),
  );
}

export function rankOf(cp: Checkpoint): number {
  if (userDecisionBlockers(cp).length) return RANKS.userDecision;
  // A blocker that may wait on the user ranks as failed work: above what waits on others or plain work.
  if (cp.status === 'failed' || unclearBlockers(cp).length) return RANKS.failed;
  if (cp.status === 'blocked') return RANKS.blocked;
  if (cp.status === 'in_progress') return isAtGate(cp) ? RANKS.atGate : RANKS.inProgress;
  if (cp.status === 'complete' && queues(cp)) return RANKS.completeWithQueue;
  return RANKS.rest;
}

/** Whether the checkpoint queues any next action. */
const queues = (cp: Checkpoint) => Array.isArray(cp.next_actions) && cp.next_actions.length > 0;

export function ageDays(cp: Checkpoint, now: Date): number {
  return (now.getTime() - instantMs(cp.updated_at)) / DAY_MS;
}

export function isStale(cp: Checkpoint, now: Date): boolean {
  const limit = STALE_DAYS[cp.status];
  // Finished with nothing queued: no work to pick up, so nothing to ask before picking it up.
  if (cp.status === 'complete' && !queues(cp)) return false;
  return limit !== undefined && ageDays(cp, now) > limit;
}

/**
 * Checkpoints in `next` order: given `now`, stale ones after all others (the protocol's `next` is
 * "the SINGLE highest-priority non-stale action"; stale work comes up only when nothing else is
 * queued), but for a decision waiting on the user, which, as failed work, needs a human however
 * old; a checkpoint with nothing queued last of all; then rank, over budget first, then newest.
 */
export function rankCheckpoints<T extends { checkpoint: Checkpoint }>(items: readonly T[], now?: Date): T[] {
  // Each checkpoint's keys worked out once, not at every comparison (rankOf reads blockers and rows).
  const keyed = items.map((item) => {
    const rank = rankOf(item.checkpoint);
    // Nothing queued is no work to pick: after stale work too (a finished skill never goes stale).
    const stale = rank === RANKS.rest ? 2 : Number(now !== undefined && rank !== RANKS.userDecision && isStale(item.checkpoint, now));
    // Dated ahead of the clock: as undated (the capsule chooser's rule), else it would win forever.
    const at = instantMs(item.checkpoint.updated_at) || 0;
    return { item, stale, rank, over: Number(isOverBudget(item.checkpoint)), at: now !== undefined && aheadOfClock(at, now) ? 0 : at };
  });
  keyed.sort((a, b) => a.stale - b.stale || a.rank - b.rank || b.over - a.over || b.at - a.at);
  return keyed.map((k) => k.item);
}

export interface ActionChoice {
  /** The first action git does not show as landed, or null. */
  action: NextAction | null;
  index: number;
  /** Actions skipped because their referenced work already landed. */
  landed: { index: number; text: string; evidence: string }[];
  /** Every queued action is landed: the checkpoint needs reconciling, not more work. */
  reconcile: boolean;
}

/** What a skipped action's evidence says when the checkpoint itself marks it done. */
export const MARKED_DONE = 'marked done in the checkpoint (the next `checkpoint done` moves it to recently_done with the action it completes)';


/** Why git or the checkpoint takes action `a` as done (its landing, or MARKED_DONE), else null: one rule for chooseAction and actionsLanded. */
function doneEvidence(a: NextAction, landedEvidence: (text: string) => string | null): string | null {
  return markedDone(a) ? MARKED_DONE : landedEvidence(actionText(a));
}

/**
 * The first action neither landed nor marked done, and those skipped before it.
 * `landedEvidence(text)` returns a description of the landing, or null when not landed.
 */
export function chooseAction(cp: Checkpoint, landedEvidence: (text: string) => string | null): ActionChoice {
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions : [];
  const landed: ActionChoice['landed'] = [];
  for (let i = 0; i < actions.length; i++) {
    const evidence = doneEvidence(actions[i]!, landedEvidence);
    if (evidence === null) return { action: actions[i]!, index: i, landed, reconcile: false };
    landed.push({ index: i, text: actionText(actions[i]!), evidence });
  }
  return { action: null, index: -1, landed, reconcile: landed.length > 0 };
}

/**
 * Every queued action git shows landed or the checkpoint marks done, in order, as chooseAction
 * lists the ones it skips (that list stops at the first open action): status marks all it shows.
 */
export function actionsLanded(cp: Checkpoint, landedEvidence: (text: string) => string | null): ActionChoice['landed'] {
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions : [];
  return actions.flatMap((a, index) => {
    const evidence = doneEvidence(a, landedEvidence);
    return evidence === null ? [] : [{ index, text: actionText(a), evidence }];
  });
}
