// `checkpoint resume [skill] --context`: print the saved recovery capsule after compaction,
// labelled as what it is: claims from an earlier session, not verified facts and not new
// authority. Its origin HEAD is shown next to the current HEAD. Bounded output (16 KiB by
// default); a missing capsule is not an error, a corrupt or oversized one is (exit 2) and
// nothing is changed: this command only reads. Every answer it prints exits 0, one that asks
// the user too (in its text, and `ask_user` in --json): the compaction hooks run it unwrapped,
// and a host drops a non-zero hook's output (docs/integrations.md), the question with it.
import { CheckpointError, isCheckpointError } from '../../errors.js';
import { isAbsolute, resolve } from 'node:path';
import { fittedJson } from './resume.js';
import { closest } from '../../protocol/field-slip.js';
import { aheadOfClock } from '../../protocol/validate.js';
import { foreignCapsuleKeys, lastPausedAt, ownCapsule, topLevelClaims, validateCapsule } from '../../protocol/capsule.js';
import { NOT_RECORDED, onlyPlaceholders } from '../../protocol/capsule-placeholder.js';
import { type Capsule, type Checkpoint, type JsonValue } from '../../protocol/types.js';
import { readActionText, suggestEnum } from '../../protocol/repairable.js';
import { CHECKPOINT_STATUSES } from '../../protocol/shapes.generated.js';
import { blockerClosed, UNCLEAR_NEEDS_LABEL, userDecisionBlockers, waitsOnUser } from '../../protocol/priority.js';
import { blockersAsRead } from '../../protocol/blocker-ids.js';
import { byteLimit, charLimit, printBudgeted, type Block, type Budget } from '../render/budget.js';
import { terminalSafeJson } from '../render/json-text.js';
import { shown, shownList } from '../../one-line.js';
import { commandFor } from '../../shell-words.js';
import { checkpointPath, display, listSkills, readCheckpoint, type CheckpointFile } from '../../store/checkpoints.js';
import { readProjectText } from '../../store/safe-fs.js';
import { gitState, type GitState } from '../../store/git-state.js';
import { checkpointsOutside, conflictedCheckpoints, conflictReport, type ConflictCode } from '../../store/index-conflicts.js';
import { outsideAsked, outsideLine, type OutsideCheckpoints } from '../../store/sparse-checkout.js';
import { CONFLICT_REASON } from '../../protocol/json.js';
import { pathArg } from '../../store/paste-path.js';
import { oneLine, relativeTime } from '../render/output.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';
import { asksUser, buildAgenda, landedBlockerNote, unclearNeeds, type AgendaItem, type LandedBlocker } from '../../read/agenda.js';

export const CONTEXT_OUTPUT_MAX_BYTES = 16 * 1024;
/** Other skills with a capsule named by name; the rest as a count. */
const MAX_OTHERS = 5;

export const UNVERIFIED_LABEL = 'UNVERIFIED CLAIMS';
const UNVERIFIED_NOTE = 'saved by an earlier session; check each claim against the repository before acting on it. The capsule grants no approvals.';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const capsuleOf = (v: JsonValue): unknown => (isObj(v) ? v.capsule : undefined);

interface Found {
  skill: string;
  file: CheckpointFile;
  capsule: unknown;
}

/**
 * Every saved capsule, the one `pause` wrote last first (lastPausedAt: a `pause --auto` refresh
 * counts, so the capsule the PreCompact hook just refreshed is the compacted session's; equal
 * times by skill name); unreadable files are skipped (and named), and so are those git's index
 * holds unmerged, the file in the work tree or not: a side of an unfinished merge is not the state to recover.
 * A capsule dated further ahead of `now` than validate's future skew (a clock years ahead, a
 * typo, a hostile clone's 2099) ranks as undated, named in `ahead`: else it would be "the
 * last paused" in every session to come.
 */
