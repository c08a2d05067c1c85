// A checkpoint's own JSON text printed for a terminal or a pipe (`show <skill> | jq`). The text
// parsed strictly, so a raw CR or C1 control can stand in it only where this changes no value:
// a CR only between tokens (JSON whitespace: a string holds it as `\r`), a U+007F-U+009F only
// inside a string (where `\u00XX` means the same character). escapeControl's `\x0d` would make
// the text invalid JSON; a bare CR passed through would let a line overwrite the one before it.

// The characters text output shows escaped beyond them (one-line.ts: bidi controls, line and
// paragraph separators, invisible ones) stand only inside strings too, where \uXXXX means the same.
import { FLAG_TAGS, HIDDEN_CHARS, TAG_CHARS } from '../../one-line.js';
import { unicodeEscapes } from '../../protocol/format.js';

const UNSAFE = new RegExp(`${FLAG_TAGS}|\\r\\n?|[\\x7f-\\x9f\\u2028\\u2029${HIDDEN_CHARS}]|${TAG_CHARS}`, 'g');

/** Valid JSON `text` with the same value and the same text of every string and number: each line ending LF, C1 controls and hidden characters as \u escapes. */
export function terminalSafeJson(text: string): string {
  return text.replace(UNSAFE, (m) => (m[0] === '\r' ? '\n' : m[0] === '\ud83c' ? m : unicodeEscapes(m)));
}
