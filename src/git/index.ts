// Entry point for history questions: pick an engine for a directory and hand back a
// GitHistory. The native engine runs the git binary; isomorphic-git covers machines
// without one and is loaded only when chosen.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import { gitOnPath } from './git-process.js';
import { findGitRoot, resolveGitDirsSync, type GitDirs } from './locate.js';
import { assertNoBlockingFiles } from './blocking-files.js';
import { usesSha256 } from './object-format.js';
import { NativeHistory } from './native.js';
import type { EngineName, GitHistory } from './types.js';

export type { ChangeStatus, CommitInfo, EngineName, GitHistory, HeadInfo, PathChange } from './types.js';
export { findGitRoot } from './locate.js';

export interface CreateHistoryOptions {
  /** Any directory inside the work tree; the history is opened at the work-tree root. */
  dir: string;
  /** 'auto' (default): native when a git executable is on PATH, else isomorphic. */
  engine?: 'auto' | EngineName;
}

export async function createHistory({ dir, engine = 'auto' }: CreateHistoryOptions): Promise<GitHistory> {
  const absolute = resolve(dir);
  const isDirectory = statSync(absolute, { throwIfNoEntry: false })?.isDirectory() ?? false;
  if (!isDirectory) throw new CheckpointError('E_GIT', `not a directory: ${shownPath(absolute)}`);
  const root = await findGitRoot(absolute);
  if (root === null) {
    throw new CheckpointError('E_GIT', `not a git repository (or any parent up to /): ${shownPath(absolute)}`, {
      hint: 'run checkpoint inside a git work tree, or `git init` one first',
    });
  }
  let dirs: GitDirs | null = null;
  try {
    dirs = resolveGitDirsSync(root);
  } catch {
    // A broken .git file: git's own error says what is wrong with it.
  }
  if (dirs) refuseSha256(dirs);
  // Either engine would wait forever on a FIFO where it reads (a ref, the config, a pack).
  if (dirs) assertNoBlockingFiles(root, dirs);
  const hasGit = await gitOnPath();
  const chosen = engine === 'auto' ? (hasGit ? 'native' : 'isomorphic') : engine;
  // Imported only when chosen: the embedded engine's module loads node:crypto and node:zlib.
  if (chosen === 'isomorphic') return (await import('./isomorphic.js')).IsoHistory.open(root);
  if (!hasGit) {
    throw new CheckpointError('E_GIT', 'git executable not found on PATH', { hint: 'install git, or use the isomorphic engine' });
  }
  return new NativeHistory(root);
}

/**
 * A repository that names objects with SHA-256: neither engine's readers (the index, packs, the
 * caches keyed by 40-digit names) take it yet, so history is refused in one line, as an unreadable
 * history is; every command still checks the checkpoint files themselves.
 */
function refuseSha256(dirs: GitDirs): void {
  if (!usesSha256(dirs.commonDir)) return;
  throw new CheckpointError('E_GIT', 'this repository names its objects with SHA-256 (extensions.objectFormat), which checkpoint cannot read yet', {
    hint: '`checkpoint validate` checks the checkpoint files; history checks (landed work, changed files) need a SHA-1 repository for now',
  });
}
