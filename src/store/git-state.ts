// The working tree's mechanical state for the recovery capsule: HEAD, branch and
// uncommitted paths. The branch is read from the git dir's files (git only when they are
// unusual); the short HEAD and the paths come from two concurrent git processes through the
// gateway. Outside a repository, without commits, or without git: nulls (the paths unknown),
// never an error, because `pause --auto` runs from hooks on every compaction.
import { CheckpointError, isCheckpointError } from '../errors.js';
import { runGit } from '../git/git-process.js';
import { readHeadFiles } from '../git/head-files.js';
import { indexRefusal } from '../git/index-damage.js';
import { gitdirOrNull } from '../git/locate.js';
import type { MechanicalState } from '../protocol/capsule.js';

/** How many uncommitted paths the capsule lists; the rest are only counted. */
export const MAX_UNCOMMITTED_PATHS = 50;
/** A hook must not hang on a stuck git (a lock, a network filesystem). */
const GIT_TIMEOUT_MS = 10_000;

/** What pause records as the capsule's mechanical state (its shape is capsule.ts's). */
export interface GitState extends MechanicalState {
  /** Why the uncommitted paths are not known (null there): the index git could not read. */
  unreadIndex?: CheckpointError;
}

/** Why git could not list the work tree's changes, as the warning pause prints says it. */
function gitFailure(e: unknown): CheckpointError {
  const reason = isCheckpointError(e) ? e.message.replace(/^checkpoint: /, '') : 'git did not run';
  return new CheckpointError('E_GIT', `git could not list the work tree's changes (${reason})`, { hint: 'run git status here to see why; the next pause --auto records them once it can' });
}

/** git's stdout, or null for any failure (no repository, no git): the capsule never fails on it. */
function git(cwd: string, args: string[]): Promise<string | null> {
  return runGit(cwd, args, { env: { GIT_OPTIONAL_LOCKS: '0' }, timeoutMs: GIT_TIMEOUT_MS }).then((r) => r.stdout, () => null);
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
  const files = readHeadFiles(root);
  let failed: unknown = null;
  const [head, branch, status] = await Promise.all([
    // git's abbreviation grows with the object count: only git can say it exactly.
    git(root, ['rev-parse', '--short', 'HEAD']),
    files ? files.branch : git(root, ['symbolic-ref', '--short', '-q', 'HEAD']),
    runGit(root, ['--no-optional-locks', 'status', '--porcelain', '-z'], { env: { GIT_OPTIONAL_LOCKS: '0' }, timeoutMs: GIT_TIMEOUT_MS }).then((r) => r.stdout, (e: unknown) => ((failed = e), null)),
  ]);
  const gitdir = status === null ? files?.gitdir ?? gitdirOrNull(root) : null;
  if (gitdir) {
    // A repository whose index git cannot read (a FIFO, garbage), or where git itself fails (not
    // installed, a repository it refuses as another user's): HEAD and the branch come from their
    // own files where they can, the uncommitted paths are unknown, never "none".
    const refused = indexRefusal(gitdir) ?? gitFailure(failed);
    return { head: head?.trim() || files?.sha?.slice(0, 7) || null, branch: (files ? files.branch : branch)?.trim() || null, uncommitted: null, uncommitted_count: null, unreadIndex: refused };
  }
  // No repository (a tarball, a GIT_DIR set elsewhere) or no git: which paths changed is unknown, never "none".
  if (status === null) return { head: head?.trim() || null, branch: null, uncommitted: null, uncommitted_count: null };
  const paths = parsePorcelainZ(status);
  return {
    head: head?.trim() || null,
    // An unborn branch (no commit yet) still has a name; a repository is what makes it meaningful.
    branch: branch?.trim() || null,
    uncommitted: paths.slice(0, MAX_UNCOMMITTED_PATHS),
    uncommitted_count: paths.length,
  };
}