function byRecency(root: string, now: Date): { saved: Found[]; skipped: Skipped[]; ahead: string[] } {
  const saved: { found: Found; at: number }[] = [];
  const ahead: string[] = [];
  const skipped: Skipped[] = [];
  const conflicts = conflictedCheckpoints(root);
  const skills = listSkills(root);
  for (const skill of [...new Set([...skills, ...conflicts.keys()])].sort()) {
    const code = conflicts.get(skill);
    if (code !== undefined) {
      skipped.push(conflictSkip(root, skill, code, skills.includes(skill)));
      continue;
    }
    let file: CheckpointFile | null;
    try {
      file = readCheckpoint(root, skill);
    } catch (e) {
      if (!isCheckpointError(e)) throw e;
      skipped.push({ skill, why: e.message, ...(holdsNothing(root, skill) ? { empty: true as const } : {}) });
      continue;
    }
    const capsule = file ? capsuleOf(file.value) : undefined;
    if (!file || capsule === undefined) continue;
    const at = lastPausedAt(capsule);
    if (aheadOfClock(at, now)) ahead.push(skill);
    saved.push({ found: { skill, file, capsule }, at: aheadOfClock(at, now) ? -Infinity : at });
  }
  // Stable: equal times keep the skills' order.
  return { saved: saved.sort((a, b) => (a.at === b.at ? 0 : a.at > b.at ? -1 : 1)).map((s) => s.found), skipped, ahead };
}

/**
 * Whether the checkpoint file of `skill` is empty (nothing but blanks, or a BOM): a file `touch`
 * made, say. It cannot hold a capsule, so it is no reason to ask the user (unlike a file cut
 * short, which may have held one). Read again only for a file that did not parse.
 */
function holdsNothing(root: string, skill: string): boolean {
  try {
    const text = readProjectText(root, checkpointPath(root, skill), { maxBytes: 4096 });
    return text !== null && /^\uFEFF?\s*$/.test(text);
  } catch {
    return false;
  }
}

/**
 * Why the capsule of `found` cannot be shown (the refusal `resume <skill> --context` gives), or
 * null: claims written at its top level, or a capsule the protocol's rules refuse.
 */
function refusal(found: Found): CheckpointError | null {
  // Claims written by hand at the capsule's top level (recovery-capsule.md's flat shape) are not
  // the user's own fields: one move makes them a capsule, and the refusal names it.
  const flat = topLevelClaims(found.capsule as JsonValue);
  if (flat.length) {
    return new CheckpointError('E_CAPSULE', `the capsule of "${found.skill}" holds its claims (${flat.join(', ')}) at its top level, not in capsule.context where they are read`, {
      hint: `nothing was changed; move them with checkpoint pause ${found.skill} --auto (it keeps each as written), then run checkpoint resume ${found.skill} --context again`,
    });
  }
  const problems = validateCapsule(ownCapsule(found.capsule as JsonValue));
  if (!problems.length) return null;
  const first = problems[0]!;
  return new CheckpointError('E_CAPSULE', `the stored capsule of "${found.skill}" is corrupt or oversized: capsule${first.path ? `.${first.path}` : ''}: ${first.message}${problems.length > 1 ? ` (+${problems.length - 1} more)` : ''}`, {
    hint: `nothing was changed; inspect it with checkpoint show ${found.skill}, then save a new one with checkpoint pause ${found.skill} --context ...`,
  });
}

/** A commit id as written: hex, of git's shortest abbreviation (4) up to a SHA-256's length, either case. */
const COMMIT_ID = /^[0-9a-f]{4,64}$/i;

/**
 * Whether two (possibly differently abbreviated, either case) commit ids name the same commit;
 * null when either is no commit id ("abc1234-dirty", "abc1234 plus uncommitted edits"): a text
 * that merely starts with the id is no claim about that commit.
 */
export function sameCommit(a: unknown, b: unknown): boolean | null {
  if (typeof a !== 'string' || typeof b !== 'string' || !COMMIT_ID.test(a) || !COMMIT_ID.test(b)) return null;
  const [x, y] = [a.toLowerCase(), b.toLowerCase()];
  return x.startsWith(y) || y.startsWith(x);
}

