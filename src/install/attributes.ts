// The .gitattributes lines install-driver adds and uninstall-driver removes, as pure text
// functions. .gitattributes is committed, so what install added must be recognisable in any
// clone: install writes a marker comment above the lines it adds, and uninstall removes only
// the marker and our exact lines right below it. A line the project wrote itself (unmarked,
// even one identical to ours) is never removed.
import { ATTRIBUTES_LINE, HISTORY_ATTRIBUTES_LINE } from '../protocol/file-names.js';

export const ATTRIBUTE_LINES = [ATTRIBUTES_LINE, HISTORY_ATTRIBUTES_LINE];
export const ATTRIBUTES_MARKER = '# added by checkpoint install-driver (uninstall-driver removes the lines below)';
/**
 * The marker above a block appended to a file that ended without a line break (or was empty):
 * install ends the file with one (a later `echo ... >> .gitattributes` must not run into our
 * last line), so uninstall also takes back the break it put above the block.
 */
export const ATTRIBUTES_MARKER_UNTERMINATED = '# added by checkpoint install-driver (uninstall-driver removes the lines below and the line break above)';
const MARKERS = [ATTRIBUTES_MARKER, ATTRIBUTES_MARKER_UNTERMINATED];

/** The path pattern each of our lines starts with. */
const OUR_PATTERNS = ATTRIBUTE_LINES.map((l) => l.split(' ')[0]!);

const eolOf = (text: string) => (text.includes('\r\n') ? '\r\n' : '\n');

/**
 * The text with our missing lines appended under a marker, and how many were added (0: unchanged).
 * `null` is a file that does not exist yet. The result always ends with a line break; a file that
 * had none (an empty one too) gets the marker that says so, so removeAttributeLines can give
 * every byte back.
 */
export function addAttributeLines(text: string | null): { text: string; added: number } {
  const current = text ?? '';
  const lines = current.split(/\r?\n/);
  const missing = ATTRIBUTE_LINES.filter((l) => !lines.includes(l));
  if (!missing.length) return { text: current, added: 0 };
  const eol = eolOf(current);
  const full = text === null || current.endsWith('\n');
  const block = [full ? ATTRIBUTES_MARKER : ATTRIBUTES_MARKER_UNTERMINATED, ...missing].join(eol) + eol;
  return { text: full ? current + block : current + (current ? eol : '') + block, added: missing.length };
}

/**
 * The text without the marked lines install added, every other line byte for byte (its own line
 * ending kept); how many of our lines were left because no marker is above them; and the lines
 * under a marker that are ours as the project edited them (same pattern, other attributes): kept,
 * as the project's now. `text` is null when nothing but a block install wrote into a new file was
 * left: the file is install's to delete (an emptied file that existed before install is '').
 */
export function removeAttributeLines(text: string): { text: string | null; removed: number; unmarked: number; edited: string[] } {
  let kept = '';
  const edited: string[] = [];
  let removed = 0;
  let unmarked = 0;
  let inBlock = false;
  let endsInBlock = false;
  let last = '';
  let blockEol = '';
  // The last block's marker said install put a line break above it (the file had none).
  let unterminated = false;
  for (const piece of text.split(/(?<=\n)/)) {
    const line = piece.replace(/\r?\n$/, '');
    last = piece;
    endsInBlock = MARKERS.includes(line) || (inBlock && ATTRIBUTE_LINES.includes(line));
    if (endsInBlock) {
      if (MARKERS.includes(line)) {
        blockEol = piece.slice(line.length);
        unterminated = line === ATTRIBUTES_MARKER_UNTERMINATED;
      }
      inBlock = true;
      removed++;
      continue;
    }
    kept += piece;
    // One of ours that the project tuned (`... merge=checkpoint -diff`): the block goes on below it.
    inBlock &&= OUR_PATTERNS.includes(line.trim().split(/\s/)[0]!);
    if (inBlock) edited.push(line);
    else if (ATTRIBUTE_LINES.includes(line)) unmarked++;
  }
  if (!removed) return { text, removed, unmarked, edited };
  if (endsInBlock && unterminated) {
    // The file had no final line break (or was empty, and stays so): drop the one install put
    // above the block. Lines the project added below the block keep theirs.
    if (blockEol && kept.endsWith(blockEol)) kept = kept.slice(0, -blockEol.length);
    return { text: kept, removed, unmarked, edited };
  }
  if (endsInBlock && !last.endsWith('\n')) {
    // An older install appended to a file that ended without a line break, and left it so: drop
    // the one it put before the block.
    const sep = blockEol || (/\r?\n$/.exec(kept)?.[0] ?? '');
    if (sep && kept.endsWith(sep)) kept = kept.slice(0, -sep.length);
    return { text: kept, removed, unmarked, edited };
  }
  return { text: kept === '' ? null : kept, removed, unmarked, edited };
}
