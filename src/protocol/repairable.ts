// Hand-written slips a session can still orient from: a status outside its enum ("Done",
// "in-progress"), an action written as an object without `text` ({"action": "…"}) or with a
// number for done_when, next_actions written as one string, a time written without its zone
// or with a space for the T ("updated_at": "2026-09-14 09:12", "at": "2026-08-30"), a number
// where text belongs ("step": 2, "protocol_version": 1.1, a row's "id": 1, a key decision 2),
// one string where a list of them belongs ("key_decisions": "Use JWT"), a progress row without
// an id or a label. validate
// keeps them as errors; status, next and resume read the file as written and say, in one note,
// what is off and the exact `checkpoint update` that fixes it. Pure.
import { ROW_NAME_KEYS } from './row-names.js';
import { enumSlips, valueAndReason, type EnumSlip } from './enum-slip.js';
import { newRecord, RECORD_LISTS } from './record-lists.js';
import { CLI_SPELLING } from './op-spelling.js';
import { blockerClosed } from './closed-blocker.js';
import { numberTextIn, type NumberText } from './format.js';
import { isIsoInstant } from './instant.js';
import type { LiteralTexts } from './json.js';
import { joinPath, pathKeys } from './path.js';
import { quoted } from '../one-line.js';
import { pasteArg, pasteWord, PLACEHOLDER, placeholder, shellQuote } from '../shell-words.js';
import { CURRENT_WIRE_VERSION, type Checkpoint, type JsonValue } from './types.js';
import { foreignCapsuleKeys, topLevelClaims } from './capsule.js';
import { blockersAsRead, idsUnusedIn } from './blocker-ids.js';
import type { Issue } from './validate.js';
import { unquotedWireVersion } from './wire-version.js';

export { suggestEnum } from './enum-slip.js';

