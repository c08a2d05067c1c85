// Checkpoints kept in a folder below the repository's top (store/nested.ts): never read or
// checked, so doctor names each such folder git holds, with the `git mv` to the top. A warning:
// plain `doctor --fail-on-warnings` fails on it; a push is refused only when it carries one (adds,
// renames to or changes a file there that its tip still holds), as a misnamed checkpoint is.
import type { CommitInfo } from '../git/types.js';
import { nestedCheckpoints, nestedCheckpointsNotice, nestedFolders, type NestedCheckpoints } from '../store/nested.js';
import type { Finding } from './types.js';

export const NESTED_CHECK = 'nested_checkpoints';

function nestedFinding(root: string, nested: NestedCheckpoints, where = ''): Finding {
  const { message, move } = nestedCheckpointsNotice(root, nested);
  // The folder as evidence: the work tree's finding and a pushed tip's pair on it (mergePushed).
  return { level: 'warning', check: NESTED_CHECK, skill: null, path: '', message: message + where, evidence: { file: `${nested.folder}/` }, fix: move };
}

/** The nested checkpoint folders git's index holds: one read of the index file. */
export function checkNestedCheckpoints(root: string): Finding[] {
  return nestedCheckpoints(root).map((n) => nestedFinding(root, n));
}

/**
 * The nested checkpoint folders a push carries: a file there that `commits` (a merge's own
 * changes) add, rename to or change, and that the pushed tip still holds (`filesIn`: its tree).
 * Blocking; the tree is asked only when the push touches such a file.
 */
export async function checkNestedPushed(root: string, commits: readonly CommitInfo[], filesIn: (dirs: string[]) => Promise<Map<string, string>>, where: string): Promise<Finding[]> {
  const carried = nestedFolders(new Set(commits.flatMap((c) => c.changes.flatMap((ch) => (ch.status === 'D' ? [] : [ch.path])))));
  if (!carried.length) return [];
  const held = nestedFolders((await filesIn(carried.map((n) => n.folder))).keys());
  return held.map((n) => ({ ...nestedFinding(root, n, where), blocks: true }));
}