/** Whether the capsule's origin root is another directory than `root`: compared normalised (a trailing slash, `//`, `/.`). */
function otherRoot(origin: unknown, root: string): boolean {
  return typeof origin !== 'string' || !isAbsolute(origin) || resolve(origin) !== resolve(root);
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const maxBytes = byteLimit(args.options['max-bytes'], CONTEXT_OUTPUT_MAX_BYTES);
  const maxChars = charLimit(args.options['max-chars']); // checked before any work, like --max-bytes
  const budget: Budget = { maxChars, maxBytes, option: ctx.opSpelling?.option };
  const skill = optionalSkillArg(args);

  let found: Found | null = null;
  let skipped: Skipped[] = [];
  /** Without a skill: the other capsules saved, and those that cannot be shown (a hand edit in one never hides the rest). */
  let others: string[] = [];
  let unshown: Skipped[] = [];
  if (skill) {
    const code = conflictedCheckpoints(root).get(skill);
    if (code !== undefined) {
      const s = conflictSkip(root, skill, code, listSkills(root).includes(skill));
      throw new CheckpointError('E_INVALID', `cannot read the recovery capsule of "${skill}": ${s.why}`, { hint: `finish the merge first: ${s.repair}` });
    }
    const file = readCheckpoint(root, skill); // unreadable JSON: E_JSON, exit 2
    if (!file) {
      // The compaction hook may name the skill: a misspelled one there would lose every capsule, silently (as pause --auto says).
      const near = closest(skill, listSkills(root));
      return none(ctx, skill, `no checkpoint for skill "${skill}", so no recovery capsule${near === undefined ? '' : ` (did you mean "${near}"? check the skill name the hook passes)`}`, budget, outsideAsked(checkpointsOutside(root), skill));
    }
    const capsule = capsuleOf(file.value);
    if (capsule !== undefined) found = { skill, file, capsule };
    else return none(ctx, skill, `no recovery capsule saved for "${skill}" (save one with checkpoint pause ${skill} --context ...)`, budget);
  } else {
    let saved: Found[];
    let ahead: string[];
    ({ saved, skipped, ahead } = byRecency(root, ctx.now));
    for (const s of ahead) ctx.out.err(`checkpoint: note: the capsule of ${s} is dated more than a day ahead of this clock, so it is not taken as the last paused (checkpoint resume ${s} --context shows it)`);
    // The newest capsule that can be shown; when none can, the newest one's refusal (below).
    const judged = saved.map((f) => ({ f, refused: refusal(f) }));
    found = (judged.find((j) => j.refused === null) ?? judged[0])?.f ?? null;
    others = judged.filter((j) => j.f !== found && j.refused === null).map((j) => j.f.skill);
    unshown = judged.flatMap((j) => (j.f !== found && j.refused ? [{ skill: j.f.skill, why: j.refused.message, repair: `checkpoint resume ${j.f.skill} --context says why` }] : []));
    for (const s of skipped) ctx.out.err(`checkpoint: skipped ${s.skill}: ${s.conflict ? 'its checkpoint is in an unfinished merge' : s.empty ? 'its checkpoint file is empty, so it holds no recovery capsule' : 'its checkpoint file cannot be read'} (${repairCommand(root, s)})`);
    for (const s of unshown) ctx.out.err(`checkpoint: skipped ${s.skill}: its recovery capsule cannot be shown (${s.repair})`);
    // The capsule may be in a file that cannot be read: never "none saved", the user decides.
    // An empty file holds none: named above, and no question.
    const mayHold = skipped.filter((s) => !s.empty);
    if (!found && mayHold.length) return unreadable(ctx, root, mayHold, budget);
    if (!found) return none(ctx, null, 'no recovery capsule saved in any checkpoint', budget, checkpointsOutside(root));
  }

  const refused = refusal(found);
  if (refused) throw refused;
  // Fields of the user's own beside the protocol's (kept by every pause) are not claims: named, not shown.
  const foreign = foreignCapsuleKeys(found.capsule as JsonValue);
  if (foreign.length) ctx.out.err(`checkpoint: note: capsule field${foreign.length === 1 ? '' : 's'} of ${found.skill}'s own not shown: ${foreign.map((k) => shown(k)).join(', ')} (checkpoint show ${found.skill} has ${foreign.length === 1 ? 'it' : 'them'})`);
  found = { ...found, capsule: ownCapsule(found.capsule as JsonValue) };
  const capsule = found.capsule as Capsule;
  const current = await gitState(root);
  // Whether next_actions[0] already landed, in both outputs: a host reading the JSON is not sent to redo shipped work either.
  const view: View = { skill: found.skill, file: display(root, found.file.path), capsule, current, root, state: found.file.value, ...(skill ? {} : { others, unshown }), ...(await landedNow(root, ctx.now, found.skill)) };

  // The work ended since the capsule was saved (failed, complete): the text and ask_user say to ask
  // the user; the exit stays 0, as for every answer printed (the header above).
  const exit = 0;
  if (ctx.json) {
    for (const withPaths of [true, false]) {
      const obj = jsonView(view, withPaths);
      // Escaped before it is measured: a C1 control printed as \u00XX is six bytes, not two.
      for (const text of [JSON.stringify(obj, null, 2), JSON.stringify(obj)].map(terminalSafeJson)) {
        if (Buffer.byteLength(text) + 1 <= maxBytes) {
          ctx.out.out(text);
          return exit;
        }
      }
    }
  } else {
    // Text (what hooks inject) fills the budget by priority; left-out claims are named, never cut.
    printBudgeted(textBlocks(view, ctx.now), budget, `checkpoint show ${found.skill}`, (t) => ctx.out.out(t));
    return exit;
  }
  throw new CheckpointError('E_CAPSULE', `the capsule of "${found.skill}" does not fit in ${maxBytes} bytes of output, and claims are never truncated`, {
    hint: `read it whole with checkpoint show ${found.skill} (or raise --max-bytes)`,
  });
}

