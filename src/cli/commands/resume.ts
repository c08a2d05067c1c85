import { CheckpointError } from '../../errors.js';
import { shownList } from '../../one-line.js';
import { actionText, type Checkpoint } from '../../protocol/types.js';
import { openBlockers, RANK_LABELS, RANKS, UNCLEAR_NEEDS_LABEL, unclearBlockers, userDecisionBlockers, waitsOnUser } from '../../protocol/priority.js';
import { aheadNotes, asksUser, blockedOnlyByLanded, blockingError, brokenNotice, buildAgenda, landedBlockerNote, needsRepairLines, needsResolve, needsUser, repairEntry, repairNoteLine, repairsEntry, unclearNeeds, unreadStatus, type AgendaItem } from '../../read/agenda.js';
import { oneLine as q, relativeTime } from '../render/output.js';
import { displayWidth, padDisplay } from '../render/width.js';
import { listSkills, notAnObject } from '../../store/checkpoints.js';
import { outsideLine } from '../../store/sparse-checkout.js';
import { checkpointsOutside } from '../../store/index-conflicts.js';
import { byteLimit, charLimit, printBudgeted, type Block } from '../render/budget.js';
import { terminalSafeJson } from '../render/json-text.js';
import type { Context, ParsedArgs } from '../spec.js';
import { engineArg, historyNotice, optionalSkillArg, rootOf } from './common.js';
import { recommend } from './next.js';
import { commandFor, placeholder, shellQuote } from '../../shell-words.js';
import { handRepair } from '../../protocol/repairable.js';
import { pathArg } from '../../store/paste-path.js';
import { BLOCKER_NEEDS, CHECKPOINT_STATUSES } from '../../protocol/shapes.generated.js';
import type { GoneFile } from '../../read/gone-files.js';
import type { OutsideFile } from '../../read/outside-files.js';
import { listEntries, type ListEntry } from '../../protocol/field-places.js';

