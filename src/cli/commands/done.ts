import { CLI_SPELLING, mcpCall, spelledHint } from '../../protocol/op-spelling.js';
import { validAt } from '../../protocol/validate.js';
import { accessSync, constants, statSync } from 'node:fs';
import { oneLine, quoted, shown } from '../../one-line.js';
import { delimiter, join, resolve } from 'node:path';
import { CheckpointError, isCheckpointError } from '../../errors.js';
import { logRetention, policyFor, type LogPolicy } from '../../protocol/fields.js';
import { rebaseTexts, rekeyItems } from '../../protocol/format.js';
import { literalPlace, type LiteralTexts } from '../../protocol/json.js';
import { stampWrite } from '../../protocol/scaffold.js';
import { actionText, type Checkpoint, type JsonObject, type JsonValue, type NextAction } from '../../protocol/types.js';
import { display, mutateCheckpoint, notAnObject, previewMutation, requireCheckpoint } from '../../store/checkpoints.js';
import { archiveOverflow, overflowPointer, rotationAdvice, type HistoryWrite } from '../../store/rotate.js';
import type { RotationJournal } from '../../store/rotation-journal.js';
import { addPointers, cutNewestFirst, runsOldestFirst } from '../../protocol/rotation.js';
import { runDoneWhen } from '../../store/verify.js';
import { actionRepair, listFlag, MAX_FIX_TEXT, readActionText, suggestEnum } from '../../protocol/repairable.js';
import { CHECKPOINT_STATUSES } from '../../protocol/shapes.generated.js';
import { chooseAction, MARKED_DONE, markedDone } from '../../protocol/priority.js';
import { DEFAULT_VERIFY_TIMEOUT_S, MAX_VERIFY_TIMEOUT_S, type Context, type ParsedArgs } from '../spec.js';
import { historyNotice, noteKeptErrors, noteReplacedLink, rootOf, skillArg } from './common.js';

/** recently_done keeps this many entries, newest first (its policy's `keep` in fields.ts); older ones move to .checkpoints/history/. */
export const RECENTLY_DONE_MAX = logRetention(['recently_done'])!;

const SHELL_WORDS = new Set(['!', '[', '[[', '(', '{', 'test', 'true', 'false', 'cd', 'command', 'exec', 'exit', 'export', 'if', 'for', 'while', 'until', 'case', 'set', 'eval', '.', 'echo', 'printf', 'env', 'time']);

/**
 * The first word of a shell command when it names no builtin, file or command on PATH (a
 * prose done_when such as "PR opened"), else null. Checked before running, so prose is never
 * handed to the shell.
 */
