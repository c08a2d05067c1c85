// Terminal display width, so tables stay aligned with wide (CJK, emoji) and combining characters.
import { withoutPartialEscape } from '../../one-line.js';

/** Columns a code point takes: 0 for combining marks and zero-width joiners, 2 for wide ones. */
function codePointWidth(cp: number): number {
  // Below U+0300 (ASCII, Latin-1, Latin Extended) none is wide or zero-width: one test, not twenty.
  if (cp < 0x300) return 1;
  if (cp === 0x200b || cp === 0x200c || cp === 0x200d || cp === 0xfeff) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xfe20 && cp <= 0xfe2f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) || (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) || (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x1f680 && cp <= 0x1f6ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) return 2;
  return 1;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

// Printable ASCII only: one column a character (most skill names, statuses and steps).
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

export function displayWidth(text: string): number {
  if (PLAIN_ASCII.test(text)) return text.length;
  // By index, not a string iterator: a code point at a time (a lone surrogate alone, as for...of has it).
  const plain = text.includes('\x1b') ? text.replace(ANSI, '') : text;
  let width = 0;
  for (let i = 0; i < plain.length; ) {
    const cp = plain.codePointAt(i)!;
    width += codePointWidth(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return width;
}

/** `text` padded with spaces to `width` display columns (never cut). */
export function padDisplay(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/** Escaped (oneLine) `text` in at most `width` display columns: cut with "…", never inside an escape or a code point. */
export function fitDisplay(text: string, width: number): string {
  // Printable ASCII (most cells): a column a character, so the cut is a slice.
  if (PLAIN_ASCII.test(text)) return text.length <= width ? text : `${withoutPartialEscape(text.slice(0, Math.max(0, width - 1)))}…`;
  if (displayWidth(text) <= width) return text;
  let cut = '';
  let used = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    cut += ch;
    used += w;
  }
  return `${withoutPartialEscape(cut)}…`;
}

/**
 * A misnamed checkpoint file's name (no skill's, of any length) takes at most this many columns
 * in a table's skill column: enough to recognise it; its row's message names the whole file.
 */
export const MISNAMED_CELL_WIDTH = 24;

/**
 * The skill column of a table (status, list): as wide as the widest name a skill can have (the
 * naming rule bounds those) and `min`; a misnamed file's escaped name never widens it past that
 * and MISNAMED_CELL_WIDTH, it is cut to fit, so one absurd file name cannot push every row right.
 */
export function skillColumn(cells: readonly { label: string; misnamed?: boolean }[], min: number): { width: number; labels: string[] } {
  const width = Math.max(min, ...cells.map((c) => (c.misnamed ? Math.min(displayWidth(c.label), MISNAMED_CELL_WIDTH) : displayWidth(c.label))));
  return { width, labels: cells.map((c) => (c.misnamed ? fitDisplay(c.label, width) : c.label)) };
}

/**
 * The most columns a value from a checkpoint (phase, step, status) takes in a table row: enough
 * to recognise it, so one long value (a 2 MB phase) cannot make every row a screenful;
 * `checkpoint show <skill>` prints it whole.
 */
export const MAX_CELL_WIDTH = 40;
