// The working tree's mechanical state for the recovery capsule: HEAD, branch and
// uncommitted paths. The branch is read from the git dir's files (git only when they are
// unusual); the short HEAD and the paths come from two concurrent git processes through the
// gateway. Outside a repository, without commits, or without git: nulls and [], never an
// error, because `pause --auto` runs from hooks on every compaction.
import type { CheckpointError } from '../errors.js';
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
  const [head, branch, status] = await Promise.all([
    // git's abbreviation grows with the object count: only git can say it exactly.
    git(root, ['rev-parse', '--short', 'HEAD']),
    files ? files.branch : git(root, ['symbolic-ref', '--short', '-q', 'HEAD']),
    git(root, ['--no-optional-locks', 'status', '--porcelain', '-z']),
  ]);
  if (status === null) {
    // A repository whose index git cannot read (a FIFO, garbage): HEAD and the branch still
    // come from their own files, the uncommitted paths are unknown, never "none".
    const gitdir = files?.gitdir ?? gitdirOrNull(root);
    const refused = gitdir === null ? null : indexRefusal(gitdir);
    if (refused) return { head: head?.trim() || null, branch: (files ? files.branch : branch)?.trim() || null, uncommitted: null, uncommitted_count: null, unreadIndex: refused };
  }
  const paths = status === null ? [] : parsePorcelainZ(status);
  return {
    head: head?.trim() || null,
    // An unborn branch (no commit yet) still has a name; a repository is what makes it meaningful.
    branch: status === null ? null : branch?.trim() || null,
    uncommitted: paths.slice(0, MAX_UNCOMMITTED_PATHS),
    uncommitted_count: paths.length,
  };
}
