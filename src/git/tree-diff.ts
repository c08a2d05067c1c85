// What one name means when two trees are compared, as `git diff --raw -r --no-renames` lists
// it: shared by the embedded engine's walk (isomorphic.ts, asynchronous) and the reading of new
// commits from the object store (fast-forward.ts, synchronous), so the two cannot drift apart.
import { inScopeIndex, leadsIntoScope, type ScopeIndex } from './normalize.js';
import type { TreeEntry } from './object-parse.js';
import type { RawChange } from './renames.js';

/**
 * For the entries named `path` before and after (either may be missing): null when nothing
 * differs there or it lies outside `scope` (null: everything) and not on the way into it; else
 * the subtrees to compare first (a file that became a directory, or back, is a deletion plus
 * additions) and the changes to add after them. A type or mode change is a modification.
 */
export function entryDiff(before: TreeEntry | undefined, after: TreeEntry | undefined, path: string, scope: ScopeIndex | null): { subtrees: [string | null, string | null] | null; changes: RawChange[] } | null {
  if (before && after && before.oid === after.oid && before.mode === after.mode) return null;
  const keep = scope === null || inScopeIndex(path, scope);
  // Only trees on the way to the scope's paths, or inside them, are read.
  if (!keep && !leadsIntoScope(path, scope!)) return null;
  const beforeTree = before?.type === 'tree' ? before.oid : null;
  const afterTree = after?.type === 'tree' ? after.oid : null;
  const changes: RawChange[] = [];
  if (beforeTree !== null || afterTree !== null) {
    if (keep && before && beforeTree === null) changes.push({ status: 'D', path, oid: before.oid, mode: before.mode });
    if (keep && after && afterTree === null) changes.push({ status: 'A', path, oid: after.oid, mode: after.mode });
    return { subtrees: [beforeTree, afterTree], changes };
  }
  if (!keep) return null;
  if (before && after) changes.push({ status: 'M', path, oid: after.oid, mode: after.mode });
  else if (before) changes.push({ status: 'D', path, oid: before.oid, mode: before.mode });
  else if (after) changes.push({ status: 'A', path, oid: after.oid, mode: after.mode });
  return { subtrees: null, changes };
}
