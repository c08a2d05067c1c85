// The shared reading of "what now?" for next, status and resume: every valid checkpoint
// ranked, each with the first action git does not show as landed.
import { chooseAction, isOverBudget, isStale, openBlockers, rankCheckpoints, rankOf, unclearBlockers, userDecisionBlockers, waitsOnUser, type ActionChoice } from '../protocol/priority.js';
import { CHECKPOINT_STATUSES } from '../protocol/shapes.generated.js';
import { actionText, type Checkpoint } from '../protocol/types.js';
import { datedSanely, gatherEvidence, landedEvidence, landingsLine, mentionsWork, NO_EVIDENCE, readThisRepo, toSeconds, walkBound } from '../doctor/evidence.js';
import { waitLandings, waitsOnWork } from '../doctor/blocker-waits.js';
import { asStamped, loadRemembered, readable, withConflicts, type Loaded } from './load.js';
import type { EngineName } from '../git/types.js';
import { relative, sep } from 'node:path';
import type { HeadFiles } from '../git/head-files.js';
import { atOneHead, headFiles, walkTip } from '../git/commit-cache.js';
import { isNormalAbsolute } from '../store/safe-fs.js';
import { isCheckpointError } from '../errors.js';
import { landedKey, rememberedLanded, rememberLanded, type Asking, type LandedAnswer } from './landed-memo.js';
import { skillLabel } from '../store/skill-name.js';
import { checkpointsIndex, checkpointsOutside } from '../store/index-conflicts.js';
import { outsideAsked, type OutsideCheckpoints } from '../store/sparse-checkout.js';
import { MAX_FIX_FLAGS, repairPlan, type RepairNote } from '../protocol/repairable.js';
import { needsResolve, repairReason } from './repair.js';
import { pathArg } from '../store/paste-path.js';
import { aheadOfClock } from '../protocol/validate.js';
import { instantMs } from '../protocol/instant.js';
import { oneLine } from '../one-line.js';

// Also what show uses, apart so it loads none of the walk: read/repair.ts.
export { blockingError, needsResolve, repairEntry, repairReason } from './repair.js';
export interface AgendaItem {
  skill: string;
  checkpoint: Checkpoint;
  /** The status as meant: `checkpoint.status`, or its clear did-you-mean for a hand-written slip ("Blocked"). */
  status: string;
  /** The checkpoint as meant: each status with a clear did-you-mean read as it (a row's "Done" as complete); else `checkpoint`. */
  meant: Checkpoint;
  rank: number;
  stale: boolean;
  overBudget: boolean;
  choice: ActionChoice;
  /** Whether git shows a queued action (by its text) landed: the evidence line `next` gives, or null. */
  landed: (text: string) => string | null;
  /** Hand-written slips (a status outside its enum, an action object without text): read as written, each with its fix. */
  repairs: RepairNote[];
  /** Blockers waiting on work git shows landed since the checkpoint ("Blocked until PR #20 merges"), as doctor reads them. */
  landedBlockers: LandedBlocker[];
}

export interface LandedBlocker {
  /** Its place in blockers. */
  index: number;
  id: string;
  description: string;
  /** `#20 landed in 1b5f3ba "New schema (#20)"`. */
  evidence: string;
}

export interface Agenda {
  items: AgendaItem[];
  /** Checkpoints that could not be read or are invalid: shown, never ranked. */
  broken: Loaded[];
  /** A shallow clone, when history was asked about: work landed before its boundary is not seen. */
  shallow: boolean;
  /** Why git history could not be read (a damaged repository): landed work was not checked. */
  historyError: string | null;
  /** Checkpoints git holds that this sparse checkout leaves out (the one asked for, with a skill): never "none". */
  outside: OutsideCheckpoints | null;
}

/**
 * `stamped`: read a checkpoint no reader can read as a write at that instant leaves it (asStamped):
 * done asks which actions landed before its save, which repairs an unreadable updated_at.
 */
