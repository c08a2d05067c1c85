// Output budgets for text that agent hosts inject into a model's context. Hosts cap a hook's
// output (Claude Code shows only a short preview past 10,000 characters, without a warning),
// so resume and resume --context fill a budget in priority order instead of cutting at the
// end: whole blocks (and whole list items) in, or out and named on one closing line. The order
// is strict: once a part gives way (left out, cut, or some of its items out), nothing after it
// in that order is added, so a short low part never stands in for a long high one. Only the
// next action is never left out: cut to what fits, marked, and the cut named; a question to the
// user is cut only where its start still asks (its breaks), else left out and named. The header (the
// first line a session reads: which checkpoint, whose unverified claims) comes before all of
// it: a budget that cannot hold the header and the next action's shortest form (`… [cut]`) is
// too small, said in the fewest characters, exit 2.

import { CheckpointError } from '../../errors.js';
import { shown, withoutPartialEscape } from '../../one-line.js';

/** Default --max-chars: under the 10,000-character cap of Claude Code's hook output. */
export const DEFAULT_MAX_CHARS = 9000;
/** Characters of a cut next action worth more than naming, on the closing line, each part left out. */
const USEFUL_CUT = 80;
/** What ends a cut line. */
const MARK = '… [cut]';

/**
 * A budget option's value: a whole number (of characters or bytes). No floor of its own: the
 * output's header decides what is too small (budgetTooSmall), for the checkpoint at hand.
 */
function wholeNumber(raw: unknown, flag: string, unit: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new CheckpointError('E_USAGE', `${flag}=${shown(String(raw))}: expected a whole number of ${unit}`, { hint: `e.g. ${flag} ${fallback} (the default)` });
  }
  return n;
}

/** --max-chars: the text budget of resume and resume --context. */
export function charLimit(raw: unknown): number {
  return wholeNumber(raw, '--max-chars', 'characters', DEFAULT_MAX_CHARS);
}

/** --max-bytes: the output limit of resume and resume --context, `fallback` by default. */
export function byteLimit(raw: unknown, fallback: number): number {
  return wholeNumber(raw, '--max-bytes', 'bytes', fallback);
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
   * is cut to what fits, marked, and the cut named on the closing line. Its first USEFUL_CUT
   * characters (all of it if shorter) come right after the header, before the closing line takes
   * more than the room left: the closing line gives way to them, down to nothing.
   */
  cut?: boolean;
  /**
   * The header, first in display order: what a session reads first (which checkpoint it resumes,
   * whose claims those are). Placed before every other block and never left out or cut; where it
   * and the closing line do not fit together, the closing line gives way (to counting the parts
   * left out, to its short form, then to nothing). Only the next action (a cut block) is then
   * still shown, cut to what fits. A budget without room for both is refused (printBudgeted).
   */
  header?: boolean;
  /**
   * Where the block's first non-blank line may be cut in its turn when it does not fit whole: the
   * lengths of the starts (ascending) that still say what it asks (`ASK THE USER`, `ASK THE USER:
   * this checkpoint is stale.`); a cut anywhere else could read as another instruction
   * (`… Continue from here`). Cut, it ends `… [cut]` and is named; where no break fits, it is left
   * out and named. Like a first-tier block, it takes the room of naming the parts left out first.
   */
  breaks?: readonly number[];
}

/** What the printed output may hold: the text and the newline that ends it, counted together. */
export interface Budget {
  maxChars: number;
  maxBytes: number;
  /** The option as the caller names it, for a refusal (`max_chars` over MCP); `--max-chars` when absent. */
  option?: (name: 'max-chars' | 'max-bytes') => string;
}

// The text goes out as one line block ending in a newline (output.ts): the newline is output too.
const fits = (text: string, b: Budget) => text.length + 1 <= b.maxChars && Buffer.byteLength(text) + 1 <= b.maxBytes;

/**
 * The blocks in their display order, as many as fit, chosen by tier (a header block first of
 * all); then one line naming what was left out and the command that shows everything. Never cuts
 * inside a line. The text returned is printed with a final newline, which the budget counts.
 * Blocks with a header go through printBudgeted, which says when the budget cannot hold it.
 */
export function fillBudget(blocks: readonly Block[], budget: Budget, showAll: string): string {
  const text = fill(blocks, budget, showAll);
  if (text === null) throw new Error('fillBudget: the header or the next action does not fit; use printBudgeted');
  return text;
}

/**
 * fillBudget's text printed by `out`; a budget that cannot hold the header block and the shortest
 * form of each block never left out is refused (budgetTooSmall).
 */
export function printBudgeted(blocks: readonly Block[], budget: Budget, showAll: string, out: (text: string) => void): void {
  const text = fill(blocks, budget, showAll);
  if (text === null) budgetTooSmall(blocks, budget, out);
  out(text);
}

/**
 * The least output of these blocks, measured by `size`: the header whole and each block never left
 * out (the next action) at its shortest form, the marker alone (or after its first break), or
 * whole where that is shorter.
 */
