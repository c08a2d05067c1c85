// `git status` for a few named paths, answered from git's own index file when git itself would
// answer from it and, at most, a file's content: doctor's one question to git, on a clean work
// tree, then costs a file read and a few lstat calls instead of a process.
//
// Exact by construction: every answer here is one git would give from the same bytes (stat data
// equal, field for field, to the index entry; the index's cached tree equal to HEAD's tree). Where
// git settles an entry by its content (a racily clean entry, a touched file of the recorded size)
// the file is hashed as git hashes it, only when no conversion applies (no filter, ident, encoding
// or line-ending rule). Anything this reader does not judge the same way git does (a conversion, a
// changed mode or type, assume-unchanged or skip-worktree flags, conflicts, a split or sparse
// index, a nested repository, a symlink on the way, an odd config) answers null: the caller asks
// git.
import { closeSync, lstatSync, readlinkSync, readSync, type BigIntStats } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { openPlainGitFile, readGitFile } from './git-file.js';
import { currentConfigPlaces } from './config-places.js';
import { IndexEntries } from './index-entries.js';
import { usesSha256 } from './object-format.js';
import { attributeFilesAbove, eolAttributes, readEolConfig, type EolConfig } from './eol-attributes.js';
import { cleanRule } from './eol-convert.js';
import { readProjectFile } from '../store/safe-fs.js';

/** An index larger than this is left to git (tens of thousands of files stay well under it). */
const MAX_INDEX_BYTES = 32 * 1024 * 1024;

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const NS = 1_000_000_000n;

export interface IndexStatusInput {
  /** The work tree's root. */
  root: string;
  /** The per-worktree git dir (its `index`) and the common dir (its `config`). */
  gitdir: string;
  commonDir: string;
  /** Repo-relative paths, `/`-separated. */
  paths: readonly string[];
}

interface Entry {
  at: number;
  flags: number;
  extended: number;
}

/**
 * Of `paths`, those whose work-tree state differs from the index's cached root tree (git status
 * lists them: edited, deleted, untracked or ignored), with that tree: when it is HEAD's tree, the
 * answer is git's against HEAD (the caller compares). Null when only git can tell.
 */
