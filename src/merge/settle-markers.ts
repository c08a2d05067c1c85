// `checkpoint resolve` on a file that already holds conflict markers: the file is the truth
// (an earlier resolve or a hand edit may have settled part of it), so the merge is taken up
// from its markers, never redone from git's index stages. A run changes only the blocks it is
// told to settle, every other byte as it was, wherever that provably means the same merge.

import { parseJson } from '../protocol/json.js';
import { mergeCheckpointTexts, type MergeTextsInput, type MergeTextsResult } from './driver.js';
import { joinSides, parseMarkedText, type MarkedBlock, type MarkedText } from './markers.js';
import { settledSide, type Settlement } from './settle.js';

/** Past this many blocks the block-by-block splice is not tried (each block costs a merge). */
export const MAX_SPLICED_BLOCKS = 64;

export interface MarkedMergeInput extends Omit<MergeTextsInput, 'base' | 'ours' | 'theirs'> {
  marked: MarkedText;
  /** The base when the markers carry none (git's merge-style markers): stage 1, if git still has it. */
  base?: string | null;
}

type Segments = MarkedText['segments'];
type Merge = (segments: Segments, settle?: Settlement) => MergeTextsResult;

/**
 * The semantic merge of the file's sides (settled as asked). Its text is, whenever that can be
 * proven to mean the same, the file itself with only the settled blocks cut down to the chosen
 * side; otherwise (git's line markers around several fields, a block hand-edited into
 * agreement, a cut that would leave a neighbouring block's base without its comma) the merge
 * laid out afresh, every value kept.
 */
export function mergeMarkedText(input: MarkedMergeInput): MergeTextsResult {
  const { marked, base: fallbackBase, settle, ...rest } = input;
  const merge = (segments: Segments, how?: Settlement, whole = false): MergeTextsResult => {
    const sides = joinSides(segments);
    // git's stage 1 broken (no base in the markers) is a broken base, merged against what the
    // sides hold alike as the driver merges it; a base cut from markers that does not parse is a
    // cut to refuse.
    const agreeOnBrokenBase = whole && (sides.base ?? null) === null;
    return mergeCheckpointTexts({ ...rest, ...sides, base: sides.base ?? fallbackBase ?? null, settle: how, fromMarkers: true, agreeOnBrokenBase });
  };
  const semantic = merge(marked.segments, settle, true);
  if (semantic.status === 'unparseable' || semantic.text === undefined) return semantic;
  const spliced = splice(marked.segments, settle ?? {}, semantic.text, merge);
  return spliced === undefined ? semantic : { ...semantic, text: spliced };
}

function splice(segments: Segments, settle: Settlement, expected: string, merge: Merge): string | undefined {
  if (segments.filter((s) => typeof s !== 'string').length > MAX_SPLICED_BLOCKS) return undefined;
  const whole = merge(segments);
  if (whole.status === 'unparseable') return undefined;
  const all = whole.conflicts.map((c) => c.display);
  const choice = new Map<MarkedBlock, 'ours' | 'theirs'>();
  for (const block of segments) {
    if (typeof block === 'string') continue;
    // The conflicts a block holds: those that vanish when that block alone is cut to one side.
    const without = merge(segments.map((s) => (s === block ? block.ours : s)));
    if (without.status === 'unparseable') return undefined;
    const left = new Set(without.conflicts.map((c) => c.display));
    const held = all.filter((d) => !left.has(d));
    if (held.length === 0) return undefined;
    const sides = new Set(held.map((d) => settledSide(d, settle) ?? 'open'));
    if (sides.size !== 1) return undefined; // partly settled, or settled both ways: no block-level cut
    const [side] = [...sides];
    if (side !== 'open') choice.set(block, side as 'ours' | 'theirs');
  }
  let text = '';
  for (const s of segments) text = typeof s === 'string' ? text + s : choice.has(s) ? joinCut(text, s[choice.get(s)!]) : text + s.raw;
  return sameMerge(text, expected, merge) ? text : undefined;
}

/** A side's first line as the markers lay it out after a member that can carry no comma for every side. */
const LEADING_COMMA = /^([ \t]*),/;

/**
 * `before` followed by a block cut down to one side, `cut`. Inside the markers a side that follows
 * an entry starts with that entry's comma (`,"s": 8`), the one layout right for every side; cut
 * down, the comma goes back to the end of the entry before it, so the file reads as written.
 */
function joinCut(before: string, cut: string): string {
  const lead = LEADING_COMMA.exec(cut);
  const end = /[^\s,{[:](\r?\n)$/.exec(before);
  if (!lead || !end) return before + cut;
  const at = before.length - end[1]!.length;
  return `${before.slice(0, at)},${before.slice(at)}${lead[1]}${cut.slice(lead[0].length)}`;
}

/** Whether `text` means what the semantic merge laid out as `expected`: the same value, the same conflicts. */
function sameMerge(text: string, expected: string, merge: Merge): boolean {
  const marked = parseMarkedText(text);
  if (!marked) return false;
  if (marked.blocks > 0) return merge(marked.segments).text === expected;
  try {
    return JSON.stringify(parseJson(text).value) === JSON.stringify(parseJson(expected).value);
  } catch {
    return false;
  }
}