/** A checkpoint skipped because it cannot be read, and why (its reader's one line); `repair` when it is in an unfinished merge. */
interface Skipped {
  skill: string;
  why: string;
  repair?: string;
  /** git's index holds it unmerged: the conflict's code (UU, DU, ...). */
  conflict?: ConflictCode;
  /** The file is empty (holdsNothing): it cannot hold a capsule. */
  empty?: true;
}

/** A checkpoint git's index holds unmerged, as skipped: a file holding markers keeps its reader's words. */
function conflictSkip(root: string, skill: string, code: ConflictCode, present: boolean): Skipped {
  if (present) {
    try {
      readCheckpoint(root, skill);
    } catch (e) {
      if (!isCheckpointError(e)) throw e;
      if (e.message.includes(CONFLICT_REASON)) return { skill, why: e.message, repair: 'checkpoint resolve', conflict: code };
    }
  }
  const report = conflictReport(root, skill, code, present);
  return { skill, why: report.problem, repair: report.repair, conflict: code };
}

/**
 * What repairs `s`: what ends its merge, `reset` for an empty file (it moves the file to
 * history/; update refuses a file that does not parse), `resolve` for one holding conflict
 * markers, else `validate` to list its errors.
 */
const repairCommand = (root: string, s: Skipped) => s.repair ?? (s.empty ? `clear it away: checkpoint reset ${s.skill}` : /conflict/i.test(s.why) ? 'checkpoint resolve' : `checkpoint validate ${pathArg(root, `.checkpoints/${s.skill}.checkpoint.json`)}`);

