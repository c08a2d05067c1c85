// A marked file whose text outside its conflict blocks no longer parses: a hand edit while
// settling (a comma dropped after cutting a block down) broke what every side shares. Then each
// side read from the markers is invalid at the same place, though git's stages are fine, and
// the user needs that place in the file itself, not three sides blamed. Pure.
import { JsonSyntaxError, parseJson } from '../protocol/json.js';
import { joinSides, type MarkedBlock } from './markers.js';

export interface HandSlip {
  /** 1-based, in the marked file as it is on disk. */
  line: number;
  column: number;
  reason: string;
}

const syntaxError = (text: string): JsonSyntaxError | null => {
  try {
    parseJson(text);
    return null;
  } catch (e) {
    return e instanceof JsonSyntaxError ? e : null;
  }
};

const newlines = (text: string): number => text.split('\n').length - 1;

/** Where the marked file breaks for every side, in the file's own lines; null when some side reads. */
export function handSlipIn(segments: readonly (string | MarkedBlock)[]): HandSlip | null {
  const sides = joinSides(segments);
  const errors = [sides.ours, sides.theirs, ...(sides.base === null ? [] : [sides.base])].map(syntaxError);
  const ours = errors[0];
  if (!ours || errors.some((e) => e === null)) return null;
  // Ours' text is the file with each block cut to its ours part, segment by segment, each ending
  // a line (blocks stand on lines of their own): walk both in step.
  let oursLine = 1;
  let fileLine = 1;
  for (const [k, s] of segments.entries()) {
    const text = typeof s === 'string' ? s : (s.ours ?? '');
    const span = newlines(text);
    const last = k === segments.length - 1;
    if (ours.line < oursLine + span || (last && ours.line <= oursLine + span)) {
      // A block's ours part starts after its "<<<<<<<" line.
      return { line: fileLine + (typeof s === 'string' ? 0 : 1) + (ours.line - oursLine), column: ours.column, reason: ours.reason };
    }
    oursLine += span;
    fileLine += newlines(typeof s === 'string' ? s : s.raw);
  }
  return null;
}
