// Hand-written slips a session can still orient from: a status outside its enum ("Done",
// "in-progress"), an action written as an object without `text` ({"action": "…"}). validate
// keeps them as errors; status, next and resume read the file as written and say, in one note,
// what is off and the exact `checkpoint update` that fixes it. Pure.
import { BLOCKER_NEEDS, CHECKPOINT_STATUSES, ROW_STATUSES } from './shapes.generated.js';
import { joinPath } from './path.js';
import { quoted } from '../one-line.js';
import type { Checkpoint } from './types.js';
import type { Issue } from './validate.js';

// Words people write for an enum value, keyed by their normalised form (see norm). Explicit and
// small: a suggestion is only made where the meaning is clear, never by edit distance.
const SYNONYMS: Record<string, string> = {
  done: 'complete', completed: 'complete', finished: 'complete', closed: 'complete', shipped: 'complete',
  inprogress: 'in_progress', wip: 'in_progress', doing: 'in_progress', started: 'in_progress', active: 'in_progress', ongoing: 'in_progress',
  todo: 'not_started', pending: 'not_started', planned: 'not_started', notstarted: 'not_started', open: 'not_started',
  waiting: 'blocked', onhold: 'blocked', stuck: 'blocked',
  fail: 'failed', error: 'failed', errored: 'failed',
};

/** Case, spaces, `_` and `-` ignored: "In Progress", "in-progress" and "IN_PROGRESS" are one word. */
const norm = (s: string) => s.toLowerCase().replace(/[\s_-]+/g, '');

/** The enum value `written` most likely means (case/separator-insensitive, or from the table above), when `allowed` holds it; else null. */
export function suggestEnum(written: string, allowed: readonly string[]): string | null {
  const n = norm(written);
  const direct = allowed.find((a) => norm(a) === n);
  if (direct !== undefined) return direct;
  const meant = SYNONYMS[n];
  return meant !== undefined && allowed.includes(meant) ? meant : null;
}

