// Two revisions of a file that differ only in whitespace at line ends: line endings (CRLF <-> LF,
// `* text=auto` and a renormalize), trailing spaces and tabs, final newlines. Such a difference
// changes nothing a next session must re-read; indentation and whitespace inside a line do
// (Python, YAML, Makefiles), and so does any difference in a binary file.
import type { GitHistory } from '../git/types.js';
import { withoutTrailing } from '../text-ends.js';
import { repoKey } from '../git/commit-cache.js';
import { blobTexts } from '../git/fast-forward.js';
import { KeptAnswers } from '../git/cache-files.js';

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

/** Answers kept in the git dir, `${a} ${b}` (two blob ids) to whether their texts are the same but for whitespace: blobs never change. */
const SAME_TEXTS_FILE = 'same-texts.json';
/** Answers kept at most (~90 bytes each): the last used stay. */
const MAX_SAME_TEXTS = 1000;

/**
 * sameButWhitespace of each pair of blob ids, every blob not yet compared read at once
 * (comparedTexts). With `keep`, each answer is kept in the git dir: a warm doctor on the
 * real-shaped bench fixture read and compared the same dozens of blobs on every run (~7% of its
 * time). Without it (an engine asked for by name, so exercised), every blob is read.
 */
export async function sameTexts(root: string, history: GitHistory, pairs: readonly (readonly [string, string])[], keep = false): Promise<SameText> {
  const asked = pairs.filter(([a, b]) => a !== b);
  if (!asked.length) return NONE_SAME;
  const commonDir = repoKey(root)?.commonDir;
  const kept = KeptAnswers.read(keep ? commonDir : undefined, SAME_TEXTS_FILE, MAX_SAME_TEXTS, (v): v is boolean => typeof v === 'boolean');
  const same = new Set<string>();
  const unknown = asked.filter(([a, b]) => {
    const answer = kept.get(`${a} ${b}`);
    if (answer) same.add(`${a} ${b}`);
    return answer === undefined;
  });
  if (unknown.length) {
    const texts = await comparedTexts(commonDir, history, [...new Set(unknown.flat())]);
    for (const [a, b] of unknown) {
      const key = `${a} ${b}`;
      const answer = sameButWhitespace(texts.get(a), texts.get(b));
      if (answer) same.add(key);
      // Only answers from two texts read: a blob not read (over the size cap, not in this clone yet, git failing) is asked again next time.
      if (texts.has(a) && texts.has(b)) kept.set(key, answer);
    }
    kept.save();
  }
  return (a, b) => a !== undefined && b !== undefined && (a === b || same.has(`${a} ${b}`));
}
