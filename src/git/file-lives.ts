// A file's history as the checkpoints' dating reads it: the revisions of its current life.
import type { FileRevision } from './types.js';

/**
 * Of each path's revisions (newest first), those of its current life: none when the newest
 * deletes it, else back to and including the one that added it. `ended` collects the paths
 * whose life these revisions closed (deleted, or added: nothing older belongs to it).
 */
export function currentLives(revisions: readonly (FileRevision & { added: boolean })[], ended = new Set<string>()): FileRevision[] {
  const out: FileRevision[] = [];
  for (const { added, ...r } of revisions) {
    if (ended.has(r.path)) continue;
    if (r.blob === null) {
      ended.add(r.path);
      continue;
    }
    out.push(r);
    if (added) ended.add(r.path);
  }
  return out;
}

/**
 * The revisions from a HEAD that gained new commits: those commits' own (`added`, newest first,
 * with whether each added the file), then the earlier HEAD's current lives `kept` of each file
 * the new ones did not close.
 */
export function withNewRevisions(added: readonly (FileRevision & { added: boolean })[], kept: readonly FileRevision[]): FileRevision[] {
  const ended = new Set<string>();
  const out = currentLives(added, ended);
  for (const r of kept) if (!ended.has(r.path)) out.push(r);
  return out;
}
