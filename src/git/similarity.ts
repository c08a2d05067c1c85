// git's inexact rename detection (diffcore-rename.c over diffcore-delta.c), pure, so both
// engines pair a file renamed with edits as `git diff -M` does: each file is cut into spans
// (a line, or 64 bytes of a longer one), a span is known by a hash, and a pair's score is the
// bytes of the new file's spans the old one holds, over the larger file's size.

/** git's scale: MAX_SCORE is the same content. */
const MAX_SCORE = 60_000;
/** git's default threshold (-M, `diff.renames`): a pair whose score reaches half of MAX_SCORE is a rename. */
export const RENAME_MIN_SCORE = MAX_SCORE / 2;
/**
 * A file whose basename no other deleted or added file has pairs with the added file of that
 * basename first when this similar (git >= 2.33, find_basename_matches: halfway to identical).
 */
const BASENAME_MIN_SCORE = RENAME_MIN_SCORE + (MAX_SCORE - RENAME_MIN_SCORE) / 2;
/** git keeps this many best sources per added file (NUM_CANDIDATE_PER_DST). */
const CANDIDATES_PER_DST = 4;
/** The modulus of a span's hash (diffcore-delta.c HASHBASE). */
const HASHBASE = 107_927;
/** git calls content with a NUL in its first 8000 bytes binary (buffer_is_binary): a CR before LF counts there. */
const BINARY_PROBE_BYTES = 8000;

/** A regular file on one side of a commit's diff. */
export interface SimilarityFile {
  path: string;
  bytes: Uint8Array;
}

/** A file's spans: hash -> bytes (diffcore-delta.c hash_chars). A text file's CR before LF is not counted. */
export function spanCounts(bytes: Uint8Array): Map<number, number> {
  const probe = bytes.subarray(0, BINARY_PROBE_BYTES);
  const text = !probe.includes(0);
  const counts = new Map<number, number>();
  const add = (hash: number, n: number) => counts.set(hash, (counts.get(hash) ?? 0) + n);
  let accum1 = 0;
  let accum2 = 0;
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (text && c === 13 && i + 1 < bytes.length && bytes[i + 1] === 10) continue;
    const old1 = accum1;
    // git's unsigned 32-bit arithmetic.
    accum1 = (((accum1 << 7) ^ (accum2 >>> 25)) + c) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    if (++n < 64 && c !== 10) continue;
    add(spanHash(accum1, accum2), n);
    n = accum1 = accum2 = 0;
  }
  if (n > 0) add(spanHash(accum1, accum2), n);
  return counts;
}

function spanHash(accum1: number, accum2: number): number {
  return ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASHBASE;
}

/**
 * git's score for `src` renamed to `dst` (estimate_similarity): 0 when their sizes alone rule
 * out a rename, else the bytes of dst's spans src holds, scaled to MAX_SCORE by the larger size.
 */
export function similarityScore(src: { size: number; spans: ReadonlyMap<number, number> }, dst: { size: number; spans: ReadonlyMap<number, number> }): number {
  const max = Math.max(src.size, dst.size);
  const delta = max - Math.min(src.size, dst.size);
  if (max * (MAX_SCORE - RENAME_MIN_SCORE) < delta * MAX_SCORE || dst.size === 0) return 0;
  let copied = 0;
  for (const [hash, count] of src.spans) copied += Math.min(count, dst.spans.get(hash) ?? 0);
  return Math.floor((copied * MAX_SCORE) / max);
}

/** The score as the percentage git prints (R098). */
export function similarityPercent(score: number): number {
  return Math.floor((score * 100) / MAX_SCORE);
}

/**
 * Deleted files paired with added ones, as git pairs what exact renames left (diffcore_rename):
 * first a basename only one deleted and one added file have, when similar enough; then every
 * pair reaching RENAME_MIN_SCORE, best first (a shared basename breaking ties), each file used
 * once. Returns old path -> new path.
 */
export function pairSimilarFiles(deleted: readonly SimilarityFile[], added: readonly SimilarityFile[]): Map<string, string> {
  const measured = (f: SimilarityFile) => ({ path: f.path, size: f.bytes.length, spans: spanCounts(f.bytes) });
  const sources = [...deleted].sort(byPath).map(measured);
  const dests = [...added].sort(byPath).map(measured);
  const pairs = new Map<string, string>();
  const taken = new Set<string>();

  const unique = (files: readonly { path: string }[]) => {
    const seen = new Map<string, number>();
    for (const f of files) seen.set(basename(f.path), (seen.get(basename(f.path)) ?? 0) + 1);
    return (name: string) => seen.get(name) === 1;
  };
  const uniqueSource = unique(sources);
  const uniqueDest = unique(dests);
  for (const src of sources) {
    const name = basename(src.path);
    if (!uniqueSource(name) || !uniqueDest(name)) continue;
    const dst = dests.find((d) => basename(d.path) === name)!;
    if (taken.has(dst.path) || similarityScore(src, dst) < BASENAME_MIN_SCORE) continue;
    pairs.set(src.path, dst.path);
    taken.add(dst.path);
  }

  const scored: { src: string; dst: string; score: number; sameName: number }[] = [];
  for (const dst of dests) {
    if (taken.has(dst.path)) continue;
    const best = sources
      .filter((src) => !pairs.has(src.path))
      .map((src) => ({ src: src.path, dst: dst.path, score: similarityScore(src, dst), sameName: basename(src.path) === basename(dst.path) ? 1 : 0 }))
      .filter((s) => s.score >= RENAME_MIN_SCORE)
      .sort(bestFirst)
      .slice(0, CANDIDATES_PER_DST);
    scored.push(...best);
  }
  for (const { src, dst } of scored.sort(bestFirst)) {
    if (pairs.has(src) || taken.has(dst)) continue;
    pairs.set(src, dst);
    taken.add(dst);
  }
  return pairs;
}

/** Higher score first, then a shared basename (git's score_compare); then by path, so the order is total. */
function bestFirst(a: { src: string; dst: string; score: number; sameName: number }, b: typeof a): number {
  return b.score - a.score || b.sameName - a.sameName || byPath({ path: a.dst }, { path: b.dst }) || byPath({ path: a.src }, { path: b.src });
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
