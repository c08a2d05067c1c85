// Text from outside (a checkpoint that arrived through a merge, a command-line value, a file
// name in a clone) shown inside our own lines. Pure and import-free, so every layer can use it,
// the merge driver's lean bundle included.

// Control characters (cursor moves, screen clears, OSC clipboard writes, carriage returns) are
// shown escaped, never interpreted. Only colour (SGR) sequences pass, and only with colour on.
// The bidirectional formatting characters (LRE..RLO, LRI..PDI, LRM, RLM, ALM) are escaped too:
// passed through, they make a value display in another order than it reads (Trojan Source). So
// are the invisible ones a model still reads as text (a hidden instruction in a field): the TAG
// characters (U+E0000..E007F; a subdivision flag's stay), zero width space, word joiner, BOM,
// Mongolian vowel separator. ZWJ, ZWNJ and the soft hyphen stay: scripts, emoji and words need them.
/** The bidi and invisible characters text output shows escaped besides the controls (a class's inside). */
export const HIDDEN_CHARS = '\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c\\u200b\\u2060\\ufeff\\u180e';
/** The TAG characters, as the UTF-16 pairs a string holds them in. */
export const TAG_CHARS = '\\udb40[\\udc00-\\udc7f]';
/** A subdivision flag (England 🏴󠁧󠁢󠁥󠁮󠁧󠁿): the black flag, its region's letters as TAG characters, CANCEL TAG. Shown as it is. */
export const FLAG_TAGS = '\\ud83c\\udff4(?:\\udb40[\\udc30-\\udc39\\udc61-\\udc7a]){1,6}\\udb40\\udc7f';
/**
 * A UTF-16 surrogate without its other half (`"\ud800"` in a JSON string: valid JSON, no
 * character): written out as UTF-8 it would become U+FFFD, so text output shows it as its escape,
 * the exact text the file holds (a file keeps it as written: JSON texts are kept, never re-encoded).
 */
export const LONE_SURROGATE = '[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]';
const CONTROL = new RegExp(`${FLAG_TAGS}|\\x1b\\[[0-9;]*m|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${HIDDEN_CHARS}]|${TAG_CHARS}|${LONE_SURROGATE}`, 'g');

