// Splits a file holding git conflict markers back into its sides, so `checkpoint resolve`
// can redo a merge that ran without our driver after the index stages are gone.
// Handles merge-style (2 sides) and diff3-style (with a base section) markers of any size.

export interface MarkedSides {
  ours: string;
  /** null when the markers carried no base section (merge style). */
  base: string | null;
  theirs: string;
}

const OPEN = /^<{7,}(?: |$)/;
const BASE = /^\|{7,}(?: |$)/;
const SEP = /^={7,}\r?$/;
const CLOSE = /^>{7,}(?: |$)/;

export function hasConflictMarkers(text: string): boolean {
  return text.split('\n').some((l) => OPEN.test(l)) && text.split('\n').some((l) => CLOSE.test(l));
}

/** The three sides, or null when the text has no markers or they are malformed or nested. */
export function splitConflictMarkers(text: string): MarkedSides | null {
  const lines = text.split(/(?<=\n)/);
  const out = { ours: [] as string[], base: [] as string[], theirs: [] as string[] };
  let state: 'common' | 'ours' | 'base' | 'theirs' = 'common';
  let sawBase = false;
  let blocks = 0;
  for (const line of lines) {
    const bare = line.replace(/\r?\n$/, '');
    if (OPEN.test(bare)) {
      if (state !== 'common') return null;
      state = 'ours';
      blocks++;
    } else if (BASE.test(bare) && state === 'ours') {
      state = 'base';
      sawBase = true;
    } else if (SEP.test(bare) && (state === 'ours' || state === 'base')) {
      state = 'theirs';
    } else if (CLOSE.test(bare) && state === 'theirs') {
      state = 'common';
    } else if (state === 'common') {
      out.ours.push(line);
      out.base.push(line);
      out.theirs.push(line);
    } else {
      out[state].push(line);
    }
  }
  if (state !== 'common' || blocks === 0) return null;
  return { ours: out.ours.join(''), base: sawBase ? out.base.join('') : null, theirs: out.theirs.join('') };
}
