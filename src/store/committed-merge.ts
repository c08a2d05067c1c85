// git's own two-way conflict markers, committed by a merge made without our driver (a hosted
// merge button, a clone that never ran `checkpoint init`): they hold ours and theirs but no base,
// so a change only one side made would read as a conflict and a wrong pick would undo it. The
// merge commit that left them names both parents, and their merge base holds the base.
import { gitOutputSync as git } from '../git/git-process.js';
import { hasConflictMarkers } from '../merge/markers.js';
import { MAX_MERGE_BYTES } from '../merge/driver.js';

/** A committed merge's texts of a file, as git staged them for that merge: base (null: none) and both parents'. */
export interface CommittedMerge {
  base: string | null;
  /** Both parents' texts, where both hold the file under the merge cap (else unknown). */
  sides?: { ours: string; theirs: string };
}

/**
 * The committed markers in `rel` as the merge that left them saw the file: its text at the merge
 * base of the newest merge commit on HEAD's history that changed it, when that merge (two parents)
 * committed it with conflict markers (null when the merge base has no such file: both sides added
 * it), and each parent's text; undefined when no such merge is found or git cannot tell.
 */
export function committedMerge(root: string, rel: string): CommittedMerge | undefined {
  const merge = git(root, ['--literal-pathspecs', 'log', '-1', '--merges', '--no-color', '--format=%H %P', 'HEAD', '--', rel])?.trim().split(' ');
  if (merge === undefined || merge.length !== 3 || !merge.every((sha) => /^[0-9a-f]{40,64}$/.test(sha))) return undefined;
  const [commit, ours, theirs] = merge as [string, string, string];
  const left = blobAt(root, commit, rel);
  if (typeof left !== 'string' || !hasConflictMarkers(left)) return undefined;
  const base = git(root, ['merge-base', ours, theirs])?.trim();
  if (base === undefined || !/^[0-9a-f]{40,64}$/.test(base)) return undefined;
  const text = blobAt(root, base, rel);
  if (text === undefined) return undefined;
  const [oursText, theirsText] = [blobAt(root, ours, rel), blobAt(root, theirs, rel)];
  return typeof oursText === 'string' && typeof theirsText === 'string' ? { base: text, sides: { ours: oursText, theirs: theirsText } } : { base: text };
}

/** `rel`'s text in commit `sha`: null when the commit has no such file, undefined when it is over the merge cap. */
function blobAt(root: string, sha: string, rel: string): string | null | undefined {
  const size = git(root, ['cat-file', '-s', `${sha}:${rel}`]);
  if (size === null) return null;
  if (Number(size) > MAX_MERGE_BYTES) return undefined;
  return git(root, ['cat-file', 'blob', `${sha}:${rel}`]) ?? undefined;
}