export function uncommittedFromIndex(input: IndexStatusInput): { tree: string; changed: Set<string> } | null {
  const { root, paths } = input;
  if (!paths.every(plainPath) || oddConfig(input.gitdir, input.commonDir)) return null;
  const index = readIndex(join(input.gitdir, 'index'));
  if (!index) return null;
  const { buf, mtimeSec } = index;
  const oidBytes = usesSha256(input.commonDir) ? 32 : 20;
  const entries = IndexEntries.of(buf, oidBytes);
  if (!entries) return null;
  // The attribute files above each path too: one missing from the work tree applies as staged.
  const lookups = [...new Set([...paths, ...paths.flatMap(attributeFilesAbove)])];
  // git folds ASCII case byte by byte (core.ignorecase, however it was set): a twin is git's call.
  // Compared as bytes in place: no string per index entry. A path holding U+FFFD could equal an
  // entry's undecodable name as text but not as bytes: git's call too.
  if (paths.some((p) => p.includes('\ufffd'))) return null;
  const byLength = new Map<number, { path: string; bytes: Buffer; folded: Buffer }[]>();
  for (const path of lookups) {
    const bytes = Buffer.from(path, 'utf8');
    const folded = Buffer.from(bytes.map((c) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c)));
    const list = byLength.get(bytes.length);
    if (list) list.push({ path, bytes, folded });
    else byLength.set(bytes.length, [{ path, bytes, folded }]);
  }
  const found = new Map<string, Entry>();
  while (entries.step()) {
    const nameLength = entries.nameLength;
    const sameLength = byLength.get(nameLength);
    if (sameLength) {
      // Byte loops written out here, from the end (where paths differ): a helper or node's
      // Buffer.compare, called for each entry, gets hot enough for V8 to optimize it, a cost
      // larger than the loop.
      const name = entries.name;
      const nameAt = entries.nameStart;
      let mine: (typeof sameLength)[number] | undefined;
      let twin = false;
      for (const w of sameLength) {
        let exact = true;
        let folds = true;
        for (let j = nameLength - 1; j >= 0 && folds; j--) {
          const c = name[nameAt + j]!;
          if (c === w.bytes[j]) continue;
          exact = false;
          folds = (c >= 0x41 && c <= 0x5a ? c | 0x20 : c) === w.folded[j];
        }
        if (exact) {
          mine = w;
          break;
        }
        twin ||= folds;
      }
      if (mine) {
        // A second entry (a conflict's stage): git's to judge, known before reading on.
        if (found.has(mine.path)) return null;
        found.set(mine.path, { at: entries.at, flags: entries.flags, extended: entries.extended });
      } else if (twin) return null;
    }
  }
  if (entries.broken) return null;
  const at = entries.next;
  const end = entries.end;
  const tree = cachedTree(buf, at, end, oidBytes);
  if (tree === null) return null;

  const changed = new Set<string>();
  const dirs = new Map<string, boolean>();
  // Read once, when a content comparison first needs them.
  let config: EolConfig | undefined;
  let looseStat: boolean | undefined;
  const inRoot = under(root);
  for (const path of paths) {
    if (!plainAncestors(inRoot, path, dirs)) return null;
    const entry = found.get(path);
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(inRoot(path), { bigint: true, throwIfNoEntry: false });
    } catch {
      return null;
    }
    if (!entry) {
      // Not in the index, which holds exactly HEAD's tree: untracked or ignored when there is
      // a file (git lists both), nothing when absent. A folder is listed by the files in it.
      if (st === undefined || st.isDirectory()) continue;
      if (!st.isFile() && !st.isSymbolicLink()) return null;
      changed.add(path);
      continue;
    }
    // Assume-unchanged, a conflict stage, skip-worktree or intent-to-add: git's rules, not ours.
    if (entry.flags & 0xb000 || entry.extended & 0x6000) return null;
    if (st === undefined) {
      changed.add(path); // deleted in the work tree
      continue;
    }
    const verdict = statVerdict(buf, entry.at, st, mtimeSec);
    if (verdict === 'content') {
      if ((looseStat ??= configSays(input.gitdir, input.commonDir, STAT_WORDS, STAT_SETTING))) return null;
      const same = sameContent(input, path, st.isSymbolicLink(), (config ??= readEolConfig(input.gitdir, input.commonDir)), buf.subarray(entry.at + 40, entry.at + 40 + oidBytes), (rel) => (found.has(rel) ? undefined : null));
      if (same === null) return null;
      if (!same) changed.add(path);
    } else if (verdict === 'changed') changed.add(path);
    else if (verdict === null) return null;
  }
  return { tree, changed };
}

/**
 * Whether the file at `path` holds the blob `oid` as git would hash it (`blob <size>\0` and the
 * bytes, by the repository's object format; a symlink's bytes are its target, as git compares
 * one: ce_compare_link); null when git would convert a regular file on the way
 * (a filter, ident, an encoding or a line-ending rule, or config or attributes this reader cannot
 * follow) or it cannot be read as a plain project file: git's to judge. `staged(rel)` is what
 * eolAttributes asks of an attribute file missing from the work tree.
 */
function sameContent(input: IndexStatusInput, path: string, link: boolean, config: EolConfig, oid: Buffer, staged: (rel: string) => string | null | undefined): boolean | null {
  if (link) {
    try {
      return blobHash(readlinkSync(join(input.root, path), { encoding: 'buffer' }), oid.length).equals(oid);
    } catch {
      return null;
    }
  }
  if (config.inexact) return null;
  const attrs = eolAttributes(input.root, input.commonDir, path, config, staged);
  if ('inexact' in attrs) return null;
  const rule = cleanRule(attrs, config.autocrlf);
  if ('inexact' in rule || rule.action !== 'binary') return null;
  let bytes: Buffer | null;
  try {
    bytes = readProjectFile(input.root, path)?.bytes ?? null;
  } catch {
    return null; // a link out, not a plain file, over the cap: git's to judge
  }
  return bytes === null ? null : blobHash(bytes, oid.length).equals(oid);
}

