// A checkpoint's own JSON text printed for a terminal or a pipe (`show <skill> | jq`). The text
// parsed strictly, so a raw CR or C1 control can stand in it only where this changes no value:
// a CR only between tokens (JSON whitespace: a string holds it as `\r`), a U+007F-U+009F only
// inside a string (where `\u00XX` means the same character). escapeControl's `\x0d` would make
// the text invalid JSON; a bare CR passed through would let a line overwrite the one before it.

// eslint-disable-next-line no-control-regex
const UNSAFE = /\r\n?|[\x7f-\x9f]/g;

/** Valid JSON `text` with the same value and the same text of every string and number: each line ending LF, C1 controls as \u escapes. */
export function terminalSafeJson(text: string): string {
  return text.replace(UNSAFE, (m) => (m[0] === '\r' ? '\n' : `\\u00${m.charCodeAt(0).toString(16)}`));
}
