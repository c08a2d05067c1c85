// Globs from a clone (generated_files entries, .gitattributes patterns), matched without a regular
// expression. A pattern may be hostile: a RegExp built from `*a*a*a*a*a*b` backtracks for minutes
// on a long name, and one built from a range like `[z-a]` throws. Here a pattern is matched one
// path segment at a time: inside a segment by the classic last-star backtracking (at worst
// pattern x name steps), across segments with `**` remembered per (segment, position), so no
// pattern costs more than a product of sizes, and none throws.
//
// Rules, as git's wildmatch: `*` and `?` never match `/`; `**` is special only as a whole
// segment (zero or more directories; trailing, everything below); `[...]` is one character of a
// set (`!` or `^` negates, `a-z` ranges, an empty range matches nothing), `[` with no `]` is
// itself. A segment with brackets also matches them as written: `app/[id]/*.tsx` is the
// Next.js folder named `[id]`, as git tries a pathspec literally before as a glob.

export interface GlobMatcher {
  test(path: string): boolean;
  /** Whether some path below the folder `dir` could match: the glob reaches into it ("vendor/**" reaches into "vendor/lib"). */
  under(dir: string): boolean;
}

export interface GlobOptions {
  /** `\\` makes the next character plain (git's patterns); else a backslash is itself (a Windows path). */
  escapes?: boolean;
  /** ASCII letters match either case (core.ignorecase). */
  ignoreCase?: boolean;
}

type Piece =
  | { kind: 'char'; code: number }
  | { kind: 'one' }
  | { kind: 'star' }
  | { kind: 'set'; negate: boolean; ranges: number[] };

type Segment = { globstar: true } | { globstar: false; text: string | null; pieces: Piece[]; literal: Piece[] | null };

/** A matcher for `glob` over repo-relative paths with forward slashes. */
export function globMatcher(glob: string, opts: GlobOptions = {}): GlobMatcher {
  const fold = opts.ignoreCase === true;
  const segments: Segment[] = [];
  for (const text of glob.split('/')) {
    // `**/**` is one `**`: each more would multiply the ways to split a path.
    if (text === '**') {
      if (!segments.at(-1)?.globstar) segments.push({ globstar: true });
      continue;
    }
    const pieces = parseSegment(text, true, opts.escapes === true, fold);
    const plain = pieces.every((p) => p.kind === 'char');
    const literal = text.includes('[') && !plain ? parseSegment(text, false, opts.escapes === true, fold) : null;
    segments.push({ globstar: false, text: plain ? String.fromCharCode(...pieces.map((p) => (p as { code: number }).code)) : null, pieces, literal });
  }
  const globstars = segments.filter((s) => s.globstar).length;
  return {
    test: (path) => matchPath(segments, fold ? asciiLower(path) : path, globstars > 1, false),
    under: (dir) => matchPath(segments, fold ? asciiLower(dir) : dir, globstars > 1, true),
  };
}

/** ASCII letters lower-cased, others kept (git's core.ignorecase folds no more). */
export const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

function parseSegment(text: string, sets: boolean, escapes: boolean, fold: boolean): Piece[] {
  const pieces: Piece[] = [];
  const char = (i: number): Piece => ({ kind: 'char', code: fold ? asciiLower(text[i]!).charCodeAt(0) : text.charCodeAt(i) });
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (escapes && ch === '\\' && i + 1 < text.length) pieces.push(char(++i));
    else if (ch === '*') {
      // `a**b` is `a*b` (git): two stars in a row add nothing but steps.
      if (pieces.at(-1)?.kind !== 'star') pieces.push({ kind: 'star' });
    } else if (ch === '?') pieces.push({ kind: 'one' });
    else if (ch === '[' && sets) {
      const set = parseSet(text, i, fold);
      if (set === null) pieces.push(char(i));
      else {
        pieces.push(set.piece);
        i = set.end;
      }
    } else pieces.push(char(i));
  }
  return pieces;
}