export interface RepairNote {
  /** The JSON path of the slip (validate's). */
  path: string;
  /** What is off, naming the value as written. */
  problem: string;
  /** The `checkpoint update` flag that fixes it (value as a placeholder when no suggestion). */
  fix: string;
  /** The enum value the slip most likely means, when there is one. */
  meant?: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A flag value quoted for a POSIX shell (single quotes; a `'` inside as `'\''`), so the fix runs as
 * printed; a placeholder for text that cannot be pasted as one line (a control character) or is too long.
 */
const flagValue = (v: string) => (v.length <= 200 && /\S/.test(v) && !/[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(v) ? `'${v.replace(/'/g, `'\\''`)}'` : '<the text>');

// The members people name an action's words with, before any other string member; `id` and
// `done_when` are never its words.
const WORD_KEYS = ['action', 'description', 'title', 'task', 'summary', 'name', 'step'];
const NOT_WORDS = new Set(['id', 'done_when', 'status', 'owner', 'at', 'created_at', 'updated_at']);

/** What an action object without `text` says: a words member (WORD_KEYS), else its first other non-empty string, else its JSON. */
function actionWords(a: Obj): string {
  const words = (k: string) => typeof a[k] === 'string' && /\S/.test(a[k] as string);
  const key = WORD_KEYS.find(words) ?? Object.keys(a).find((k) => !NOT_WORDS.has(k) && words(k));
  return key === undefined ? JSON.stringify(a) : (a[key] as string);
}

/**
 * An action's words as the read side takes them: a string as it is, an object by its `text`, or,
 * without a string `text`, by its words (actionWords); '' for anything else. So an action queued
 * as {"action": …} and later fixed to {"text": …} reads as one text across the file's revisions.
 */
export function readActionText(a: unknown): string {
  if (typeof a === 'string') return a;
  if (!isObj(a)) return '';
  return typeof a.text === 'string' ? a.text : actionWords(a);
}

/** Each repairable slip in `doc`: enum fields written outside their enum, action objects without text. */
function slips(doc: Obj): { notes: RepairNote[]; actions: Map<number, string> } {
  const notes: RepairNote[] = [];
  const actions = new Map<number, string>();
  const outside = (path: string, flag: string, v: unknown, allowed: readonly string[], what: string) => {
    if (typeof v !== 'string' || allowed.includes(v)) return;
    const meant = suggestEnum(v, allowed);
    notes.push({
      path,
      problem: `${what} ${quoted(v)} is not one of ${allowed.join('|')}${meant ? ` (did you mean ${meant}?)` : ''}`,
      fix: `--${flag}=${meant ?? `<${allowed.join('|')}>`}`,
      ...(meant ? { meant } : {}),
    });
  };
  outside('status', 'status', doc.status, CHECKPOINT_STATUSES, 'status');
  if (Array.isArray(doc.progress_table)) {
    doc.progress_table.forEach((row, i) => {
      if (isObj(row)) outside(joinPath(joinPath('progress_table', i), 'status'), `progress_table.${i}.status`, row.status, ROW_STATUSES, 'row status');
    });
  }
  if (Array.isArray(doc.blockers)) {
    doc.blockers.forEach((b, i) => {
      if (isObj(b)) outside(joinPath(joinPath('blockers', i), 'needs'), `blockers.${i}.needs`, b.needs, BLOCKER_NEEDS, 'blocker needs');
    });
  }
  if (Array.isArray(doc.next_actions)) {
    doc.next_actions.forEach((a, i) => {
      if (!isObj(a) || typeof a.text === 'string') return;
      const words = actionWords(a);
      actions.set(i, words);
      const keys = Object.keys(a).slice(0, 3).map((k) => quoted(k, 30)).join(', ');
      notes.push({ path: joinPath('next_actions', i), problem: `next_actions[${i}] is an object with ${keys || 'no members'} but no "text" (an action is a string or {"text": …})`, fix: `--next_actions.${i}.text=${flagValue(words)}` });
    });
  }
  return { notes, actions };
}

/** A fix command names at most this many flags: a hand-edited table may hold a hundred slips (validate lists every one). */
const MAX_FIX_FLAGS = 5;

/** The one command that fixes `notes` in `skill`'s checkpoint (past MAX_FIX_FLAGS, then validate for the rest). */
export function fixCommand(skill: string, notes: readonly RepairNote[]): string {
  const flags = notes.slice(0, MAX_FIX_FLAGS).map((r) => r.fix).join(' ');
  const then = notes.length > MAX_FIX_FLAGS ? `, then checkpoint validate .checkpoints/${skill}.checkpoint.json` : '';
  return `checkpoint update ${skill} ${flags}${then}`;
}

/** The did-you-mean of an enum slip at `issue.path`, for validate's and doctor's messages; null when there is none. */
export function suggestionFor(doc: unknown, issue: Issue): string | null {
  if (!isObj(doc)) return null;
  return slips(doc).notes.find((n) => n.path === issue.path)?.meant ?? null;
}

/**
 * `doc` as the read-side commands can show it despite `errors`, with a note per slip; null when
 * an error is anything but a repairable slip (the file then needs repair as before). The view
 * keeps every value as written; only an action object without text reads as its words.
 */
export function readableView(doc: unknown, errors: readonly Issue[]): { view: Checkpoint; meaning: Checkpoint; notes: RepairNote[] } | null {
  if (!isObj(doc) || !errors.length) return null;
  const { notes, actions } = slips(doc);
  const covered = (p: string) => notes.some((n) => p === n.path || p.startsWith(`${n.path}.`) || p.startsWith(`${n.path}[`));
  if (!notes.length || !errors.every((e) => covered(e.path))) return null;
  const view: Obj = { ...doc };
  if (actions.size) view.next_actions = (doc.next_actions as unknown[]).map((a, i) => actions.get(i) ?? a);
  // What ranking, staleness and resume's progress read: a status with a clear did-you-mean as
  // that status ("in-progress" ranks as in progress, not as "nothing queued"; a row "Done" counts
  // as complete); shown as written all the same.
  const meant = (path: string) => notes.find((n) => n.path === path)?.meant;
  const status = meant('status');
  const rows = Array.isArray(doc.progress_table) ? doc.progress_table : [];
  const rowMeant = rows.map((_, i) => meant(joinPath(joinPath('progress_table', i), 'status')));
  const meaning: Obj = status ? { ...view, status } : { ...view };
  if (rowMeant.some((m) => m !== undefined)) meaning.progress_table = rows.map((row, i) => (rowMeant[i] === undefined ? row : { ...(row as Obj), status: rowMeant[i] }));
  return { view: view as unknown as Checkpoint, meaning: meaning as unknown as Checkpoint, notes };
}