export async function buildAgenda(opts: { root: string; now: Date; engine?: 'auto' | EngineName; skill?: string; stamped?: Date }): Promise<Agenda> {
  // git's index says which are mid-merge: such a file is named, never ranked or read as state.
  const stamped = opts.stamped;
  // One scan of git's index under .checkpoints/ answers both: the merges left unfinished, the files a sparse checkout leaves out.
  const index = checkpointsIndex(opts.root);
  const asRead = withConflicts(opts.root, loadRemembered(opts.root, opts.now, opts.skill), opts.skill, index);
  const loaded = stamped ? asRead.map((l) => asStamped(l, stamped, opts.now)) : asRead;
  // A file whose only errors are hand-written slips is read as written (validate still fails it).
  const repairs = new Map<string, RepairNote[]>();
  const valid = loaded.flatMap((l) => {
    const r = readable(l);
    if (!r) return [];
    if (r.notes.length) repairs.set(l.skill, r.notes);
    return [{ skill: l.skill, checkpoint: r.checkpoint, shown: r.shown }];
  });
  // Only actions naming a PR or ticket, and blockers waiting on one, can be shown landed: walk
  // history for those checkpoints alone, and not at all when none does. History is evidence, not
  // a requirement: a checkpoint outside git (or with a broken repository) still gets an answer.
  // Once per skill: asked twice each, and path.relative resolves both paths on every call.
  const rels = new Map<string, string>();
  const relOf = (skill: string) => {
    let rel = rels.get(skill);
    if (rel === undefined) {
      const path = loaded.find((l) => l.skill === skill)!.path;
      // A checkpoint's path is the root's plus .checkpoints/<file>: its tail, without relative()'s work.
      rel = isNormalAbsolute(opts.root) && path.startsWith(`${opts.root}/`) && isNormalAbsolute(path) ? path.slice(opts.root.length + 1) : relative(opts.root, path).split(sep).join('/');
      rels.set(skill, rel);
    }
    return rel;
  };
  const asking = valid.filter((v) => mentionsWork(v.checkpoint) || waitsOnWork(v.checkpoint)).map((v) => ({ rel: relOf(v.skill), cp: v.checkpoint }));
  // A repository git cannot read (a damaged pack) still gets an answer, with the reason said.
  let historyError: string | null = null;
  const landed = asking.length ? await landedActions(opts.root, opts.now, asking, opts.engine ?? 'auto', (e) => {
    // Our own refusal is one message, whatever its path holds (a newline included); git's stderr, its first line.
    historyError = isCheckpointError(e) ? e.message : String(e instanceof Error ? e.message : e).split('\n')[0]!.replace(/^checkpoint: /, '');
  }) : { answer: { actions: new Map(), waits: new Map() } as LandedAnswer, head: null };
  const items = rankCheckpoints(valid, opts.now).map(({ skill, checkpoint, shown }) => {
    const byText = landed.answer.actions.get(relOf(skill));
    const waits = landed.answer.waits.get(relOf(skill));
    return {
      skill,
      checkpoint: shown,
      status: checkpoint.status,
      meant: checkpoint,
      rank: rankOf(checkpoint),
      stale: isStale(checkpoint, opts.now),
      overBudget: isOverBudget(checkpoint),
      choice: chooseAction(checkpoint, (text) => byText?.get(text) ?? null),
      landed: (text: string) => byText?.get(text) ?? null,
      repairs: repairs.get(skill) ?? [],
      landedBlockers: waits?.size ? landedBlockers(checkpoint, waits) : [],
    };
  });
  const shallow = landed.head?.shallow ?? false;
  const outside = outsideAsked(checkpointsOutside(opts.root, index), opts.skill);
  // Not read here, so not "no checkpoint" either: the agenda's `outside` names it.
  const broken = loaded.filter((l) => !l.checkpoint && !repairs.has(l.skill) && !(outside && l.skill === opts.skill && !l.file && !l.conflict));
  return { items, broken, shallow, historyError, outside };
}

/** The blockers of `cp` whose description `waits` holds (the answer's evidence lines). */
function landedBlockers(cp: Checkpoint, waits: ReadonlyMap<string, string>): LandedBlocker[] {
  return openBlockers(cp).flatMap(({ b, index }) => {
    const evidence = typeof b.description === 'string' ? waits.get(b.description) : undefined;
    return evidence === undefined ? [] : [{ index, id: String(b.id), description: b.description, evidence }];
  });
}

/**
 * Which queued actions of `asking` git shows as landed, with the evidence: remembered for an
 * unchanged HEAD and unchanged checkpoints (landed-memo.ts), else from the walk, every queued
 * action judged. Also HEAD as the files say (null: unsure, or no repository here).
 */
