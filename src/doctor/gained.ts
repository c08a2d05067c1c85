// Which files a pattern entry ("src/gen/*.ts") gained after its checkpoint's save: the work tree's
// check (checks.ts) and the push's (pushed-tips.ts) decide it by this one rule. Pure.
import type { PathChange } from '../git/types.js';

/**
 * The files a pattern gained since a save, each with what the caller gave for the newest commit
 * adding it: added after it (or renamed in from outside it) and never deleted or renamed away
 * since, so none it knew, and none of their changes is drift. `commits`: only those made after
 * the save, the session's own (those touching its checkpoint) left out, newest first, each as
 * [what to answer with, its changes]. `test`: the paths the pattern's wildcards match (a brace's
 * literal alternatives left out: those files are named, never new to the entry). Told by the kinds
 * of change alone: commits of one second are in no reliable order.
 */
export function gainedFiles<K>(commits: Iterable<readonly [K, { readonly changes: readonly PathChange[] }]>, test: (path: string) => boolean): Map<string, K> {
  const added = new Map<string, K>();
  const left = new Set<string>();
  for (const [key, commit] of commits) {
    for (const c of commit.changes) {
      const into = test(c.path) && !(c.from !== undefined && test(c.from));
      if (into && (c.status === 'A' || c.status === 'R') && !added.has(c.path)) added.set(c.path, key);
      if (c.status === 'D' && test(c.path)) left.add(c.path);
      else if (c.from !== undefined && test(c.from) && !test(c.path)) left.add(c.from);
    }
  }
  for (const file of left) added.delete(file);
  return added;
}
