// Which paths under one folder git's index holds unmerged, read from the index file in place:
// what `git ls-files --unmerged -- <folder>` lists, without a process. A merge, rebase,
// cherry-pick or revert leaves such entries, and so do `git stash pop`, `git checkout -m` and
// `git apply --3way`, which leave no *_HEAD file behind: the index is the only exact witness.
//
// Cost follows the folder, not the repository: entries are sorted by path bytes, so the scan
// reads the file in chunks from the start and stops at the first entry past the folder. For
// `.checkpoints/` ('.' sorts before letters and digits) that is a few kilobytes of any index.
// A split index (core.splitIndex) keeps most entries in a shared file plus a small file of
// changes (a `link` extension with replace and delete bitmaps): merged here as git merges them.
// An index that cannot be read (none, not a plain file, an unknown version, entries running
// past its end) answers null: whether anything is unmerged is then not known.
import { closeSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { openPlainGitFile, readGitFile } from './git-file.js';
import { usesSha256 } from './object-format.js';
import { IndexEntries, SKIP_WORKTREE } from './index-entries.js';

/** A mask of the stages git holds for a path: bit 1 base (:1), bit 2 ours (:2), bit 3 theirs (:3). */
export type StageMask = number;

export const BASE = 1 << 1;
export const OURS = 1 << 2;
export const THEIRS = 1 << 3;

/** The first read; the scan reads on (doubling) only while the folder's entries go on. */
const FIRST_CHUNK = 16 * 1024;
/** A split index's own file and a shared file are read whole: this is more than either holds. */
const MAX_WHOLE_BYTES = 64 * 1024 * 1024;

/** One index entry as this reader needs it: its path (bytes), its stage (0 merged, 1-3 unmerged) and its skip-worktree bit. */
interface Entry {
  name: Buffer;
  stage: number;
  /** Kept out of the work tree (a sparse checkout): v3's extended flags. */
  skip: boolean;
}

/** What the index holds under one folder: its unmerged paths, and the paths (a sparse index's folded folders end in `/`) it keeps out of the work tree. */
export interface IndexUnder {
  unmerged: Map<string, StageMask>;
  skipped: Set<string>;
}

/** An index file read from the start as far as asked, never blocking (a FIFO there is no file). */
class IndexReader {
  private buf: Buffer;
  private have = 0;

  private constructor(
    private readonly fd: number,
    readonly size: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.min(size, FIRST_CHUNK));
  }

  static open(path: string): IndexReader | null {
    const file = openPlainGitFile(path);
    return file && new IndexReader(file.fd, Number(file.stats.size));
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The bytes read so far; valid up to `through` once ensure(through) said yes. */
  get bytes(): Buffer {
    return this.buf;
  }

  /** Whether bytes [0, end) are (now) read; false when the file is shorter. */
  ensure(end: number): boolean {
    if (end <= this.have) return true;
    if (end > this.size) return false;
    if (end > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.size, Math.max(end, this.buf.length * 2)));
      this.buf.copy(grown, 0, 0, this.have);
      this.buf = grown;
    }
    while (this.have < this.buf.length) {
      const n = readSync(this.fd, this.buf, this.have, this.buf.length - this.have, this.have);
      if (n <= 0) return false; // the file shrank under us
      this.have += n;
    }
    return end <= this.have;
  }

  /** How many bytes from the start are read. */
  get available(): number {
    return this.have;
  }
}

/**
 * Walks the entries of an index file (versions 2 to 4) in order, reading on only as far as they
 * go, handing each to `visit` with its position, until `visit` returns false. Returns the offset
 * just past the last entry walked (the extensions, once all are walked), or null when the entries
 * do not fit the file.
 */
function walkEntries(file: IndexReader, oidBytes: number, visit: (entry: Entry, position: number) => boolean): { at: number; count: number; done: boolean } | null {
  if (!file.ensure(12)) return null;
  const entries = IndexEntries.of(file.bytes, oidBytes, file.size);
  if (entries === null) return null;
  for (entries.have = file.available; ; ) {
    if (entries.step()) {
      const entry = { name: entries.pathBytes(), stage: entries.stage, skip: (entries.extended & SKIP_WORKTREE) !== 0 };
      if (!visit(entry, entries.read - 1)) return { at: entries.next, count: entries.count, done: false };
    } else if (entries.short > 0) {
      if (!file.ensure(entries.short)) return null;
      entries.buf = file.bytes;
      entries.have = file.available;
    } else break;
  }
  return entries.broken ? null : { at: entries.next, count: entries.count, done: true };
}