/** The set opening at `open` (a `[`) and the index of its `]`; null when it never closes. */
function parseSet(text: string, open: number, fold: boolean): { piece: Piece; end: number } | null {
  let i = open + 1;
  const negate = text[i] === '!' || text[i] === '^';
  if (negate) i++;
  const ranges: number[] = [];
  // A `]` first in the set is one of its characters.
  for (let first = true; i < text.length; first = false) {
    if (text[i] === ']' && !first) return { piece: { kind: 'set', negate, ranges: fold ? withLowerCase(ranges) : ranges }, end: i };
    let lo = text.charCodeAt(i);
    if (text[i] === '\\' && i + 1 < text.length) lo = text.charCodeAt(++i);
    i++;
    if (text[i] === '-' && i + 1 < text.length && text[i + 1] !== ']') {
      let hi = text.charCodeAt(i + 1);
      if (text[i + 1] === '\\' && i + 2 < text.length) hi = text.charCodeAt(++i + 1);
      i += 2;
      ranges.push(lo, hi); // hi < lo: a range of nothing, as in git
    } else ranges.push(lo, lo);
  }
  return null;
}

/** Ranges plus, for their upper-case ASCII letters, the lower-case ones (paths are folded to lower case). */
function withLowerCase(ranges: number[]): number[] {
  const out = [...ranges];
  for (let k = 0; k < ranges.length; k += 2) {
    const lo = Math.max(ranges[k]!, 0x41);
    const hi = Math.min(ranges[k + 1]!, 0x5a);
    if (lo <= hi) out.push(lo + 0x20, hi + 0x20);
  }
  return out;
}

function matchesChar(piece: Piece, code: number): boolean {
  switch (piece.kind) {
    case 'char':
      return piece.code === code;
    case 'one':
      return true;
    case 'set': {
      let inside = false;
      for (let k = 0; k < piece.ranges.length && !inside; k += 2) inside = code >= piece.ranges[k]! && code <= piece.ranges[k + 1]!;
      return inside !== piece.negate;
    }
    default:
      return false;
  }
}

/** Whether `pieces` match path[from, to): the last `*` seen takes one more character on a miss. */
function matchSegment(pieces: readonly Piece[], path: string, from: number, to: number): boolean {
  let p = 0;
  let s = from;
  let star = -1;
  let mark = from;
  while (s < to) {
    const piece = pieces[p];
    if (piece !== undefined && piece.kind === 'star') {
      star = p++;
      mark = s;
    } else if (piece !== undefined && matchesChar(piece, path.charCodeAt(s))) {
      p++;
      s++;
    } else if (star >= 0) {
      p = star + 1;
      s = ++mark;
    } else return false;
  }
  while (pieces[p]?.kind === 'star') p++;
  return p === pieces.length;
}

function segmentMatches(seg: Segment & { globstar: false }, path: string, from: number, to: number): boolean {
  if (seg.text !== null) return to - from === seg.text.length && path.startsWith(seg.text, from);
  return matchSegment(seg.pieces, path, from, to) || (seg.literal !== null && matchSegment(seg.literal, path, from, to));
}

/** Whether `path` matches; with `below`, whether `path` as a folder could hold a match (segments are left once it is used up). */
function matchPath(segments: readonly Segment[], path: string, memoize: boolean, below: boolean): boolean {
  // Failed (segment, position) pairs: with two `**` or more, the same pair is reached many ways.
  const failed = memoize ? new Set<number>() : null;
  const width = path.length + 2;
  const from = (k: number, start: number): boolean => {
    if (below && start === path.length + 1) return k < segments.length;
    if (k === segments.length) return start === path.length + 1;
    if (start > path.length) return false;
    const key = k * width + start;
    if (failed?.has(key)) return false;
    const seg = segments[k]!;
    let ok = false;
    if (seg.globstar && below) {
      // It takes the rest of the folder; what follows it (or nothing, trailing) matches below.
      ok = true;
    } else if (seg.globstar && k === segments.length - 1) {
      // A trailing `**`: everything below.
      ok = start < path.length;
    } else if (seg.globstar) {
      // Zero directories here, or one more each time.
      ok = from(k + 1, start);
      for (let at = path.indexOf('/', start); !ok && at >= 0; at = path.indexOf('/', at + 1)) ok = from(k + 1, at + 1);
    } else {
      let end = path.indexOf('/', start);
      if (end < 0) end = path.length;
      ok = segmentMatches(seg, path, start, end) && from(k + 1, end + 1);
    }
    if (!ok) failed?.add(key);
    return ok;
  };
  return from(0, 0);
}
