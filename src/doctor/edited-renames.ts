// A listed file a commit deleted may have moved with edits (`git mv` plus an edit: git says
// R098). The walks pair exact renames only (no blob read), so the commits that deleted a file
// doctor is about to call missing are asked again, those alone (GitHistory.editedRenames).
import { withRenames } from '../git/renames.js';
import type { CommitInfo, GitHistory } from '../git/types.js';

/**
 * `commits` (each with all its changes), each deletion `asked` picks paired into a rename where
 * that commit added the file elsewhere with edits: one question per commit deleting such a path
 * and adding some file, none when no commit does.
 * A merge's own changes (pushedCommits) are paired the same way.
 */
export async function withEditedRenames(history: GitHistory, commits: readonly CommitInfo[], asked: (commit: CommitInfo, path: string) => boolean): Promise<CommitInfo[]> {
  return Promise.all(commits.map(async (c) => {
    const deleted = c.changes.flatMap((ch) => (ch.status === 'D' && asked(c, ch.path) ? [ch.path] : []));
    // These commits carry all their changes: one that added no file renamed nothing (no question).
    if (!deleted.length || !c.changes.some((ch) => ch.status === 'A')) return c;
    const renamed = await history.editedRenames(c.sha, deleted);
    if (!renamed.size) return c;
    return { ...c, changes: withRenames(c.changes, renamed), ...(c.ownChanges ? { ownChanges: withRenames(c.ownChanges, renamed) } : {}) };
  }));
}