export const RESUME_MAX_BYTES = 16 * 1024;
/** Exit code when the user has to decide (continue, restart, show) before work resumes. */
export const EXIT_ASK_USER = 3;
const MAX_FILES = 12;
/** Other in-progress skills resume names by name; the rest as a count. */
const MAX_OTHERS = 5;
/** The skill a printed command leaves to the reader where none exists yet: quoted, so pasted as it is it is refused, never a redirection. */
const ONE_SKILL = placeholder('skill');
/** The command that resumes one of `skills` (a real name: the first where there are several), in backticks when `code`. */
const resumeOne = (skills: readonly string[], code = false) => commandFor(skills, (s) => `checkpoint resume ${s}`, code ? (c) => `\`${c}\`` : undefined);

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  if (args.options.context) return (await import('./resume-context.js')).run(args, ctx);
  // Both limits checked before any work: a bad value is refused even when resume would only ask which skill.
  const maxBytes = byteLimit(args.options['max-bytes'], RESUME_MAX_BYTES);
  const maxChars = charLimit(args.options['max-chars']);
  const print = (blocks: Block[], showAll: string) => printBudgeted(blocks, { maxChars, maxBytes, option: ctx.opSpelling?.option }, showAll, (t) => ctx.out.out(t));
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  const agenda = await buildAgenda({ root, now: ctx.now, engine: engineArg(args), skill });
  if (skill && agenda.broken.length) {
    const b = agenda.broken[0]!;
    const skills = listSkills(root);
    // A file removed mid-merge is not "no checkpoint": git's index still holds it (b.conflict).
    if (!skills.includes(skill) && !b.conflict) {
      throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}"`, {
        hint: skills.length ? `checkpoints here: ${skills.join(', ')} (${resumeOne(skills)})` : notHereHint(root) ?? `no checkpoints yet: a skill creates its checkpoint on its first write (checkpoint update ${ONE_SKILL} ...)`,
      });
    }
    // Only a file that cannot be read at all may be set aside; a field is fixed where it stands.
    // The error that keeps it unread, as status and next name it: not a hand-written slip beside it.
    const first = blockingError(b);
    const hand = first ? handRepair(first) : null;
    // A placeholder path is refused by update as pasted; the reader fills in path and value.
    // A merge left it conflicted: resolving keeps both sides; reset would archive the markers mid-merge.
    const hint = b.conflict
      ? `finish the merge first: ${b.conflict.repair}`
      : needsResolve(b)
      ? 'finish the merge with checkpoint resolve (checkpoint resolve --check lists what is left)'
      : b.problem && /: forbidden key "/.test(b.problem)
      ? 'rename that key by hand: the rest of the file is sound (then checkpoint validate); never start fresh over it'
      : b.problem
      ? 'fix it (checkpoint validate) or set it aside and start fresh with checkpoint reset'
      : first?.path === '(root)'
      ? notAnObject(skill).hint!
      : `${hand ?? `fix the field with checkpoint update ${skill} ${shellQuote('--<path>=<value>')}`} (every error: checkpoint validate ${pathArg(root, `.checkpoints/${skill}.checkpoint.json`)})`;
    // A merge left unfinished is a conflict, as every write names it (E_CONFLICT); anything else is invalid input.
    throw new CheckpointError(b.conflict || needsResolve(b) ? 'E_CONFLICT' : 'E_INVALID', `cannot resume ${skill}: ${b.problem ?? `${first?.path}: ${first?.message}`}`, { hint });
  }
  // Left out by a sparse checkout: not read here, so never "start fresh" over it.
  const sparse = agenda.outside && outsideLine(agenda.outside);
  if (skill && sparse && !agenda.items.length) throw new CheckpointError('E_SPARSE', `cannot resume ${skill}: ${sparse}`);
  const unread = historyNotice(agenda.historyError);
  if (unread) ctx.out.err(unread);
  const notice = brokenNotice(agenda);
  if (notice) ctx.out.err(notice);
  for (const note of aheadNotes(agenda, ctx.now)) ctx.out.err(note);
  const top = agenda.items[0];
  // A checkpoint that exists but cannot be read is never "nothing to resume": when nothing else
  // can be resumed, or a merge left one conflicted, the user decides before any work starts.
  const unreadable = skill ? [] : agenda.broken;
  const askRepair = unreadable.length > 0 && (!top || unreadable.some(needsResolve));
  if (!top && !askRepair && sparse) {
    // The user decides: bring the checkpoints in, or start fresh knowing they exist.
    if (ctx.json) ctx.out.out(fittedJson({ ok: false, ask_user: true, resume: null, message: sparse }, maxBytes, null));
    else print([{ name: 'message', tier: 0, header: true, head: [sparse] }], 'checkpoint status');
    return EXIT_ASK_USER;
  }
  if (!top && !askRepair) {
    const msg = 'no checkpoint to resume: start fresh (a skill creates its checkpoint on its first write)';
    if (ctx.json) ctx.out.out(fittedJson({ ok: true, resume: null, message: msg }, maxBytes, null));
    else print([{ name: 'message', tier: 0, header: true, head: [msg] }], 'checkpoint status');
    return 0;
  }
  // Blocked by nothing but work git shows landed: the session checks and clears the blockers (orient says so), no question for the user.
  // Without a skill we never silently pick one the user has to look at: list and ask. The only
  // checkpoint there is gets its briefing instead, led by the question (exit 3 all the same).
  if (!skill && (askRepair || (needsUser(top!) && agenda.items.length > 1))) {
    const candidates = agenda.items.slice(0, 8).map((i) => ({ skill: i.skill, status: i.checkpoint.status, stale: i.stale, reason: unreadStatus(i) ? UNREAD_STATUS : unclearNeeds(i) ? UNCLEAR_NEEDS_LABEL : RANK_LABELS[i.rank], updated: relativeTime(i.checkpoint.updated_at, ctx.now) }));
    const repair = unreadable.map(repairEntry);
    // Within the budget like the briefing: the question is never left out, the lists give way from their ends.
    // A side of an unfinished merge may well be readable: it is not read, and said so.
    const midMerge = unreadable.every((b) => b.conflict);
    const question = midMerge ? 'A checkpoint is in an unfinished merge: finish it, or resume another?' : 'A checkpoint cannot be read: repair it, or resume another?';
    const askBlocks = (): Block[] => {
      if (askRepair) {
        const them = unreadable.length === 1 ? 'it' : 'them';
        // Each line names the file and the command that repairs it; never "start fresh" over it.
        const [one, some] = midMerge ? ['A checkpoint is in an unfinished merge', 'Checkpoints are in an unfinished merge'] : ['A checkpoint cannot be read', 'Checkpoints cannot be read'];
        return [
          { name: 'heading', tier: 0, header: true, head: [`${unreadable.length === 1 ? one : some}, so none is resumed automatically:`] },
          { name: 'checkpoints needing repair', tier: 1, head: [], items: needsRepairLines(agenda).map((line) => `  ✗ ${q(line)}`) },
          { name: 'other checkpoints', tier: 2, head: [], items: candidates.map((cand) => `  ${cand.skill}  ${q(cand.status)}${cand.stale ? ' (stale)' : ''}  ${cand.updated}  — ${cand.reason}`) },
          { name: 'question', tier: 0, cut: true, head: [`ASK THE USER before starting work: repair ${them} with the command on ${unreadable.length === 1 ? 'its line' : 'each line'}${candidates.length ? `, or resume another (${resumeOne(candidates.map((c) => c.skill), true)})` : ''}. Do not start fresh over ${them}.`] },
        ];
      }
      const col = (f: (x: (typeof candidates)[number]) => string) => Math.max(...candidates.map((x) => displayWidth(f(x))));
      const status = (x: (typeof candidates)[number]) => `${q(x.status)}${x.stale ? ' (stale)' : ''}`;
      const [ws, wt, wu] = [col((x) => x.skill), col(status), col((x) => x.updated)];
      return [
        { name: 'heading', tier: 0, header: true, head: [candidates.length === 1 ? 'This checkpoint needs a decision before it is resumed automatically:' : 'Several checkpoints need a decision before any is resumed automatically:'] },
        { name: 'candidates', tier: 1, head: [], items: candidates.map((cand) => `  ${padDisplay(cand.skill, ws)}  ${padDisplay(status(cand), wt)}  ${padDisplay(cand.updated, wu)}  — ${cand.reason}`) },
        { name: 'question', tier: 0, cut: true, head: [`ASK THE USER which to resume, then resume it (${resumeOne(candidates.map((c) => c.skill), true)}).`] },
      ];
    };
    if (ctx.json) ctx.out.out(fittedJson({ ok: !askRepair, ask_user: true, question: askRepair ? question : 'Which checkpoint should this session resume?', candidates, ...(repair.length ? { needs_repair: repair } : {}) }, maxBytes, null));
    else print(askBlocks(), 'checkpoint status');
    return EXIT_ASK_USER;
  }
  // A decision waiting on the user is asked before any work (protocol, resume step 4), even on
  // work in progress: the briefing is shown, and the exit says to ask.
  const ask = asksUser(top!);
  // The files it lists, matched as meant (rows as ranking reads them: "Done" is complete), each
  // marked when doctor finds it renamed or deleted (one doctor run over this checkpoint alone),
  // or leading out of the repository (never a file to load: the protocol loads what is listed).
  const listed = listedFiles(top!.meant);
  const gone = listed.length ? await filesGone({ root, now: ctx.now, skill: top!.skill, engine: engineArg(args) }, agenda.historyError === null ? ctx.out.err : null) : [];
  // "/src/a.ts" doctor finds gone from the top is a file gone, not a path out.
  const outside = listed.length ? (await import('../../read/outside-files.js')).outsideFiles(top!.meant, root).filter((o) => o.fromTop === undefined || !gone.some((g) => g.path === o.path && g.file === o.fromTop)) : [];
  // A path written on another machine (under its project_dir, with backslashes) listed as it lies
  // here; an entry doctor reads as a note ("none yet", "N/A") is no file to read, unless marked (a
  // file gone, a path out).
  const { local, notes } = listed.length ? (await import('../../read/listed-entries.js')).readListedEntries(top!.meant, root) : { local: new Map<string, string>(), notes: new Set<string>() };
  const marks = marksByPath(gone, outside, local);
  const { files, more } = relevantFiles(top!.meant, listed.filter((f) => !notes.has(f.path) || marks.goneOf.has(f.path) || marks.outsideOf.has(f.path)), marks);
  const orientation = orient(root, top!, ctx.now, needsUser(top!), files, more, marks);
  // Left out of the ranking but named where the session reads, not on stderr alone.
  const repairLines = unreadable.length ? needsRepairLines(agenda) : [];
  if (repairLines.length) orientation.blocks.push({ name: 'checkpoints needing repair', tier: 0, head: ['', ...repairLines.map((l) => q(l))] });
  if (sparse) orientation.blocks.push({ name: 'checkpoints outside this checkout', tier: 0, head: ['', sparse] });
  // Resume picked one: a session must know the others it was not shown exist.
  const others = skill ? [] : agenda.items.filter((i) => i !== top && (i.rank === RANKS.inProgress || i.rank === RANKS.atGate)).map((i) => i.skill);
  if (others.length) orientation.blocks.push({ name: 'other skills in progress', tier: 1, head: ['', `Also in progress: ${shownList(others, MAX_OTHERS)} (${resumeOne(others)})`] });
  if (ctx.json) {
    const data = { ok: true, ask_user: ask, ...orientation.data, ...(skill ? {} : { others_in_progress: others }), ...(unreadable.length ? { needs_repair: unreadable.map(repairEntry) } : {}), ...(sparse ? { outside_sparse_checkout: sparse } : {}) };
    ctx.out.out(fittedJson(data, maxBytes, top!.skill));
    return ask ? EXIT_ASK_USER : 0;
  }
  print(orientation.blocks, `checkpoint show ${top!.skill}`);
  return ask ? EXIT_ASK_USER : 0;
}