function missingCommand(cmd: string, cwd: string): string | null {
  const words = cmd.trim().split(/\s+/);
  const word = words.find((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  if (word === undefined || SHELL_WORDS.has(word) || /[$`'"(){}|&;<>*?]/.test(word)) return null;
  const runnable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (word.includes('/')) return runnable(resolve(cwd, word)) ? null : word;
  return (process.env.PATH ?? '').split(delimiter).some((d) => d && runnable(join(d, word))) ? null : word;
}

/**
 * The update that makes a recently_done written as no list the list it stands for: null (what
 * Python writes for None) an empty one, one entry (a string, an {at, action}) a list of it. Null
 * where that list would still be invalid (a number is no entry) or is too long to print: by hand.
 */
function recentlyDoneFix(doc: JsonObject, skill: string, mcp: boolean): string | null {
  const list = doc.recently_done === null ? [] : [doc.recently_done!];
  const json = JSON.stringify(list);
  if (json.length > MAX_FIX_TEXT || !validAt(doc, ['recently_done'], list)) return null;
  return mcp ? mcpCall('update', skill, [['recently_done', 'set', json, 'json']]) : `checkpoint update ${skill} ${CLI_SPELLING.op('recently_done', 'set', json)}`;
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = skillArg(args);
  const timeout = Number(args.options.timeout ?? DEFAULT_VERIFY_TIMEOUT_S);
  // setTimeout fires at once for delays past 2^31-1 ms, so the bound is a day.
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > MAX_VERIFY_TIMEOUT_S) {
    throw new CheckpointError('E_USAGE', `--timeout=${shown(String(args.options.timeout))}: expected a positive number of seconds (at most ${MAX_VERIFY_TIMEOUT_S})`, { hint: 'e.g. --verify --timeout=120' });
  }
  if (args.options.timeout !== undefined && !args.options.verify) {
    throw new CheckpointError('E_USAGE', '--timeout limits the --verify check, and --verify was not given', { hint: `checkpoint done ${skill} --verify --timeout=${shown(String(args.options.timeout))}` });
  }
  if (args.options.landed && args.options.verify) {
    const o = (name: string) => ctx.opSpelling?.option(name) ?? `--${name}`; // the done tool's arguments over MCP
    throw new CheckpointError('E_USAGE', `${o('landed')} records work git shows landed, and ${o('verify')} runs a check: give one of them`, {
      hint: ctx.opSpelling?.caller === 'mcp' ? 'send landed: true without verify, or verify: true without landed' : `checkpoint done ${skill} --landed`,
    });
  }
  const act = `mark the first action of ${skill} done`;
  // The action `next` names: past those the checkpoint itself marks done ("[x] …") or names work git
  // shows landed, which go to recently_done before it, one write each, so the work just done is the
  // one recorded and `next` moves on. --landed records those alone (the reconciling doctor asks for).
  const onDisk = requireCheckpoint(root, skill, undefined, act).value;
  if (onDisk === null || typeof onDisk !== 'object' || Array.isArray(onDisk)) throw notAnObject(skill);
  const queue = queuedActions(onDisk, skill, ctx.opSpelling?.caller === 'mcp');
  const { landed, historyError } = await landedNow(root, ctx, skill, queue);
  const picks = args.options.landed ? landedPicks(queue, landed, skill, historyError) : nextPicks(onDisk, queue, landed, skill);
  const first = queue[picks[picks.length - 1]!] as NextAction;
  const expected = picks.map((i) => JSON.stringify(queue[i]));
  const why = (i: number) => (markedDone(queue[i]) ? 'marked done in the checkpoint' : `landed: ${landed.get(i) ?? ''}`);
  let step = 0;
  const alsoDone: { text: string; why: string }[] = [];

  let left: NextAction[] = [];
  let doneText = actionText(first);
  let overflow: { entries: JsonValue[]; movedAt: number[]; from: JsonObject; texts: LiteralTexts } | null = null;
  // One change for the check before --verify runs and for the write: every refusal is decided first.
  // `now` is the write's own instant (taken under the lock, after the check ran), never ctx.now.
  let stampNotes: string[] = [];
  // Why the rotation file could not be named in skill_state.rotated_to (a value no rule reads as paths).
  let unrecorded: string | null = null;
  const change = (current: JsonValue | null, texts: LiteralTexts, now: Date, journal: RotationJournal): JsonValue => {
    overflow = null;
    stampNotes = [];
    unrecorded = null;
    const doc = current as JsonObject | null;
    const from = structuredClone(doc) as JsonObject;
    // Re-read under the lock: the file may have been reset or rewritten since queuedActions().
    if (doc === null || typeof doc !== 'object' || !Array.isArray(doc.next_actions)) {
      throw new CheckpointError('E_EXISTS', `the checkpoint of "${skill}" changed meanwhile; run done again`);
    }
    const actions = doc.next_actions as NextAction[];
    // A preview (--verify's refusals decided first) takes the earlier picks off at once.
    const k = step < 0 ? picks.length - 1 : step;
    if (step < 0) for (const i of picks.slice(0, -1).reverse()) actions.splice(i, 1);
    // Where the pick stands now (the earlier ones are gone), and where it stood in `from`.
    const at = picks[k]! - k;
    const was = step < 0 ? picks[k]! : at;
    const taken = step < 0 ? new Set(picks) : new Set([at]);
    const keptFrom = (from.next_actions as JsonValue[]).flatMap((_, i) => (taken.has(i) ? [] : [i]));
    const popped = actions.splice(at, 1)[0];
    // The file may have changed since we looked. The classic case (the first action, unverified)
    // pops what is first now; any other never takes a different action than the one chosen.
    const lenient = picks.length === 1 && picks[0] === 0 && !args.options.verify;
    if (popped === undefined || (!lenient && JSON.stringify(popped) !== expected[k])) {
      throw new CheckpointError('E_EXISTS', `next_actions changed ${args.options.verify ? 'while verifying' : 'meanwhile'}; run done again`);
    }
    // "In Progress" as a hand writes it is in progress to every reader: the same guard.
    if (!actions.length && typeof doc.status === 'string' && suggestEnum(doc.status, CHECKPOINT_STATUSES) === 'in_progress') {
      if (!args.options.complete) {
        const as = doc.status === 'in_progress' ? 'in_progress' : `${quoted(doc.status as string)} (in_progress)`;
        // A preview takes every pick at once: they were the last, and finishing takes the same options (--landed too).
        const taking = step < 0 ? picks.length : 1;
        const last = taking === 1 ? 'that was the last action' : `those were the last ${taking} actions`;
        const finish: Record<string, true> = { ...(args.options.landed ? { landed: true as const } : {}), complete: true };
        throw new CheckpointError('E_USAGE', `${last} of "${skill}" and it is ${as}`, spelledHint((s) => `queue the next one first (${s.call('update', skill, [['next_actions', 'append', '...']])}) or finish: ${s.call('done', skill, [], finish)}`));
      }
      doc.status = 'complete';
    }
    doneText = actionText(popped);
    // A hand-written recently_done that is not a list would be replaced, and what it held lost.
    if (doc.recently_done !== undefined && !Array.isArray(doc.recently_done)) {
      const fix = recentlyDoneFix(doc, skill, ctx.opSpelling?.caller === 'mcp');
      throw new CheckpointError('E_INVALID', `recently_done of "${skill}" is ${doc.recently_done === null ? 'null, not a list' : 'not a list: done would replace it and lose what it holds'}`, {
        hint: `${fix ? `make it a list first: ${fix}` : 'make it a list by hand (each entry {at, action} or a string, what it holds kept in one)'}, then run done again; nothing was changed`,
      });
    }
    const done = (doc.recently_done ?? []) as JsonValue[];
    const record = doneRecord(popped, now.toISOString());
    // In front of a newest-first log (the protocol's order), behind one kept oldest-first.
    const policy = policyFor(['recently_done']) as LogPolicy;
    const newAt = runsOldestFirst(done, policy) ? done.length : 0;
    const all = newAt === 0 ? [record.entry, ...done] : [...done, record.entry];
    const cut = cutNewestFirst(all, RECENTLY_DONE_MAX, policy, newAt);
    // Where an entry of `all` stood in the log as read (none for the new one).
    const wasAt = (i: number): number | undefined => (i === newAt ? undefined : i > newAt ? i - 1 : i);
    doc.recently_done = cut.kept;
    // Every value keeps its text (`\u2014` as a Python agent wrote it, `1e3`, `8.0`) in its new
    // place: the texts as read name the places in `from`. Each action after the one taken moves up one place, each
    // entry kept down one (or more, past what went to history/); a repeated one keeps its own text.
    const read = new Map(texts);
    rekeyItems(texts, literalPlace(from, ['next_actions']), from.next_actions as JsonValue[], actions as unknown as JsonValue[], keptFrom);
    rekeyItems(texts, literalPlace(from, ['recently_done']), done, cut.kept, cut.keptAt.map(wasAt));
    const placed = cut.keptAt.indexOf(newAt);
    for (const [part, to] of record.moved) {
      const [fromKey, fromPosition] = literalPlace(from, ['next_actions', was, ...part]);
      const [toKey, toPosition] = literalPlace(doc, ['recently_done', placed, ...to]);
      rebaseTexts(read, fromKey, toKey, texts);
      rebaseTexts(read, fromPosition, toPosition, texts);
    }
    // Nothing is deleted: what falls off the end goes to history/, like rotated telemetry.
    if (cut.moved.length) {
      overflow = { entries: cut.moved, movedAt: cut.movedAt.map((i) => wasAt(i)!), from, texts: read };
      try {
        // One path written as a string is read, and written back, as a list of it (addPointers).
        addPointers(doc, [overflowPointer(root, skill, from, now, journal)]);
      } catch (e) {
        // A skill_state (or rotated_to) that cannot hold the pointer: the entries still go to
        // history/, and the command says the file is not named (validate names what to fix).
        if (!isCheckpointError(e)) throw e;
        unrecorded = e.message;
      }
    }
    left = actions;
    return stampWrite(doc, now, stampNotes, texts);
  };

  if (args.options.verify) {
    const cmd = typeof first === 'object' ? (first.done_when as unknown) : undefined;
    if (cmd !== undefined && cmd !== null && (typeof cmd !== 'string' || cmd.includes('\0'))) {
      throw new CheckpointError('E_INVALID', `next_actions[${picks[picks.length - 1]!}].done_when of "${skill}" is ${typeof cmd === 'string' ? 'a string holding a NUL byte' : Array.isArray(cmd) ? 'a list' : typeof cmd === 'object' ? 'an object' : `a ${typeof cmd}`}, not a shell command; nothing was run`, {
        hint: `fix it with checkpoint update ${skill}, or mark it done without --verify`,
      });
    }
    if (typeof cmd !== 'string' || !cmd) throw new CheckpointError('E_USAGE', `next_actions[${picks[picks.length - 1]!}] of "${skill}" has no done_when check to verify`, { hint: `run \`checkpoint done ${skill}\` without --verify` });
    const missing = missingCommand(cmd, root);
    if (missing !== null) {
      throw new CheckpointError('E_USAGE', `done_when ${quoted(cmd)} of next_actions[${picks[picks.length - 1]!}] is not a runnable check (no command ${quoted(missing)})`, {
        hint: `it reads as a note: confirm it yourself, then run \`checkpoint done ${skill}\` without --verify`,
      });
    }
    // Every refusal of the write (the last action while in_progress, an invalid result) before the check runs.
    step = -1;
    previewMutation(root, skill, { now: ctx.clock, change, act });
    // The action and its check come from the file: each line of ours stays one line.
    ctx.out.err(`verifying "${oneLine(actionText(first))}" with: ${oneLine(cmd)}`);
    const verdict = await runDoneWhen(cmd, root, timeout * 1000, ctx.signal);
    if (!verdict.ok) {
      ctx.out.err(`✗ not done: ${oneLine(verdict.reason)}; next_actions unchanged`);
      if (ctx.json) ctx.out.json({ ok: false, skill, verified: false, reason: verdict.reason });
      return 1;
    }
  }

  // Several writes (actions ticked or landed before the one done): every refusal of the last is
  // decided before the first, so a refused done leaves the file as it was (red team, 12-06).
  if (picks.length > 1 && !args.options.verify) {
    step = -1;
    previewMutation(root, skill, { now: ctx.clock, change, act });
  }
  let archived: { to: string; count: number } | null = null;
  let result: Awaited<ReturnType<typeof mutateCheckpoint>> | undefined;
  // The first of several writes is the one that replaces a linked checkpoint.
  let link: string | undefined;
  for (step = 0; step < picks.length; step++) {
    let written: HistoryWrite | null = null;
    result = await mutateCheckpoint(root, skill, {
      now: ctx.clock,
      act,
      change,
      refused: (doc, now) => rotationAdvice(root, skill, doc, now),
      beforeWrite: (doc, _text, _texts, now, journal) => {
        if (overflow) {
          const { to, write } = archiveOverflow(root, skill, ['recently_done'], overflow.entries, overflow.movedAt, now, overflow.from, journal, doc, overflow.texts);
          archived = { to, count: ((archived as { count: number } | null)?.count ?? 0) + overflow.entries.length };
          written = write;
        }
        return doc;
      },
      // The checkpoint write failed: the entries go back out of history/ (they are still in the file).
      undoBeforeWrite: (cause) => written?.undo(cause),
    });
    (written as HistoryWrite | null)?.settle();
    link ??= result.replacedLink;
    if (step < picks.length - 1) alsoDone.push({ text: doneText, why: why(picks[step]!) });
  }
  if (result === undefined) throw new Error('done: no write ran');
  noteKeptErrors(ctx, display(root, result.path), result.kept);
  noteReplacedLink(ctx, display(root, result.path), link);
  for (const line of stampNotes) ctx.out.err(`checkpoint: note: ${line}`);
  // What `next` names now, by next's own rule: past the actions left that the checkpoint marks done or git shows landed.
  const landedByText = new Map(queue.flatMap((a, i) => (landed.has(i) ? [[actionText(a as NextAction), landed.get(i)!] as const] : [])));
  const choice = chooseAction({ next_actions: left } as unknown as Checkpoint, (text) => landedByText.get(text) ?? null);
  const [next, at] = [choice.action ?? undefined, choice.index];
  // Said as done says it of the actions it took (the next `done` is what this one just was).
  const skipped = choice.landed.map((s) => (s.evidence === MARKED_DONE ? { ...s, evidence: 'marked done in the checkpoint' } : s));
  if (ctx.json) {
    const notNamed = unrecorded as string | null;
    ctx.out.json({ ok: true, skill, done: doneText, ...(alsoDone.length ? { also_done: alsoDone.map((a) => a.text) } : {}), next: next === undefined ? null : (nextWords(next) ?? null), ...(skipped.length ? { skipped_as_landed: skipped } : {}), status: (result.after as JsonObject).status, ...(archived ? { archived: { ...(archived as object), ...(notNamed !== null ? { not_recorded: notNamed } : {}) } } : {}), ...(link !== undefined ? { replaced_link: link } : {}), ...(result.kept.length ? { kept_errors: result.kept } : {}) });
    return 0;
  }
  ctx.out.out(`✓ done: ${oneLine(doneText)}${args.options.landed ? ` (${why(picks[picks.length - 1]!)})` : ''}`);
  // Each says why it went, in the file's words or git's: a line break in them stays in the line.
  for (const a of alsoDone) ctx.out.out(`  also done: ${oneLine(a.text)} (${oneLine(a.why)})`);
  const words = next === undefined ? undefined : nextWords(next);
  ctx.out.out(!left.length
    ? `  no actions left; ${skill} is ${oneLine(String((result.after as JsonObject).status))}`
    : next === undefined ? `  next: none open: the ${left.length === 1 ? 'action' : `${left.length} actions`} left ${left.length === 1 ? 'is' : 'are'} already landed or marked done; checkpoint next says how to reconcile`
    : words === undefined ? `  next: next_actions[${at}] has no text to show (a hand-written item: checkpoint validate says how to fix it)` : `  next: ${oneLine(words)}`);
  for (const s of skipped) ctx.out.out(`  skipped next_actions[${s.index}] "${oneLine(s.text)}": ${oneLine(s.evidence)}`);
  // Moved, not lost: said, with where (the file names them in skill_state.rotated_to too).
  const moved = archived as { to: string; count: number } | null;
  if (moved) ctx.out.out(`  moved ${moved.count} older recently_done entr${moved.count === 1 ? 'y' : 'ies'} (over ${RECENTLY_DONE_MAX}) to ${oneLine(moved.to)}`);
  const notNamed = unrecorded as string | null;
  if (moved && notNamed !== null) ctx.out.out(`  not named in skill_state.rotated_to (${oneLine(notNamed)}): fix that (checkpoint validate), then add ${oneLine(moved.to)} to the list`);
  return 0;
}

/**
 * The recently_done entry of a finished action: `{at, action}` (the schema's RecentlyDone) plus
 * every other field the action had (done_when, a project's own), so nothing of it is lost. An
 * action with fields of its own named `at` or `action` is kept whole under `next_action`.
 * `moved`: where each part of the action (a path below it) stands in the entry, for its texts.
 */
function doneRecord(action: NextAction, at: string): { entry: JsonObject; moved: Array<[string[], string[]]> } {
  if (typeof action === 'string') return { entry: { at, action }, moved: [[[], ['action']]] };
  const { text, ...rest } = action as unknown as JsonObject;
  const entry: JsonObject = { at, action: text! };
  const moved: Array<[string[], string[]]> = [[['text'], ['action']]];
  if (Object.hasOwn(rest, 'at') || Object.hasOwn(rest, 'action')) {
    entry.next_action = action as unknown as JsonObject;
    return { entry, moved: [...moved, [[], ['next_action']]] };
  }
  for (const [k, v] of Object.entries(rest)) {
    entry[k] = v;
    moved.push([[k], [k]]);
  }
  return { entry, moved };
}

/** next_actions as a list of actions done can take, or the refusal that says how to make it one. */
function queuedActions(value: JsonValue, skill: string, mcp = false): JsonValue[] {
  const actions = (value as JsonObject | null)?.next_actions;
  // One action written as a string ("Merge PR #12 then deploy"): made a list first, by the command status and next print too.
  if (typeof actions === 'string' && /\S/.test(actions)) {
    const flag = listFlag(actions);
    throw new CheckpointError('E_INVALID', `next_actions of "${skill}" is a string, not a list of actions; nothing was changed`, {
      hint: flag === null ? `make it a list holding that text by hand (["…"]), then run done again` : `make it a list, then run done again: checkpoint update ${skill} ${flag}`,
    });
  }
  // One action written as an object: the list that holds it, as for a string.
  if (actions !== null && typeof actions === 'object' && !Array.isArray(actions)) {
    // Its words in `text` ({"action": …} read as status reads it), its other members kept: an item update accepts.
    const words = readActionText(actions).trim();
    const flag = words ? listFlag({ ...(actions as JsonObject), text: words }) : null;
    throw new CheckpointError('E_INVALID', `next_actions of "${skill}" is one action written as an object, not a list of actions; nothing was changed`, {
      hint: flag === null ? `make it a list holding that action by hand ([{"text": "…"}]), then run done again` : `make it a list, then run done again: checkpoint update ${skill} ${flag}`,
    });
  }
  // null, a number, a blank text: nothing queued, and a plain += would refuse to append to it.
  if (actions !== undefined && !Array.isArray(actions)) {
    throw new CheckpointError('E_INVALID', `next_actions of "${skill}" is ${actions === null ? 'null' : typeof actions === 'string' ? 'blank text' : `the ${typeof actions} ${JSON.stringify(actions)}`}, not a list of actions; nothing was changed`, {
      hint: `queue the next action as a list: ${mcp ? mcpCall('update', skill, [['next_actions', 'set', '[]'], ['next_actions', 'append', '<next action>']]).replace('"value": "[]"', '"value": []') : `checkpoint update ${skill} --next_actions:json='[]' --next_actions+='<next action>'`}`,
    });
  }
  if (!actions?.length) {
    throw new CheckpointError('E_USAGE', 'no next_actions to mark done', { hint: `queue one with ${mcp ? mcpCall('update', skill, [['next_actions', 'append', '...']]) : `checkpoint update ${skill} --next_actions+='...'`}` });
  }
  return actions;
}

/**
 * Which queued actions git shows landed (by index), with the evidence `next` gives; none when no
 * action names a PR or ticket (no history read), the checkpoint is not readable as a whole, or git
 * history cannot be read (said, as next says it).
 */
async function landedNow(root: string, ctx: Context, skill: string, queue: readonly JsonValue[]): Promise<{ landed: Map<number, string>; historyError: string | null }> {
  const { buildAgenda } = await import('../../read/agenda.js');
  // Judged as this save leaves the file: one only it makes readable (an epoch updated_at) is
  // otherwise judged by no one, and next, right after, skips what landed.
  const agenda = await buildAgenda({ root, now: ctx.now, skill, stamped: ctx.now });
  const notice = historyNotice(agenda.historyError);
  if (notice) ctx.out.err(notice);
  const item = agenda.items.find((i) => i.skill === skill);
  const out = new Map<number, string>();
  queue.forEach((a, i) => {
    const text = nextText(a);
    const evidence = text === undefined || item === undefined ? null : item.landed(text);
    if (evidence !== null) out.set(i, evidence);
  });
  return { landed: out, historyError: agenda.historyError };
}

/** Marked done with words to record (a `{"done": true}` without text is for pickable() to name). */
const passed = (a: unknown) => markedDone(a) && nextText(a) !== undefined;

/**
 * The indices done takes, in order, the last being the action `next` names: those ahead of it the
 * checkpoint marks done or git shows landed go first. When every action is such, the first alone
 * (one at a time; `--landed` takes them all, as next's reconcile advice says).
 */
function nextPicks(doc: JsonValue, queue: readonly JsonValue[], landed: ReadonlyMap<number, string>, skill: string): number[] {
  let open = 0;
  while (open < queue.length - 1 && (passed(queue[open]) || landed.has(open))) open++;
  if (open === queue.length - 1 && (markedDone(queue[open]) || landed.has(open))) open = 0;
  pickable(doc, queue, open, skill);
  return Array.from({ length: open + 1 }, (_, i) => i);
}

/** --landed: every action git shows landed or the checkpoint marks done, wherever it stands; nothing else. */
function landedPicks(queue: readonly JsonValue[], landed: ReadonlyMap<number, string>, skill: string, historyError: string | null): number[] {
  const picks = queue.flatMap((a, i) => (landed.has(i) || passed(a) ? [i] : []));
  // Not "none landed": git could not say (the warning above names why).
  if (!picks.length && historyError !== null) {
    throw new CheckpointError('E_GIT', `git history could not be read, so which queued actions of "${skill}" landed is not known; nothing was changed`, {
      ...spelledHint((s) => `${s.call('done', skill)} records the action ${s.call('next')} names, one at a time`),
    });
  }
  if (!picks.length) {
    throw new CheckpointError('E_USAGE', `no queued action of "${skill}" names work git shows landed, and none is marked done; nothing was changed`, {
      ...spelledHint((s) => `${s.call('next')} shows what is queued; ${s.call('done', skill)} records the action it names`),
    });
  }
  return picks;
}

/** Refuses an action done cannot record (no words), with the fix status and next give. */
function pickable(doc: JsonValue, queue: readonly JsonValue[], at: number, skill: string): void {
  const first = queue[at];
  if (typeof first !== 'string' && (typeof first !== 'object' || first === null || typeof (first as { text?: unknown }).text !== 'string')) {
    // The slip status and next name ({"action": "…"}), with the same exact fix.
    const note = actionRepair(doc, at);
    const fix = note?.fix ? `checkpoint update ${skill} ${note.fix}` : note?.byHand;
    throw new CheckpointError('E_INVALID', `${note ? note.problem : `next_actions[${at}] is neither a string nor {text, done_when?}`}; nothing was changed`, {
      hint: fix ? `${fix}, then run done again` : 'fix it with checkpoint update, then run done again',
    });
  }
}

/**
 * The words of the action `next` names now, read as `next` reads them (an object without `text`
 * by its words member: {"action": "…"}); undefined for an item that has none.
 */
function nextWords(action: unknown): string | undefined {
  return readActionText(action).trim() ? readActionText(action) : undefined;
}

/** The words done can record of an action, or undefined for a hand-written item that has none (no `text` string). */
function nextText(action: unknown): string | undefined {
  if (typeof action === 'string') return action;
  const text: unknown = typeof action === 'object' && action !== null && !Array.isArray(action) ? (action as { text?: unknown }).text : undefined;
  return typeof text === 'string' ? text : undefined;
}