function leastOutput(blocks: readonly Block[], size: (text: string) => number): string {
  return blocks
    .flatMap((b) => {
      if (b.header) return [...b.head, ...(b.items ?? [])];
      if (!b.cut) return [];
      const k = Math.max(0, b.head.findIndex((l) => l !== ''));
      const line = b.head[k] ?? '';
      const cut = `${withoutPartialEscape(line.slice(0, b.breaks?.[0] ?? 0))}${MARK}`;
      return b.head.map((l, j) => (j === k && size(cut) < size(line) ? cut : l));
    })
    .join('\n');
}

let graphemes: Intl.Segmenter | null | undefined;

/**
 * `at`, or the start of the user-perceived character it falls inside: a cut never splits a flag
 * (🇩🇪 into 🇩), a joined emoji or a skin tone from its emoji. Made only when a block is cut.
 */
function clusterStart(text: string, at: number): number {
  if (at <= 0 || at >= text.length) return at;
  graphemes ??= typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  const around = graphemes?.segment(text).containing(at);
  return around && around.index < at ? around.index : at;
}

/** fillBudget's text; null when the budget cannot hold the header block and the shortest form of each block never left out. */
function fill(blocks: readonly Block[], budget: Budget, showAll: string): string | null {
  const shown = blocks.map(() => -1); // items shown per block; -1: the block is left out
  const cutAt = blocks.map(() => -1); // characters of a cut block's first head line kept; -1: whole
  // The line a block is cut in: its first that is not a blank spacer.
  const cutIndex = (b: Block) => Math.max(0, b.head.findIndex((l) => l !== ''));
  const firstLine = (b: Block) => b.head[cutIndex(b)] ?? '';
  // A cut block's start: never inside an escape (\u00…) or a character (half of an emoji prints as U+FFFD).
  // Never longer than cutAt, and never shorter for a longer cutAt: the text still grows with it.
  const start = (b: Block, i: number) => withoutPartialEscape(firstLine(b).slice(0, clusterStart(firstLine(b), cutAt[i]!))).replace(/[\uD800-\uDBFF]$/, '');
  const omitted = () =>
    blocks.flatMap((b, i) => {
      const total = b.items?.length ?? 0;
      // A nameless block is spacing; one with no lines at all (an empty list) leaves nothing out.
      if (shown[i]! < 0) return b.name && (b.head.length || total) ? [b.name] : [];
      if (cutAt[i]! >= 0) return [`${b.name} (cut to ${start(b, i).length} of ${firstLine(b).length} characters)`];
      return shown[i]! < total ? [`${b.name} (${total - shown[i]!} of ${total})`] : [];
    });
  const head = (b: Block, i: number) => (cutAt[i]! < 0 ? b.head : b.head.map((l, k) => (k === cutIndex(b) ? `${start(b, i)}${MARK}` : l)));
  // The closing line, by how much room it may take: 0 names what was left out; 1 counts it where
  // naming would not fit (where naming would leave out a block of the first tier or cut the next
  // action short); 2 is its short form (`… more: <command>`); 3 leaves it out. Each form is no
  // longer than the one before it, so the level only rises, and only to make room for the header
  // and then for the next action held at its useful start.
  let closing = 0;
  const text = (level = closing) => {
    const lines = blocks.flatMap((b, i) => (shown[i]! < 0 ? [] : [...head(b, i), ...(b.items ?? []).slice(0, shown[i])]));
    const left = omitted();
    if (!left.length || level >= 3) return lines.join('\n');
    if (level === 2) return [...lines, `… more: ${showAll}`].join('\n');
    const named = [...lines, `… left out to fit the output budget: ${left.join(', ')}; everything: ${showAll}`].join('\n');
    if (level === 0 || fits(named, budget)) return named;
    const counted = [...lines, `… left out to fit the output budget: ${left.length} part${left.length === 1 ? '' : 's'}; everything: ${showAll}`].join('\n');
    return counted.length < named.length ? counted : named;
  };
  const top = blocks.findIndex((b) => b.header);
  /**
   * Block i's head cut to the longest start of at most `max` characters that fits, at one of its
   * breaks where it has them (the text only grows with the cut's length); -1: none does.
   */
  const longestCut = (i: number, max: number): number => {
    const breaks = blocks[i]!.breaks?.filter((n) => n <= max);
    const at = (k: number) => (breaks ? breaks[k]! : k);
    shown[i] = 0;
    cutAt[i] = at(0);
    if ((breaks && !breaks.length) || !fits(text(), budget)) return -1;
    let [lo, hi] = [0, breaks ? breaks.length - 1 : max];
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      cutAt[i] = at(mid);
      if (fits(text(), budget)) lo = mid;
      else hi = mid - 1;
    }
    return at(lo);
  };
  /**
   * Block i (never left out) held at its useful start: its first line whole where that is at
   * most USEFUL_CUT characters (with its items where they fit too), else cut to as long a start
   * as fits, up to USEFUL_CUT. True when it got all of that useful start.
   */
  const hold = (i: number): boolean => {
    const length = firstLine(blocks[i]!).length;
    if (length <= USEFUL_CUT) {
      for (const n of new Set([blocks[i]!.items?.length ?? 0, 0])) {
        [shown[i], cutAt[i]] = [n, -1];
        if (fits(text(), budget)) return true;
      }
    }
    const kept = longestCut(i, Math.min(USEFUL_CUT, length - 1));
    [shown[i], cutAt[i]] = kept < 0 ? [-1, -1] : [0, kept];
    return kept >= USEFUL_CUT;
  };
  // The header first, whole, and the longest closing line that fits beside it (none, if none does).
  if (top >= 0) {
    shown[top] = blocks[top]!.items?.length ?? 0;
    while (!fits(text(), budget)) if (++closing > 3) return null;
  }
  // Then each block never left out, at a useful start of its first line (whole where that is all
  // of it): the blocks decided after it, whatever their tier, leave it that room; it takes more in
  // its turn. The closing line gives way to it: from naming every part left out to counting them,
  // to its short form, to nothing; only with no closing line left is it cut shorter (its label too).
  for (const [i, b] of blocks.entries()) {
    if (!b.cut || i === top) continue;
    while (!hold(i) && closing < 3) closing++;
    // Never left out: a budget without room for its shortest form is too small.
    if (shown[i]! < 0) return null;
  }
  /** Block i in its turn, as much of it as fits; true when all of it does. */
  const place = (i: number): boolean => {
    const b = blocks[i]!;
    const held = [shown[i]!, cutAt[i]!] as const;
    const items = b.items?.length ?? 0;
    [shown[i], cutAt[i]] = [items, -1];
    if (fits(text(), budget)) return true;
    if ((b.tier === 0 || b.breaks) && closing === 0) {
      closing = 1;
      if (fits(text(), budget)) return true;
      closing = 0;
    }
    // Whole items, in order, as many as fit.
    let n = 0;
    while (n < items) {
      shown[i] = n + 1;
      if (!fits(text(), budget)) break;
      n++;
    }
    if (n > 0) {
      shown[i] = n;
      return false;
    }
    // Its line whole without its items, else the longest start (a break, where it has them) that
    // now fits; a block never left out keeps at least the start it was held at.
    [shown[i], cutAt[i]] = [0, -1];
    if ((b.cut || b.breaks) && fits(text(), budget)) return false;
    let kept = b.cut || b.breaks ? longestCut(i, firstLine(b).length - 1) : -1;
    if (b.breaks && closing === 0 && kept < b.breaks.at(-1)!) {
      // A question's longer start before naming the parts left out: the closing line counts them where that gains a break.
      closing = 1;
      const counted = longestCut(i, firstLine(b).length - 1);
      if (counted > kept) kept = counted;
      else [closing, cutAt[i]] = [0, kept];
    }
    // A heading with none of its items says nothing: leave the block out and name it.
    [shown[i], cutAt[i]] = kept >= 0 ? [0, kept] : b.cut ? held : [-1, -1];
    return false;
  };
  // Each check counts every undecided block as left out (named on the closing line): deciding
  // more blocks only shortens that line, so the final text is never longer than a checked one.
  // The order is strict: once a block gives way, every block after it is left out (one never left
  // out keeps the start it was held at), so no lower part takes room a higher one was denied.
  const order = blocks.map((b, i) => [b.tier, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let gaveWay = false;
  for (const [, i] of order) {
    if (i === top) continue;
    // Beside the closing line's short form (or none), nothing but the header and the next action.
    gaveWay = gaveWay || (closing >= 2 && !blocks[i]!.cut) || !place(i);
  }
  return text();
}

/**
 * The budget cannot hold the output's header (and, where it has one, the shortest form of its next
 * action): says so in the fewest characters on stdout (`out`, only what fits in the budget: with
 * the size needed, else just that it is too small, else nothing), then refuses as a bad option
 * value does (exit 2), naming the option to raise and by how much: the fix is a bigger budget.
 */
function budgetTooSmall(blocks: readonly Block[], budget: Budget, out: (text: string) => void): never {
  const what = blocks.some((b) => b.cut && !b.header) ? `the header and the ${blocks.find((b) => b.cut && !b.header)!.name}` : 'the header';
  const [chars, bytes] = [leastOutput(blocks, (t) => t.length).length + 1, Buffer.byteLength(leastOutput(blocks, Buffer.byteLength)) + 1];
  const [name, need, unit, limit] = chars > budget.maxChars ? (['max-chars', chars, 'characters', budget.maxChars] as const) : (['max-bytes', bytes, 'bytes', budget.maxBytes] as const);
  const flag = budget.option?.(name) ?? `--${name}`;
  const note = [`budget too small: needs ${flag} ${need}`, 'budget too small'].find((t) => fits(t, budget));
  if (note !== undefined) out(note);
  throw new CheckpointError('E_USAGE', `${flag} ${limit} cannot hold ${what} of this output (${need} ${unit} with its newline)`, { hint: `raise ${flag} to ${need} or more` });
}