/**
 * The --json briefing within --max-bytes (its newline included), as the text is: whole when it
 * fits (indented, else compact); else the parts a session needs least are left out first (key
 * decisions, files, the actions after the next, the summary), each named in `left_out`, with the
 * command that shows everything. What still does not fit (the next action, the decisions waiting
 * on the user) is refused, never cut: exit 2, naming the least budget that holds an answer.
 */
export function fittedJson(data: Record<string, unknown>, maxBytes: number, skill: string | null): string {
  const fits = (v: unknown) => [JSON.stringify(v, null, 2), JSON.stringify(v)].map(terminalSafeJson).find((t) => Buffer.byteLength(t) + 1 <= maxBytes);
  const whole = fits(data);
  if (whole !== undefined) return whole;
  const everything = skill ? `checkpoint show ${skill}` : 'checkpoint status --json';
  const upcoming = Array.isArray(data.next_actions) ? data.next_actions.slice(0, 1) : [];
  // Least needed first.
  const parts = ([['key_decisions', []], ['files', []], ['files_gone', []], ['files_not_read', []], ['others_in_progress', []], ['next_actions', upcoming], ['progress_summary', null], ['candidates', []]] as const).filter(([key]) => key in data);
  // A form is the set of parts left out, as a bit mask over `parts`.
  const without = (mask: number) => {
    const left = parts.filter((_, i) => mask & (1 << i));
    return { ...data, ...Object.fromEntries(left), left_out: left.map(([key]) => key), everything };
  };
  // Each form's least size (compact, newline included), measured once. Leaving out more is not
  // always smaller: a part's name in left_out can cost more than an empty list or a short summary saves.
  const sizes = new Map<number, number>();
  const sizeOf = (mask: number) => sizes.get(mask) ?? sizes.set(mask, Buffer.byteLength(terminalSafeJson(JSON.stringify(without(mask)))) + 1).get(mask)!;
  const smallestWithin = (k: number) => {
    let best = 1;
    for (let mask = 2; mask < 1 << k; mask++) if (sizeOf(mask) < sizeOf(best)) best = mask;
    return best;
  };
  // The fewest least-needed parts: the first k that some form leaving out only those fits in,
  // from its smallest form, each part given back (most needed first) while it still fits.
  for (let k = 1; k <= parts.length; k++) {
    let mask = smallestWithin(k);
    if (sizeOf(mask) > maxBytes) continue;
    for (let i = k - 1; i >= 0; i--) if (mask & (1 << i) && sizeOf(mask & ~(1 << i)) <= maxBytes) mask &= ~(1 << i);
    return fits(without(mask))!;
  }
  // The least budget that holds an answer: none smaller is, and at it the loop above finds one.
  const wholeSize = Buffer.byteLength(terminalSafeJson(JSON.stringify(data))) + 1;
  const size = parts.length ? Math.min(wholeSize, sizeOf(smallestWithin(parts.length))) : wholeSize;
  const what = parts.length ? 'the --json briefing at its smallest, the next action and the decisions waiting on the user kept' : 'the --json answer';
  throw new CheckpointError('E_USAGE', `--max-bytes ${maxBytes} cannot hold ${what} (${size} bytes with its newline)`, {
    hint: `raise --max-bytes to ${size} or more${parts.length ? `, or read it whole with ${everything}` : ''}`,
  });
}

