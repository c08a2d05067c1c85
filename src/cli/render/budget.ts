// Output budgets for text that agent hosts inject into a model's context. Hosts cap a hook's
// output (Claude Code shows only a short preview past 10,000 characters, without a warning),
// so resume and resume --context fill a budget in priority order instead of cutting at the
// end: whole blocks (and whole list items) in, or out and named on one closing line; only the
// next action is never left out: cut to what fits, marked, and the cut named.

import { CheckpointError } from '../../errors.js';
import { shown, withoutPartialEscape } from '../../one-line.js';

/** Default --max-chars: under the 10,000-character cap of Claude Code's hook output. */
export const DEFAULT_MAX_CHARS = 9000;
export const MIN_MAX_CHARS = 400;
/** Characters of a cut next action worth more than naming, on the closing line, each part left out. */
const USEFUL_CUT = 80;

/** --max-chars: the text budget of resume and resume --context. */
export function charLimit(raw: unknown): number {
  if (raw === undefined) return DEFAULT_MAX_CHARS;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < MIN_MAX_CHARS) {
    throw new CheckpointError('E_USAGE', `--max-chars=${shown(String(raw))}: expected a whole number of characters, at least ${MIN_MAX_CHARS}`, { hint: `e.g. --max-chars ${DEFAULT_MAX_CHARS} (the default)` });
  }
  return n;
}

export interface Block {
  /** How the omissions line names it. */
  name: string;
  /** 0 first; a lower tier is filled before any higher one. */
  tier: number;
  /** Lines shown whenever the block is (a heading, a one-line field). */
  head: string[];
  /** Items that may be left out from the end, one whole item at a time. */
  items?: string[];
  /**
   * Never left out for length (the next action): when its head does not fit whole, its first line
   * is cut to what fits, marked, and the cut named on the closing line.
   */
  cut?: boolean;
}

/** What the printed output may hold: the text and the newline that ends it, counted together. */
export interface Budget {
  maxChars: number;
  maxBytes: number;
}

// The text goes out as one line block ending in a newline (output.ts): the newline is output too.
const fits = (text: string, b: Budget) => text.length + 1 <= b.maxChars && Buffer.byteLength(text) + 1 <= b.maxBytes;

/**
 * The blocks in their display order, as many as fit, chosen by tier; then one line naming
 * what was left out and the command that shows everything. Never cuts inside a line. The text
 * returned is printed with a final newline, which the budget counts.
 */
export function fillBudget(blocks: readonly Block[], budget: Budget, showAll: string): string {
  const shown = blocks.map(() => -1); // items shown per block; -1: the block is left out
  const cutAt = blocks.map(() => -1); // characters of a cut block's first head line kept; -1: whole
  const firstLine = (b: Block) => b.head[0] ?? '';
  const omitted = () =>
    blocks.flatMap((b, i) => {
      const total = b.items?.length ?? 0;
      if (shown[i]! < 0) return b.name ? [b.name] : []; // a nameless block is spacing
      if (cutAt[i]! >= 0) return [`${b.name} (cut to ${cutAt[i]} of ${firstLine(b).length} characters)`];
      return shown[i]! < total ? [`${b.name} (${total - shown[i]!} of ${total})`] : [];
    });
  const head = (b: Block, i: number) => (cutAt[i]! < 0 ? b.head : [`${withoutPartialEscape(firstLine(b).slice(0, cutAt[i]))}… [cut]`, ...b.head.slice(1)]);
  // The closing line names each part left out; it counts them instead only when naming them
  // would leave out a block of the first tier or the next action (namesOnly turns false).
  let namesOnly = true;
  const text = () => {
    const lines = blocks.flatMap((b, i) => (shown[i]! < 0 ? [] : [...head(b, i), ...(b.items ?? []).slice(0, shown[i])]));
    const left = omitted();
    if (!left.length) return lines.join('\n');
    const named = [...lines, `… left out to fit the output budget: ${left.join(', ')}; everything: ${showAll}`].join('\n');
    if (namesOnly || fits(named, budget)) return named;
    // Where naming every part would crowd out what is shown, the line counts them instead.
    const counted = [...lines, `… left out to fit the output budget: ${left.length} part${left.length === 1 ? '' : 's'}; everything: ${showAll}`].join('\n');
    return counted.length < named.length ? counted : named;
  };
  // A block never left out is held at its shortest (whole, or its first line cut to nothing)
  // from the start, so the blocks decided before it leave it room; it takes more in its turn.
  blocks.forEach((b, i) => {
    if (!b.cut) return;
    [shown[i], cutAt[i]] = [b.items?.length ?? 0, -1];
    const whole = text().length;
    [shown[i], cutAt[i]] = [0, 0];
    if (whole <= text().length) [shown[i], cutAt[i]] = [b.items?.length ?? 0, -1];
  });
  // Each check counts every undecided block as left out (named on the closing line): deciding
  // more blocks only shortens that line, so the final text is never longer than a checked one.
  const order = blocks.map((b, i) => [b.tier, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  for (const [, i] of order) {
    const items = blocks[i]!.items?.length ?? 0;
    shown[i] = items;
    cutAt[i] = -1;
    if (fits(text(), budget)) continue;
    if (blocks[i]!.tier === 0 && namesOnly) {
      namesOnly = false;
      if (fits(text(), budget)) continue;
      namesOnly = true;
    }
    // Whole items, in order, as many as fit.
    let n = 0;
    while (n < items) {
      shown[i] = n + 1;
      if (!fits(text(), budget)) break;
      n++;
    }
    if (n === 0 && blocks[i]!.cut) {
      const length = firstLine(blocks[i]!).length;
      // Its head cut to the longest start that fits (the text only grows with the cut's length); -1: none does.
      const longestCut = (): number => {
        shown[i] = 0;
        cutAt[i] = 0;
        if (!fits(text(), budget)) return -1;
        let [lo, hi] = [0, length - 1];
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          cutAt[i] = mid;
          if (fits(text(), budget)) lo = mid;
          else hi = mid - 1;
        }
        return lo;
      };
      let kept = longestCut();
      // Names on the closing line give way to the action where they would leave less than a useful start of it.
      if (namesOnly && kept < Math.min(USEFUL_CUT, length - 1)) {
        namesOnly = false;
        kept = longestCut();
      }
      [shown[i], cutAt[i]] = kept < 0 ? [-1, -1] : [0, kept];
      continue;
    }
    // A heading with none of its items says nothing: leave the block out and name it.
    shown[i] = n > 0 ? n : -1;
  }
  return text();
}
