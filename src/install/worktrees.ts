// git config and the hooks folder are shared by every worktree of a repository: an install run in
// a linked worktree (`git worktree add`, one per agent) that pointed them at its own node_modules
// would break merges and leave pushes unchecked in every worktree once that one is removed. So
// there a driver or hook of ours that still runs is kept; one set anew says it is shared.
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { gitOut } from './git-config.js';
import { shownPath } from '../one-line.js';

/** True when `root` is a linked worktree: its own git dir is not the common one (config, hooks). */
export function isLinkedWorktree(root: string): boolean {
  const gitDir = gitOut(root, ['rev-parse', '--absolute-git-dir']);
  const common = gitOut(root, ['rev-parse', '--git-common-dir']);
  return gitDir !== null && common !== null && resolve(root, common) !== resolve(gitDir);
}

/** The main worktree's path (the first `git worktree list` names), or null. */
function mainWorktree(root: string): string | null {
  const out = gitOut(root, ['worktree', 'list', '--porcelain']);
  return out === null ? null : /^worktree (.*)$/m.exec(out)?.[1] ?? null;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return isFile(p);
  } catch {
    return false;
  }
}

/** Whether an install still runs: its launcher is there and (when one is named) its node is executable. */
export function installRuns(bin: string, node: string | null): boolean {
  return isFile(bin) && (node === null || isExecutable(node));
}

/** The line for a shared setting of ours kept, in a linked worktree, because the install it runs is there. */
export function keptSharedLine(what: string, bin: string): string {
  return `kept ${what}: it runs the install at ${shownPath(bin)}, shared by every worktree of this repository`;
}

/**
 * For a shared setting written from a linked worktree with a launcher inside it: that it breaks
 * when this worktree is removed, and how to point it at the main worktree's install. Else null.
 */
export function sharedSettingNote(root: string, what: string, bin: string): string | null {
  if (!isLinkedWorktree(root)) return null;
  const rel = relative(resolve(root), resolve(bin));
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  const main = mainWorktree(root);
  return `${what} is shared by every worktree of this repository and now runs this worktree's install (${shownPath(bin)}): it breaks once this worktree is removed; to avoid that, run checkpoint init in the main worktree${main ? ` (${shownPath(main)})` : ''}`;
}