// A status outside the enum that no repair reads as one ("paused", "✅ done"): whether the work
// goes on is the user's call, as for blocked, never resumed as if in progress.
const UNREAD_STATUS = `a status outside ${CHECKPOINT_STATUSES.join('|')}: whether work goes on is unclear`;

function progress(cp: Checkpoint): string {
  const rows = Array.isArray(cp.progress_table) ? cp.progress_table : [];
  if (!rows.length) return 'no progress_table';
  return `${rows.filter((r) => r.status === 'complete').length}/${rows.length} phases complete`;
}

type ListedFile = ListEntry & { entry: string };

/** generated_files as listed: context_primer's list, then one written at the top level (field-places.ts), as doctor checks them. */
function listedFiles(cp: Checkpoint): ListedFile[] {
  return listEntries(cp, 'generated_files').filter((f): f is ListedFile => typeof f.entry === 'string');
}

/** Words as names are compared: lower case, runs of separators as one hyphen ("Rate limiting", "rate_limiting"). */
const nameWords = (t: string) => t.toLowerCase().replace(/[\s_-]+/g, '-');

/**
 * The listed files that name the current step, phase or in-progress row as a whole word (a row
 * "rate" names src/rate.ts, not scripts/migrate.sh), with every file doctor finds gone (a rename
 * the session must know of) or leading out of the repository (marked, never one to load), in
 * listed order; all of them if none do. At most MAX_FILES, but every marked one: they come first
 * within the cap and past it. `more`: how many of them the cap left out.
 */
