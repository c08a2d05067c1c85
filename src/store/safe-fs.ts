// The only way a project file is read or written. A clone may be hostile: git commits
// symlinks (to /etc, to /dev/zero, in loops, dangling), and a FIFO can sit in a working
// tree. So every path below the project root is walked one component at a time with
// lstat; a link is followed only when its real target stays inside the project; the last
// component must be a plain file; files are opened O_NOFOLLOW|O_NONBLOCK (a FIFO neither
// blocks the open nor is read) and never read past a cap. A path named outside the project
// on purpose (`validate /tmp/x.json`) gets the same file-type and size checks.
// Loaded by the merge driver too, so it takes fs from process.getBuiltinModule (no ESM facade).
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import { pathArg } from './paste-path.js';

const fs = process.getBuiltinModule('node:fs');
const path = process.getBuiltinModule('node:path');
type Stats = import('node:fs').Stats;
type BigIntStats = import('node:fs').BigIntStats;

/** Default cap on any project file read; checkpoints use their own (MAX_READ_BYTES). */
export const MAX_PROJECT_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Whether `p` is an absolute POSIX path path.resolve would give back unchanged (no empty, `.` or
 * `..` component, no trailing slash): the common case of a path built from the root, for which
 * the read path skips resolve's character-by-character work.
 */
export function isNormalAbsolute(p: string): boolean {
  return path.sep === '/' && p.charCodeAt(0) === 47 && !/\/\.{0,2}(?:\/|$)/.test(p);
}

const realRoots = new Map<string, string>();
/** The root with its links resolved (once per root): project paths are judged against it. */
export function realRoot(root: string): string {
  let real = realRoots.get(root);
  if (real === undefined) {
    try {
      real = fs.realpathSync(root);
    } catch {
      real = path.resolve(root);
    }
    realRoots.set(root, real);
  }
  return real;
}

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
/** The git folder is inside the root but no project file: a committed link into it would put an archive or a checkpoint where git never tracks it, or show .git/config's remote URLs. */
const inGitFolder = (p: string, top: string) => inside(p, path.join(top, '.git'));

/** A path inside a message: relative to the root, and bounded (a typed argument can be any length). */
function show(root: string, p: string): string {
  return shownPath(path.relative(root, p) || p);
}

/** A name longer than the file system allows (ENAMETOOLONG) names no file: it is missing, not an internal error. */
const NAMES_NOTHING = new Set(['ENOENT', 'ENAMETOOLONG']);

function unsafe(message: string, hint: string): CheckpointError {
  return new CheckpointError('E_PATH', message, { hint });
}

export interface Located {
  /** The path as named (inside the root when it was named inside). */
  path: string;
  /** Where it really is once in-project links are followed. */
  real: string;
  /** lstat of the real path; null when it does not exist (yet). */
  stat: Stats | null;
}

/**
 * Walks `p` from the project root without ever following a link out of it. Throws E_UNSAFE
 * for a link leading out, a loop or a dangling link on the way; a missing component ends the
 * walk with stat null. A path not below the root is only lstat'ed, links followed (named on purpose).
 */
export function locate(root: string, p: string): Located {
  const abs = path.resolve(root, p);
  const rel = path.relative(path.resolve(root), abs);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return locateOutside(root, abs);
  const top = realRoot(root);
  const parts = rel.split(path.sep);
  let cur = top;
  let st: Stats | null = null;
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(cur, parts[i]!);
    const named = path.join(root, ...parts.slice(0, i + 1));
    try {
      st = fs.lstatSync(next);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (NAMES_NOTHING.has(code!)) return { path: abs, real: path.join(next, ...parts.slice(i + 1)), stat: null };
      if (code === 'ENOTDIR') throw unsafe(`${show(root, path.dirname(named))} is not a folder`, 'remove or rename it');
      throw e;
    }
    if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = fs.realpathSync(next);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        const what = code === 'ELOOP' ? 'a symlink loop' : code === 'ENOENT' ? `a dangling symlink (to ${fs.readlinkSync(next)})` : `an unreadable symlink (${code})`;
        throw unsafe(`${show(root, named)} is ${what}`, 'replace the link with a real file or folder (checkpoint never follows it)');
      }
      if (!inside(target, top)) {
        throw unsafe(`${show(root, named)} is a symlink to ${target}, outside the project; refused`, 'git tracks the link, not what it points at: replace it with a real file or folder');
      }
      if (inGitFolder(target, top)) {
        throw unsafe(`${show(root, named)} is a symlink into the git folder (${show(top, target)}); refused`, 'git tracks the link, not what it points at: replace it with a real file or folder');
      }
      cur = target;
      st = fs.statSync(target);
    } else cur = next;
    if (i < parts.length - 1 && !st.isDirectory()) throw unsafe(`${show(root, named)} is not a folder`, 'remove or rename it');
  }
  return { path: abs, real: cur, stat: st };
}

