// Two revisions of a file that differ only in whitespace at line ends: line endings (CRLF <-> LF,
// `* text=auto` and a renormalize), trailing spaces and tabs, final newlines. Such a difference
// changes nothing a next session must re-read; indentation and whitespace inside a line do
// (Python, YAML, Makefiles), and so does any difference in a binary file.
import type { GitHistory } from '../git/types.js';
import { withoutTrailing } from '../text-ends.js';
import { repoKey } from '../git/commit-cache.js';
import { blobTexts } from '../git/fast-forward.js';

/** Blobs larger than this are compared exactly (by id): a huge file's text is never read for this. */
export const MAX_COMPARED_BYTES = 1 << 20;

/**
 * The text as this comparison reads it: CRLF and lone CR line endings as LF, each line's trailing
 * spaces and tabs (and form feeds, vertical tabs) dropped, newlines at the end dropped. Leading
 * whitespace and whitespace between words are kept.
 */
export function normalizedText(text: string): string {
  // By hand (text-ends.ts), not `/[ \t]+$/gm`, which would stall the pre-push hook on a committed megabyte of spaces.
  const lines = text.replace(/\r\n?/g, '\n').split('\n').map((line) => withoutTrailing(line, ' \t\f\v'));
  return withoutTrailing(lines.join('\n'), '\n');
}

/** Text a comparison may normalize: no NUL (a binary file) and nothing UTF-8 decoding replaced (bytes that are not UTF-8 would compare equal). */
const isText = (text: string) => !text.includes('\0') && !text.includes('\uFFFD');

/**
 * Whether two revisions of a file differ only in whitespace at line ends (normalizedText). Either
 * unread (missing, over the size cap) or binary: compared exactly.
 */
export function sameButWhitespace(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  return isText(a) && isText(b) && normalizedText(a) === normalizedText(b);
}

/** Whether two blobs (by id) hold the same text but for whitespace at line ends; false when either is unknown. */
export type SameText = (a: string | undefined, b: string | undefined) => boolean;

const NONE_SAME: SameText = (a, b) => a !== undefined && a === b;

/**
 * The text of each of `oids` (blobs up to MAX_COMPARED_BYTES), read at once: from the object store
 * where it can answer (no git process), else in one `cat-file --batch`; never a process per file.
 */
export async function comparedTexts(commonDir: string | undefined, history: GitHistory, oids: readonly string[]): Promise<Map<string, string>> {
  return (commonDir !== undefined && blobTexts(commonDir, oids, MAX_COMPARED_BYTES)) || (await history.readBlobs(oids, MAX_COMPARED_BYTES));
}

/** sameButWhitespace of each pair of blob ids, every blob read at once (comparedTexts). */
export async function sameTexts(root: string, history: GitHistory, pairs: readonly (readonly [string, string])[]): Promise<SameText> {
  const asked = pairs.filter(([a, b]) => a !== b);
  if (!asked.length) return NONE_SAME;
  const oids = [...new Set(asked.flat())];
  const texts = await comparedTexts(repoKey(root)?.commonDir, history, oids);
  const same = new Set(asked.filter(([a, b]) => sameButWhitespace(texts.get(a), texts.get(b))).map(([a, b]) => `${a} ${b}`));
  return (a, b) => a !== undefined && b !== undefined && (a === b || same.has(`${a} ${b}`));
}