function relevantFiles(cp: Checkpoint, files: readonly ListedFile[], marks: Marks): { files: ListedFile[]; more: number } {
  const rows = (Array.isArray(cp.progress_table) ? cp.progress_table : []).filter((r) => r.status === 'in_progress').map((r) => r.id);
  const tokens = [cp.step, cp.phase, ...rows].filter((t): t is string => typeof t === 'string' && t.trim().length > 2).map(nameWords);
  const names = (entry: string) => {
    const text = nameWords(entry);
    return tokens.some((t) => {
      for (let at = text.indexOf(t); at >= 0; at = text.indexOf(t, at + 1)) {
        const [before, after] = [text[at - 1], text[at + t.length]];
        if ((before === undefined || !/[\p{L}\p{N}]/u.test(before)) && (after === undefined || !/[\p{L}\p{N}]/u.test(after))) return true;
      }
      return false;
    });
  };
  const marked = (f: ListedFile) => marks.goneOf.has(f.path) || marks.outsideOf.has(f.path);
  const hits = new Set(files.filter((f) => names(f.entry)));
  const pool = hits.size ? files.filter((f) => hits.has(f) || marked(f)) : [...files];
  const markedOnes = pool.filter(marked);
  const kept = new Set([...markedOnes, ...pool.filter((f) => !marked(f)).slice(0, Math.max(0, MAX_FILES - markedOnes.length))]);
  return { files: pool.filter((f) => kept.has(f)), more: pool.length - kept.size };
}

/**
 * Which listed files doctor finds gone (gone-files.ts, loaded only when there are files). History
 * is evidence, not a requirement: when it cannot be read the files are listed unmarked, and said
 * so on stderr (`err`; null when the history notice already said it).
 */
async function filesGone(opts: { root: string; now: Date; skill: string; engine: ReturnType<typeof engineArg> }, err: ((line: string) => void) | null): Promise<GoneFile[]> {
  try {
    return await (await import('../../read/gone-files.js')).goneFiles(opts);
  } catch (e) {
    err?.(`checkpoint: note: the files listed were not checked for renames and deletions: ${q(String(e instanceof Error ? e.message : e).split('\n')[0]!)} (\`checkpoint doctor\` for details)`);
    return [];
  }
}

/**
 * What doctor finds of the listed files (gone, leading out of the repository), by each entry's
 * JSON path: looked up per file, never scanned for it, so a list of 20,000 files is read in
 * linear time, not the minute a scan per file took (red team 63 r1 2).
 */
interface Marks {
  gone: readonly GoneFile[];
  outside: readonly OutsideFile[];
  goneOf: Map<string, GoneFile[]>;
  outsideOf: Map<string, OutsideFile[]>;
  /** By entry's JSON path: the path here of an entry written for another checkout (listed-entries.ts). */
  local: ReadonlyMap<string, string>;
}

function marksByPath(gone: readonly GoneFile[], outside: readonly OutsideFile[], local: ReadonlyMap<string, string>): Marks {
  const byPath = <T extends { path: string }>(list: readonly T[]) => {
    const map = new Map<string, T[]>();
    for (const x of list) (map.get(x.path) ?? map.set(x.path, []).get(x.path)!).push(x);
    return map;
  };
  return { gone, outside, goneOf: byPath(gone), outsideOf: byPath(outside), local };
}

