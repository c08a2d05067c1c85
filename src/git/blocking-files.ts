// git opens the files of its own directory without asking what they are: a FIFO planted where a
// pack index, the index or the config should be makes every git process wait forever (and with
// it doctor in a pre-push hook); so would the embedded engine's reads (isomorphic-git's of a ref
// or the config, ours of the shallow file), and a link to /dev/zero never ends. git never writes
// one, so before either engine reads history the files read for our questions are checked to be
// no FIFO, socket or device.
// One directory listing and a few lstats: cheap next to one git process.
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import { outsideRuleFiles } from './config-places.js';
import { headRefFile } from './head-files.js';
import type { GitDirs } from './locate.js';

/** What git reads of the shared git dir, besides the pack folder. */
const COMMON_FILES = ['config', 'packed-refs', 'shallow', 'info/grafts', 'objects/info/alternates', 'objects/info/commit-graph', 'objects/info/multi-pack-index'];
/** What git reads of a work tree's own git dir for history questions (and the loose file of the
 * branch HEAD names); the index only git runs that read it check (index-guard.ts), so log answers
 * beside a FIFO there. */
const OWN_FILES = ['HEAD'];

/** A kind of file a read can block on or never end; null for a file, folder or nothing. */
export function blockingKind(st: Stats | undefined): string | null {
  if (!st) return null;
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return null;
}

/** Through a link as git would follow it; a dangling link, or a file on the way (ENOTDIR), is git's to report. */
export function kindAt(path: string): string | null {
  try {
    const own = lstatSync(path, { throwIfNoEntry: false });
    return blockingKind(own?.isSymbolicLink() ? statSync(path, { throwIfNoEntry: false }) : own);
  } catch {
    return null;
  }
}

/** kindAt for the entry itself: a link is no blocking file. */
function ownKindAt(path: string): string | null {
  try {
    return blockingKind(lstatSync(path, { throwIfNoEntry: false }));
  } catch {
    return null;
  }
}

/** Throws when a file git would open for a history question could block it. */
export function assertNoBlockingFiles(root: string, dirs: GitDirs): void {
  const paths = [...COMMON_FILES.map((f) => join(dirs.commonDir, f)), ...OWN_FILES.map((f) => join(dirs.gitdir, f))];
  const branch = headRefFile(dirs);
  if (branch) paths.push(branch);
  for (const folder of [join(dirs.commonDir, 'objects/pack'), join(dirs.commonDir, 'objects/info/commit-graphs')]) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue; // none, or not a folder: git says so itself
    }
    for (const name of names) paths.push(join(folder, name));
  }
  for (const path of paths) {
    const kind = kindAt(path);
    if (kind !== null) {
      throw new CheckpointError('E_GIT', `${shownPath(relative(root, path) || path)} is ${kind}, not a file: git would wait on it forever; refused`, {
        hint: 'git never writes one there: remove it, or run checkpoint in a clone you trust',
      });
    }
  }
}

/** What git status and check-ignore read of the shared git dir: the repository's own rules. */
const COMMON_RULES = ['info/exclude', 'info/attributes'];
/** What git status reads of a work tree's own git dir: a cherry-pick's or revert's state. */
const OWN_STATE = ['CHERRY_PICK_HEAD', 'REVERT_HEAD', 'sequencer/todo'];
/** The rules git reads in each folder it walks (for our pathspecs: the top and each folder on the way). */
const FOLDER_RULES = ['.gitignore', '.gitattributes'];

/**
 * Throws, in the words used for any project file that is no plain file, when a file git status
 * or check-ignore would read for `paths` (repo-relative, `/`-separated; a folder ends in `/`: git
 * reads its own rules too) could block it: the rules of each folder on the way, the repository's,
 * and those outside it the config names (core.excludesFile, core.attributesFile: a FIFO there, in
 * the user's home, blocked the pre-push hook as one in the repository did).
 */
export function assertNoBlockingRules(root: string, dirs: GitDirs, paths: readonly string[]): void {
  const folders = new Set(['']);
  for (const path of paths) for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) folders.add(path.slice(0, i));
  // git reads the work tree's rule files without following a link (a link to /dev/zero is no
  // rule file to it): only the entry itself can block. Those in the git dir are followed.
  const outside = outsideRuleFiles(root, dirs.gitdir, dirs.commonDir);
  const files = [
    ...[...folders].flatMap((folder) => FOLDER_RULES.map((name) => ({ path: join(root, folder, name), follow: false, setting: '' }))),
    ...COMMON_RULES.map((f) => ({ path: join(dirs.commonDir, f), follow: true, setting: '' })),
    ...OWN_STATE.map((f) => ({ path: join(dirs.gitdir, f), follow: true, setting: '' })),
    ...(outside.excludes ? [{ path: outside.excludes, follow: true, setting: ' (core.excludesFile)' }] : []),
    ...(outside.attributes ? [{ path: outside.attributes, follow: true, setting: ' (core.attributesFile)' }] : []),
    ...(outside.systemAttributes ? [{ path: outside.systemAttributes, follow: true, setting: " (git's system attributes file)" }] : []),
  ];
  for (const { path, follow, setting } of files) {
    const kind = follow ? kindAt(path) : ownKindAt(path);
    if (kind !== null) {
      const rel = relative(root, path);
      const shown = shownPath(rel && rel.split(/[\\/]/)[0] !== '..' && !isAbsolute(rel) ? rel : path);
      throw new CheckpointError('E_PATH', `${shown}${setting} is ${kind}, not a plain file; refused`, { hint: 'replace it with a regular file (or remove it)' });
    }
  }
}
