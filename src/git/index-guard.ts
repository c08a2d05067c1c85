// git opens the index for status, diff, ls-files, add and the like without asking what it is:
// a FIFO, socket or device planted at .git/index makes such a git wait forever (or read
// garbage). Before each git run that may read it, one lstat (the git dir found once per work
// tree and process) says whether it is one, and the run is refused in indexRefusal's words.
// History questions (log, cat-file, ls-tree, rev-parse ...) never read the index: never refused.
import { statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { kindAt } from './blocking-files.js';
import { indexRefusal } from './index-damage.js';
import { gitdirOrNull } from './locate.js';

/** Subcommands that never open the index: everything else is checked. */
const NO_INDEX = new Set([
  'cat-file', 'config', 'count-objects', 'diff-tree', 'for-each-ref', 'hash-object', 'log', 'ls-tree', 'merge-base',
  'merge-file', 'name-rev', 'rev-list', 'rev-parse', 'show-ref', 'symbolic-ref', 'var', 'version',
]);

/** The git dir holding the index, by work-tree directory (null: none found), looked up once per process. */
const gitdirs = new Map<string, string | null>();

/** Throws indexRefusal's E_GIT when `git <args>` in `cwd` would open an index that is a FIFO, socket or device. */
export function assertIndexNotBlocking(cwd: string, args: readonly string[]): void {
  if (NO_INDEX.has(subcommandOf(args))) return;
  let gitdir = gitdirs.get(cwd);
  if (gitdir === undefined) {
    gitdir = gitdirOf(cwd);
    gitdirs.set(cwd, gitdir);
  }
  // The lstat itself each time: a long-lived process (the MCP server) sees a repaired index.
  if (gitdir === null || kindAt(join(gitdir, 'index')) === null) return;
  const refused = indexRefusal(gitdir);
  if (refused) throw refused;
}

function gitdirOf(cwd: string): string | null {
  const root = workTreeRoot(cwd);
  // Not in a repository, or a broken .git file: git's own error says so.
  return root === null ? null : gitdirOrNull(root);
}

function workTreeRoot(cwd: string): string | null {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const dotGit = statSync(join(dir, '.git'), { throwIfNoEntry: false });
    if (dotGit && (dotGit.isDirectory() || dotGit.isFile())) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** The subcommand of a git argument list: the first word past the global options. */
export function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return '';
}