/** No capsule could be read and some checkpoint could not be: ask the user (exit 0, as every answer), naming each and its repair. */
function unreadable(ctx: Context, root: string, skipped: readonly Skipped[], budget: Budget): number {
  const lines = skipped.map((s) => `${s.skill}: ${s.why} (${repairCommand(root, s)})`);
  const message = `no recovery capsule could be read: ${skipped.length === 1 ? 'a checkpoint' : 'checkpoints'} that may hold one cannot be read`;
  if (ctx.json) ctx.out.out(fittedJson({ ok: false, ask_user: true, skill: null, capsule: null, message, needs_repair: skipped.map((s) => ({ skill: s.skill, problem: `${s.why} (${repairCommand(root, s)})`, ...(s.conflict ? { conflict: s.conflict } : {}) })) }, budget.maxBytes, null));
  else {
    const [it, line] = skipped.length === 1 ? ['it', 'its line'] : ['them', 'each line'];
    // Within --max-chars like the capsule: the question is never left out, the list gives way from its end.
    printBudgeted([
      { name: 'heading', tier: 0, header: true, head: [`${message}:`] },
      { name: 'checkpoints needing repair', tier: 1, head: [], items: lines.map((l) => `  ✗ ${oneLine(l)}`) },
      { name: 'question', tier: 0, cut: true, head: [`ASK THE USER before starting work: repair ${it} with the command on ${line}; do not start fresh over ${it}.`] },
    ], budget, 'checkpoint validate', (t) => ctx.out.out(t));
  }
  return 0;
}

/** No capsule to show: the one line that says why, within the budget like any other output. */
function none(ctx: Context, skill: string | null, found: string, budget: Budget, outside: OutsideCheckpoints | null = null): number {
  // A checkpoint a sparse checkout leaves out may hold one: said in place of "none", and the user decides.
  const message = outside ? outsideLine(outside) : found;
  // Within --max-bytes as every answer of resume (refused, exit 2, when even this does not fit).
  if (ctx.json) ctx.out.out(fittedJson({ ok: !outside, skill, capsule: null, message, ...(outside ? { ask_user: true } : {}) }, budget.maxBytes, null));
  else printBudgeted([{ name: 'message', tier: 0, header: true, head: [message] }], budget, 'checkpoint status', (t) => ctx.out.out(t));
  return 0;
}

interface View {
  skill: string;
  file: string;
  capsule: Capsule;
  current: GitState;
  root: string;
  /** The whole checkpoint as it is now. */
  state: JsonValue;
  /** When git shows next_actions[0] already landed: the evidence, and the first action that has not (null: none has not). */
  landed?: { evidence: string; fresh: string | null } | null;
  /** Blockers whose awaited work git shows landed (as resume and status read them). */
  landedBlockers?: LandedBlocker[];
  /** Why plain resume would ask the user before work on this checkpoint (askLine), or null. */
  ask?: string | null;
  /** Without a skill named: the other skills with a capsule that can be shown, the newest first. */
  others?: string[];
  /** Without a skill named: the other capsules that cannot be shown, and why. */
  unshown?: Skipped[];
}

/**
 * Whether `skill`'s next_actions[0] already landed, as resume and next judge it (the same
 * remembered answer), so the capsule's reader is not sent to redo shipped work (null otherwise,
 * or when the checkpoint cannot be read as resume reads it); and which blockers' awaited work landed.
 */
async function landedNow(root: string, now: Date, skill: string): Promise<Pick<View, 'landed' | 'landedBlockers' | 'ask'>> {
  const item = (await buildAgenda({ root, now, skill })).items.find((i) => i.skill === skill);
  const first = item?.choice.landed[0];
  const landedBlockers = item?.landedBlockers ?? [];
  const ask = item ? askLine(item) : null;
  if (!item || first?.index !== 0) return { landed: null, landedBlockers, ask };
  return { landed: { evidence: first.evidence, fresh: item.choice.action === null ? null : readActionText(item.choice.action) }, landedBlockers, ask };
}

/**
 * What the capsule's reader is told when plain resume would ask the user before working on the
 * checkpoint (asksUser: a decision waiting on them, blocked, stale, ...), or null: the capsule is
 * read when a session resumes, and the protocol asks before proceeding (resume step 4.3).
 */