export interface RepairNote {
  /** The JSON path of the slip (validate's). */
  path: string;
  /** What is off, naming the value as written. */
  problem: string;
  /**
   * The `checkpoint update` flags that fix it, each word safe to paste into a shell (a value the
   * note cannot suggest is a quoted placeholder, which update refuses); null when no command can.
   */
  fix: string | null;
  /** What to do by hand where no flag can (a value too long to print, a done_when that is a list). */
  byHand?: string;
  /** The enum value the slip most likely means, when there is one. */
  meant?: string;
  /** The instant a time written loosely is read as (instantSlip). */
  instant?: string;
  /** Fixed by any `checkpoint update` of the file (updated_at, which every write stamps): no hand edit beside a fix command. */
  anyWrite?: true;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The longest text a fix spells out; a longer one is said by hand (a note stays a line, not a screenful). */
export const MAX_FIX_TEXT = 500;

/** `v` as a flag value the fix can print (pasteWord: it gives back exactly `v`), or null when too long. */
const flagValue = (v: string) => (v.length <= MAX_FIX_TEXT ? pasteWord(v) : null);

/**
 * What follows a path in a flag that sets text `v`, as update reads it back: `=<v>`, or `:json=`
 * with the JSON string where plain text would be refused (a text starting ":json", one shaped like
 * a hint's placeholder, `<phase>`); null when too long.
 */
export const textAssign = (v: string): string | null => {
  const plain = !v.startsWith(':json') && !PLACEHOLDER.test(v);
  const value = flagValue(plain ? v : JSON.stringify(v));
  return value === null ? null : `${plain ? '' : ':json'}=${value}`;
};

// The members people name an action's words with, before any other string member; `id`,
// `text` and `done_when` are never its words.
const WORD_KEYS = ['action', 'description', 'title', 'task', 'summary', 'name', 'step'];
const NOT_WORDS = new Set(['id', 'text', 'done_when', 'status', 'owner', 'at', 'created_at', 'updated_at']);
const hasWords = (v: unknown): v is string => typeof v === 'string' && /\S/.test(v);

/** What an action object without usable `text` says: a words member (WORD_KEYS), else its first other non-empty string; null when it says nothing. */
function actionWords(a: Obj): string | null {
  const key = WORD_KEYS.find((k) => hasWords(a[k])) ?? Object.keys(a).find((k) => !NOT_WORDS.has(k) && hasWords(a[k]));
  return key === undefined ? null : (a[key] as string);
}

/**
 * An action's words as the read side takes them: a string as it is, an object by its `text`, or,
 * without a string `text`, by its words (actionWords); '' for anything else. So an action queued
 * as {"action": …} and later fixed to {"text": …} reads as one text across the file's revisions.
 */
export function readActionText(a: unknown): string {
  if (typeof a === 'string') return a;
  if (!isObj(a)) return '';
  return typeof a.text === 'string' ? a.text : actionWords(a) ?? '';
}

/** The update flag that makes next_actions, written as one action (a string, or an object), a list of that action; null when too long to spell out. */
export function listFlag(item: JsonValue): string | null {
  const list = flagValue(JSON.stringify([item]));
  return list === null ? null : `--next_actions:json=${list}`;
}

/**
 * The blockers people write loosely, each as it reads: one written as a string is a blocker of
 * that description, one without an id gets the id the fix gives it (`b<n>`, unused in the file).
 */
function blockerSlips(doc: Obj, notes: RepairNote[]): Map<number, Obj> {
  const read = new Map<number, Obj>();
  if (!Array.isArray(doc.blockers)) return read;
  const asRead = blockersAsRead(doc.blockers);
  (doc.blockers as unknown[]).forEach((b, i) => {
    if (typeof b === 'string' && hasWords(b)) {
      const blocker = asRead[i]!;
      const value = flagValue(JSON.stringify(blocker));
      read.set(i, blocker);
      notes.push({
        path: joinPath('blockers', i),
        problem: `blockers[${i}] is a string (${quoted(b)}), not a blocker {id, description, needs}`,
        fix: value === null ? null : `--blockers.${i}:json=${value}`,
        ...(value === null ? { byHand: `make blockers[${i}] {"id": "${blocker.id}", "description": <its text>} (it is ${b.length} characters, too long to spell out here)` } : {}),
      });
    } else if (isObj(b) && b.id === undefined && hasWords(b.description)) {
      const id = String(asRead[i]!.id);
      read.set(i, asRead[i]!);
      notes.push({ path: joinPath('blockers', i), problem: `blockers[${i}] has no id`, fix: `--blockers.${i}.id=${id}` });
    }
  });
  return read;
}

/** Each repairable slip in `doc`: enum fields outside their enum, action objects without text, next_actions written as one string, blockers written loosely. */
function slips(doc: Obj, errors: readonly Issue[], numberText: NumberText, fileSkill?: string, projectDir?: string): { notes: RepairNote[]; actions: Map<number, string | Obj>; blockers: Map<number, Obj>; typed: Retyped[] } {
  const notes: RepairNote[] = [];
  const actions = new Map<number, string | Obj>();
  // The skill written in another case or with other separators than its file's name ("API" in
  // api.checkpoint.json): the file's name is what every command calls it by.
  const fold = (v: string) => v.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  if (fileSkill !== undefined && typeof doc.skill === 'string' && doc.skill !== fileSkill && fold(doc.skill) === fold(fileSkill)) {
    notes.push({ path: 'skill', problem: `skill ${quoted(doc.skill)} does not match the file name ${fileSkill}.checkpoint.json`, fix: `--skill=${pasteArg(fileSkill)}` });
  }
  const enums = enumSlips(doc);
  for (const e of enums) {
    const kept = keptReason(doc, e);
    notes.push({
      path: e.path,
      problem: `${e.what} ${quoted(e.value)} is not one of ${e.allowed.join('|')}${e.meant ? ` (did you mean ${e.meant}?)` : ''}`,
      fix: `--${e.flag}=${e.meant ?? placeholder(e.allowed.join('|'))}${kept?.flag ? ` ${kept.flag}` : ''}`,
      ...(kept?.byHand ? { byHand: kept.byHand } : {}),
      ...(e.meant ? { meant: e.meant } : {}),
    });
  }
  if (typeof doc.next_actions === 'string' && hasWords(doc.next_actions)) {
    // One action written as a string where a list belongs: read as that one action.
    const text = doc.next_actions;
    actions.set(0, text);
    const list = listFlag(text);
    notes.push({
      path: 'next_actions',
      problem: `next_actions is a string (${quoted(text)}), not a list of actions`,
      fix: list,
      ...(list === null ? { byHand: `make next_actions a list holding that text (it is ${text.length} characters, too long to spell out here)` } : {}),
    });
  }
  if (Array.isArray(doc.next_actions)) doc.next_actions.forEach((a, i) => {
    if (isObj(a)) actionSlip(a, i, notes, actions, numberText);
  });
  const blockers = blockerSlips(doc, notes);
  for (const field of ['created_at', 'updated_at'] as const) {
    const slip = instantSlip(doc[field], field);
    if (slip) notes.push(field === 'created_at'
      ? { path: field, problem: slip.problem, fix: `--created_at=${slip.instant}`, instant: slip.instant }
      // Every write stamps updated_at (update refuses to set it): any update fixes it. No one
      // instant of a day stands for the save: its start would date that day's changes after it
      // (drift that blocks a push, where the day alone is only advice: doctor/instants.ts), and
      // its UTC end comes before a California evening's commits.
      : { path: field, problem: slip.problem, fix: null, byHand: slip.day === undefined ? `write updated_at as "${slip.instant}" (any \`checkpoint update\` stamps it anew)` : `write updated_at as the instant of the save on ${slip.day}, with its zone (e.g. "${slip.day}T19:00:00-08:00"; no one instant of the day stands for it; any \`checkpoint update\` stamps it anew)`, instant: slip.instant, anyWrite: true });
  }
  for (const log of DATED_LOGS) {
    const entries = doc[log];
    if (Array.isArray(entries)) entries.forEach((e, i) => {
      const at = joinPath(joinPath(log, i), 'at');
      const slip = isObj(e) ? instantSlip(e.at, at) : null;
      if (slip) notes.push({ path: at, problem: slip.problem, fix: `--${log}.${i}.at=${slip.instant}`, instant: slip.instant });
    });
  }
  // A note of the user's own in the capsule (`my_notes`, `context.notes`): kept by every pause, and
  // no claim a reader shows; read as written, with where it belongs.
  // The seven claims written at the capsule's top level, as recovery-capsule.md shows them: no
  // note of the user's, and no repair by hand either: pause --auto moves them into context.
  const flat = topLevelClaims(doc.capsule as JsonValue);
  if (flat.length) {
    const skill = fileSkill === undefined ? placeholder('skill') : pasteArg(fileSkill);
    notes.push({ path: 'capsule', problem: `the capsule's claims (${flat.join(', ')}) are written at its top level, not in capsule.context`, fix: null, byHand: `move them into capsule.context (checkpoint pause ${skill} --auto does it, keeping each as written)` });
  }
  for (const key of foreignCapsuleKeys(doc.capsule as JsonValue).filter((k) => !flat.includes(k))) {
    notes.push({ path: `capsule.${key}`, problem: "no field the capsule defines (kept as written; resume --context leaves it out)", fix: null, byHand: `move capsule.${key} into skill_state, where a skill keeps notes of its own` });
  }
  // A descriptive field left out or blank (agents and people skip `project_dir` or `created_at`):
  // nothing a reader ranks, dates or walks by, so the file is shown, with the update that sets it.
  for (const field of OPTIONAL_TO_READ) {
    const v = doc[field];
    if (v === undefined || (typeof v === 'string' && !v.trim())) {
      // project_dir has one right value here: the folder the file was read in; a summary, the
      // reason a status is written with ("failed - tests red"), which the status's fix leaves out.
      const known = field === 'project_dir' && projectDir !== undefined ? textAssign(projectDir) : field === 'progress_summary' ? summaryReason(enums) : null;
      notes.push({ path: field, problem: v === undefined ? `required field "${field}" is missing` : `${field} is blank`, fix: `--${field}${known ?? `=${placeholder(field)}`}` });
    }
  }
  const typed = typeSlips(doc, numberText, notes);
  telemetrySlips(errors, notes);
  return { notes, actions, blockers, typed };
}

/**
 * Where the fix of enum value `e`, written with its reason ("blocked - waiting on the API key"),
 * keeps that reason, since it sets the bare value: a blocked checkpoint's in a new blocker (what
 * says why it is blocked), any other status's in progress_summary, a row's in its label and a
 * blocker's needs' in its description (each as "<text> (<reason>)"). Null when there is no reason
 * or the text already says it; `byHand` when it is too long to spell out.
 */
function keptReason(doc: Obj, e: EnumSlip): { flag: string | null; byHand?: string } | null {
  const reason = valueAndReason(e.value, e.allowed)?.reason;
  if (!reason) return null;
  const says = (t: unknown) => typeof t === 'string' && t.toLowerCase().includes(reason.toLowerCase());
  const tooLong = (where: string) => ({ flag: null, byHand: `before the fix, copy the reason its ${e.what} gives (${reason.length} characters, too long to spell out here) into ${where}` });
  const [top, i] = pathKeys(e.path) ?? [];
  if (top === 'status' && e.meant === 'blocked') {
    const blockers = blockersAsRead(doc.blockers);
    if (blockers.some((b) => b && !blockerClosed(b) && says(b.description))) return null;
    const record = JSON.stringify(newRecord(RECORD_LISTS.blockers!, reason, blockers));
    return record.length <= MAX_FIX_TEXT ? { flag: CLI_SPELLING.op('blockers', 'append', record) } : tooLong('a new blocker');
  }
  const owner = top === 'status' ? doc : Array.isArray(doc[top as string]) ? (doc[top as string] as unknown[])[i as number] : undefined;
  const key = top === 'status' ? 'progress_summary' : top === 'blockers' ? 'description' : 'label';
  const field = top === 'status' ? key : `${String(top)}.${String(i)}.${key}`;
  const text = isObj(owner) ? owner[key] : undefined;
  if (says(text)) return null;
  // One flag per field: a blank summary's own fix writes the reason (summaryReason); a row
  // without a label is labelled by another note's fix, so its reason is added by hand.
  if (!hasWords(text)) return top === 'status' ? null : { flag: null, byHand: `before the fix, add the reason its ${e.what} gives (${quoted(reason)}) to ${field}` };
  const value = textAssign(`${text.trimEnd()} (${reason})`);
  return value === null ? tooLong(field) : { flag: `--${field}${value}` };
}

/** The reason the status of `enums` is written with, as a blank progress_summary's fix sets it (`=<reason>`); null when there is none, or a blocker keeps it. */
function summaryReason(enums: readonly EnumSlip[]): string | null {
  const status = enums.find((e) => e.path === 'status');
  const read = status && status.meant !== 'blocked' ? valueAndReason(status.value, status.allowed) : null;
  return read?.reason ? textAssign(read.reason) : null;
}

/** The telemetry a session never orients by: the eval_scores log and the cost record. */
const TELEMETRY = /^(eval_scores\[\d+\]|eval_scores|cost)(?=$|[.[])/;

/**
 * A telemetry record that does not fit its shape ({"score": 8.0} with no rubric, a total written
 * "$12"): no answer of status, next or resume reads it (the budget gate reads only numbers), so
 * it is noted, kept as written, and no reason to hide the checkpoint's state. One note per record.
 */
function telemetrySlips(errors: readonly Issue[], notes: RepairNote[]): void {
  for (const e of errors) {
    const record = TELEMETRY.exec(e.path)?.[1];
    if (record === undefined || e.level !== 'error' || covers(notes, e.path)) continue;
    const member = record === 'cost' ? undefined : /^eval_scores\[(\d+)\]\.rubric$/.exec(e.path)?.[1];
    notes.push({
      path: record,
      problem: `${e.message}${e.path === record ? '' : ` (${e.path})`}; telemetry, read past`,
      // The one member a flag can set without guessing its type: a rubric's name.
      fix: member === undefined ? null : `--eval_scores.${member}.rubric=${placeholder('rubric')}`,
      ...(member === undefined ? { byHand: `correct ${record} as \`checkpoint validate\` lists, or remove it` } : {}),
    });
  }
}

/** A value written in another JSON type than the protocol's, and what it reads as: at `path` (top level, or one level down). */
type Retyped = { path: readonly [string] | readonly [string, string | number]; value: unknown };

/**
 * Required fields only shown, never read by a command's answer (skill, status, updated_at and the
 * version are: their absence still needs repair): one the file lacks is a slip.
 */
const OPTIONAL_TO_READ = ['project', 'project_dir', 'phase', 'step', 'progress_summary', 'created_at'] as const;

/** The top-level fields that hold one line of text. */
const TEXT_FIELDS = ['project', 'project_dir', 'phase', 'step', 'progress_summary'] as const;
/** context_primer's lists of strings. */
const PRIMER_LISTS = ['key_decisions', 'generated_files', 'user_preferences'] as const;
/**
 * Values written in the wrong JSON type where what they mean is plain: a number or true/false
 * where text belongs ("step": 2, read as "2", as written: 8.0 stays "8.0"; a row's id or label, a
 * context_primer entry), protocol_version as a
 * number (1.1, fixed by any write, which stamps it), one string where context_primer holds a list
 * ("key_decisions": "Use JWT"), a progress_table row without an id (given one unused in the table).
 */
function typeSlips(doc: Obj, numberText: NumberText, notes: RepairNote[]): Retyped[] {
  const typed: Retyped[] = [];
  for (const field of TEXT_FIELDS) {
    const text = scalarAsText(doc[field], [field], numberText, notes);
    if (text !== null) typed.push({ path: [field], value: text });
  }
  // Left out (agents and people writing by hand skip it): every version reads alike ("1.1" only
  // added optional fields), so it reads as the current one, and any write stamps it.
  if (doc.protocol_version === undefined || (typeof doc.protocol_version === 'string' && !doc.protocol_version.trim())) {
    typed.push({ path: ['protocol_version'], value: CURRENT_WIRE_VERSION });
    notes.push({
      path: 'protocol_version',
      problem: doc.protocol_version === undefined ? 'required field "protocol_version" is missing' : 'protocol_version is blank',
      fix: null,
      byHand: `write "protocol_version": "${CURRENT_WIRE_VERSION}" (any \`checkpoint update\` stamps it)`,
      anyWrite: true,
    });
  }
  // A number is read by its text (wire-version.ts): 1.0 is "1.0" unquoted, 1.10 no version this reads.
  const version = typeof doc.protocol_version === 'number' ? unquotedWireVersion(numberText(doc.protocol_version, ['protocol_version'])) : undefined;
  if (version !== undefined) {
    typed.push({ path: ['protocol_version'], value: version });
    notes.push({ path: 'protocol_version', problem: `protocol_version is the number ${version}, not the string "${version}"`, fix: null, byHand: `write protocol_version as "${version}" (any \`checkpoint update\` stamps it anew)`, anyWrite: true });
  }
  const primer = doc.context_primer;
  // The primer written as prose, or as a list of lines, where the protocol keeps an object of
  // lists: what the next session must know, read as its key decisions.
  const lines = hasWords(primer) ? [primer] : Array.isArray(primer) && primer.length > 0 && primer.every(hasWords) ? (primer as string[]) : null;
  if (lines !== null) {
    const value = flagValue(JSON.stringify({ key_decisions: lines }));
    typed.push({ path: ['context_primer'], value: { key_decisions: lines } });
    notes.push({
      path: 'context_primer',
      problem: `context_primer is ${typeof primer === 'string' ? `a string (${quoted(primer)})` : 'a list'}, not an object (read as its key_decisions)`,
      fix: value === null ? null : `--context_primer:json=${value}`,
      ...(value === null ? { byHand: 'make context_primer an object holding that text in key_decisions, a list' } : {}),
    });
  }
  if (isObj(primer)) for (const list of PRIMER_LISTS) {
    const v = primer[list];
    if (typeof v !== 'string' || !hasWords(v)) continue;
    const path = `context_primer.${list}`;
    const value = flagValue(JSON.stringify([v]));
    typed.push({ path: ['context_primer', list], value: [v] });
    notes.push({
      path,
      problem: `${path} is a string (${quoted(v)}), not a list of strings`,
      fix: value === null ? null : `--${path}:json=${value}`,
      ...(value === null ? { byHand: `make ${path} a list holding that text (it is ${v.length} characters, too long to spell out here)` } : {}),
    });
  }
  if (isObj(primer)) for (const list of PRIMER_LISTS) entrySlips(primer[list], list, numberText, typed, notes);
  if (Array.isArray(doc.progress_table)) {
    // Each row as it reads, its id and label written as numbers ({"id": 1}) read as their text
    // first, so the rules below see the row every reader sees; retyped once, at the end.
    const written = doc.progress_table as unknown[];
    const rows = written.map((r, i) => (isObj(r) ? rowTexts(r, i, numberText, notes) : r));
    const freshId = idsUnusedIn(rows.flatMap((r) => (isObj(r) && typeof r.id === 'string' ? [r.id] : [])), 'row-');
    rows.forEach((r, i) => {
      if (!isObj(r) || r.id !== undefined || !hasWords(r.label)) return;
      const id = freshId(i);
      rows[i] = { id, ...r };
      notes.push({ path: joinPath(joinPath('progress_table', i), 'id'), problem: `progress_table[${i}] (${quoted(r.label)}) has no id`, fix: `--progress_table.${i}.id=${id}` });
    });
    // A row written {"name": "Auth", "status": "complete"} (or by its title, task, step, phase):
    // labelled by what it is called there, and given an id; the file keeps its own words.
    rows.forEach((r, i) => {
      if (!isObj(r) || r.id !== undefined || r.label !== undefined) return;
      const key = ROW_NAME_KEYS.find((k) => hasWords(r[k]));
      if (key === undefined) return;
      const text = r[key] as string;
      const id = freshId(i);
      const label = textAssign(text);
      rows[i] = { id, label: text, ...r };
      notes.push({
        path: joinPath('progress_table', i),
        problem: `progress_table[${i}] has no id or label (read by its ${key}, ${quoted(text)})`,
        fix: label === null ? `--progress_table.${i}.id=${id}` : `--progress_table.${i}.id=${id} --progress_table.${i}.label${label}`,
        ...(label === null ? { byHand: `give progress_table[${i}] a label` } : {}),
      });
    });
    // A row written {"id": "plan", "status": "complete"}: labelled by its id, which is all it says.
    rows.forEach((r, i) => {
      if (!isObj(r) || !hasWords(r.id) || r.label !== undefined) return;
      const label = textAssign(r.id);
      rows[i] = { ...r, label: r.id };
      notes.push({
        path: joinPath(joinPath('progress_table', i), 'label'),
        problem: `progress_table[${i}] (${quoted(r.id)}) has no label (read as its id)`,
        fix: label === null ? null : `--progress_table.${i}.label${label}`,
        ...(label === null ? { byHand: `give progress_table[${i}] a label` } : {}),
      });
    });
    rows.forEach((r, i) => {
      if (r !== written[i]) typed.push({ path: ['progress_table', i], value: r });
    });
  }
  return typed;
}

/**
 * A number or true/false written where text belongs, as `step` is: the text it reads as (8.0 as
 * written), noted with the fix that makes it that text; null for any other value. `at`: its place.
 */
function scalarAsText(v: unknown, at: ReadonlyArray<string | number>, numberText: NumberText, notes: RepairNote[]): string | null {
  if (typeof v !== 'number' && typeof v !== 'boolean') return null;
  const text = typeof v === 'number' ? numberText(v, at) : String(v);
  const path = at.reduce<string>((p, seg) => joinPath(p, seg), '');
  notes.push({ path, problem: `${path} is the ${typeof v} ${text}, not text`, fix: `--${at.join('.')}=${shellQuote(text)}` });
  return text;
}

/** Row `r` at progress_table[i] with an id or label written as a number or true/false read as its text; `r` itself when neither is. */
function rowTexts(r: Obj, i: number, numberText: NumberText, notes: RepairNote[]): Obj {
  let row = r;
  for (const key of ['id', 'label'] as const) {
    const text = scalarAsText(r[key], ['progress_table', i, key], numberText, notes);
    if (text !== null) row = { ...row, [key]: text };
  }
  return row;
}


/** The members a context_primer list's record names its entry by, in order: the path, the decision, the preference. */
const ENTRY_KEYS: Record<(typeof PRIMER_LISTS)[number], readonly string[]> = {
  generated_files: ['path', 'file', 'filename', 'name'],
  key_decisions: ['decision', 'text', 'title', 'summary', 'what', 'choice', 'description'],
  user_preferences: ['preference', 'text', 'description', 'name'],
};

/**
 * Entries of a context_primer list written as records ({"path": "src/a.ts", "description":
 * "passkey auth"}, {"decision": "Use Hono", "why": "edge runtime"}): each read as the string its
 * naming member holds, its other members after it in brackets ("src/a.ts (description: passkey
 * auth)"), as people annotate a string entry. Only records of text, numbers and true/false: one
 * holding a list or a record is not a plain slip. An entry written as a number or true/false
 * (`"key_decisions": ["Use JWT", 2]`) reads as its text, as `step` does.
 */
function entrySlips(items: unknown, list: (typeof PRIMER_LISTS)[number], numberText: NumberText, typed: Retyped[], notes: RepairNote[]): void {
  if (!Array.isArray(items)) return;
  const path = `context_primer.${list}`;
  const read = items.map((item, i) => {
    const text = scalarAsText(item, ['context_primer', list, i], numberText, notes);
    if (text !== null) return text;
    if (!isObj(item)) return null;
    const key = ENTRY_KEYS[list].find((k) => hasWords(item[k]));
    if (key === undefined) return null;
    const rest: string[] = [];
    for (const [k, v] of Object.entries(item)) {
      if (k === key) continue;
      if (typeof v === 'number') rest.push(`${k}: ${numberText(v, ['context_primer', list, i, k])}`);
      else if (typeof v === 'boolean' || (typeof v === 'string' && v.trim())) rest.push(`${k}: ${String(v).trim()}`);
      else if (v !== null && v !== '' && typeof v === 'object') return null;
    }
    const words = (item[key] as string).trim();
    return rest.length ? `${words} (${rest.join('; ')})` : words;
  });
  if (read.every((r) => r === null)) return;
  typed.push({ path: ['context_primer', list], value: items.map((item, i) => read[i] ?? item) });
  read.forEach((text, i) => {
    if (text === null || !isObj(items[i])) return;
    const at = joinPath(path, i);
    const value = textAssign(text);
    notes.push({
      path: at,
      problem: `written as a record, not a string (read as ${quoted(text)})`,
      fix: value === null ? null : `--${path}.${i}${value}`,
      ...(value === null ? { byHand: `write ${at} as one string` } : {}),
    });
  });
}

/** `doc` with each retyped value in place (copies along the way; `doc` itself is left as it was). */
function withRetyped(doc: Obj, typed: readonly Retyped[]): Obj {
  const out: Obj = { ...doc };
  for (const { path, value } of typed) {
    if (path.length === 1) out[path[0]] = value;
    else {
      const [top, key] = path;
      const inner = out[top];
      if (Array.isArray(inner)) out[top] = inner.map((item, i) => (i === key ? value : item));
      else if (isObj(inner)) out[top] = { ...inner, [key]: value };
    }
  }
  return out;
}

/** Unix times in seconds and in milliseconds from 2001-09-09 (1e9 s) to 2286 (1e10 s): what `time.time()` and `Date.now()` write. */
const UNIX_SECONDS = [1e9, 1e10] as const;

/** A time written as a Unix time (1795000000, or Date.now()'s ms) as the instant it counts to; null for any other number. */
function unixTimeSlip(v: number, path: string): { problem: string; instant: string } | null {
  const unit = v >= UNIX_SECONDS[0] && v < UNIX_SECONDS[1] ? 'seconds' : v >= UNIX_SECONDS[0] * 1000 && v < UNIX_SECONDS[1] * 1000 ? 'milliseconds' : null;
  if (unit === null) return null;
  const instant = new Date(unit === 'seconds' ? v * 1000 : v).toISOString().replace('.000Z', 'Z');
  return { problem: `${path} ${v} is a Unix time in ${unit}, not an instant (read as ${instant})`, instant };
}

/** The protocol's logs whose entries are timed by `at`: a hand-kept one often dates them by day. */
const DATED_LOGS = ['recently_done', 'eval_scores'] as const;
/** A date, then maybe a time after a T or a space, then maybe a zone: the ways people write an instant. */
const LOOSE_INSTANT = /^(\d{4}-\d{2}-\d{2})(?:([Tt ])(\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * A time at `path` written as people do rather than as an instant: a calendar day ("2026-08-30",
 * that day's start), a time without a zone ("2026-09-14 09:12", read as UTC, as every machine
 * reads it alike), or a space for the T. Null for an instant, or for anything else (a day that
 * does not exist, prose): that needs repair. `day`: the date, for a day written alone.
 */
function instantSlip(v: unknown, path: string): { problem: string; instant: string; day?: string } | null {
  if (typeof v === 'number') return unixTimeSlip(v, path);
  if (typeof v !== 'string' || isIsoInstant(v)) return null;
  const m = LOOSE_INSTANT.exec(v);
  if (!m || (m[3] === undefined && m[5] !== undefined)) return null;
  const [, date, sep, hm, sec, zone] = m;
  const instant = `${date}T${hm ?? '00:00'}${sec ?? ':00'}${zone === undefined || zone === 'z' ? 'Z' : zone}`;
  if (!isIsoInstant(instant)) return null;
  const what = `${path} ${quoted(v)}`;
  const lower = [sep === 't' ? 't' : '', zone === 'z' ? 'z' : ''].filter(Boolean).join(' and ');
  const problem = hm === undefined
    ? `${what} is a day, not an instant (read as its start in UTC)`
    : zone === undefined
      ? `${what} has no time zone (read as UTC)${sep === ' ' ? ', and a space where ISO-8601 puts T' : sep === 't' ? ', and a lowercase t' : ''}`
      : sep === ' '
        ? `${what} has a space where ISO-8601 puts T${zone === 'z' ? ', and a lowercase z' : ''}`
        : `${what} is written with a lowercase ${lower} (ISO-8601 as the protocol writes it: T and Z)`;
  return { problem, instant, ...(hm === undefined ? { day: date! } : {}) };
}

/** The slip of action object `a` at next_actions[i], if any: no usable text (read as its words), a done_when that is not a string. */
function actionSlip(a: Obj, i: number, notes: RepairNote[], actions: Map<number, string | Obj>, numberText: NumberText): void {
  const textOk = hasWords(a.text);
  const words = textOk ? (a.text as string) : actionWords(a);
  // Nothing to read it by ({"text": ""}): not a slip; the file needs repair, and says how.
  if (words === null) return;
  const whenOk = a.done_when === undefined || typeof a.done_when === 'string';
  if (textOk && whenOk) return;
  const flags: string[] = [];
  const byHand: string[] = [];
  const problems: string[] = [];
  const at = `next_actions[${i}]`;
  if (!textOk) {
    // Read by its words, its other keys kept: a "pr" or "ticket" beside them still names its work (action-refs.ts).
    actions.set(i, { ...a, text: words });
    const keys = Object.keys(a).slice(0, 3).map((k) => quoted(k, 30)).join(', ');
    problems.push(a.text === undefined ? `${at} is an object with ${keys} but no "text" (an action is a string or {"text": …})` : `${at}.text is ${a.text === '' ? 'empty' : `not text (${typeof a.text === 'string' ? 'blank' : typeof a.text === 'number' ? numberText(a.text, ['next_actions', i, 'text']) : JSON.stringify(a.text)?.slice(0, 40)})`}`);
    const value = textAssign(words);
    if (value === null) byHand.push(`copy its words (${words.length} characters) into ${at}.text`);
    else flags.push(`--next_actions.${i}.text${value}`);
  }
  if (!whenOk) {
    const v = a.done_when;
    // A number is named and fixed by its text as written (8.0 stays 8.0, not 8).
    const text = typeof v === 'number' ? numberText(v, ['next_actions', i, 'done_when']) : String(v);
    problems.push(`${at}.done_when is ${v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `the ${typeof v} ${text}`}, not a command string`);
    // A number or true/false reads back as the same text; a list or object has no one command to be.
    if (typeof v === 'number' || typeof v === 'boolean') flags.push(`--next_actions.${i}.done_when=${shellQuote(text)}`);
    else byHand.push(`make ${at}.done_when one command string, or remove it`);
  }
  notes.push({ path: joinPath('next_actions', i), problem: problems.join('; '), fix: flags.length ? flags.join(' ') : null, ...(byHand.length ? { byHand: byHand.join(', and ') } : {}) });
}

/**
 * The note for the action object at next_actions[i] when a command cannot read it as one (no
 * `text`, a done_when that is no string), with the exact fix status and next print; else null.
 */
export function actionRepair(doc: unknown, i: number, texts?: () => LiteralTexts | undefined): RepairNote | null {
  if (!isObj(doc) || !Array.isArray(doc.next_actions) || !isObj(doc.next_actions[i])) return null;
  const notes: RepairNote[] = [];
  actionSlip(doc.next_actions[i] as Obj, i, notes, new Map(), numberTextIn(doc, texts));
  return notes[0] ?? null;
}

/** The update option a slip repair passes: it keeps the save's updated_at. */
export const KEEP_UPDATED_AT = '--keep-updated-at';

/** A read command's one-line note names at most this many flags: a hand-edited table may hold a hundred slips (validate lists every one). */
export const MAX_FIX_FLAGS = 5;

/**
 * How the first `limit` of `notes` in `skill`'s checkpoint are fixed: the one exact
 * `checkpoint update` (every word safe to paste; null when only hand edits can), the hand edits,
 * and whether more slips are left for validate to list. Doctor, which lists every slip and
 * promises the update that fixes them all, asks for no limit.
 */
export function repairPlan(skill: string, notes: readonly RepairNote[], limit = MAX_FIX_FLAGS): { command: string | null; byHand: string[]; more: boolean } {
  const fixed = notes.slice(0, limit);
  const flags = fixed.flatMap((r) => (r.fix === null ? [] : [r.fix]));
  // A repair, not a save: a stamp would date every change since the last save before it (drift
  // silently "acknowledged"). Only an updated_at that is itself the slip needs the write's stamp.
  const keep = notes.some((r) => r.path === 'updated_at') ? '' : ` ${KEEP_UPDATED_AT}`;
  return {
    command: flags.length ? `checkpoint update ${skill} ${flags.join(' ')}${keep}` : null,
    // The command's own write fixes what any write does: no hand edit named beside it.
    byHand: fixed.flatMap((r) => (r.byHand && !(r.anyWrite && flags.length) ? [r.byHand] : [])),
    more: notes.length > limit,
  };
}

/**
 * `doc` as the read-side commands can show it despite `errors`, with a note per slip; null when
 * an error is anything but a repairable slip (the file then needs repair as before). The view
 * keeps every value as written; only an action object without text reads as its words, and
 * next_actions written as one string as a list of that one action. `texts`: the file's literal
 * texts (parseJson's), asked for only when a fix spells out a number. `fileSkill`: the skill the
 * file is named for, when known (a skill field that differs from it only in case is then a slip).
 * `projectDir`: the project folder the file was read in, when known (a missing project_dir's fix
 * then names it rather than a placeholder).
 */
export function readableView(
  doc: unknown,
  errors: readonly Issue[],
  texts?: () => LiteralTexts | undefined,
  fileSkill?: string,
  projectDir?: string,
): { view: Checkpoint; meaning: Checkpoint; notes: RepairNote[] } | null {
  if (!isObj(doc) || !errors.length) return null;
  const { notes, actions, blockers, typed } = slips(doc, errors, numberTextIn(doc, texts), fileSkill, projectDir);
  if (!notes.length || !errors.every((e) => covers(notes, e.path))) return null;
  // Values in the wrong JSON type read (and show) as what they plainly say: "2" for 2, a list for one string.
  const view: Obj = withRetyped(doc, typed);
  // A descriptive field the file lacks reads as blank (created_at as the last save), so every
  // reader has the string it shows; the file itself is not touched.
  for (const field of OPTIONAL_TO_READ) if (view[field] === undefined) view[field] = field === 'created_at' ? doc.updated_at : '';
  if (typeof doc.next_actions === 'string') view.next_actions = [doc.next_actions];
  else if (actions.size) view.next_actions = (doc.next_actions as unknown[]).map((a, i) => actions.get(i) ?? a);
  if (blockers.size) view.blockers = (doc.blockers as unknown[]).map((b, i) => blockers.get(i) ?? b);
  // What ranking, staleness and resume's progress read: a status with a clear did-you-mean as
  // that status ("in-progress" ranks as in progress, not as "nothing queued"; a row "Done" counts
  // as complete); shown as written all the same.
  const meant = (path: string) => notes.find((n) => n.path === path)?.meant;
  const status = meant('status');
  const rows = Array.isArray(view.progress_table) ? (view.progress_table as unknown[]) : [];
  const rowMeant = rows.map((_, i) => meant(joinPath(joinPath('progress_table', i), 'status')));
  const meaning: Obj = status ? { ...view, status } : { ...view };
  if (rowMeant.some((m) => m !== undefined)) meaning.progress_table = rows.map((row, i) => (rowMeant[i] === undefined ? row : { ...(row as Obj), status: rowMeant[i] }));
  // Staleness, the history walks and the logs' order read a loosely written time as its instant.
  for (const field of ['created_at', 'updated_at']) {
    const at = notes.find((n) => n.path === field)?.instant;
    if (at !== undefined) meaning[field] = at;
  }
  for (const log of DATED_LOGS) {
    const entries = doc[log];
    const ats = Array.isArray(entries) ? entries.map((_, i) => notes.find((n) => n.path === joinPath(joinPath(log, i), 'at'))?.instant) : [];
    if (ats.some((a) => a !== undefined)) meaning[log] = (entries as unknown[]).map((e, i) => (ats[i] === undefined ? e : { ...(e as Obj), at: ats[i] }));
  }
  return { view: view as unknown as Checkpoint, meaning: meaning as unknown as Checkpoint, notes };
}

/** Which of `errors` no slip of `doc` covers: what keeps the file from being read (the reason a reader names first). */
export function unreadableErrors(doc: unknown, errors: readonly Issue[], fileSkill?: string, texts?: () => LiteralTexts | undefined): Issue[] {
  if (!isObj(doc)) return [...errors];
  const { notes } = slips(doc, errors, numberTextIn(doc, texts), fileSkill);
  return errors.filter((e) => !covers(notes, e.path));
}

/** Whether a slip in `notes` covers the error at `path` (its own path, or one inside it). */
const covers = (notes: readonly RepairNote[], path: string) => notes.some((n) => path === n.path || path.startsWith(`${n.path}.`) || path.startsWith(`${n.path}[`));

/**
 * What to do about an error no command can fix for the user, where it is clear (an action whose
 * text is empty: only its author knows its words); null for the rest (validate names each).
 */
export function handRepair(issue: Issue): string | null {
  const empty = /^next_actions\[(\d+)\]\.text$/.exec(issue.path);
  if (empty) return `write the action's words into next_actions[${empty[1]}].text, or delete that item, by hand`;
  return null;
}
