// Thin wrappers over `git config` / `git rev-parse` for the install commands, through the one
// git gateway (so a hook's GIT_DIR never points them at another repository).
import { CheckpointError } from '../errors.js';
import { gitOutputSync, runGitSync } from '../git/git-process.js';

/** git's trimmed stdout, or null when it exits non-zero (an unset config key, no repository). */
export function gitOut(root: string, args: string[]): string | null {
  return gitOutputSync(root, args)?.trim() ?? null;
}

export function gitRun(root: string, args: string[]): void {
  const r = runGitSync(root, args);
  if (r.code !== 0) {
    const stderr = r.stderr.trim();
    throw new CheckpointError('E_GIT', `git ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`);
  }
}

export function assertGitRepo(root: string): void {
  if (gitOut(root, ['rev-parse', '--git-dir']) === null) {
    throw new CheckpointError('E_GIT', `${root} is not a git repository (or git is not installed)`, { hint: 'run `git init` first; the merge driver and hook live in git' });
  }
}
