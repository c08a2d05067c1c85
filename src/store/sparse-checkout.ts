// Checkpoints a sparse checkout leaves out of the work tree (`git sparse-checkout set pkg/app` in a
// monorepo): git's index holds them skip-worktree (or folds .checkpoints/ whole, a sparse index),
// the work tree does not. A reader must not call that "no checkpoints yet", and a write must not
// make a file in their place: git would take it as the committed file edited, and the next commit
// would drop what the committed one held. Judged from the index's entries under .checkpoints/,
// which every reader and writer already scans for merge conflicts (index-conflicts.ts): no process.
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { CHECKPOINTS_DIR } from './root.js';
import { projectPathExists } from './safe-fs.js';
import { pathArg } from './paste-path.js';
import { CHECKPOINT_SUFFIX, skillFromFileName } from './skill-name.js';

/** What brings .checkpoints/ into a sparse checkout, cone or not (a sparse index too). */
export const BRING_IN = `git sparse-checkout add ${CHECKPOINTS_DIR}`;

/** Checkpoints git holds that this checkout leaves out. */
export interface OutsideCheckpoints {
  /** Skills whose checkpoint the index holds skip-worktree and the work tree lacks, sorted. */
  skills: string[];
  /** A sparse index folds .checkpoints/ into one entry: which checkpoints it holds is not read. */
  folded: boolean;
}

const FOLDER = `${CHECKPOINTS_DIR}/`;

/** Of `skipped` (the index's skip-worktree paths under .checkpoints/), the checkpoints missing here; null when none. */
export function outsideCheckpoints(root: string, skipped: ReadonlySet<string> | undefined): OutsideCheckpoints | null {
  if (!skipped?.size) return null;
  let folded = false;
  const skills: string[] = [];
  for (const path of skipped) {
    if (path === FOLDER) folded = true;
    const name = path.slice(FOLDER.length);
    const skill = name.includes('/') ? null : skillFromFileName(name);
    if (skill !== null && !present(root, path)) skills.push(skill);
  }
  return folded || skills.length ? { skills: skills.sort(), folded } : null;
}

/** `outside` narrowed to `skill`, when one is asked for (a folded .checkpoints/ may hold it). */
export function outsideAsked(outside: OutsideCheckpoints | null, skill: string | undefined): OutsideCheckpoints | null {
  if (outside === null || skill === undefined || outside.folded) return outside;
  return outside.skills.includes(skill) ? { skills: [skill], folded: false } : null;
}

/** The one line every reader gives in place of "no checkpoints yet". */
export function outsideLine(outside: OutsideCheckpoints): string {
  const what = outside.folded
    ? `${FOLDER} is in git but outside this sparse checkout`
    : `${outside.skills.length === 1 ? `the checkpoint of ${outside.skills[0]} is` : `the checkpoints of ${outside.skills.join(', ')} are`} in git but outside this sparse checkout`;
  return `${what}: not read here; bring ${outside.folded || outside.skills.length > 1 ? 'them' : 'it'} in with \`${BRING_IN}\``;
}

/**
 * Refuses `act` (E_SPARSE, exit 2, nothing written) when the write would go where git's index
 * says it must not: `skill`'s checkpoint is held skip-worktree (in the work tree or not: git would
 * not see the write, or would take a new file for the committed one edited), or any path under
 * .checkpoints/ is held so and missing here (a sparse checkout leaves the folder out: a new
 * checkpoint, a history file or init's README would be made beside files this checkout cannot see).
 */
export function refuseOutsideCheckout(root: string, act: string, skill: string | undefined, skipped: ReadonlySet<string> | undefined): void {
  if (!skipped?.size) return;
  const own = skill === undefined ? null : `${FOLDER}${skill}${CHECKPOINT_SUFFIX}`;
  if (own !== null && skipped.has(own) && present(root, own)) {
    // Marked by hand (git update-index --skip-worktree): the file is here, git looks past it.
    throw new CheckpointError('E_SPARSE', `refused to ${act}: git's index marks ${own} skip-worktree, so git would not see this write; the file was not changed`, {
      hint: `git update-index --no-skip-worktree ${pathArg(root, own)}, then run the command again`,
    });
  }
  const missing = [...skipped].filter((path) => path === FOLDER || !present(root, path));
  if (!missing.length) return;
  const n = missing.length;
  const what = own !== null && missing.includes(own)
    ? `${own} is in git but outside this sparse checkout`
    : `${FOLDER} is outside this sparse checkout (git holds ${missing.includes(FOLDER) ? 'files' : n === 1 ? 'a file' : `${n} files`} under it that this checkout leaves out)`;
  throw new CheckpointError('E_SPARSE', `refused to ${act}: ${what}; a file written here would stand in for git's; nothing was written`, {
    hint: `bring it in first: ${BRING_IN}, then run the command again`,
  });
}

function present(root: string, rel: string): boolean {
  try {
    return projectPathExists(root, join(root, ...rel.split('/')));
  } catch {
    return true; // a link out or the like: the write's own checks name it
  }
}
