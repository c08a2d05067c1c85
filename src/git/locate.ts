// Finding a repository with plain fs: the work-tree root, its git dir (a linked worktree
// has a `.git` file pointing elsewhere) and the common dir that holds objects, refs and
// the shallow file.
import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';

export interface GitDirs {
  /** Per-worktree git dir: HEAD lives here. */
  gitdir: string;
  /** Shared git dir: objects, refs, config, shallow. Equals gitdir outside linked worktrees. */
  commonDir: string;
}

/** Nearest directory at or above `cwd` that has a `.git` directory or file, else null. */
export async function findGitRoot(cwd: string): Promise<string | null> {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = await stat(join(dir, '.git')).catch(() => null);
    if (dotGit && (dotGit.isDirectory() || dotGit.isFile())) return dir;
    if (dirname(dir) === dir) return null;
  }
}

export async function resolveGitDirs(root: string): Promise<GitDirs> {
  const dotGit = join(root, '.git');
  const gitdir = (await stat(dotGit)).isFile() ? await followGitFile(dotGit) : dotGit;
  const commonDirFile = await readFile(join(gitdir, 'commondir'), 'utf8').catch(() => null);
  return { gitdir, commonDir: commonDirFile === null ? gitdir : resolve(gitdir, commonDirFile.trim()) };
}

async function followGitFile(file: string): Promise<string> {
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(file, 'utf8'));
  if (!match?.[1]) throw new CheckpointError('E_GIT', `${file} is not a valid gitdir pointer (no "gitdir:" line)`);
  return resolve(dirname(file), match[1]);
}