async function landedActions(root: string, now: Date, asking: readonly Asking[], engine: 'auto' | EngineName, unread: (e: unknown) => void): Promise<{ answer: LandedAnswer; head: HeadFiles | null }> {
  // One HEAD for the whole answer, as doctor: read once, and walked by the engines as read.
  return atOneHead(root, () => landedAtHead(root, now, asking, engine, unread));
}

async function landedAtHead(root: string, now: Date, written: readonly Asking[], engine: 'auto' | EngineName, unread: (e: unknown) => void): Promise<{ answer: LandedAnswer; head: HeadFiles | null }> {
  // An updated_at far in the future would date every landing "before" it: a sane instant instead (datedSanely).
  let asking = written;
  try {
    asking = (await datedSanely(root, written, now, engine)).files;
  } catch (e) {
    unread(e);
  }
  const head = headFiles(root);
  const notBefore = walkBound(root, now);
  // An engine asked for by name is exercised, as gatherEvidence does with its walk caches.
  // Which PR URLs are this repository's follows its remotes, which HEAD does not fix: in the key.
  const thisRepo = readThisRepo(root);
  const key = engine === 'auto' && head !== null ? landedKey(head, asking, thisRepo) : null;
  const known = key === null ? null : rememberedLanded(head!, key, notBefore, asking, thisRepo);
  if (known) return { answer: known, head };
  let failed = false;
  // Actions and waiting blockers are dated by when they were queued (as doctor does), so a re-save hides no landing.
  const evidence = await gatherEvidence(root, asking.map((a) => a.cp), { engine, notBefore, dateQueued: asking, thisRepo }).catch((e: unknown) => {
    failed = true;
    unread(e);
    return NO_EVIDENCE;
  });
  const answer: LandedAnswer = { actions: new Map(), waits: new Map() };
  // The walk went back to the oldest save or queued action: kept only when walk_days did not cut it.
  let since = Infinity;
  for (const { rel, cp } of asking) {
    const landed = landedEvidence(cp, evidence, rel);
    const byText = new Map<string, string>();
    for (const action of Array.isArray(cp.next_actions) ? cp.next_actions : []) {
      const text = actionText(action);
      const evidenceLine = landed(text);
      if (evidenceLine !== null) byText.set(text, evidenceLine);
    }
    answer.actions.set(rel, byText);
    const landedWait = waitLandings(cp, evidence, rel);
    const waits = new Map<string, string>();
    for (const b of Array.isArray(cp.blockers) ? cp.blockers : []) {
      const landings = b ? landedWait(b.description) : null;
      if (landings) waits.set(b.description, landingsLine(landings));
    }
    answer.waits.set(rel, waits);
    since = Math.min(since, toSeconds(cp.updated_at), ...(evidence.queued.get(rel)?.values() ?? []));
  }
  // Kept only for the HEAD the walk started from (HEAD may have moved and come back meanwhile).
  const tip = walkTip(evidence.commits);
  const walkedHead = tip === null || tip === head?.sha;
  if (key !== null && !failed && walkedHead && evidence.cutAt === null && Number.isFinite(since)) rememberLanded(head!, key, since, answer);
  return { answer, head };
}

/**
 * One stderr note per checkpoint whose updated_at is further ahead of `now` than validate's skew
 * tolerates: ranked as undated (priority.ts), and said so, never silently.
 */
export function aheadNotes(agenda: Pick<Agenda, 'items'>, now: Date): string[] {
  return agenda.items.flatMap((i) => (aheadOfClock(instantMs(i.meant.updated_at) || 0, now)
    ? [`checkpoint: note: the updated_at of ${i.skill} (${oneLine(String(i.checkpoint.updated_at))}) is more than a day ahead of this clock, so it ranks as undated (the next save from a correct clock stamps it)`]
    : []));
}

/** stdout lines naming each checkpoint `next`/`status` could not rank, so none is quietly passed over. */
export function needsRepairLines(agenda: Agenda): string[] {
  return agenda.broken.map((b) => `needs repair: ${skillLabel(b.skill)}: ${repairReason(b)}`);
}

/**
 * One line for a checkpoint read despite hand-written slips: the first, how many more (validate
 * lists them), what only a hand edit can fix, and last, so it can be copied to the end of the
 * line, the exact `checkpoint update` (every word safe to paste: see shell-words.ts). Never
 * `reset`: the file is sound apart from these fields.
 */