/** One character as text output shows it: \xNN up to U+00FF, \uNNNN beyond (a pair of them beyond U+FFFF). */
const escaped = (ch: string) => {
  let out = '';
  for (let i = 0; i < ch.length; i++) {
    const code = ch.charCodeAt(i);
    out += code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out;
};

export function escapeControl(text: string, keepColour: boolean): string {
  // A flag is shown as it is (a lone \ud83c is one code unit, escaped as any lone surrogate).
  return text.replace(CONTROL, (m) => (m[0] === '\ud83c' && m.length > 1 ? m : m[0] !== '\x1b' || m.length === 1 ? escaped(m) : keepColour ? m : `${escaped(m[0]!)}${m.slice(1)}`));
}

// Line breaks a terminal or editor may honour beyond \n and NEL (a C1 control: CONTROL shows it
// as \x85, as it shows every control character): LINE and PARAGRAPH SEPARATOR, beyond \xNN.
const UNICODE_BREAK = /[\u2028\u2029]/g;

// Anything oneLine changes: every control character (CONTROL's and \n, \r, NEL), the bidi controls and the two separators.
// Exported: a value holding one cannot be printed as it is (shell-words.ts spells such a value out).
export const NOT_ONE_LINE = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029${HIDDEN_CHARS}]|${TAG_CHARS}|${LONE_SURROGATE}`);

/**
 * For one-line messages: a newline inside a value becomes a visible `\n`, every other control
 * character `\xNN` (the one form text output uses for one, as escapeControl does), LINE and
 * PARAGRAPH SEPARATOR `\u2028` and `\u2029`.
 */
export function oneLine(text: string): string {
  // Most values are one plain line already: returned as they are, without three replaces.
  if (!NOT_ONE_LINE.test(text)) return text;
  return escapeControl(breaksShown(text), false);
}

/**
 * The line breaks of text meant as one line shown as `\n`, `\u2028`, `\u2029`: a stderr
 * message is one line, and a break a value carried into it would start a line a reader (or a
 * model) takes for one of ours. What escapeControl leaves (tab, colour) is left to it.
 */
export function breaksShown(text: string): string {
  return text.replace(/\r?\n/g, '\\n').replace(UNICODE_BREAK, escaped);
}

/** How much of a value a one-line message shows: enough to recognise it, never a screenful. */
export const MAX_SHOWN_CHARS = 80;
/** How much of a path a message shows: twice a value's, as an ordinary absolute path (a pack's, 40 hex digits in its name) often passes 80. */
export const MAX_SHOWN_PATH_CHARS = 2 * MAX_SHOWN_CHARS;
/** How much of another program's own message (git's `fatal: ...`) a line relays: its reason often ends it. */
export const MAX_RELAYED_CHARS = 3 * MAX_SHOWN_CHARS;

/** The start of a oneLine text cut at its end: an escape (\n, \xNN, \uNNNN) cut in two would read as something else, so its start is dropped. */
export function withoutPartialEscape(cut: string): string {
  // The longest partial escape (a backslash, u and three digits) is five characters: with no backslash among the last five, none.
  if (cut.lastIndexOf('\\') < cut.length - 5) return cut;
  const partial = /\\(?:x[0-9a-f]{0,1}|u[0-9a-f]{0,3})?$/.exec(cut);
  return partial ? cut.slice(0, partial.index) : cut;
}

/**
 * A value echoed inside a message (an option as typed, a path, a name read from a file): on one
 * line (oneLine) and at most MAX_SHOWN_CHARS of it, cut with "…" and its full length named.
 * Cut after escaping, so the bound holds for what is printed, and never inside an escape.
 */
export function shown(value: string, max = MAX_SHOWN_CHARS): string {
  const text = oneLine(value);
  if (text.length <= max) return text;
  return `${withoutPartialEscape(text.slice(0, max))}… (${value.length} characters)`;
}

/**
 * A string echoed in double quotes inside a message (a name or text read from a file, an
 * argument as typed): `\` and `"` escaped as \\ and \", the rest as oneLine shows it (never
 * JSON.stringify's \u001b: one form for a control character in all text output). A long one is
 * cut like shown(), with the ellipsis inside the quotes and the quote always closed, so it reads
 * as cut: `"aaaa…" (150 characters)`.
 */
export function quoted(value: string, max = MAX_SHOWN_CHARS): string {
  const text = oneLine(value.replace(/[\\"]/g, '\\$&'));
  if (text.length <= max) return `"${text}"`;
  let cut = '';
  // Whole escapes and whole code points only (here every backslash starts an escape).
  for (const [token] of text.matchAll(/\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[\s\S])|[\s\S]/gu)) {
    if (cut.length + token.length > max) break;
    cut += token;
  }
  return `"${cut}…" (${value.length} characters)`;
}

/**
 * A path echoed inside a message: like shown(), but a long one keeps its end (the file and the
 * folders just above it, what a user recognises), cut at the start with "…" and its full length
 * named. A cut never leaves half an escape at the start.
 */
export function shownPath(path: string, max = MAX_SHOWN_PATH_CHARS): string {
  const text = oneLine(path);
  if (text.length <= max) return text;
  let start = text.length - max;
  // An escape the cut falls inside is dropped whole.
  for (const m of text.matchAll(/\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|n)/g)) {
    if (m.index >= start) break;
    if (m.index + m[0].length > start) start = m.index + m[0].length;
  }
  return `…${text.slice(start)} (${path.length} characters)`;
}

/**
 * Items inside one line: the first `max`, each shown() (or `show`: quoted() where an item may hold
 * a space or a comma), then how many more (a hostile repo can hold thousands).
 */
export function shownList(items: readonly string[], max = 3, show: (item: string) => string = shown): string {
  const head = items.slice(0, max).map((item) => show(item)).join(', ');
  return items.length > max ? `${head} and ${items.length - max} more` : head;
}
