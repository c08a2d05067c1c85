// The working tree's mechanical state for the recovery capsule: HEAD, branch and
// uncommitted paths, read cheaply with the git binary (three small processes run in
// parallel). Outside a repository, without commits, or without git: nulls and [], never
// an error, because `pause --auto` runs from hooks on every compaction.
import { execFile } from 'node:child_process';

/** How many uncommitted paths the capsule lists; the rest are only counted. */
export const MAX_UNCOMMITTED_PATHS = 50;
const GIT_TIMEOUT_MS = 10_000;

/** Variables a hook or a parent git may set that would point git at another repository. */
const REPO_LOCATING_VARS = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_NAMESPACE'];

export interface GitState {
  /** Short sha of HEAD, or null (no repository, no commit yet, or no git). */
  head: string | null;
  /** Current branch, or null (detached HEAD, no repository, or no git). */
  branch: string | null;
  /** First MAX_UNCOMMITTED_PATHS changed or untracked paths, git's order. */
  uncommitted: string[];
  /** How many there are in all. */
  uncommitted_count: number;
}

function git(cwd: string, args: string[]): Promise<string | null> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  for (const v of REPO_LOCATING_VARS) delete env[v];
  return new Promise((resolve) => {
    execFile('git', args, { cwd, env, encoding: 'utf8', timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, windowsHide: true }, (error, stdout) => {
      resolve(error ? null : stdout);
    });
  });
}

// The store's own scratch files (locks, temp files of atomic writes) are not the user's changes.
const SCRATCH = /(^|\/)\.checkpoints\/\.[^/]*\.(lock|tmp|stale)$/;

/** Paths from `git status --porcelain -z`: "XY path\0", renames and copies followed by "orig\0". */
export function parsePorcelainZ(out: string): string[] {
  const fields = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    paths.push(f.slice(3));
    if (f[0] === 'R' || f[0] === 'C') i++; // the original path of a rename or copy
  }
  return paths.filter((p) => !SCRATCH.test(p));
}

export async function gitState(root: string): Promise<GitState> {
  const [head, branch, status] = await Promise.all([
    git(root, ['rev-parse', '--short', 'HEAD']),
    git(root, ['symbolic-ref', '--short', '-q', 'HEAD']),
    git(root, ['--no-optional-locks', 'status', '--porcelain', '-z']),
  ]);
  const paths = status === null ? [] : parsePorcelainZ(status);
  return {
    head: head?.trim() || null,
    // An unborn branch (no commit yet) still has a name; a repository is what makes it meaningful.
    branch: status === null ? null : branch?.trim() || null,
    uncommitted: paths.slice(0, MAX_UNCOMMITTED_PATHS),
    uncommitted_count: paths.length,
  };
}