/** Where `name` stands to `folder` in the index's byte order: inside it, before it, or past it (and every entry after). */
function placeOf(name: Buffer, folder: Buffer): 'inside' | 'before' | 'past' {
  const n = Math.min(name.length, folder.length);
  for (let i = 0; i < n; i++) {
    if (name[i] !== folder[i]) return name[i]! < folder[i]! ? 'before' : 'past';
  }
  return name.length >= folder.length ? 'inside' : 'before';
}

/** The entries under `folder` of a sorted index file, stopping past it; false when unreadable. */
function scanSorted(file: IndexReader, oidBytes: number, folder: Buffer, found: IndexUnder): boolean {
  return (
    walkEntries(file, oidBytes, (entry) => {
      const place = placeOf(entry.name, folder);
      if (place === 'past') return false;
      if (place === 'inside') take(found, entry);
      return true;
    }) !== null
  );
}

function take(found: IndexUnder, { name, stage, skip }: Entry): void {
  if (stage !== 0) addStage(found.unmerged, name.toString('utf8'), stage);
  else if (skip) found.skipped.add(name.toString('utf8'));
}

function addStage(found: Map<string, StageMask>, path: string, stage: number): void {
  found.set(path, (found.get(path) ?? 0) | (1 << stage));
}

/** Whether the git dir holds a shared index file: only then can its index be split. */
export function mayBeSplit(gitdir: string): boolean {
  try {
    return readdirSync(gitdir).some((name) => name.startsWith('sharedindex.'));
  } catch {
    return false;
  }
}

/** Bytes per object id in the repository: 32 when its config asks for sha-256 objects. */
function objectIdBytes(commonDir: string): number {
  return usesSha256(commonDir) ? 32 : 20;
}

/**
 * The unmerged paths under `folder` (repo-relative, ending in `/`) in the index of `gitdir`,
 * each with the stages git holds for it; null when the index cannot be read (then unknown).
 * An absent index holds nothing.
 */
export function unmergedUnder(dirs: { gitdir: string; commonDir: string }, folder: string): Map<string, StageMask> | null {
  return indexUnder(dirs, folder)?.unmerged ?? null;
}

/**
 * What the index of `gitdir` holds under `folder` (repo-relative, ending in `/`): its unmerged
 * paths and its skip-worktree ones, in the one scan; null when the index cannot be read.
 */
export function indexUnder(dirs: { gitdir: string; commonDir: string }, folder: string): IndexUnder | null {
  const path = join(dirs.gitdir, 'index');
  const file = IndexReader.open(path);
  if (file === null) return readGitFile(path) === null ? { unmerged: new Map(), skipped: new Set() } : null;
  const oidBytes = objectIdBytes(dirs.commonDir);
  const prefix = Buffer.from(folder, 'utf8');
  try {
    const found: IndexUnder = { unmerged: new Map(), skipped: new Set() };
    if (!mayBeSplit(dirs.gitdir)) return scanSorted(file, oidBytes, prefix, found) ? found : null;
    return splitAware(dirs.gitdir, file, oidBytes, prefix);
  } catch {
    return null; // a read error midway: unknown
  } finally {
    file.close();
  }
}