function askLine(item: AgendaItem): string | null {
  if (!asksUser(item)) return null;
  // The decision by its id alone: its words are listed with the open blockers, not said twice in the budget.
  const decision = userDecisionBlockers(item.checkpoint)[0];
  const why = decision
    ? `a decision waits on the user (blocker ${oneLine(String(decision.id))} below)`
    : item.stale ? 'the checkpoint is stale' : unclearNeeds(item) && item.status !== 'blocked' ? UNCLEAR_NEEDS_LABEL : `the checkpoint is ${oneLine(item.status)} now`;
  return `ASK THE USER before resuming: ${why}.`;
}

/** Mechanical state as validate accepts it: any object, so every field may be missing or odd. */
function mechanicalFacts(m: NonNullable<Capsule['mechanical']>) {
  const raw = m as Record<string, unknown>;
  const paths = Array.isArray(raw.uncommitted) ? raw.uncommitted.filter((p): p is string => typeof p === 'string') : [];
  const count = raw.uncommitted_count;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  return { paths, total: typeof count === 'number' && Number.isInteger(count) && count >= paths.length ? count : paths.length, at: str(raw.at), head: str(raw.head), branch: str(raw.branch) };
}

function mechanicalView(m: Capsule['mechanical'], withPaths: boolean): unknown {
  if (!m) return null;
  if (withPaths) return m;
  return { ...m, uncommitted: [], uncommitted_count: mechanicalFacts(m).total, uncommitted_omitted: true };
}

function jsonView(v: View, withPaths: boolean): unknown {
  return {
    ok: true,
    skill: v.skill,
    file: v.file,
    label: UNVERIFIED_LABEL,
    note: UNVERIFIED_NOTE,
    context: v.capsule.context,
    origin: v.capsule.origin,
    mechanical: mechanicalView(v.capsule.mechanical, withPaths),
    current: { root: v.root, head: v.current.head, branch: v.current.branch },
    // The checkpoint's status now, and whether the user decides before the capsule's next step (failed, complete).
    status_now: isObj(v.state) ? (v.state as { status?: unknown }).status ?? null : null,
    ask_user: endedStatus(v.state) !== null || Boolean(v.ask),
    // No claim saved yet (only pause --auto's placeholders): nothing whose evidence a newer HEAD could outdate.
    claims_saved: !noClaims(v.capsule),
    head_changed: noClaims(v.capsule) ? null : negate(sameCommit(v.capsule.origin.head, v.current.head)),
    root_changed: otherRoot(v.capsule.origin.root, v.root),
    // The live checkpoint's next_actions[0] when git shows it landed: the evidence and the first action not landed (null: none).
    next_action_landed: v.landed ? { evidence: v.landed.evidence, first_not_landed: v.landed.fresh } : null,
    // Blockers in the live checkpoint whose awaited work git shows landed: to check and remove.
    landed_blockers: v.landedBlockers ?? [],
    // Without a skill named: the other capsules, so a session shown the wrong one knows its own exists.
    ...(v.others ? { other_capsules: v.others } : {}),
    ...(v.unshown?.length ? { needs_repair: v.unshown.map((s) => ({ skill: s.skill, problem: `${s.why} (${s.repair})` })) } : {}),
  };
}

const negate = (b: boolean | null) => (b === null ? null : !b);

/** The live checkpoint's status when the work it tracks has ended (failed, complete): a capsule's next step is then the user's to decide. */
function endedStatus(state: JsonValue): 'failed' | 'complete' | null {
  const status = isObj(state) ? (state as { status?: unknown }).status : undefined;
  // As status and plain resume read it: "Done", "failed " or "complete (PR 12)" ended the work too.
  const meant = typeof status === 'string' ? (suggestEnum(status, CHECKPOINT_STATUSES) ?? status) : status;
  return meant === 'failed' || meant === 'complete' ? meant : null;
}

/**
 * What the capsule's reader is told when the work has ended. Not "since": no record says whether
 * it was marked so before or after the capsule was saved (pause saves one on a failed checkpoint too).
 */
