// Thin wrappers over `git config` / `git rev-parse` for the install commands, through the one
// git gateway (so a hook's GIT_DIR never points them at another repository).
import { gitDirEnvNote } from '../git/git-dir-env.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { gitOutputSync, runGitSync } from '../git/git-process.js';
import { driverInstall } from './driver-command.js';

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

/**
 * Why git cannot open a clone at `root`, or null when it can: git is not installed (a node:alpine
 * image), a .git there that git cannot read (a worktree's or submodule's .git file copied without
 * its repository), or no repository at all.
 */
export function gitRepoProblem(root: string): CheckpointError | null {
  if (gitOut(root, ['rev-parse', '--git-dir']) !== null) return null;
  if (gitOut(root, ['--version']) === null) {
    return new CheckpointError('E_GIT', 'git was not found on PATH', { hint: 'install git (or put it on PATH), then run this again; the merge driver and hook live in git' });
  }
  if (existsSync(join(root, '.git'))) {
    return new CheckpointError('E_GIT', `${root} is not a git repository git can open (its .git is there, but git cannot read it: a worktree or submodule whose repository moved or was not copied?)`, { hint: 'run `git status` there to see why' });
  }
  const env = gitDirEnvNote(process.env);
  if (env) return new CheckpointError('E_GIT', `${root} has no .git of its own: ${env}`, { hint: 'then run this again; the merge driver and hook live in git' });
  return new CheckpointError('E_GIT', `${root} is not a git repository`, { hint: 'run `git init` first; the merge driver and hook live in git' });
}

export function assertGitRepo(root: string): void {
  const problem = gitRepoProblem(root);
  if (problem) throw problem;
}

/**
 * Whether git would run a checkpoint merge driver that can start on `rel` here: merge.checkpoint.driver
 * set (any scope), its node and launcher still there when it is a command install wrote, and the
 * merge attribute naming it for the file.
 */
export function driverRoutes(root: string, rel: string): boolean {
  const command = gitOut(root, ['config', '--get', 'merge.checkpoint.driver']);
  if (!command) return false;
  const install = driverInstall(command);
  if (install && !(existsSync(install.node) && existsSync(install.bin))) return false;
  return /: merge: checkpoint$/.test(gitOut(root, ['check-attr', 'merge', '--', rel]) ?? '');
}
