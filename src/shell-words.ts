// Words of the commands we print for a person to paste (a slip's fix, a hint): each one a single
// shell word that runs nothing but printf and redirects nothing, in bash and in sh. Pure.
import { LONE_SURROGATE, NOT_ONE_LINE } from './one-line.js';

/** Quote for a POSIX shell: single quotes, a `'` inside as `'\''`; safe with spaces, quotes and $. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * A placeholder the reader replaces (`'<in_progress|blocked|complete|failed>'`): quoted, so a line
 * pasted as printed passes it as one word (which update refuses) and never reads `<` or `|` as
 * the shell's.
 */
export function placeholder(what: string): string {
  return shellQuote(`<${what}>`);
}

/** A value shaped like placeholder()'s (`<phase>`): update refuses it as plain text. */
export const PLACEHOLDER = /^<[^<>\n]+>$/;

/** Whether a printed command passes a placeholder() as a flag's value (`--x='<phase>'`): update refuses it until the reader fills it in. */
export function holdsPlaceholder(command: string): boolean {
  return /(?<!:json)='<[^<>\n']+>'(?=\s|$)/.test(command);
}

// What text output shows escaped (one-line.ts: control, bidi and invisible characters, line and
// paragraph separators): such a value cannot be printed as it is inside a command.
const ESCAPED_IN_OUTPUT = NOT_ONE_LINE;
const LONE = new RegExp(LONE_SURROGATE);

/**
 * `text` as one shell word that gives back exactly `text`, printable on one line: single-quoted,
 * or, when it holds a character text output escapes (a newline, U+202E), made by printf from a
 * format that spells that character as its UTF-8 bytes in octal (`"$(printf -- 'two\012lines')"`),
 * which any POSIX shell (sh, dash, bash: tested) reads back exactly in any locale: never bash's `$'…'`,
 * whose `\'` sh reads as the quote's end. The printed line holds only the escape, never the
 * character. Null when no such word exists: command substitution drops a text's final newlines,
 * and no argument holds a lone surrogate (`"\ud800"` in a JSON string: no UTF-8 spells it).
 */
export function pasteWord(text: string): string | null {
  if (!ESCAPED_IN_OUTPUT.test(text)) return shellQuote(text);
  if (text.endsWith('\n') || text.includes('\0') || LONE.test(text)) return null; // (no argument can hold a NUL either)
  let format = '';
  for (const ch of text) {
    if (ch === '%') format += '%%';
    else if (ch === '\\') format += '\\\\';
    else if (ESCAPED_IN_OUTPUT.test(ch)) for (const byte of new TextEncoder().encode(ch)) format += `\\${byte.toString(8).padStart(3, '0')}`;
    else format += ch;
  }
  return `"$(printf -- ${shellQuote(format)})"`;
}

/**
 * A word printed bare when it plainly is one (`src/x.ts`, `refs/heads/main`), else quoted as
 * pasteWord does; one pasteWord has no word for, single-quoted (its newline printed escaped: inert, not exact).
 */
export function pasteArg(text: string): string {
  return /^[\w./+,:@%-]+$/.test(text) ? text : (pasteWord(text) ?? shellQuote(text));
}

/**
 * A command to run for one of `names` (at least one), as `shown` prints it (in backticks, say): the
 * command itself where there is one name, else an example with the first (`e.g. checkpoint resume
 * api`). Never a placeholder where names are known: pasted as printed, it runs.
 */
export function commandFor(names: readonly string[], command: (name: string) => string, shown = (c: string) => c): string {
  return `${names.length === 1 ? '' : 'e.g. '}${shown(command(pasteArg(names[0]!)))}`;
}