function locateOutside(root: string, abs: string): Located {
  try {
    const st = fs.statSync(abs);
    return { path: abs, real: fs.realpathSync(abs), stat: st };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (NAMES_NOTHING.has(code!) || code === 'ENOTDIR') {
      // A dangling link is not "missing": say what it is.
      try {
        if (fs.lstatSync(abs).isSymbolicLink()) throw unsafe(`${show(root, abs)} is a dangling symlink`, 'point it at a real file');
      } catch (inner) {
        if (inner instanceof CheckpointError) throw inner;
      }
      return { path: abs, real: abs, stat: null };
    }
    if (code === 'ELOOP') throw unsafe(`${show(root, abs)} is a symlink loop`, 'replace the link with a real file');
    throw e;
  }
}

/** What a file system entry is, for "<path> is <kind>, not a <wanted>": it names what is there, never only what it is not. */
function kindOf(st: Stats | BigIntStats): string {
  if (st.isFile()) return 'a file';
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symlink';
  return 'of an unknown kind';
}

function assertPlain(root: string, loc: Located): void {
  if (loc.stat && !loc.stat.isFile()) {
    throw unsafe(`${show(root, loc.path)} is ${kindOf(loc.stat)}, not a plain file; refused`, 'replace it with a regular file (or remove it)');
  }
}

/** The plain file at `p` (checked as `locate` does), or null when it does not exist. */
export function statProjectFile(root: string, p: string): Located | null {
  const loc = locate(root, p);
  if (!loc.stat) return null;
  assertPlain(root, loc);
  return loc;
}

export interface ReadOptions {
  /** Refuse a file larger than this (default MAX_PROJECT_FILE_BYTES). */
  maxBytes?: number;
  /** Hint for a file over the cap (or made from its size, when known). */
  sizeHint?: string | ((size: number | undefined) => string);
}

function overCap(root: string, p: string, size: number | string, max: number, hint?: ReadOptions['sizeHint']): CheckpointError {
  const said = typeof hint === 'function' ? hint(typeof size === 'number' ? size : undefined) : hint;
  return new CheckpointError('E_INVALID', `${show(root, p)} is ${size} bytes, over the ${max}-byte limit`, { hint: said ?? 'that is not a file checkpoint writes; move it out of the way' });
}

const OPEN_LEAF = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Folders inside the project already walked by `locate` (name -> real path), kept only for the
 * synchronous stretch of code that walked them: a command reading a dozen checkpoints walks
 * .checkpoints/ once, while a long-lived process (the MCP server) walks it again on each request.
 */
const walkedDirs = new Map<string, string>();
function walkedDir(root: string, dir: string): string | null {
  const key = `${root}\0${dir}`;
  let real = walkedDirs.get(key);
  if (real === undefined) {
    const rel = path.relative(path.resolve(root), dir);
    if (rel.startsWith('..') || path.isAbsolute(rel)) return null; // named outside: the full checks
    const loc = locate(root, dir);
    if (!loc.stat?.isDirectory()) return null;
    real = loc.real;
    if (walkedDirs.size === 0) setImmediate(() => walkedDirs.clear());
    walkedDirs.set(key, real);
  }
  return real;
}

/** A project file as read: its bytes (null when `unless` left it unread) and the fstat of what was opened. */
export interface ProjectFile {
  bytes: Buffer | null;
  stat: BigIntStats;
}

export interface FileReadOptions extends ReadOptions {
  /**
   * Called with the fstat of the opened file (a plain file under the cap, all checks passed):
   * true leaves it unread. A caller that knows this exact file already (verdicts.ts) skips the read.
   */
  unless?: (st: BigIntStats) => boolean;
}

