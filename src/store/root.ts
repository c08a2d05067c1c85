// Finding the project root: the git top level (a `.git` dir or worktree file), else the
// nearest folder holding .checkpoints/. Pure fs, no git process: this runs on every command.
import { existsSync, statSync } from 'node:fs';
import { shownPath } from '../one-line.js';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';

export const CHECKPOINTS_DIR = '.checkpoints';

function findUp(start: string, found: (dir: string) => boolean): string | null {
  let dir = resolve(start);
  for (;;) {
    if (found(dir)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

export function findGitTop(start: string): string | null {
  return findUp(start, (d) => existsSync(join(d, '.git')));
}

/** The project root for `cwd`; `override` (from -C) is taken as given. */
export function findRoot(cwd: string, override?: string): string {
  if (override !== undefined) {
    const dir = resolve(cwd, override);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new CheckpointError('E_NO_ROOT', `-C ${shownPath(override)}: no such directory`, { hint: 'pass the project folder that holds .checkpoints/' });
    }
    return findGitTop(dir) ?? dir;
  }
  return findGitTop(cwd) ?? findUp(cwd, (d) => existsSync(join(d, CHECKPOINTS_DIR))) ?? resolve(cwd);
}
