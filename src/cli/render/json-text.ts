// A checkpoint's own JSON text printed for a terminal or a pipe (`show <skill> | jq`). The text
// parsed strictly, so a raw CR or C1 control can stand in it only where this changes no value:
// a CR only between tokens (JSON whitespace: a string holds it as `\r`), a U+007F-U+009F only
// inside a string (where `\u00XX` means the same character). escapeControl's `\x0d` would make
// the text invalid JSON; a bare CR passed through would let a line overwrite the one before it.

// eslint-disable-next-line no-control-regex
// The characters text output shows escaped beyond them (one-line.ts: bidi controls, line and
// paragraph separators, invisible ones) stand only inside strings too, where \uXXXX means the same.
const UNSAFE = /\r\n?|[\x7f-\x9f\xad\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b\u2060\ufeff\u180e]|\udb40[\udc00-\udc7f]/g;

const unicodeEscape = (m: string) => [...Array(m.length).keys()].map((i) => `\\u${m.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');

/** Valid JSON `text` with the same value and the same text of every string and number: each line ending LF, C1 controls and hidden characters as \u escapes. */
export function terminalSafeJson(text: string): string {
  return text.replace(UNSAFE, (m) => (m[0] === '\r' ? '\n' : unicodeEscape(m)));
}
