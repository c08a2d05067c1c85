// Thin wrappers over `git config` / `git rev-parse` for the install commands. Installing
// into git needs git, so these use the binary directly.
import { execFileSync } from 'node:child_process';
import { CheckpointError } from '../errors.js';

export function gitOut(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

export function gitRun(root: string, args: string[]): void {
  try {
    execFileSync('git', args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (e) {
    const stderr = String((e as { stderr?: Buffer }).stderr ?? '').trim();
    throw new CheckpointError('E_GIT', `git ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`);
  }
}

export function assertGitRepo(root: string): void {
  if (gitOut(root, ['rev-parse', '--git-dir']) === null) {
    throw new CheckpointError('E_GIT', `${root} is not a git repository (or git is not installed)`, { hint: 'run `git init` first; the merge driver and hook live in git' });
  }
}
