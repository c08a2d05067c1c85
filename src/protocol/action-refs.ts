// What a queued action names as its work, for the landed-work checks: its words, plus the keys
// people add to an action object to say which PR or ticket it is about
// ({"text": "Get the limiter merged", "pr": "#14", "ticket": "PLAT-123"}). The protocol's action
// is {text, done_when}; these keys are the user's own, kept as written and read, never required.
// Issue keys are left out: an issue is closed by work, never landed itself. Pure.
import type { Checkpoint } from './types.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A key naming a pull or merge request, as the number a host gives it ("pr": 14). */
const PR_KEY = /^(?:prs?|pull_?requests?)$/i;
const MR_KEY = /^(?:mrs?|merge_?requests?)$/i;
/** A key naming a ticket ("jira": "plat-123" is PLAT-123). */
const TICKET_KEY = /^(?:tickets?|jira|issue_?keys?)$/i;
/** A key whose text names the work ("ticket": "PLAT-7", "url": ".../pull/14"). */
const TEXT_KEY = /^(?:prs?|pull_?requests?|mrs?|merge_?requests?|tickets?|jira|urls?|links?)$/i;

/** The references `value` under `key` writes, as text the work-reference reader takes. */
function refsOf(key: string, value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => (Array.isArray(v) ? [] : refsOf(key, v)));
  if (typeof value === 'string') {
    const text = value.trim();
    // A request's number written as text ("pr": "41"), a ticket key in lower case ("jira": "plat-123").
    if (/^\d{1,7}$/.test(text) && (PR_KEY.test(key) || MR_KEY.test(key))) return [`${PR_KEY.test(key) ? 'PR' : 'MR'} ${text}`];
    if (TICKET_KEY.test(key) && /^[a-z][a-z0-9]{1,9}-\d{1,7}$/i.test(text)) return [text.toUpperCase()];
    return TEXT_KEY.test(key) && text ? [text] : [];
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) {
    if (PR_KEY.test(key)) return [`PR ${value}`];
    if (MR_KEY.test(key)) return [`MR ${value}`];
  }
  return [];
}

/** `text` (the action's words, as the caller reads them) with the references the action's own keys add, in parentheses. */
export function withActionRefs(text: string, action: unknown): string {
  if (!isObj(action)) return text;
  const refs = Object.keys(action).flatMap((k) => refsOf(k, action[k]));
  return refs.length ? `${text} (${refs.join(', ')})` : text;
}

/**
 * For each queued action's words (as `wordsOf` reads them), the text its work is read from:
 * the words plus its own reference keys. Actions sharing words share their references.
 */
export function workTexts(cp: Pick<Checkpoint, 'next_actions'>, wordsOf: (action: never) => unknown): (text: string) => string {
  const actions: unknown[] = Array.isArray(cp.next_actions) ? cp.next_actions : [];
  let byWords: Map<string, string[]> | null = null;
  for (const a of actions) {
    if (!isObj(a)) continue;
    const refs = Object.keys(a).flatMap((k) => refsOf(k, a[k]));
    const words = wordsOf(a as never);
    if (!refs.length || typeof words !== 'string') continue;
    byWords ??= new Map();
    byWords.set(words, [...(byWords.get(words) ?? []), ...refs]);
  }
  return (text) => {
    const refs = byWords?.get(text);
    return refs ? `${text} (${[...new Set(refs)].join(', ')})` : text;
  };
}
