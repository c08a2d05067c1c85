// Checkpoints kept in a folder below the repository's top (a package of a monorepo: the
// protocol's project-dir may be any folder with a package.json). checkpoint reads and writes a
// repository's checkpoints at its top, so such files are never read or checked: from inside
// that folder every command refuses; from the top, status and doctor name them (red team 62b 2).
// One line says so wherever it is said, with the `git mv` that moves them to the top.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';
import { indexPathsLike } from '../git/index-paths-like.js';
import { shownPath } from '../one-line.js';
import { pasteArg } from '../shell-words.js';
import { CHECKPOINTS_DIR } from './root.js';
import { CHECKPOINT_SUFFIX } from './skill-name.js';

/** A folder below the top named .checkpoints holding checkpoint files. */
export interface NestedCheckpoints {
  /** Repo-relative, `/`-separated: `packages/app/.checkpoints`. */
  folder: string;
  /** The `*.checkpoint.json` files in it. */
  count: number;
}

/**
 * What a folder of nested checkpoints is told: the problem (naming the folder and the top's
 * .checkpoints/), the `git mv` that moves them there, and the sentence around it. git mv into a
 * folder that is not there fails (`destination directory does not exist`): then made first.
 */
export function nestedCheckpointsLine(top: string, { folder, count }: NestedCheckpoints): { problem: string; move: string; fix: string } {
  const made = existsSync(join(top, CHECKPOINTS_DIR)) ? '' : `mkdir -p ${CHECKPOINTS_DIR} && `;
  const move = `${made}git mv ${pasteArg(folder)}/*${CHECKPOINT_SUFFIX} ${CHECKPOINTS_DIR}/`;
  return {
    problem: `${shownPath(folder)}/ holds ${count === 1 ? 'a checkpoint' : `${count} checkpoints`}, but checkpoint keeps this repository's at its top (${shownPath(join(top, CHECKPOINTS_DIR))}/)`,
    move,
    fix: `from the top, move ${count === 1 ? 'it' : 'them'} there (${move}), then run checkpoint anywhere in the repository`,
  };
}

/** nestedCheckpointsLine as status and doctor say it at the top: the files are there, and not checked. */
export function nestedCheckpointsNotice(top: string, nested: NestedCheckpoints): { message: string; move: string } {
  const { problem, move, fix } = nestedCheckpointsLine(top, nested);
  return { message: `${problem}, so ${nested.count === 1 ? 'it is' : 'they are'} never read or checked; ${fix}`, move };
}

/**
 * Refuses a folder between `start` and the repository's top `root` that holds checkpoints of its
 * own: from there they would go unseen ("start fresh") and a write would make a second file for
 * the same skill.
 */
export function assertNoNestedCheckpoints(start: string, root: string): void {
  const top = resolve(root);
  for (let dir = resolve(start); dir !== top && dir.startsWith(top); dir = dirname(dir)) {
    const held = join(dir, CHECKPOINTS_DIR);
    let names: string[];
    try {
      names = readdirSync(held).filter((n) => n.endsWith(CHECKPOINT_SUFFIX));
    } catch {
      continue;
    }
    if (!names.length) continue;
    const { problem, fix } = nestedCheckpointsLine(top, { folder: relative(top, held), count: names.length });
    throw new CheckpointError('E_NO_ROOT', `${problem}; nothing was read or written`, { hint: fix });
  }
}

/** The nested folder a repo-relative path is a checkpoint file of (`packages/app/.checkpoints`), else null. */
export function nestedCheckpointFolder(path: string): string | null {
  const cut = path.lastIndexOf('/');
  const folder = path.slice(0, cut);
  return cut > 0 && path.endsWith(CHECKPOINT_SUFFIX) && folder.endsWith(`/${CHECKPOINTS_DIR}`) ? folder : null;
}

/** Of repo-relative `paths`, the nested folders their checkpoint files are in, each with how many, by path. */
export function nestedFolders(paths: Iterable<string>): NestedCheckpoints[] {
  const counts = new Map<string, number>();
  for (const path of paths) {
    const folder = nestedCheckpointFolder(path);
    if (folder !== null) counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([folder, count]) => ({ folder, count }));
}

/**
 * The nested checkpoint folders git's index holds (committed or staged: one read of the index
 * file, no walk of the work tree, no process). A file never added is not seen from the top.
 */
export function nestedCheckpoints(root: string): NestedCheckpoints[] {
  return nestedFolders(indexPathsLike(root, { holding: `/${CHECKPOINTS_DIR}/`, ending: CHECKPOINT_SUFFIX }));
}