export function repairNoteLine(item: Pick<AgendaItem, 'skill' | 'repairs'>, root: string): string | null {
  const [first, ...more] = item.repairs;
  if (!first) return null;
  const file = `.checkpoints/${item.skill}.checkpoint.json`;
  const plan = repairPlan(item.skill, item.repairs);
  const rest = plan.more ? `; the fix covers ${MAX_FIX_FLAGS}, \`checkpoint validate ${pathArg(root, file)}\` lists all` : '';
  const also = more.length ? ` (and ${more.length} more: ${more.slice(0, 3).map((r) => r.path).join(', ')}${more.length > 3 ? ', …' : ''}${rest})` : '';
  const byHand = plan.byHand.length ? `; by hand in ${file}: ${plan.byHand.join('; ')}` : '';
  const fix = plan.command === null ? '' : `; fix: ${plan.command}`;
  return `note: ${item.skill}: ${first.path}: ${first.problem}${also}${byHand}${fix}`;
}

/** A checkpoint's slips as --json gives them: `fix` the whole command (null when only a hand edit can), `by_hand` what that edit is. */
export function repairsEntry(item: Pick<AgendaItem, 'skill' | 'repairs'>): { skill: string; path: string; problem: string; fix: string | null; by_hand?: string }[] {
  return item.repairs.map((r) => ({ skill: item.skill, path: r.path, problem: r.problem, fix: r.fix === null ? null : `checkpoint update ${item.skill} ${r.fix}`, ...(r.byHand ? { by_hand: r.byHand } : {}) }));
}

/** One stderr line naming checkpoints that were left out of the ranking, so they are never silently ignored. */
export function brokenNotice(agenda: Agenda): string | null {
  if (!agenda.broken.length) return null;
  const names = agenda.broken.map((b) => skillLabel(b.skill)).join(', ');
  // A file a merge left conflicted is repaired by resolve, any other by what validate lists.
  const resolve = agenda.broken.filter(needsResolve).length;
  const see = resolve === 0 ? '`checkpoint validate`' : resolve === agenda.broken.length ? '`checkpoint resolve`' : '`checkpoint resolve`, `checkpoint validate`';
  return `checkpoint: warning: left out unreadable or invalid checkpoint${agenda.broken.length === 1 ? '' : 's'}: ${names} (see ${see})`;
}

/** What follows a blocker whose awaited work landed, wherever it is listed: what git shows, and what to do. */
export function landedBlockerNote(b: Pick<LandedBlocker, 'evidence'>): string {
  return `${b.evidence}; check and remove the blocker`;
}

/**
 * Whether `item` is blocked by nothing but blockers whose awaited work landed (none a decision of
 * the user's): there is nothing to ask the user; the session checks them and clears them.
 */
export function blockedOnlyByLanded(item: Pick<AgendaItem, 'meant' | 'landedBlockers'>): boolean {
  const blockers = openBlockers(item.meant).map(({ b }) => b);
  return blockers.length > 0 && item.landedBlockers.length === blockers.length && !blockers.some(waitsOnUser);
}

/** A status outside the enum that no repair reads as one ("paused"): whether the work goes on is the user's call. */
export const unreadStatus = (i: Pick<AgendaItem, 'status'>) => !(CHECKPOINT_STATUSES as readonly string[]).includes(i.status);

/** A blocker whose needs no repair reads ("Dana") may wait on the user, unless the work every blocker waits on has landed. */
export const unclearNeeds = (i: Pick<AgendaItem, 'meant' | 'landedBlockers'>) => unclearBlockers(i.meant).length > 0 && !blockedOnlyByLanded(i);

/**
 * Whether resuming `item` is the user's call by its state (protocol, resume step 3): stale,
 * blocked (unless only by work that landed), failed, a status or a blocker's needs no reader can tell.
 */
export function needsUser(i: AgendaItem): boolean {
  return i.stale || (i.status === 'blocked' && !blockedOnlyByLanded(i)) || i.status === 'failed' || unreadStatus(i) || unclearNeeds(i);
}

/** Whether a session asks the user before working on `item`: needsUser, or a decision waits on the user (protocol, resume step 4.3). */
export function asksUser(i: AgendaItem): boolean {
  return needsUser(i) || userDecisionBlockers(i.checkpoint).length > 0;
}

export function decisionsWaiting(items: readonly AgendaItem[]): { skill: string; id: string; description: string }[] {
  return items.flatMap((i) => userDecisionBlockers(i.checkpoint).map((b) => ({ skill: i.skill, id: String(b.id), description: b.description })));
}
