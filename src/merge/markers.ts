// Splits a file holding git conflict markers back into its sides, so `checkpoint resolve`
// can take a merge up again from the file itself (the file is the truth once someone has
// settled part of it). Handles merge-style (2 sides) and diff3-style (with a base section)
// markers of any size.

import { DEFAULT_LABELS } from './render.js';

export interface MarkedSides {
  ours: string;
  /** null when the markers carried no base section (merge style). */
  base: string | null;
  theirs: string;
}

/** One conflict block: each side's lines (line ends kept) and the block's whole text. */
export interface MarkedBlock extends MarkedSides {
  raw: string;
}

/** The file cut into the text around the blocks (strings) and the blocks themselves. */
export interface MarkedText {
  segments: (string | MarkedBlock)[];
  blocks: number;
  /**
   * Every block has our labels: written by our driver or by `resolve` (markers around single
   * conflicts), as opposed to git's own line markers. A block whose base section someone
   * deleted (leaving two-way markers) is still ours: the file stays the truth, and a side
   * without a base there reads as added on both (a difference stays a conflict).
   */
  own: boolean;
}

const OPEN = /^<{7,}(?: |$)/;
const BASE = /^\|{7,}(?: |$)/;
const SEP = /^={7,}\r?$/;
const CLOSE = /^>{7,}(?: |$)/;
const label = (bare: string) => bare.replace(/^(.)\1{6,} ?/, '').replace(/\r$/, '');

/**
 * Whether any line is a conflict marker. One marker alone counts: a block whose closing line a
 * hand edit deleted is still a conflict, and no line of JSON can start so.
 */
export function hasConflictMarkers(text: string): boolean {
  return text.split('\n').some((l) => OPEN.test(l) || CLOSE.test(l) || BASE.test(l) || SEP.test(l));
}

/** Where marked text stops reading as blocks: the 1-based line and what is wrong there. */
export interface MarkerProblem {
  line: number;
  reason: string;
}

/** The text cut at its markers (no blocks: one segment), or null when they are malformed (see markerProblem). */
export function parseMarkedText(text: string): MarkedText | null {
  const read = readMarkers(text);
  return 'line' in read ? null : read;
}

/** Where the markers of `text` are malformed, or null when they read as blocks (or there are none). */
export function markerProblem(text: string): MarkerProblem | null {
  const read = readMarkers(text);
  return 'line' in read ? read : null;
}

/**
 * A block closes with markers as long as the one that opened it: git writes the conflicts of a
 * criss-cross merge's virtual base (inside a diff3 base section) with markers two longer, which
 * are that section's text. Any other marker out of place is a slip.
 */
function readMarkers(text: string): MarkedText | MarkerProblem {
  const segments: (string | MarkedBlock)[] = [];
  let common = '';
  let block: { ours: string; base: string | null; theirs: string; raw: string } | null = null;
  let state: 'common' | 'ours' | 'base' | 'theirs' = 'common';
  let size = 0;
  let opened = 0;
  let own = true;
  let blocks = 0;
  let lineNo = 0;
  const sized = (bare: string) => /^(.)\1*/.exec(bare)![0].length === size;
  for (const line of text.split(/(?<=\n)/)) {
    lineNo++;
    const bare = line.replace(/\r?\n$/, '');
    if (state === 'common') {
      if (OPEN.test(bare)) {
        if (common) segments.push(common);
        common = '';
        block = { ours: '', base: null, theirs: '', raw: line };
        own &&= label(bare) === DEFAULT_LABELS.ours;
        state = 'ours';
        size = /^<+/.exec(bare)![0].length;
        opened = lineNo;
        blocks++;
      } else if (CLOSE.test(bare) || BASE.test(bare) || SEP.test(bare)) {
        return { line: lineNo, reason: `a ${bare[0]!.repeat(7)} marker outside any conflict block (its <<<<<<< line is missing)` };
      } else common += line;
      continue;
    }
    block!.raw += line;
    const marker = [OPEN, BASE, SEP, CLOSE].some((re) => re.test(bare)) && sized(bare);
    if (marker && BASE.test(bare) && state === 'ours') {
      state = 'base';
      block!.base = '';
      own &&= label(bare) === DEFAULT_LABELS.base;
    } else if (marker && SEP.test(bare) && (state === 'ours' || state === 'base')) {
      state = 'theirs';
    } else if (marker && CLOSE.test(bare) && state === 'theirs') {
      own &&= label(bare) === DEFAULT_LABELS.theirs;
      segments.push(block!);
      state = 'common';
    } else if (marker) {
      return { line: lineNo, reason: `the conflict block opened at line ${opened} is not closed before this ${bare[0]!.repeat(7)} marker (a marker line is missing)` };
    } else {
      block![state] = (block![state] ?? '') + line;
    }
  }
  if (state !== 'common') return { line: opened, reason: `the conflict block opened here is never closed (its ${state === 'theirs' ? '>>>>>>>' : '======='} line is missing)` };
  if (common) segments.push(common);
  return { segments, blocks, own: own && blocks > 0 };
}

/** Each side of cut text: the text around the blocks plus that side's lines of each block. */
export function joinSides(segments: readonly (string | MarkedBlock)[]): MarkedSides {
  const sawBase = segments.some((s) => typeof s !== 'string' && s.base !== null);
  const side = (k: keyof MarkedSides) => segments.map((s) => (typeof s === 'string' ? s : (s[k] ?? ''))).join('');
  return { ours: side('ours'), base: sawBase ? side('base') : null, theirs: side('theirs') };
}

/** The three sides, or null when the text has no markers or they are malformed or nested. */
export function splitConflictMarkers(text: string): MarkedSides | null {
  const parsed = parseMarkedText(text);
  return parsed && parsed.blocks > 0 ? joinSides(parsed.segments) : null;
}