/** Reads the opened plain file `fd` whole, unless `unless` says not to; undefined when it grew past `max` meanwhile. */
function readOpened(fd: number, st: BigIntStats, max: number, unless?: (st: BigIntStats) => boolean): ProjectFile | undefined {
  if (unless?.(st)) return { bytes: null, stat: st };
  // Room for what fstat saw plus one byte, so a file that grew past the cap meanwhile is caught.
  const buf = Buffer.allocUnsafe(Math.min(Number(st.size), max) + 1);
  let n = 0;
  for (let r; n < buf.length && (r = fs.readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += r;
  return n > max ? undefined : { bytes: buf.subarray(0, n), stat: st };
}

/**
 * The common case of readProjectFile in one open and one fstat: a plain file, under the cap,
 * in a folder already walked, opened without following a link. Anything else (a link, a FIFO,
 * a folder, too big, unreadable) returns undefined and takes the full path, which says what it is.
 */
function readPlainLeaf(root: string, abs: string, max: number, unless?: (st: BigIntStats) => boolean): ProjectFile | null | undefined {
  const dir = walkedDir(root, path.dirname(abs));
  if (dir === null) return undefined;
  let fd: number;
  try {
    fd = fs.openSync(`${dir}${path.sep}${path.basename(abs)}`, OPEN_LEAF);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    const st = fs.fstatSync(fd, { bigint: true });
    if (!st.isFile() || st.size > BigInt(max)) return undefined;
    return readOpened(fd, st, max, unless);
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes of the plain file at `p`, at most `maxBytes`; null when it does not exist. */
export function readProjectBytes(root: string, p: string, opts: ReadOptions = {}): Buffer | null {
  return readProjectFile(root, p, opts)?.bytes ?? null;
}

/** The plain file at `p` (bytes at most `maxBytes`) with the fstat of what was read; null when it does not exist. */
export function readProjectFile(root: string, p: string, opts: FileReadOptions = {}): ProjectFile | null {
  const max = opts.maxBytes ?? MAX_PROJECT_FILE_BYTES;
  const fast = readPlainLeaf(root, isNormalAbsolute(p) ? p : path.resolve(root, p), max, opts.unless);
  if (fast !== undefined) return fast;
  const loc = statProjectFile(root, p);
  if (!loc) return null;
  if (loc.stat!.size > max) throw overCap(root, loc.path, loc.stat!.size, max, opts.sizeHint);
  let fd: number;
  try {
    fd = fs.openSync(loc.real, OPEN_LEAF);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw unsafe(`${show(root, loc.path)} became a symlink while reading; refused`, 'run the command again');
    if (code === 'ENOENT') return null;
    throw e;
  }
  try {
    // fstat the opened file: what was checked is what is read.
    const st = fs.fstatSync(fd, { bigint: true });
    if (!st.isFile()) throw unsafe(`${show(root, loc.path)} is ${kindOf(st)}, not a plain file; refused`, 'replace it with a regular file');
    const file = readOpened(fd, st, max, opts.unless);
    if (!file) throw overCap(root, loc.path, `over ${max}`, max, opts.sizeHint);
    return file;
  } finally {
    fs.closeSync(fd);
  }
}

// Made on first use (most runs read no project file as text): making one starts node's TextDecoder machinery.
let decoder: TextDecoder | undefined;

/** UTF-8 text of the plain file at `p` (BOM kept), or null when it does not exist. */
export function readProjectText(root: string, p: string, opts: ReadOptions = {}): string | null {
  const bytes = readProjectBytes(root, p, opts);
  if (bytes === null) return null;
  try {
    return (decoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })).decode(bytes);
  } catch {
    throw new CheckpointError('E_INVALID', `${show(root, path.resolve(root, p))}: not valid UTF-8`, { hint: 'save the file as UTF-8' });
  }
}

/**
 * A small file read at `p` exactly (the last component never followed), or null when it is
 * absent, not a plain file, or over `maxBytes`: for lock files and our caches in the git dir,
 * whose folders are already checked.
 */
export function readLeaf(p: string, maxBytes: number): string | null {
  let fd: number;
  try {
    fd = fs.openSync(p, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    return readPlainFd(fd, maxBytes);
  } finally {
    fs.closeSync(fd);
  }
}

/** The text of the open `fd` when it is a plain file of at most `maxBytes`, else null (never throws, never closes it). */
export function readPlainFd(fd: number, maxBytes: number): string | null {
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    // Room for what fstat saw plus one byte, so a file that grew past the cap meanwhile is caught.
    const buf = Buffer.allocUnsafe(Math.min(st.size, maxBytes) + 1);
    let n = 0;
    for (let r; n < buf.length && (r = fs.readSync(fd, buf, n, buf.length - n, null)) > 0; ) n += r;
    return n > maxBytes ? null : buf.subarray(0, n).toString('utf8');
  } catch {
    return null;
  }
}

/** Removes the folder `dir` inside the project if it is empty (a folder this run made and did not use); otherwise leaves it. */
export function removeEmptyDir(root: string, dir: string): void {
  try {
    fs.rmdirSync(path.resolve(root, dir)); // never follows a link, refuses a folder with anything in it
  } catch {
    // not empty, not a folder, or gone: left as it is
  }
}

/**
 * What is at a project path, told without reading through a link out of the project: a plain
 * file or folder (in-project links followed), nothing, something that is not a file (a FIFO, a
 * device, a socket: `what` says which), or a path reached through a symlink that leads out of the
 * project (`link`: that link's project-relative path, `to`: its target as written). A link out is
 * judged by where it points, never by what is there: the answer is the same whether or not its
 * target exists. A dangling link or a loop inside the project is nothing there.
 */
export type ProjectEntry =
  | { kind: 'file' | 'folder' | 'missing' }
  | { kind: 'special'; what: string }
  | { kind: 'link-out'; link: string; to: string; /** It points into the git folder, inside the root but no project file. */ gitFolder?: true };

const MISSING: ProjectEntry = { kind: 'missing' };
const FILE: ProjectEntry = { kind: 'file' };
const FOLDER: ProjectEntry = { kind: 'folder' };

function entryOf(st: Stats): ProjectEntry {
  return st.isFile() ? FILE : st.isDirectory() ? FOLDER : { kind: 'special', what: kindOf(st) };
}

/** projectEntry for `rel`, a normalized project-relative path with `/` separators (no `.`, `..` or empty part). */
export function projectEntry(root: string, rel: string): ProjectEntry {
  // Walked with lstat from the root, never stat: a stat or realpath of "docs/x" follows a committed
  // link out (to a hung network mount, a FIFO, /dev/zero) before anything could judge it.
  return walkEntry(realRoot(root), rel.split('/'));
}

/** At most this many links followed on one path: more is a loop (the kernel's own limit is 40). */
const MAX_HOPS = 40;

/**
 * One component at a time from the real root, as `locate` walks, but every link judged by where
 * it points as written (resolved against the real folder holding it), never by what is there: a
 * link inside the project is followed by its written target, one out of it ends the walk.
 */
function walkEntry(top: string, parts: readonly string[]): ProjectEntry {
  let rest = parts.filter(Boolean);
  let cur = top;
  let walked: string[] = [];
  let st: Stats | null = null;
  let hops = 0;
  while (rest.length) {
    const [part, ...after] = rest as [string, ...string[]];
    rest = after;
    const next = path.join(cur, part);
    try {
      st = fs.lstatSync(next, { throwIfNoEntry: false }) ?? null;
    } catch {
      st = null;
    }
    if (st === null) return MISSING;
    if (st.isSymbolicLink()) {
      let to: string;
      try {
        to = fs.readlinkSync(next, 'utf8');
      } catch {
        return MISSING;
      }
      const target = path.resolve(cur, to);
      // A link into the git folder leads out of the project as much as one out of the root (locate refuses both).
      if (!inside(target, top)) return { kind: 'link-out', link: [...walked, part].join('/'), to };
      if (inGitFolder(target, top)) return { kind: 'link-out', link: [...walked, part].join('/'), to, gitFolder: true };
      if (++hops > MAX_HOPS) return MISSING; // a loop inside the project
      // Walked again from the root along the target: each of its components judged the same way.
      rest = [...path.relative(top, target).split(path.sep).filter(Boolean), ...rest];
      cur = top;
      walked = [];
      st = null;
      continue;
    }
    cur = next;
    walked.push(part);
    if (rest.length && !st.isDirectory()) return MISSING;
  }
  return st === null ? (cur === top ? FOLDER : MISSING) : entryOf(st);
}

/** Whether something (anything) is at `p`, checked without following a link out. */
export function projectPathExists(root: string, p: string): boolean {
  return locate(root, p).stat !== null;
}

/**
 * Creates the folder `dir` (and missing parents) inside the project, refusing any component
 * that is a link out, a loop or a non-folder. Returns the real path of the folder.
 */
export function ensureProjectDir(root: string, dir: string): string {
  const loc = locate(root, dir);
  if (loc.stat) {
    if (!loc.stat.isDirectory()) throw unsafe(`${show(root, loc.path)} is ${kindOf(loc.stat)}, not a folder; refused`, 'remove or rename it');
    return loc.real;
  }
  // locate stopped at the first missing component; create from there, one level at a time.
  ensureProjectDir(root, path.dirname(loc.path));
  try {
    fs.mkdirSync(loc.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return ensureProjectDir(root, loc.path);
}

/**
 * The folder `name` directly in the project folder `parent`, made when missing and `create`: a
 * real folder, never a link, not even one that stays in the project. `parent` is walked as
 * locate walks it, so a `parent` the user linked to a folder of the project (a shared
 * `.checkpoints -> tools/agent-state`) is that folder. A committed `.checkpoints/history -> ../src`
 * would put what is written there among the user's sources, and have them read back as ours:
 * refused in one line (E_UNSAFE) that ends "refused to <refused>". Null when missing and not made.
 */
export function ownFolder(root: string, parent: string, name: string, opts: { create?: boolean; refused: string }): string | null {
  const named = path.join(path.resolve(root, parent), name);
  let home: string;
  if (opts.create) home = ensureProjectDir(root, parent);
  else {
    const loc = locate(root, parent);
    if (!loc.stat) return null;
    if (!loc.stat.isDirectory()) throw unsafe(`${show(root, loc.path)} is ${kindOf(loc.stat)}, not a folder; refused`, 'remove or rename it');
    home = loc.real;
  }
  const at = path.join(home, name);
  for (let tries = 0; ; tries++) {
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (st?.isDirectory()) return at;
    if (st?.isSymbolicLink()) {
      // A link out of the project, into .git, dangling or in a loop: refused as every path is.
      const to = locate(root, named).real;
      throw new CheckpointError('E_UNSAFE', `${show(root, named)} is a link to ${show(realRoot(root), to)}, not a folder of ${show(root, path.resolve(root, parent))}/; refused to ${opts.refused}`, {
        hint: `replace the link with a real folder (git rm ${pathArg(root, path.relative(root, named).split(path.sep).join('/'))}, then move what it held into a new ${show(root, named)}/)`,
      });
    }
    if (st) throw unsafe(`${show(root, named)} is ${kindOf(st)}, not a folder; refused`, 'remove or rename it');
    if (!opts.create || tries > 0) return null;
    try {
      fs.mkdirSync(at);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/** Names in the project folder `dir`; [] when it does not exist. */
export function listProjectDir(root: string, dir: string): string[] {
  const loc = locate(root, dir);
  if (!loc.stat) return [];
  if (!loc.stat.isDirectory()) throw unsafe(`${show(root, loc.path)} is ${kindOf(loc.stat)}, not a folder; refused`, 'remove or rename it');
  return fs.readdirSync(loc.real);
}

/** What the link at `p`'s last component points to (as written in the link), or null when `p` is no link. */
export function linkAt(p: string): string | null {
  try {
    return fs.lstatSync(p).isSymbolicLink() ? fs.readlinkSync(p, 'utf8') : null;
  } catch {
    return null;
  }
}

/**
 * The real path to write `p` at: its folder checked (and created) as by ensureProjectDir, the
 * file itself absent or plain. An atomic rename replaces a link at the last component rather
 * than writing through it, but an in-place write (appendFile, writeFileSync) would not: use this.
 */
export function writablePath(root: string, p: string, opts: { atomic?: boolean } = {}): string {
  const abs = path.resolve(root, p);
  const dir = ensureProjectDir(root, path.dirname(abs));
  const target = path.join(dir, path.basename(abs));
  let st: Stats | null = null;
  try {
    st = fs.lstatSync(target);
  } catch {
    // absent: fine
  }
  // An atomic rename replaces a link (never writes through it), so only in-place writes refuse one.
  if (st?.isSymbolicLink() && opts.atomic) return target;
  if (st?.isSymbolicLink()) throw unsafe(`${show(root, abs)} is a symlink; refused to write through it`, 'replace the link with a real file');
  if (st && !st.isFile()) throw unsafe(`${show(root, abs)} is ${kindOf(st)}, not a plain file; refused`, 'remove or rename it');
  return target;
}
