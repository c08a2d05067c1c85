// The merge.checkpoint.* values install-driver writes, as pure text: what install sets, and
// whether a value found in a clone's config is one of ours (from any install, a moved one too)
// or the user's own (kept by install, and named by doctor instead of sending the user to
// install-driver, which would keep it again).

import { shellQuote } from '../shell-words.js';

// The POSIX shell git runs drivers with reads the paths quoted as any pasted command.
export { shellQuote };

export const DRIVER_NAME = 'checkpoint semantic JSON merge (checkpoint merge-driver)';

/** What the driver says, in place of node's stack trace, when the install it names is gone; git's quoted %P ends it. */
export const DRIVER_GONE = 'checkpoint: the merge driver cannot run (its install, or the node it runs with, moved or was removed), so this checkpoint was left unmerged; run checkpoint install-driver, then: git checkout --merge -- ';

/**
 * %O %A %B %P %L: git substitutes them already shell-quoted, and runs the whole line with the
 * shell (sh on every platform, Git for Windows' own included). The bin and node are looked for
 * first: node given a script that is gone prints a stack trace into `git merge`'s output, and an
 * `exec` of a node that is gone (a version manager removed it) ends the shell with sh's own
 * "not found", before the line after it; this prints one line that says what to do.
 */
export function driverCommand(nodePath: string, binPath: string): string {
  const bin = shellQuote(binPath);
  const node = shellQuote(nodePath);
  return `[ -f ${bin} ] && [ -x ${node} ] && exec ${node} ${bin} merge-driver %O %A %B %P %L; echo ${shellQuote(DRIVER_GONE)}%P >&2; exit 1`;
}

const QUOTED = `'(?:[^']|'\\\\'')*'`;
const OUR_DRIVER = new RegExp(`^(?:\\[ -f ${QUOTED} \\] && (?:\\[ -x ${QUOTED} \\] && )?exec )?${QUOTED} ${QUOTED} merge-driver %O %A %B %P %L(?:; echo ${QUOTED}%P >&2; exit 1)?$`);

/** True for a driver command install wrote, now or in an earlier version (whichever node and bin paths it baked in). */
export function isOurDriverCommand(value: string): boolean {
  return OUR_DRIVER.test(value);
}

/** The node and launcher a driver command of ours runs (as written in it, unquoted), or null. */
export function driverInstall(value: string): { node: string; bin: string } | null {
  if (!isOurDriverCommand(value)) return null;
  const m = new RegExp(`(${QUOTED}) (${QUOTED}) merge-driver %O`).exec(value);
  const unquote = (q: string) => q.slice(1, -1).replace(/'\\''/g, "'");
  return m ? { node: unquote(m[1]!), bin: unquote(m[2]!) } : null;
}