/** The object id git gives a blob holding `bytes`: SHA-1, or SHA-256 for 32-byte ids. */
function blobHash(bytes: Buffer, oidBytes: number): Buffer {
  // node:crypto fetched here, not imported: only a content comparison hashes, and most runs make none.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash(oidBytes === 32 ? 'sha256' : 'sha1').update(`blob ${bytes.length}\0`).update(bytes).digest();
}

/** Repo-relative, no `.git` component, nothing git would normalise differently. */
function plainPath(path: string): boolean {
  if (!path || path.includes('\0') || path.startsWith('/') || path.endsWith('/')) return false;
  return path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..' && seg.toLowerCase() !== '.git');
}


/**
 * Settings under which git matches paths or finds the work tree otherwise than this reader
 * does, looked for in every file git reads them from (an include: git's call). Loosely: a
 * false alarm only means asking git.
 */
// A line's own blanks before "[" (not `^\s*`, which retried from each line of a long run of blank lines).
const ODD_SETTING = /(?:^|[\s\];])(?:ignorecase|worktree|precomposeunicode|sparsecheckout)\b|^[^\S\n\r\u2028\u2029]*\[\s*include/im;
/**
 * The words ODD_SETTING needs, lower-cased: a text without any (lower-cased) cannot match, and
 * most configs have none, so the regex (costly to compile: its i-flag classes are closed over
 * Unicode case) is run only when one is there.
 */
const ODD_WORDS = ['ignorecase', 'worktree', 'precomposeunicode', 'sparsecheckout', 'include'];

function oddConfig(gitdir: string, commonDir: string): boolean {
  return configSays(gitdir, commonDir, ODD_WORDS, ODD_SETTING);
}

/**
 * Settings under which git's stat comparison trusts less than this reader compares (ctime or
 * inode left out, fsmonitor's word taken): git may then call a file clean whose content changed,
 * so a content comparison would not give git's answer. Loosely, as ODD_SETTING.
 */
const STAT_SETTING = /(?:^|[\s\];])(?:trustctime|checkstat|fsmonitor)\b/im;
const STAT_WORDS = ['trustctime', 'checkstat', 'fsmonitor'];

/** Whether any config file git reads has `words` (lower-cased) and matches `setting`; or is unreadable, or config comes from the environment. */
function configSays(gitdir: string, commonDir: string, words: readonly string[], setting: RegExp): boolean {
  const env = process.env;
  if (env.GIT_CONFIG_PARAMETERS || Number(env.GIT_CONFIG_COUNT) > 0) return true;
  // The same files git reads (config-file.ts configPlaces), config.worktree whether or not it is on.
  const places = currentConfigPlaces();
  const files = [join(commonDir, 'config'), join(gitdir, 'config.worktree'), ...places.global, ...places.system];
  return files.some((file) => {
    // git reads only absolute paths here; a relative one would name a file in the work tree.
    if (!isAbsolute(file) || file === '/dev/null') return false;
    const text = readGitFile(file);
    // Not a plain file (or unreadable): what git makes of it is git's to say.
    if (text === undefined) return true;
    if (text === null) return false;
    const lower = text.toLowerCase();
    return words.some((w) => lower.includes(w)) && setting.test(text);
  });
}

/** The index file's bytes and its mtime in whole seconds; null when it is not a plain file under the cap. */
export function readIndex(path: string): { buf: Buffer; mtimeSec: bigint } | null {
  const file = openPlainGitFile(path);
  return file && readOpenIndex(file);
}

/**
 * readIndex's answer from an index file already open (closed here), whose first bytes `start`
 * (from offset 0) a caller has read already: they are not read again.
 */
export function readOpenIndex({ fd, stats: st }: { fd: number; stats: BigIntStats }, start?: Buffer): { buf: Buffer; mtimeSec: bigint } | null {
  try {
    if (st.size > BigInt(MAX_INDEX_BYTES)) return null;
    const buf = Buffer.allocUnsafe(Number(st.size) + 1);
    let n = start ? start.copy(buf, 0, 0, Math.min(start.length, Number(st.size))) : 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, n)) > 0; ) n += r;
    if (n !== Number(st.size)) return null;
    return { buf: buf.subarray(0, n), mtimeSec: st.mtimeNs / NS };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The index's valid root cache-tree (hex), or null when it has none or an extension this reader cannot follow. */