/** The whole index (its entries and extensions) when it may be split: merged with its shared file as git does. */
function splitAware(gitdir: string, file: IndexReader, oidBytes: number, folder: Buffer): IndexUnder | null {
  if (file.size > MAX_WHOLE_BYTES) return null;
  const own: Entry[] = [];
  const walked = walkEntries(file, oidBytes, (entry) => own.push(entry) > 0);
  if (walked === null || !file.ensure(file.size)) return null;
  const link = splitLink(file.bytes, walked.at, file.size - oidBytes, oidBytes);
  if (link === undefined) return null;
  const found: IndexUnder = { unmerged: new Map(), skipped: new Set() };
  // Not split (or split turned off: a link to no shared file): the entries are the index.
  if (link === null || /^0+$/.test(link.base)) {
    for (const entry of own) if (placeOf(entry.name, folder) === 'inside') take(found, entry);
    return found;
  }
  const shared = IndexReader.open(join(gitdir, `sharedindex.${link.base}`));
  if (shared === null) return null; // git refuses such an index too
  try {
    // The shared file's entries under the folder, by position (the bitmaps count positions).
    const base = new Map<number, Entry>();
    const read = walkEntries(shared, oidBytes, (entry, position) => {
      const place = placeOf(entry.name, folder);
      if (place === 'inside') base.set(position, entry);
      return place !== 'past';
    });
    if (read === null) return null;
    // Each replaced position takes the next of the own file's leading entries (named by the shared one).
    let replacements = 0;
    for (const position of link.replaced) {
      if (replacements >= own.length || own[replacements]!.name.length !== 0) return null;
      const entry = base.get(position);
      if (entry) base.set(position, { name: entry.name, stage: own[replacements]!.stage, skip: own[replacements]!.skip });
      replacements++;
    }
    for (const position of link.deleted) base.delete(position);
    for (const entry of base.values()) take(found, entry);
    // The rest are added; a merged (stage 0) entry replaces every unmerged one of its path.
    for (const entry of own.slice(replacements)) {
      if (entry.name.length === 0) return null;
      if (placeOf(entry.name, folder) !== 'inside') continue;
      const path = entry.name.toString('utf8');
      found.skipped.delete(path);
      if (entry.stage === 0) found.unmerged.delete(path);
      take(found, entry);
    }
    return found;
  } finally {
    shared.close();
  }
}

export interface SplitLink {
  /** The shared index's id (hex). */
  base: string;
  /** Positions in the shared index replaced by the own file's leading entries, ascending. */
  replaced: number[];
  /** Positions in the shared index removed. */
  deleted: number[];
}

/** A split index's `link` extension among the extensions from `at` to `end`: null when there is none; undefined when they do not parse. */
export function splitLink(buf: Buffer, at: number, end: number, oidBytes: number): SplitLink | null | undefined {
  let link: SplitLink | null = null;
  while (at + 8 <= end) {
    const size = buf.readUInt32BE(at + 4);
    const data = at + 8;
    if (data + size > end) return undefined;
    if (buf.toString('latin1', at, at + 4) === 'link') {
      if (size < oidBytes) return undefined;
      const base = buf.toString('hex', data, data + oidBytes);
      if (size === oidBytes) link = { base, replaced: [], deleted: [] };
      else {
        const deleted = ewahBits(buf, data + oidBytes, data + size);
        const replaced = deleted && ewahBits(buf, deleted.next, data + size);
        if (!deleted || !replaced || replaced.next !== data + size) return undefined;
        link = { base, replaced: replaced.bits, deleted: deleted.bits };
      }
    }
    at = data + size;
  }
  return at === end ? link : undefined;
}

/**
 * The set bits, ascending, of a git EWAH bitmap at `at` (ewah/ewah_io.c: bit count, word count,
 * the 64-bit words, the last marker's position), and where it ends; null when it does not fit.
 * A marker word holds a run of `run` words all of its run bit (bit 0; the run in bits 1-32), then
 * `literals` (bits 33-63) words read bit by bit from the lowest.
 */
export function ewahBits(buf: Buffer, at: number, end: number): { bits: number[]; next: number } | null {
  if (at + 8 > end) return null;
  const bitCount = buf.readUInt32BE(at);
  const words = buf.readUInt32BE(at + 4);
  const first = at + 8;
  const next = first + words * 8 + 4;
  if (next > end) return null;
  const bits: number[] = [];
  let position = 0;
  for (let w = 0; w < words && position < bitCount; ) {
    const hi = buf.readUInt32BE(first + w * 8);
    const lo = buf.readUInt32BE(first + w * 8 + 4);
    w++;
    const run = (lo >>> 1) + (hi & 1) * 0x80000000;
    if (lo & 1) for (let b = 0; b < run * 64 && position + b < bitCount; b++) bits.push(position + b);
    position += run * 64;
    for (let l = hi >>> 1; l > 0 && w < words; l--, w++) {
      const wordHi = buf.readUInt32BE(first + w * 8);
      const wordLo = buf.readUInt32BE(first + w * 8 + 4);
      for (let b = 0; b < 32; b++) if (wordLo & (1 << b)) bits.push(position + b);
      for (let b = 0; b < 32; b++) if (wordHi & (1 << b)) bits.push(position + 32 + b);
      position += 64;
    }
  }
  return { bits: bits.filter((b) => b < bitCount), next };
}