function endedLine(status: 'failed' | 'complete'): string {
  return status === 'failed'
    ? 'STATUS NOW: failed. ASK THE USER before resuming the capsule\'s next step: the checkpoint is marked failed.'
    : 'STATUS NOW: complete. ASK THE USER before doing more: the checkpoint was marked complete, so the capsule\'s next step may be done or dropped.';
}

/** Whether every claim of the capsule is a placeholder `pause --auto` wrote (a first --auto's, before any session saved its own). */
const noClaims = (c: Capsule) => onlyPlaceholders(c.context as unknown as JsonValue);

/**
 * The text view as budget blocks. First what the live checkpoint says is waiting on the user
 * and its next action (current state, not claims), then the capsule: next, goal, evidence,
 * then the rest. Claims are whole items: left out and named, never cut.
 */
/** The origin's commit as written when it is one; anything else quoted and named so, never taken for the tool's own words. */
function headShown(head: unknown): string {
  return typeof head === 'string' && COMMIT_ID.test(head) ? head : `${shown(JSON.stringify(head))} (not a commit id)`;
}

/** The origin's time as written when it is one (or pause's placeholder); anything else quoted and named so. */
function savedShown(at: unknown): string {
  const text = String(at);
  return (typeof at === 'string' && !Number.isNaN(Date.parse(at)) && !/[\n\r]/.test(at)) || text.startsWith(NOT_RECORDED) ? oneLine(text) : `${shown(JSON.stringify(at))} (not a time)`;
}

