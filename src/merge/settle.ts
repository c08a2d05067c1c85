// `checkpoint resolve --ours <path> / --theirs <path>`: settle chosen conflicts of a merge
// with one side's version, field by field, leaving every other merged value as it is.
// Pure: the merged value and its conflicts in, a settled copy out.

import type { JsonObject, JsonValue } from '../protocol/types.js';
import type { Conflict } from './conflict.js';
import { setOwn } from './json-value.js';
import { printedKey, splitPath } from '../protocol/path.js';

export interface Settlement {
  /** Conflict paths as printed (`phase`, `next_actions[1]`); a path also covers what lies under it. */
  ours?: readonly string[];
  theirs?: readonly string[];
}

export interface Settled {
  value: JsonValue;
  /** The conflicts no requested path covered. */
  conflicts: Conflict[];
  /** Requested paths that covered no conflict here. */
  unmatched: string[];
}

// A key written in brackets as a conflict line prints it: text output shows the control, bidi and
// separator characters JSON leaves raw (U+009B, U+2028, U+202E) escaped as \x9b, \u2028, \u202e.
const BRACKETED = /\["((?:[^"\\]|\\.)*)"\]/g;

/**
 * `requested` with each bracketed key read back (its \xNN and \uNNNN escapes, as printed or as
 * JSON writes them) and written as a conflict path holds it, so a path pasted from a conflict
 * line names that conflict whatever characters its key holds. Anything it cannot read stays as typed.
 */
function canonicalPath(requested: string): string {
  if (!requested.includes('\\')) return requested;
  return requested.replace(BRACKETED, (whole, inner: string) => {
    try {
      return `[${JSON.stringify(printedKey(`"${inner}"`))}]`;
    } catch {
      return whole;
    }
  });
}

/** A path's segments in any spelling update takes (`skill_state.café`, `progress_table.0.label`); null for text that is no such path. */
function segmentsOf(path: string): string[] | null {
  const { segments, bad } = splitPath(path);
  return bad === undefined ? segments : null;
}

/** Whether the requested path names the conflict shown as `display` or one under it, in whichever spelling it was given. */
function covers(given: string, display: string): boolean {
  const requested = canonicalPath(given);
  if (display === requested || display.startsWith(`${requested}.`) || display.startsWith(`${requested}[`)) return true;
  const [want, at] = [segmentsOf(given), segmentsOf(display)];
  return want !== null && at !== null && want.length <= at.length && want.every((seg, i) => seg === at[i]);
}

/** Whether two requested paths name the same place (`skill_state.café` and `skill_state["café"]`). */
export function samePath(a: string, b: string): boolean {
  return a === b || (covers(a, b) && covers(b, a));
}

/** The side whose most specific requested path covers `display` (a path on both sides at once is refused earlier). */
function chosenSide(display: string, settlement: Settlement, used: Set<string>): 'ours' | 'theirs' | undefined {
  let best: { side: 'ours' | 'theirs'; path: string } | undefined;
  for (const side of ['ours', 'theirs'] as const) {
    for (const path of settlement[side] ?? []) {
      if (!covers(path, display)) continue;
      used.add(path);
      if (!best || path.length > best.path.length) best = { side, path };
    }
  }
  return best?.side;
}

/** The side `settlement` chooses for the conflict shown as `display`, if any. */
export function settledSide(display: string, settlement: Settlement): 'ours' | 'theirs' | undefined {
  return chosenSide(display, settlement, new Set());
}

export function settleConflicts(value: JsonValue, conflicts: readonly Conflict[], settlement: Settlement): Settled {
  const used = new Set<string>();
  // The merged value shares subtrees with the parsed sides: settle a copy.
  let root = structuredClone(value);
  const remaining: Conflict[] = [];
  // Last first: settling a run of array items may change its length, and later indices with it.
  for (let k = conflicts.length - 1; k >= 0; k--) {
    const c = conflicts[k]!;
    const side = chosenSide(c.display, settlement, used);
    if (!side) {
      remaining.unshift(c);
      continue;
    }
    root = putAt(root, c, c.settled?.[side] ?? c[side]);
  }
  const requested = [...(settlement.ours ?? []), ...(settlement.theirs ?? [])];
  return { value: root, conflicts: remaining, unmatched: requested.filter((p) => !used.has(p)) };
}

/**
 * `chosen` in place of what stands in for conflict `c` in the merged value `root` (changed in
 * place; the new root is returned): a run's items for a run (`span`), an element or member
 * otherwise; undefined removes it. Conflicts are put last first: a run may change the length of
 * its array, and the indices after it with it.
 */
export function putAt(root: JsonValue, c: Conflict, chosen: JsonValue | undefined): JsonValue {
  if (c.path.length === 0) return chosen ?? root;
  let parent: JsonValue = root;
  for (const seg of c.path.slice(0, -1)) parent = (parent as Record<string | number, JsonValue>)[seg]!;
  const last = c.path[c.path.length - 1]!;
  if (Array.isArray(parent) && typeof last === 'number') {
    if (c.span !== undefined) parent.splice(last, c.span, ...((chosen as JsonValue[] | undefined) ?? []));
    else if (chosen === undefined) parent.splice(last, 1);
    else parent[last] = chosen;
  } else if (chosen === undefined) delete (parent as JsonObject)[last as string];
  else setOwn(parent as JsonObject, String(last), chosen);
  return root;
}
