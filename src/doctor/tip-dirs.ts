// Where a pushed commit keeps its checkpoints: `.checkpoints`, or the folder of the project it
// links to (docs/commands.md: "a link you made to a folder of the project"). Read from the
// commit's own tree, as the work tree's link is read from disk (safe-fs.ts), and as strictly:
// a link out of the project, an absolute one or one into the git folder is never followed.
import { posix } from 'node:path';
import type { GitHistory } from '../git/types.js';
import { CHECKPOINTS_DIR } from '../store/root.js';

/** A link's target is a path, never more: a longer blob is no link this resolves. */
const MAX_LINK_BYTES = 4096;

/**
 * The project folder a `.checkpoints` link at the top of a tree names, from the target it
 * stores; null when it names none to follow: absolute, out of the project, the top itself, the
 * git folder or anything in it, or itself.
 */
export function linkedCheckpointsDir(target: string): string | null {
  if (target === '' || target.startsWith('/') || /^[A-Za-z]:/.test(target) || /[\0\n\\]/.test(target)) return null;
  // The link sits at the top: its target is read from there.
  const dir = posix.normalize(target).replace(/\/+$/, '');
  if (dir === '.' || dir === '' || dir === '..' || dir.startsWith('../')) return null;
  const first = dir.split('/')[0]!;
  if (first === '.git' || dir === CHECKPOINTS_DIR) return null;
  return dir;
}

/**
 * For each of `tips` whose `.checkpoints` lists no file (`empty`), the folder it links to, when
 * it is a link to one in the project: one listing of the top folders and one read of the link
 * targets, for all those tips together. A tip left out keeps `.checkpoints`.
 */
export async function linkedDirs(history: GitHistory, empty: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!empty.length) return out;
  const tops = await history.linksInEach(empty, ['']);
  const links = new Map(empty.flatMap((tip, i) => {
    const oid = tops[i]?.get(CHECKPOINTS_DIR);
    return oid === undefined ? [] : [[tip, oid] as const];
  }));
  if (!links.size) return out;
  const targets = await history.readBlobs([...new Set(links.values())], MAX_LINK_BYTES);
  for (const [tip, oid] of links) {
    const target = targets.get(oid);
    const dir = target === undefined ? null : linkedCheckpointsDir(target);
    if (dir !== null) out.set(tip, dir);
  }
  return out;
}
