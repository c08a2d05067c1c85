// A top-level field name that is a slip for a protocol field ("stauts", "next_action",
// "blocker"): the did-you-mean by edit distance. Apart from enum-slip.ts, whose values are
// suggested only from an explicit table: a field name has no synonyms, its typos are letters.
// Pure; validate (so the merge driver) reads it, update refuses by it.
import { PROTOCOL_FIELDS } from './fields.js';

/** The closest of `candidates` to `word` within a few edits (at most 2, or a third of its length), else undefined. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return bestD <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

/** Levenshtein distance (a swap of two letters counts 2). */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/**
 * The protocol field `key` (a top-level name that is none) is most likely a slip for: one to two
 * edits away, case and `-` for `_` aside; one edit only for names under 5 letters, where two
 * edits reach unrelated words ("tags" is two from "step"); two letters swapped count one ("stpe"
 * for "step"). Else null. A project keeps a field
 * of its own that this catches ("host", one from "cost") with `update --allow-new-field`.
 */
export function protocolFieldSlip(key: string): string | null {
  return memberSlipOf(key, PROTOCOL_FIELDS, true);
}

/**
 * Of `names` (none of them `$`-prefixed counts), the one `key` (not itself one of them) is a slip
 * for, by protocolFieldSlip's rule; else null. `swaps`: two letters swapped count one edit, as in
 * a member's short name ("ta" for "at", "amx" for "max"), where the field rule's two would pass it.
 */
export function memberSlipOf(key: string, names: readonly string[], swaps = false): string | null {
  if (names.includes(key)) return null;
  const k = key.toLowerCase().replace(/-/g, '_');
  const limit = k.length < 5 ? 1 : 2;
  let best: string | null = null;
  let bestD = Infinity;
  for (const f of names) {
    if (f.startsWith('$')) continue;
    const d = swaps && isOneSwap(k, f) ? 1 : editDistance(k, f);
    if (d < bestD) [best, bestD] = [f, d];
  }
  return bestD <= limit ? best : null;
}

/** Whether `a` is `b` with two neighbouring letters swapped. */
function isOneSwap(a: string, b: string): boolean {
  if (a.length !== b.length || a === b) return false;
  let i = 0;
  while (a[i] === b[i]) i++;
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}
