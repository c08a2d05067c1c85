// Finding the project root: the git top level (a `.git` dir or worktree file), else the
// nearest folder holding .checkpoints/. Pure fs, no git process: this runs on every command.
import { pasteArg } from '../shell-words.js';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { shownPath } from '../one-line.js';
import { dirname, isAbsolute, join, resolve } from 'node:path';
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

/**
 * The folder a command starts in: `cwd`, or the -C folder from it, through its links, as `git -C`
 * and a shell's `cd` leave the process (a project folder linked to a folder elsewhere is that
 * folder, not a part of the project that holds the link). As given when it cannot be resolved.
 */
export function startDir(cwd: string, override?: string): string {
  const dir = override === undefined ? resolve(cwd) : resolve(cwd, override);
  try {
    // As written, not normalized first: "<link>/.." is the folder above the link's target, as the
    // file system (and git -C) read it, not the folder holding the link.
    return realpathSync.native(override === undefined ? cwd : isAbsolute(override) ? override : `${cwd}/${override}`);
  } catch {
    return dir;
  }
}

/** The project root for `cwd`; `override` (from -C) is taken from `cwd`, as startDir reads it. */
export function findRoot(cwd: string, override?: string): string {
  const dir = startDir(cwd, override);
  if (override !== undefined) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new CheckpointError('E_NO_ROOT', `-C ${shownPath(override)}: ${existsSync(dir) ? 'not a directory' : 'no such directory'}`, { hint: 'pass the project folder that holds .checkpoints/' });
    }
    return findGitTop(dir) ?? dir;
  }
  return findGitTop(dir) ?? findUp(dir, (d) => existsSync(join(d, CHECKPOINTS_DIR))) ?? dir;
}

/** A git work tree's top, or a folder that holds .checkpoints/: what findRoot finds when it finds a project. */
export function isProjectFolder(root: string): boolean {
  return existsSync(join(root, '.git')) || existsSync(join(root, CHECKPOINTS_DIR));
}

/**
 * Refuses to start a .checkpoints/ in `root` unless it is a git work tree or already holds one.
 * For a folder named from afar (-C, an MCP call's folder), which may be a typo, /dev or
 * /proc/self: `checkpoint init` there is the way to start one on purpose.
 */
export function assertProjectFolder(root: string): void {
  if (isProjectFolder(root)) return;
  throw new CheckpointError('E_NO_ROOT', `${shownPath(root)} is not a git work tree and holds no ${CHECKPOINTS_DIR}/; refused to start one there`, {
    hint: `run \`checkpoint -C ${pasteArg(root)} init\` there first (or git init), or check the folder`,
  });
}
