// The .gitattributes lines install-driver adds and uninstall-driver removes, as pure text
// functions. .gitattributes is committed, so what install added must be recognisable in any
// clone: install writes a marker comment above the lines it adds, and uninstall removes only
// the marker and our exact lines right below it. A line the project wrote itself (unmarked,
// even one identical to ours) is never removed.
import { ATTRIBUTES_LINE, HISTORY_ATTRIBUTES_LINE } from '../protocol/file-names.js';

export const ATTRIBUTE_LINES = [ATTRIBUTES_LINE, HISTORY_ATTRIBUTES_LINE];
export const ATTRIBUTES_MARKER = '# added by checkpoint install-driver (uninstall-driver removes the lines below)';

const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

/** The text with our missing lines appended under a marker, and how many were added (0: unchanged). */
export function addAttributeLines(text: string): { text: string; added: number } {
  const lines = text.split(/\r?\n/);
  const missing = ATTRIBUTE_LINES.filter((l) => !lines.includes(l));
  if (!missing.length) return { text, added: 0 };
  const eol = eolOf(text);
  const sep = text && !text.endsWith('\n') ? eol : '';
  return { text: text + sep + [ATTRIBUTES_MARKER, ...missing].join(eol) + eol, added: missing.length };
}

/**
 * The text without the marked lines install added, every other line byte for byte (its own line
 * ending kept), and how many of our lines were left because no marker is above them.
 */
export function removeAttributeLines(text: string): { text: string; removed: number; unmarked: number } {
  let kept = '';
  let removed = 0;
  let unmarked = 0;
  let inBlock = false;
  for (const piece of text.split(/(?<=\n)/)) {
    const line = piece.replace(/\r?\n$/, '');
    if (line === ATTRIBUTES_MARKER || (inBlock && ATTRIBUTE_LINES.includes(line))) {
      inBlock = true;
      removed++;
      continue;
    }
    inBlock = false;
    if (ATTRIBUTE_LINES.includes(line)) unmarked++;
    kept += piece;
  }
  return { text: kept, removed, unmarked };
}
