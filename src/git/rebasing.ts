// Whether a rebase is stopped or running in the checkout at `top`: there git's "ours" (stage 2,
// the merge driver's %A) is the upstream being rebased onto and "theirs" the user's own commit,
// the reverse of a merge, so conflict messages say so. Only node:fs, fetched as the merge driver
// fetches it (its bundle imports nothing it need not).

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

/** True while `git rebase` is in progress there (not `git am`, whose sides read as a merge's). */
export function rebaseInProgress(top: string): boolean {
  const dir = gitDirOf(top);
  return dir !== null && (fs.existsSync(`${dir}/rebase-merge`) || fs.existsSync(`${dir}/rebase-apply/rebasing`));
}
