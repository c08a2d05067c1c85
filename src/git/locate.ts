// Finding a repository with plain fs: the work-tree root, its git dir (a linked worktree
// has a `.git` file pointing elsewhere) and the common dir that holds objects, refs and
// the shallow file.
import { pasteArg } from '../shell-words.js';
import { readFileSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';
import { MAX_SHOWN_PATH_CHARS, shownPath } from '../one-line.js';
import { configValue } from './config-file.js';
import { readGitFile } from './git-file.js';

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

/**
 * Refuses a folder inside a git dir rather than a work tree: a bare repository, or the `.git`
 * folder of a work tree (what git calls "must be run in a work tree"). Found as git finds it,
 * walking up: a `.git` entry met first means a work tree (or none at all) and passes. Without
 * this, `.checkpoints/`, `.gitattributes` and merge config would be written into the git dir.
 */
export function assertNotInGitDir(start: string, cwd: string): void {
  let innermost: string | null = null;
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (statOrNull(join(dir, '.git'))) break;
    if (isGitDir(dir)) {
      if (innermost === null) {
        innermost = dir;
        // A linked worktree's admin dir or a submodule's git dir (under .git/worktrees, .git/modules)
        // belongs to its own work tree, not to the repository whose .git holds it.
        const workTree = ownWorkTree(dir);
        if (workTree !== null) throw inGitDirOf(dir, workTree);
      }
      // The .git folder of a work tree (its hooks and refs included): the work tree is right above.
      if (basename(dir) === '.git') {
        if (innermost === dir) throw inGitDirOf(dir, dirname(dir));
        // A git dir kept inside it whose work tree we cannot tell (one pruned or moved): named itself.
        throw new CheckpointError('E_NO_ROOT', `${shownPath(innermost)} is a git dir, not a working tree`, { hint: 'run checkpoint in its work tree' });
      }
    }
    if (dirname(dir) === dir) break;
  }
  if (innermost !== null) {
    // As the user named it (-C b.git) when it is below where they are, else in full.
    const rel = relative(cwd, innermost);
    const name = rel && !rel.startsWith('..') ? rel : innermost;
    throw new CheckpointError('E_NO_ROOT', `${shownPath(name)} is a bare repository (no working tree)`, { hint: cloneHint(innermost) });
  }
}

function inGitDirOf(gitDir: string, workTree: string): CheckpointError {
  return new CheckpointError('E_NO_ROOT', `${shownPath(gitDir)} is the git dir of ${shownPath(workTree)}, not a working tree`, { hint: `run checkpoint in ${shownPath(workTree)}` });
}

/**
 * The work tree a git dir names for itself, when it still has one: a linked worktree's admin
 * dir names `<worktree>/.git` in its `gitdir` file; a submodule's git dir sets core.worktree
 * (relative to the git dir). Null when it names none, or one with no `.git` there any more.
 */
function ownWorkTree(gitDir: string): string | null {
  const pointer = readGitFile(join(gitDir, 'gitdir'))?.trim();
  const config = readGitFile(join(gitDir, 'config'));
  const workTree = pointer ? (basename(pointer) === '.git' ? dirname(resolve(gitDir, pointer)) : null) : config ? configValue(config, 'core', null, 'worktree') : null;
  if (!workTree) return null;
  const root = resolve(gitDir, workTree);
  return statOrNull(join(root, '.git')) ? root : null;
}

/** Git's own test: a HEAD that names a ref or an object id, with objects and refs (or a commondir that holds them). */
function isGitDir(dir: string): boolean {
  const head = join(dir, 'HEAD');
  const stat = statOrNull(head);
  // A plain small file only: a FIFO or /dev/zero planted as HEAD must not block or flood the read.
  if (!stat?.isFile() || stat.size > 4096) return false;
  let text: string;
  try {
    text = readFileSync(head, 'utf8');
  } catch {
    return false;
  }
  if (!/^(ref: refs\/|[0-9a-f]{40})/.test(text)) return false;
  const isDir = (name: string) => statOrNull(join(dir, name))?.isDirectory() ?? false;
  return (isDir('objects') && isDir('refs')) || (statOrNull(join(dir, 'commondir'))?.isFile() ?? false);
}

/** A folder we may not enter (EACCES) has no git dir we could use: as missing, like existsSync. */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
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
  // Line by line, not /^gitdir:\s*(.+?)\s*$/m, which retries from each blank of a long run.
  const line = readFileSync(file, 'utf8').split('\n').find((l) => l.startsWith('gitdir:'));
  const match = line === undefined ? null : [line, line.slice('gitdir:'.length).trim()];
  if (!match?.[1]) throw new CheckpointError('E_GIT', `${shownPath(file)} is not a valid gitdir pointer (no "gitdir:" line)`);
  return resolve(dirname(file), match[1]);
}

/** A command to paste, its path one shell word; for a path too long to show whole, the advice without one (a cut path is another). */
function cloneHint(bare: string): string {
  const path = pasteArg(bare);
  return path.length <= MAX_SHOWN_PATH_CHARS ? `run checkpoint in a clone of it (git clone ${path} '<folder>')` : `run checkpoint in a clone of it (git clone it into a folder of its own)`;
}
