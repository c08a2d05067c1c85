// Enum fields written outside their enum ("Done", "in-progress") and the value each most likely
// means. Apart from repairable.ts (the fix commands, the read-side view) because validate, and so
// the merge driver, needs only the did-you-mean. Pure.
import { BLOCKER_NEEDS, CHECKPOINT_STATUSES, ROW_STATUSES } from './shapes.generated.js';
import { joinPath } from './path.js';

// Words people write for an enum value, keyed by their normalised form (see norm). Explicit and
// small: a suggestion is only made where the meaning is clear, never by edit distance.
const SYNONYMS: Record<string, string> = {
  done: 'complete', completed: 'complete', finished: 'complete', closed: 'complete', shipped: 'complete',
  inprogress: 'in_progress', wip: 'in_progress', doing: 'in_progress', started: 'in_progress', active: 'in_progress', ongoing: 'in_progress',
  todo: 'not_started', pending: 'not_started', planned: 'not_started', notstarted: 'not_started', open: 'not_started',
  waiting: 'blocked', onhold: 'blocked', stuck: 'blocked',
  fail: 'failed', error: 'failed', errored: 'failed',
  // What a blocker needs, as people say it: someone's answer, a change to the code, something outside.
  decision: 'user_decision', decide: 'user_decision', approval: 'user_decision', approve: 'user_decision', userapproval: 'user_decision',
  input: 'user_decision', userinput: 'user_decision', user: 'user_decision', needsuser: 'user_decision', askuser: 'user_decision',
  needsdecision: 'user_decision', needsapproval: 'user_decision', needsinput: 'user_decision', needsuserinput: 'user_decision',
  human: 'user_decision', humaninput: 'user_decision', signoff: 'user_decision',
  fix: 'code_fix', bugfix: 'code_fix', bug: 'code_fix', code: 'code_fix', codechange: 'code_fix', patch: 'code_fix', needsfix: 'code_fix',
  external: 'external_dep', dependency: 'external_dep', externaldependency: 'external_dep', dep: 'external_dep',
  thirdparty: 'external_dep', vendor: 'external_dep', upstream: 'external_dep',
};

/** Case and all but letters and digits ignored: "In Progress", "in-progress", "IN_PROGRESS" and "Done ✅" read as words. */
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** The enum value `written` most likely means (case/separator-insensitive, or from the table above), when `allowed` holds it; else null. */
export function suggestEnum(written: string, allowed: readonly string[]): string | null {
  return enumWord(written, allowed) ?? valueAndReason(written, allowed)?.meant ?? null;
}

/**
 * `written` as a value with its reason after it: "blocked - waiting on API key", "Blocked
 * (vendor)", "done: shipped in #12" (the reason: the words after the value), or joined to it by a
 * linking word, as a slug too: "blocked-on-review", "Waiting for design sign-off" (the reason: all
 * of it, the value is part of what it says). Null when it is no value of `allowed` with a reason.
 */
export function valueAndReason(written: string, allowed: readonly string[]): { meant: string; reason: string } | null {
  const text = written.trim();
  const head = HEAD_BEFORE_REASON.exec(text);
  const meant = head ? enumWord(head[1]!, allowed) : null;
  if (meant !== null) {
    const after = text.slice(head![0].length).trim();
    return { meant, reason: (head![0].endsWith('(') ? after.replace(/\)$/, '') : after).trim() };
  }
  const linked = HEAD_BEFORE_LINKED_REASON.exec(text);
  const meantLinked = linked ? enumWord(linked[1]!, allowed) : null;
  return meantLinked === null ? null : { meant: meantLinked, reason: text };
}

/** Whether `written` is a value with a reason after it (either form above): it says more than the value alone. */
export function hasReason(written: string): boolean {
  return /[:(,;\u2013\u2014]|\s-\s/.test(written) || HEAD_BEFORE_LINKED_REASON.test(written.trim());
}

/** The words before a reason: up to " - ", a colon, a parenthesis, a comma, a semicolon or a dash of its own. */
const HEAD_BEFORE_REASON = /^(.{1,24}?)\s*(?:\s[-\u2013\u2014]\s|[:(,;\u2013\u2014])/;
/**
 * The words before a reason a linking word starts, joined by spaces, hyphens or underscores. Only
 * these words: "wip-ish" or "in-progress-ish" is no value with a reason, so it stays unread.
 */
const HEAD_BEFORE_LINKED_REASON = /^(.{1,24}?)[\s_-]+(?:on|by|until|till|for|pending|awaiting|waiting|in|at|with|due|because|since|after|per|via)(?:[\s_-]|$)/i;

function enumWord(written: string, allowed: readonly string[]): string | null {
  const n = norm(written);
  const direct = allowed.find((a) => norm(a) === n);
  if (direct !== undefined) return direct;
  const meant = SYNONYMS[n];
  return meant !== undefined && allowed.includes(meant) ? meant : null;
}

/** An enum field holding a string outside its enum. */
export interface EnumSlip {
  /** Its path as validate names it (`progress_table[0].status`). */
  path: string;
  /** Its path as an update flag takes it (`progress_table.0.status`). */
  flag: string;
  value: string;
  allowed: readonly string[];
  /** What the field is called in a message. */
  what: string;
  meant: string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each enum field of `doc` holding a string outside its enum: status, a row's status, a blocker's needs. */
export function enumSlips(doc: Obj): EnumSlip[] {
  const out: EnumSlip[] = [];
  const outside = (path: string, flag: string, v: unknown, allowed: readonly string[], what: string) => {
    if (typeof v === 'string' && !allowed.includes(v)) out.push({ path, flag, value: v, allowed, what, meant: suggestEnum(v, allowed) });
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
  return out;
}
