// Actions ticked off by hand in the queue itself. Apart from priority.ts (the `next` ranking) so
// the merge driver, which reads a tick as the pop it stands for, loads only this.
import { suggestEnum } from './enum-slip.js';
import { ROW_STATUSES } from './shapes.generated.js';

/**
 * Whether the checkpoint marks a queued action done, as people tick items off by hand: a key
 * (`"done": true`, `"completed": true`, `"status": "done"`) or its words (`[x] …`, `✅ …`, `✓ …`,
 * `~~…~~`, `DONE: …`, `[DONE] …`, `(done) …`, `[completed] …`, and after them `… ✅`, `… (done)`, `… - DONE`). Red team, 12-05: next
 * recommended such an action.
 */
export function markedDone(action: unknown): boolean {
  if (typeof action === 'object' && action !== null && !Array.isArray(action)) {
    const a = action as Record<string, unknown>;
    if (a.done === true || a.completed === true) return true;
    for (const key of ['status', 'state']) if (typeof a[key] === 'string' && suggestEnum(a[key] as string, ROW_STATUSES) === 'complete') return true;
  }
  // An object without text (a `{"task": …}` slip) has no words to read.
  const text = wordsOf(action);
  return text !== undefined && (DONE_WORDS.test(text) || DONE_AFTER.test(endOf(text)));
}

/** An action's words: the string, or an object's `text`; anything else (null, a number, as the merge driver may meet) has none. */
function wordsOf(action: unknown): string | undefined {
  const text = typeof action === 'object' && action !== null && !Array.isArray(action) ? (action as { text?: unknown }).text : action;
  return typeof text === 'string' ? text : undefined;
}
// The word as people write it before an action: `DONE: …`, `[done] …`, `(Completed) …`.
const WORD = '(?:DONE|Done|done|COMPLETED|Completed|completed)';
const DONE_WORDS = new RegExp(`^\\s*(?:[-*]\\s*)?(?:\\[[xX\u2713\u2714]\\]\\s|[\u2705\u2611\u2714\u2713]\ufe0f?\\s*|~~[^~].*~~\\s*$|${WORD}\\s*[:\u2013\u2014]\\s|\\[${WORD}\\]\\s|\\(${WORD}\\)\\s)`, 'u');
// The same marks, taken off the words (an unticked box too: `- [ ] a` ticked is `- [x] a`).
const STRUCK = /^\s*(?:[-*]\s*)?~~([^~].*)~~\s*$/su;
const MARK = new RegExp(`^\\s*(?:[-*]\\s*)?(?:\\[[ xX\u2713\u2714]\\]\\s|[\u2705\u2611\u2714\u2713]\ufe0f?\\s*|${WORD}\\s*[:\u2013\u2014]\\s|\\[${WORD}\\]\\s|\\(${WORD}\\)\\s)\\s*`, 'u');
// A mark after the words (red team, 12-06): `Write tests ✅`, `Write tests (done)`, `Write tests - DONE`.
const MARK_AFTER = /\s+(?:[\u2705\u2611\u2714\u2713]\ufe0f?|\((?:done|completed?)\)|\[(?:done|completed?)\]|[-\u2013\u2014]\s*(?:done|completed?))\s*$/iu;
const DONE_AFTER = new RegExp(`\\S${MARK_AFTER.source}`, 'iu');
/**
 * The end of a text the marks after the words are looked for in: bounded, since a regex anchored
 * at the end retries from each blank of a long run (quadratic: a hostile file's megabyte of
 * spaces in an action would stall every read). No mark is anywhere near this long.
 */
const END_CHARS = 256;
/** `text` without its trailing blanks, cut before its last END_CHARS characters. */
const splitEnd = (text: string): [string, string] => {
  const t = text.trimEnd();
  const cut = Math.max(0, t.length - END_CHARS);
  return [t.slice(0, cut), t.slice(cut)];
};
const endOf = (text: string): string => splitEnd(text)[1];
const withoutMarkAfter = (text: string): string => {
  const [head, end] = splitEnd(text);
  return head + end.replace(MARK_AFTER, '');
};
const unmarked = (text: string): string => (STRUCK.exec(text)?.[1] ?? withoutMarkAfter(text.replace(MARK, ''))).trim();

/**
 * Whether `now` is the queued action `was`, ticked off by hand: marked done where it was not, its
 * words the same once the mark is taken off (`"done": true` added to `{"text": "a"}`, `"a"` become
 * `"[x] a"` or `"~~a~~"`).
 */
export function marksDone(now: unknown, was: unknown): boolean {
  if (!markedDone(now) || markedDone(was)) return false;
  const [a, b] = [wordsOf(now), wordsOf(was)];
  return a !== undefined && b !== undefined && (a === b || unmarked(a) === unmarked(b));
}

/** What an action says with any tick taken off (`"[x] a"`, `"a ✅"` and `{"text": "a", "done": true}` all say `a`); undefined for an item without words. */
export function actionWords(action: unknown): string | undefined {
  const words = wordsOf(action);
  return words === undefined ? undefined : unmarked(words);
}
