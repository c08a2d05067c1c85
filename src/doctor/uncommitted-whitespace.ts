// An uncommitted edit of a listed file that only touches whitespace at line ends (an editor that
// converted line endings or trimmed trailing spaces) is no edit a next session must re-read, just
// as a commit of it is none (cosmetic.ts): doctor says nothing of it.
import type { GitHistory } from '../git/types.js';
import { resolveGitDirsSync, type GitDirs } from '../git/locate.js';
import { indexEntries } from '../git/index-status.js';
import { readProjectBytes } from '../store/safe-fs.js';
import { comparedTexts, MAX_COMPARED_BYTES, sameButWhitespace } from './whitespace.js';

/**
 * Of `rels` (listed files present in the work tree that git reports changed), those whose work
 * tree text and staged blob both differ from HEAD's blob only in whitespace at line ends (blobs
 * read by comparedTexts). Files over 1 MiB, binary, unreadable, flagged in the index or absent
 * from HEAD are taken as edited.
 */
export async function cosmeticUncommitted(root: string, history: GitHistory, head: string, rels: readonly string[]): Promise<Set<string>> {
  if (!rels.length) return new Set();
  let dirs: GitDirs;
  try {
    dirs = resolveGitDirsSync(root);
  } catch {
    return new Set();
  }
  // An index this reader cannot follow (v4, split, sparse): nothing is taken as cosmetic.
  const staged = indexEntries(dirs.gitdir, rels);
  if (staged === null) return new Set();
  const folders = [...new Set(rels.map((rel) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '')))];
  const inHead = await history.filesIn(head, folders);
  const asked = rels.filter((rel) => inHead.has(rel) && staged.get(rel)?.flagged === false);
  if (!asked.length) return new Set();
  const oids = [...new Set(asked.flatMap((rel) => [inHead.get(rel)!, staged.get(rel)!.oid]))];
  const texts = await comparedTexts(dirs.commonDir, history, oids);
  return new Set(
    asked.filter((rel) => {
      const headOid = inHead.get(rel)!;
      const indexOid = staged.get(rel)!.oid;
      const headText = texts.get(headOid);
      return (indexOid === headOid || sameButWhitespace(texts.get(indexOid), headText)) && sameButWhitespace(workTreeText(root, rel), headText);
    }),
  );
}

/** The work tree's text of `rel` as UTF-8 (sameButWhitespace treats replaced bytes as binary); undefined when it cannot be read as a plain file in the project under the cap. */
function workTreeText(root: string, rel: string): string | undefined {
  try {
    return readProjectBytes(root, rel, { maxBytes: MAX_COMPARED_BYTES })?.toString('utf8');
  } catch {
    return undefined; // a link out of the project, a FIFO, over the cap: an edit as git reports it
  }
}