/**
 * What resume says after a listed file doctor finds gone or leading out of the repository:
 * " — renamed to src/b.ts in 1b5f3ba", " — a symlink out of the repository, not read", naming the
 * file when the entry is more than it.
 */
function fileMark(f: ListedFile, marks: Marks): string {
  const named = (file: string, verb = '') => (file === f.entry.trim() ? '' : `${file} ${verb}`);
  const said = [
    ...(marks.goneOf.get(f.path) ?? []).map((g) => `${named(g.file)}${g.note}`),
    ...(marks.outsideOf.get(f.path) ?? []).map((o) => `${named(o.file, 'is ')}${o.note}, not read`),
  ];
  return said.length ? ` — ${said.join('; ')}` : '';
}

function orient(root: string, item: AgendaItem, now: Date, ask: boolean, files: readonly ListedFile[], moreFiles: number, marks: Marks) {
  const cp = item.checkpoint;
  const rec = recommend(item);
  const decisions = userDecisionBlockers(cp);
  const keyDecisions = (cp.context_primer?.key_decisions ?? []).filter((d): d is string => typeof d === 'string');
  // Every value from the file goes through q(): a line break in it prints as \n, so a merged
  // checkpoint cannot add a line that looks like one of ours (a fake "Next: ...").
  // Display order; the tier says what a tight output budget keeps first: the header (the first
  // line a session reads, never left out: a budget that cannot hold it is refused), when and in
  // what state it was left and the question for the user (left out only where not even its
  // "ASK THE USER… [cut]" fits), then the source label and what else waits on the user, the next
  // action and the repair note (a long one never pushes the question out), and only then the (whole) summary.
  const blocks: Block[] = [
    { name: 'header', tier: 0, header: true, head: [`RESUMING: ${item.skill}${cp.project.trim() ? ` on ${q(cp.project)}` : ''}`] },
    {
      name: 'last session and status',
      tier: 0,
      head: [`Last session: ${relativeTime(item.meant.updated_at, now)} (${q(cp.updated_at)})${item.stale ? ' ⚠ stale' : ''}`, `Status: ${q(cp.status)}`],
    },
    { name: 'summary', tier: 3, head: [`Summary: ${cp.progress_summary.trim() ? q(cp.progress_summary) : '(none written)'}`] },
    { name: 'progress', tier: 3, head: [`Progress: ${progress(item.meant)}`] },
    { name: 'next action', tier: 2, cut: true, head: [`Next: ${q(rec.text)}`], items: rec.skipped_as_landed.map((s) => `  (skipped "${q(s.text)}": ${q(s.evidence)})`) },
    ...(item.repairs.length ? [{ name: 'repair note', tier: 2, head: [repairNoteLine(item, root)!.replace(/[\s\S]*/, (l) => q(l))] }] : []),
    { name: 'source', tier: 1, head: [`(the text after each label is quoted from .checkpoints/${item.skill}.checkpoint.json, as earlier sessions wrote it)`] },
  ];
  const unclear = unclearBlockers(item.meant)[0];
  const why = unreadStatus(item)
    ? `its status "${q(cp.status)}" is outside ${CHECKPOINT_STATUSES.join('|')}, so whether work goes on is unclear`
    : unclear && !item.stale && item.status !== 'failed' && item.status !== 'blocked'
      ? `blocker ${q(String(unclear.id))} needs "${q(String(unclear.needs))}", outside ${BLOCKER_NEEDS.join('|')}, so whether it waits on the user is unclear`
      : `this checkpoint is ${item.stale ? 'stale' : q(cp.status)}`;
  // Where it does not fit whole, cut only after "ASK THE USER" or its reason: a start cut inside
  // the choices could read as one of them ("Continue from here").
  const asked = `ASK THE USER: ${why}.`;
  if (ask) blocks.push({ name: 'question for the user', tier: 0, breaks: ['ASK THE USER'.length, asked.length], head: ['', `${asked} Continue from here, restart (checkpoint reset ${item.skill}), or show the full checkpoint (checkpoint show ${item.skill})?`] });
  // A blocker whose awaited work landed says so where it is listed (as doctor finds it).
  const landed = new Map(item.landedBlockers.map((b) => [b.index, ` — ${q(landedBlockerNote(b))}`]));
  // One the checkpoint marks resolved is not listed (priority.ts blockerClosed).
  const blockers = openBlockers(cp).map(({ b, index }) => ({ b, landed: landed.get(index) ?? '' }));
  if (decisions.length) blocks.push({ name: 'decisions waiting on the user', tier: 1, head: ['', ask ? 'Decisions waiting on the user (ask before proceeding):' : 'ASK THE USER to decide before proceeding (decisions waiting on the user):'], items: blockers.filter(({ b }) => b && waitsOnUser(b)).map(({ b, landed }) => `  ⛔ ${q(String(b.id))}: ${q(b.description)}${b.proposed_resolution ? ` — proposed: ${q(b.proposed_resolution)}` : ''}${landed}`) });
  const others = blockers.filter(({ b }) => b && !waitsOnUser(b));
  if (others.length) blocks.push({ name: 'blockers', tier: 1, head: ['', 'Open blockers:'], items: others.map(({ b, landed }) => `  ■ ${q(String(b.id))}: ${q(b.description)}${b.needs ? ` [${q(b.needs)}]` : ''}${landed}`) });
  const verify = blockedOnlyByLanded(item) ? `every blocker waits on work that has since landed: check that none still blocks, then clear them (checkpoint update ${item.skill} --blockers:json='[]' --status=in_progress)` : null;
  if (verify) blocks.push({ name: 'landed blockers', tier: 1, head: ['', `VERIFY BEFORE WORKING: ${verify}.`] });
  if (keyDecisions.length) blocks.push({ name: 'key decisions', tier: 4, head: ['', 'Key decisions:'], items: keyDecisions.map((d) => `  - ${q(d)}`) });
  const shown = new Map(files.map((f) => [f.path, f]));
  const shownGone = marks.gone.filter((g) => shown.has(g.path));
  const notRead = marks.outside.filter((o) => shown.has(o.path));
  if (files.length) {
    blocks.push({
      name: 'files',
      tier: 4,
      head: ['', 'Files for this step:'],
      items: [
        ...files.map((f) => `  ${q(marks.local.get(f.path) ?? f.entry)}${marks.local.has(f.path) ? ` (written as ${q(f.entry)})` : ''}${q(fileMark(f, marks))}`),
        ...(shownGone.length ? ['  (marked: not where the checkpoint says; update generated_files, `checkpoint doctor` has the details)'] : []),
        ...(notRead.length ? [`  (marked not read: it leads out of the repository or is no plain file, so it is not a file to load${notRead.some((o) => o.inRepo.length) ? ' (the other files its entry names still are)' : ''}; \`checkpoint doctor\` has the details)`] : []),
        ...(moreFiles ? [`  … and ${moreFiles} more: checkpoint show ${item.skill}`] : []),
      ],
    });
  }
  const upcoming = (Array.isArray(cp.next_actions) ? cp.next_actions : []).map(actionText);
  return {
    blocks,
    data: {
      skill: item.skill,
      project: cp.project,
      updated_at: cp.updated_at,
      stale: item.stale,
      status: cp.status,
      progress_summary: cp.progress_summary,
      progress: progress(item.meant),
      next: rec,
      next_actions: upcoming,
      key_decisions: keyDecisions,
      // One leading out of the repository is no file to load: named in files_not_read, with why, instead.
      // An entry's parts are judged apart ("src/config.ts, ~/.app/settings.json"): those in the repository stay.
      files: [...new Set(files.flatMap((f) => marks.outsideOf.get(f.path)?.[0]?.inRepo ?? [marks.local.get(f.path) ?? f.entry]))],
      ...(shownGone.length ? { files_gone: shownGone.map(({ path, ...g }) => ({ path, entry: shown.get(path)!.entry, ...g })) } : {}),
      ...(notRead.length ? { files_not_read: notRead.map(({ path, inRepo: _kept, fromTop: _top, ...o }) => ({ path, entry: shown.get(path)!.entry, ...o })) } : {}),
      ...(moreFiles ? { files_left_out: moreFiles } : {}),
      user_decisions: decisions,
      ...(verify ? { verify_blockers: verify } : {}),
      repairs: repairsEntry(item),
    },
  };
}

/** With no checkpoint in the work tree: the ones a sparse checkout leaves out, as every reader names them. */
function notHereHint(root: string): string | null {
  const outside = checkpointsOutside(root);
  return outside && outsideLine(outside);
}
