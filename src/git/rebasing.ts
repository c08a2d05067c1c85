// Whether a conflict at `top` is a rebase replaying one of the user's commits onto upstream:
// there git's "ours" (stage 2, the merge driver's %A) is the upstream being rebased onto and
// "theirs" the user's own commit, the reverse of a merge, so conflict messages say so. Not every
// merge made while .git/rebase-merge exists is one: the `merge` step of --rebase-merges (ours is
// the rebuilt branch, theirs the merged topic), and a cherry-pick, revert, merge or `stash pop`
// the user runs while the rebase is stopped (ours is HEAD, the user's own line). Git's state files
// tell most of these apart; a stash pop leaves none, so the last word is the content: theirs must
// be the replayed commit's blob at the path. Where that cannot be told (a rename moved the file),
// nothing is said: no note is better than one pointing at the wrong side. Files via node:fs, fetched
// as the merge driver fetches it; one git child, only for a conflict while a rebase is on.

import { spawnGitSync } from './git-sync.js';

const fs = process.getBuiltinModule('node:fs');

/** What ours and theirs are in a rebase, said beside a conflict. */
export const REBASE_SIDES = 'rebasing: "ours" is the upstream your commits are replayed onto, "theirs" is your own commit (--theirs <path> keeps your value)';

/** The git dir of the checkout at `top`: `.git` itself, or the folder a `.git` file (a worktree, a submodule) names. */
function gitDirOf(top: string): string | null {
  const dotGit = `${top}/.git`;
  try {
    if (fs.statSync(dotGit).isDirectory()) return dotGit;
    // A .git file is one line, `gitdir: <path>`; read a bounded prefix only.
    const fd = fs.openSync(dotGit, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    try {
      const buf = Buffer.alloc(4096);
      const text = buf.subarray(0, fs.readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
      const dir = /^gitdir: (.+?)\r?$/m.exec(text)?.[1];
      if (dir === undefined) return null;
      return /^(?:\/|[A-Za-z]:[\\/])/.test(dir) ? dir : `${top}/${dir}`;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** A todo command that replays one commit onto what the rebase has built (done's last line names the current step). */
const REPLAYING = /^(?:pick|p|reword|r|edit|e|squash|s|fixup|f)$/;

/** A state file's first line, or null when there is none. */
function firstLine(path: string): string | null {
  try {
    return fs.readFileSync(path, 'utf8').split('\n', 1)[0]!.trim();
  } catch {
    return null;
  }
}

/** The last line of a file, read from its end (done grows a line per step of a long rebase). */
function lastLine(path: string): string | null {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const size = fs.fstatSync(fd).size;
    const len = Math.min(size, 16 * 1024);
    const buf = Buffer.alloc(len);
    fs.readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
    return lines.at(-1) ?? null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Two object names for the same commit, either maybe abbreviated. */
function sameCommit(a: string, b: string): boolean {
  return a.length >= 7 && b.length >= 7 && (a.startsWith(b) || b.startsWith(a));
}

/**
 * The commit a rebase in the checkout at `top` is replaying, by git's state files; null when no
 * rebase is on or what merges now is not its replay: a `merge`, `exec` or `break` step, a stop at
 * an `edit` whose pick went clean (`amend`: anything merging there is the user's own command), a
 * cherry-pick (CHERRY_PICK_HEAD naming another commit), a revert or a merge. `git am` alone is no
 * rebase (its sides read as a merge's).
 */
export function replayedCommit(top: string): string | null {
  const dir = gitDirOf(top);
  if (dir === null) return null;
  let commit: string | null;
  if (fs.existsSync(`${dir}/rebase-merge`)) {
    if (fs.existsSync(`${dir}/rebase-merge/amend`)) return null;
    // `pick <oid> <subject>`, `fixup -C <oid> <subject>`: the first word after the options.
    const [command, ...rest] = (lastLine(`${dir}/rebase-merge/done`) ?? '').split(/\s+/);
    if (!REPLAYING.test(command ?? '')) return null;
    commit = rest.find((w) => !w.startsWith('-')) ?? null;
  } else if (fs.existsSync(`${dir}/rebase-apply/rebasing`)) {
    commit = firstLine(`${dir}/rebase-apply/original-commit`);
  } else return null;
  if (commit === null || !/^[0-9a-f]{4,64}$/.test(commit)) return null;
  if (fs.existsSync(`${dir}/REVERT_HEAD`) || fs.existsSync(`${dir}/MERGE_HEAD`)) return null;
  const picking = firstLine(`${dir}/CHERRY_PICK_HEAD`);
  return picking !== null && !sameCommit(picking, commit) ? null : commit;
}

/** A blob's bytes by git's `<rev>:<path>` name, or null when there is none. */
export function blobAt(top: string, name: string): Buffer | null {
  const child = spawnGitSync(top, ['cat-file', 'blob', name]);
  return child.error || child.status !== 0 ? null : child.stdout;
}

/**
 * Whether the conflict at `path` is a rebase replaying the user's commit onto upstream: a replay
 * is on and theirs (`theirs`, null when that side has no file) is that commit's file, byte for byte.
 */
export function replayConflict(top: string, path: string, theirs: Buffer | null): boolean {
  const commit = replayedCommit(top);
  if (commit === null) return false;
  const replayed = blobAt(top, `${commit}:${path}`);
  return replayed === null || theirs === null ? replayed === theirs : replayed.equals(theirs);
}