function cachedTree(buf: Buffer, at: number, end: number, oidBytes = 20): string | null {
  let tree: string | null = null;
  while (at + 8 <= end) {
    const sig = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32BE(at + 4);
    const data = at + 8;
    if (data + size > end) return null;
    // A lowercase first letter marks an extension git requires readers to understand (link: split index; sdir: sparse).
    if (sig.charCodeAt(0) < 0x41 || sig.charCodeAt(0) > 0x5a) return null;
    if (sig === 'TREE') {
      // The root entry: "" NUL "<entries> <subtrees>\n" and, when valid (entries >= 0), its oid.
      const nl = buf.indexOf(10, data);
      if (buf[data] !== 0 || nl < 0 || nl + 1 + oidBytes > data + size) return null;
      const [entries] = buf.toString('latin1', data + 1, nl).split(' ');
      tree = /^\d+$/.test(entries ?? '') ? buf.toString('hex', nl + 1, nl + 1 + oidBytes) : null;
    }
    at = data + size;
  }
  return at === end ? tree : null;
}

/**
 * The path of a plain repo-relative path (plainPath) under `root`, as join(root, path) gives it,
 * without normalizing each path again: a path.join per path made node's normalizer hot enough
 * for V8 to optimize it, a cost larger than all the joins.
 */
function under(root: string): (path: string) => string {
  const base = join(root, '.');
  return (path) => (base === '.' ? path : base.endsWith('/') ? base + path : `${base}/${path}`);
}

/**
 * Every directory above `path` is a plain directory (no symlink on the way) and not a nested
 * repository (no `.git` in it): otherwise git lists or skips the path in ways this reader does not.
 */
function plainAncestors(inRoot: (path: string) => string, path: string, memo: Map<string, boolean>): boolean {
  for (let cut = path.indexOf('/'); cut >= 0; cut = path.indexOf('/', cut + 1)) {
    const dir = path.slice(0, cut);
    let ok = memo.get(dir);
    if (ok === undefined) {
      try {
        const st = lstatSync(inRoot(dir), { throwIfNoEntry: false });
        // A missing directory: nothing below it exists (absent paths are judged by the index alone).
        ok = st === undefined || (st.isDirectory() && lstatSync(inRoot(`${dir}/.git`), { throwIfNoEntry: false }) === undefined);
      } catch {
        ok = false;
      }
      memo.set(dir, ok);
    }
    if (!ok) return false;
  }
  return true;
}

/**
 * What git's refresh (read-cache.c ie_match_stat, ie_modified) makes of a work-tree file against
 * its entry: 'clean' by the stat data; 'changed' by the size alone (a size other than the one
 * recorded, when one was); 'content' when only a comparison of contents tells (a racily clean
 * entry, a touched file, a size of 0 recorded: git's smudged entry); null for a changed type or
 * executable bit: git's to judge.
 */
function statVerdict(buf: Buffer, at: number, st: BigIntStats, indexMtimeSec: bigint): 'clean' | 'changed' | 'content' | null {
  const mode = buf.readUInt32BE(at + 24);
  const kind = Number(st.mode) & S_IFMT;
  if ((mode & S_IFMT) !== kind || (kind !== S_IFREG && kind !== S_IFLNK)) return null;
  if (kind === S_IFREG && (mode & 0o100) !== (Number(st.mode) & 0o100)) return null;
  const recordedSize = buf.readUInt32BE(at + 36);
  if (recordedSize !== 0 && statMatches(buf, at, st, indexMtimeSec)) return 'clean';
  if (recordedSize !== 0 && recordedSize !== Number(st.size & 0xffffffffn)) return 'changed';
  return 'content';
}

/**
 * git's stat comparison (all fields it checks by default, nanoseconds included), plus its racy
 * rule at whole seconds: an entry modified no earlier than the second the index was written may
 * have changed since, so git compares contents and so must the caller.
 */
