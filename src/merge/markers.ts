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

export function hasConflictMarkers(text: string): boolean {
  return text.split('\n').some((l) => OPEN.test(l)) && text.split('\n').some((l) => CLOSE.test(l));
}

/** The text cut at its markers (no blocks: one segment), or null when they are malformed or nested. */
export function parseMarkedText(text: string): MarkedText | null {
  const segments: (string | MarkedBlock)[] = [];
  let common = '';
  let block: { ours: string; base: string | null; theirs: string; raw: string } | null = null;
  let state: 'common' | 'ours' | 'base' | 'theirs' = 'common';
  let own = true;
  let blocks = 0;
  for (const line of text.split(/(?<=\n)/)) {
    const bare = line.replace(/\r?\n$/, '');
    if (OPEN.test(bare)) {
      if (state !== 'common') return null;
      if (common) segments.push(common);
      common = '';
      block = { ours: '', base: null, theirs: '', raw: line };
      own &&= label(bare) === DEFAULT_LABELS.ours;
      state = 'ours';
      blocks++;
      continue;
    }
    if (state === 'common') {
      common += line;
      continue;
    }
    block!.raw += line;
    if (BASE.test(bare) && state === 'ours') {
      state = 'base';
      block!.base = '';
      own &&= label(bare) === DEFAULT_LABELS.base;
    } else if (SEP.test(bare) && (state === 'ours' || state === 'base')) {
      state = 'theirs';
    } else if (CLOSE.test(bare) && state === 'theirs') {
      own &&= label(bare) === DEFAULT_LABELS.theirs;
      segments.push(block!);
      state = 'common';
    } else {
      block![state] = (block![state] ?? '') + line;
    }
  }
  if (state !== 'common') return null;
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