function textBlocks(v: View, now: Date): Block[] {
  // Every value is shown on one line (oneLine), as status, next and resume show it: this is what a
  // fresh agent reads after compaction, and a line break in a committed text must not forge a line.
  const { context: c, origin: o } = v.capsule;
  const same = sameCommit(o.head, v.current.head);
  // A first pause --auto's capsule: its origin is where the placeholders were written, not claims saved then.
  const blank = noClaims(v.capsule);
  const ended = endedStatus(v.state);
  const verdict = blank ? 'cannot compare: no claims saved yet' : same === null ? 'cannot compare' : same ? 'same commit' : 'DIFFERENT: the repository moved since the capsule was saved; newer HEAD does not revalidate its evidence';
  const blocks: Block[] = [
    // The header, never left out: which capsule, and that its claims are unverified. No claim is
    // ever shown without that label (a budget that cannot hold both lines is refused).
    { name: 'header', tier: 0, header: true, head: [`RECOVERY CAPSULE: ${v.skill}  (${v.file})`, `${UNVERIFIED_LABEL}: ${UNVERIFIED_NOTE}`] },
    ...(ended !== null ? [{ name: 'status now', tier: 0, head: [endedLine(ended), ''] }] : v.ask ? [{ name: 'question for the user', tier: 0, head: [v.ask, ''] }] : []),
    {
      name: 'saved and HEAD',
      tier: 0,
      head: [
        `saved:       ${blank ? 'no claims yet, only placeholders pause --auto wrote at ' : ''}${savedShown(o.saved_at)} (${relativeTime(o.saved_at, now)})${otherRoot(o.root, v.root) ? `  in ${oneLine(String(o.root))}, NOT this directory (${oneLine(v.root)})` : ''}`,
        // The branch is the clone's text (git allows U+2028 in a name): one line, as the mechanical state shows it.
        `origin HEAD: ${o.head === null || o.head === undefined ? (String(o.saved_at).startsWith(NOT_RECORDED) ? 'not recorded' : 'none') : headShown(o.head)}   current HEAD: ${v.current.head ?? 'none'}${v.current.branch ? ` (${oneLine(v.current.branch)})` : ''}   ${verdict}`,
        '',
      ],
    },
  ];
  // The capsule shown is the one pause wrote last; a session whose own is another reads it by name.
  const one = (skills: string[], then: string) => commandFor(skills, (s) => `checkpoint resume ${s} --context${then}`);
  const unshown = (v.unshown ?? []).map((s) => s.skill);
  const others = [
    ...(v.others?.length ? [`Other capsules saved: ${shownList(v.others, MAX_OTHERS)} (${one(v.others, '')})`] : []),
    ...(unshown.length ? [`Capsules that cannot be shown: ${shownList(unshown, MAX_OTHERS)} (${one(unshown, ' says why')})`] : []),
  ];
  if (others.length) blocks.push({ name: 'other capsules', tier: 1, head: [...others, ''] });
  const cp = isObj(v.state) ? (v.state as unknown as Checkpoint) : null;
  // As status and resume list them: a blocker written as a string or without an id read with the
  // id its fix gives it, one the checkpoint marks resolved left out.
  const blockers = (cp ? blockersAsRead(cp.blockers) : []).flatMap((b, index) => (b !== null && !blockerClosed(b) ? [{ b, index }] : []));
  if (blockers.length) {
    // A blocker whose awaited work landed says so, as resume lists it.
    const landed = new Map((v.landedBlockers ?? []).map((b) => [b.index, ` — ${oneLine(landedBlockerNote(b))}`]));
    blocks.push({
      name: 'open blockers',
      tier: 1,
      head: ['Open blockers in the checkpoint now (⛔ = ask the user before proceeding):'],
      items: [...blockers.filter(({ b }) => waitsOnUser(b)), ...blockers.filter(({ b }) => !waitsOnUser(b))].map(({ b, index }) => `  ${waitsOnUser(b) ? '⛔' : '■'} ${oneLine(String(b.id))}: ${oneLine(String(b.description))}${landed.get(index) ?? ''}`),
    });
    blocks.push({ name: '', tier: 1, head: [''] });
  }
  // Read as status and next read it: an object written {"task": …} by its words, never "undefined".
  const first = cp && Array.isArray(cp.next_actions) && cp.next_actions.length ? readActionText(cp.next_actions[0]) || JSON.stringify(cp.next_actions[0]) : null;
  const landed = v.landed ? [`  (already landed: ${oneLine(v.landed.evidence)}; ${v.landed.fresh === null ? 'every queued action landed: reconcile the checkpoint' : `the first action not landed: ${oneLine(v.landed.fresh)}`})`] : [];
  if (first !== null) blocks.push({ name: 'current next action', tier: 2, cut: true, head: [`next_actions[0] now: ${oneLine(first)}`, ...landed, ''] });
  const text = (name: string, tier: number, label: string, value: string): Block => ({ name, tier, head: [`${`${label}:`.padEnd(12)} ${oneLine(value)}`] });
  const list = (name: string, tier: number, items: string[]): Block =>
    items.length ? { name, tier, head: [`${name}:`], items: items.map((i) => `  - ${oneLine(i)}`) } : { name, tier, head: [`${`${name}:`.padEnd(12)} (none)`] };
  blocks.push(
    text('goal', 3, 'goal', c.goal),
    text('acceptance', 4, 'acceptance', c.acceptance),
    list('constraints', 4, c.constraints),
    list('decisions', 4, c.decisions),
    list('evidence', 3, c.evidence),
    list('pending', 4, c.pending),
    text('next', 2, 'next', c.next),
  );
  const m = v.capsule.mechanical;
  if (m) {
    const f = mechanicalFacts(m);
    const more = f.total - f.paths.length;
    blocks.push({
      name: 'uncommitted paths',
      tier: 5,
      head: ['', `mechanical state at ${oneLine(f.at ?? 'an unrecorded time')} (recorded, not claimed): HEAD ${oneLine(f.head ?? 'none')}, branch ${oneLine(f.branch ?? 'none')}, ${'uncommitted' in m || 'uncommitted_count' in m ? `${f.total} uncommitted path${f.total === 1 ? '' : 's'}` : 'uncommitted paths not recorded'}${f.paths.length ? ':' : ''}`],
      items: [...f.paths.map((p) => `  ${oneLine(p)}`), ...(f.paths.length && more > 0 ? [`  … and ${more} more`] : [])],
    });
  }
  return blocks;
}