function statMatches(buf: Buffer, at: number, st: BigIntStats, indexMtimeSec: bigint): boolean {
  const u32 = (v: bigint) => Number(v & 0xffffffffn);
  const mode = buf.readUInt32BE(at + 24);
  const kind = Number(st.mode) & S_IFMT;
  if ((mode & S_IFMT) !== kind || (kind !== S_IFREG && kind !== S_IFLNK)) return false;
  if (kind === S_IFREG && (mode & 0o100) !== (Number(st.mode) & 0o100)) return false;
  const mtimeSec = buf.readUInt32BE(at + 8);
  if (BigInt(mtimeSec) >= indexMtimeSec) return false;
  return (
    buf.readUInt32BE(at) === u32(st.ctimeNs / NS) &&
    buf.readUInt32BE(at + 4) === Number(st.ctimeNs % NS) &&
    mtimeSec === u32(st.mtimeNs / NS) &&
    buf.readUInt32BE(at + 12) === Number(st.mtimeNs % NS) &&
    buf.readUInt32BE(at + 20) === u32(st.ino) &&
    buf.readUInt32BE(at + 28) === u32(st.uid) &&
    buf.readUInt32BE(at + 32) === u32(st.gid) &&
    buf.readUInt32BE(at + 36) === u32(st.size)
  );
}

/** A path's entry in the index, for the embedded engine's content check (isomorphic.ts). */
export interface IndexEntry {
  /** The staged blob. */
  oid: string;
  /** The file size recorded with it (0: never recorded, as after read-tree). */
  size: number;
  /** Assume-unchanged, skip-worktree, intent-to-add or a conflict stage: git's own rules apply. */
  flagged: boolean;
  /** Whether a file with stat `st` is unchanged by git's stat rule alone (same stat, not racily clean). */
  settles: (st: BigIntStats) => boolean;
}

/**
 * The index's entries for `paths` (index v2 to v4, whole: no split or sparse index); null when
 * the index cannot be read so. Decoded per entry: only for the few paths whose bytes differ.
 */
export function indexEntries(gitdir: string, paths: readonly string[]): Map<string, IndexEntry> | null {
  return entriesAndTree(gitdir, paths)?.found ?? null;
}

/**
 * The staged blob of each of `paths` ('' where the index has no entry), with the index's valid
 * cached root tree: when that tree is HEAD's, these are HEAD's blobs. Null when the index cannot
 * be read so, has no valid root tree, or a path's entry is flagged (an intent-to-add entry sits
 * outside the cached tree; a conflict has stages).
 */
export function indexBlobs(gitdir: string, paths: readonly string[]): { tree: string; blobs: Map<string, string> } | null {
  const read = entriesAndTree(gitdir, paths);
  if (!read?.tree || [...read.found.values()].some((e) => e.flagged)) return null;
  return { tree: read.tree, blobs: new Map(paths.map((p) => [p, read.found.get(p)?.oid ?? ''])) };
}

function entriesAndTree(gitdir: string, paths: readonly string[]): { found: Map<string, IndexEntry>; tree: string | null } | null {
  const index = readIndex(join(gitdir, 'index'));
  if (!index) return null;
  const { buf, mtimeSec } = index;
  const entries = IndexEntries.of(buf);
  if (!entries) return null;
  const wanted = new Set(paths);
  const found = new Map<string, IndexEntry>();
  while (entries.step()) {
    const name = entries.path();
    if (wanted.has(name)) {
      const { at: entryAt, flags, extended } = entries;
      const flagged = found.has(name) || (flags & 0xb000) !== 0 || (extended & 0x6000) !== 0;
      found.set(name, {
        oid: entries.oid(),
        size: buf.readUInt32BE(entryAt + 36),
        flagged,
        settles: (st) => !flagged && statMatches(buf, entryAt, st, mtimeSec),
      });
    }
  }
  if (entries.broken) return null;
  const at = entries.next;
  const end = entries.end;
  // A lowercase extension (a split or sparse index) holds entries this reader does not follow.
  let ext = at;
  for (; ext + 8 <= end; ext += 8 + buf.readUInt32BE(ext + 4)) {
    const first = buf[ext]!;
    if (first < 0x41 || first > 0x5a) return null;
  }
  return ext === end ? { found, tree: cachedTree(buf, at, end) } : null;
}
