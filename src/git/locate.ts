// Finding a repository with plain fs: the work-tree root, its git dir (a linked worktree
// has a `.git` file pointing elsewhere) and the common dir that holds objects, refs and
// the shallow file.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';

export interface GitDirs {
  /** Per-worktree git dir: HEAD lives here. */
  gitdir: string;
  /** Shared git dir: objects, refs, config, shallow. Equals gitdir outside linked worktrees. */
  commonDir: string;
}

/** Nearest directory at or above `cwd` that has a `.git` directory or file, else null. */
export async function findGitRoot(cwd: string): Promise<string | null> {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = statSync(join(dir, '.git'), { throwIfNoEntry: false });
    if (dotGit && (dotGit.isDirectory() || dotGit.isFile())) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The git dirs of a work-tree root. Plain small reads, so synchronous; the async form is for callers in async code. */
export function resolveGitDirsSync(root: string): GitDirs {
  const dotGit = join(root, '.git');
  const gitdir = statSync(dotGit).isFile() ? followGitFile(dotGit) : dotGit;
  let commonDirFile: string | null = null;
  try {
    // Only a plain file is read: a FIFO planted there would block the read forever.
    const file = join(gitdir, 'commondir');
    if (statSync(file, { throwIfNoEntry: false })?.isFile()) commonDirFile = readFileSync(file, 'utf8');
  } catch {
    // not a linked worktree
  }
  return { gitdir, commonDir: commonDirFile === null ? gitdir : resolve(gitdir, commonDirFile.trim()) };
}

/** The git dir of a work-tree root; null where there is none (or its .git file is broken): git's own error says why. */
export function gitdirOrNull(root: string): string | null {
  try {
    return resolveGitDirsSync(root).gitdir;
  } catch {
    return null;
  }
}

export async function resolveGitDirs(root: string): Promise<GitDirs> {
  return resolveGitDirsSync(root);
}

function followGitFile(file: string): string {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(file, 'utf8'));
  if (!match?.[1]) throw new CheckpointError('E_GIT', `${shownPath(file)} is not a valid gitdir pointer (no "gitdir:" line)`);
  return resolve(dirname(file), match[1]);
}
