// A file a sparse checkout keeps out of the work tree (skip-worktree) is still the project's:
// git reads a root .gitattributes from the index when the work tree lacks it, so doctor must
// too, and init must never take its absence for "no file" and write one of its own lines only.
import { join } from 'node:path';
import { resolveGitDirsSync } from './locate.js';
import { ObjectStore } from './object-store.js';
import { indexBlobIds, skipWorktreePaths } from './skip-worktree.js';

/** What `outsideCheckoutText` found: not outside the checkout, its text, or outside but unreadable here. */
export type OutsideText = { outside: false } | { outside: true; text: string | null };

/**
 * The staged text of `rel` (repo-relative) when the index keeps it out of the work tree at `root`;
 * `text` null when the index or the blob cannot be read in-process (then nothing may be written
 * in its place). At most `maxBytes` (1 MiB) is read.
 */
export function outsideCheckoutText(root: string, rel: string, maxBytes = 1024 * 1024): OutsideText {
  let dirs;
  try {
    dirs = resolveGitDirsSync(root);
  } catch {
    return { outside: false };
  }
  if (!skipWorktreePaths(dirs.gitdir, [rel]).has(rel)) return { outside: false };
  const oid = indexBlobIds(dirs.gitdir, [rel]).get(rel);
  if (!oid) return { outside: true, text: null };
  const store = new ObjectStore(join(dirs.commonDir, 'objects'));
  try {
    const blob = store.readKnown(oid, maxBytes);
    return { outside: true, text: blob && blob.type === 'blob' && blob.data ? blob.data.toString('utf8') : null };
  } catch {
    return { outside: true, text: null };
  } finally {
    store.close();
  }
}
