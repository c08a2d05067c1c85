// The one reader of git's index entries (Documentation/gitformat-index.txt), pure: a cursor over
// the bytes of an index file, versions 2 to 4. Hot paths (status, doctor) walk indexes of 100k
// entries, so a step allocates nothing: a name is left in place in the index's bytes (versions 2
// and 3) or rebuilt in one buffer the cursor reuses (version 4, whose names share prefixes), and
// the stat data, object id and path are read from the entry only when a caller asks for them.
import { readVarint } from './index-varint.js';

/** Flag bits (the 16 bits after the object id): assume-unchanged, extended flags follow (v3+), the stage. */
export const ASSUME_UNCHANGED = 0x8000;
export const EXTENDED = 0x4000;
/** Extended flag bits (v3+): kept out of the work tree, added with --intent-to-add. */
export const SKIP_WORKTREE = 0x4000;
export const INTENT_TO_ADD = 0x2000;

/** Whether `buf` starts with an index header git reads: the signature and a version from 2 to 4. */
export function indexVersion(buf: Buffer): number | null {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  return version >= 2 && version <= 4 ? version : null;
}

/**
 * The entries of one index file, stepped through in order. After a step that said true, the
 * fields describe the current entry; after the last (step() false and not `broken`), `next` is
 * where the extensions start. A caller that reads the file in parts sets `have` to the bytes read:
 * a step past them says false with `short` set to the bytes it needs, changing nothing, and is
 * taken again once `buf` holds them.
 */
export class IndexEntries {
  /** Entries the header announces. */
  readonly count: number;
  /** Where the entries and extensions end: the trailing checksum. */
  readonly end: number;
  /** The current entry's offset: stat data (ten 32-bit fields), the object id, the flags. */
  at = 0;
  flags = 0;
  /** The v3 extended flags (0 when the entry has none). */
  extended = 0;
  /** The current name: bytes [nameStart, nameStart + nameLength) of `name` (in v4 overwritten by the next step: copy what is kept). */
  name: Buffer;
  nameStart = 0;
  nameLength = 0;
  /** Entries stepped through so far (the current one's position plus one). */
  read = 0;
  /** The next entry's offset; after the last entry, the extensions'. */
  next = 12;
  /** The entries do not fit the bytes (a truncated or overwritten file). */
  broken = false;
  /** Bytes [0, short) are needed for the next step (0: none missing). */
  short = 0;
  /** Bytes of `buf` that hold the file (all of it unless the caller reads in parts). */
  have: number;
  private readonly flagsAt: number;
  private readonly extendedFlags: boolean;
  private readonly rebuilt: boolean;

  private constructor(
    public buf: Buffer,
    readonly version: number,
    readonly oidBytes: number,
    size: number,
  ) {
    this.count = buf.readUInt32BE(8);
    this.end = size - oidBytes;
    this.have = buf.length;
    this.flagsAt = 40 + oidBytes;
    this.extendedFlags = version >= 3;
    this.rebuilt = version === 4;
    this.name = this.rebuilt ? Buffer.allocUnsafe(256) : buf;
  }

  /**
   * A cursor before the first entry of the index file in `buf` (of `size` bytes: all of `buf` unless
   * read in parts, the first 12 at least), with object ids of `oidBytes`; null when its header is
   * not one git reads.
   */
  static of(buf: Buffer, oidBytes = 20, size = buf.length): IndexEntries | null {
    const version = indexVersion(buf);
    return version === null || size < 12 + oidBytes ? null : new IndexEntries(buf, version, oidBytes, size);
  }

  /** Moves to the next entry; false after the last one, when the entries do not fit (`broken`) or when bytes are missing (`short`). */
  step(): boolean {
    if (this.read >= this.count || this.broken) return false;
    const buf = this.buf;
    const at = this.next;
    const end = this.end;
    const flagsAt = at + this.flagsAt;
    if (flagsAt + 2 > end) return this.fail();
    if (flagsAt + 5 > this.have && this.have < end) return this.need(flagsAt + 5);
    const flags = (buf[flagsAt]! << 8) | buf[flagsAt + 1]!;
    const hasExtended = this.extendedFlags && (flags & EXTENDED) !== 0;
    const extended = hasExtended ? (buf[flagsAt + 2]! << 8) | buf[flagsAt + 3]! : 0;
    const nameAt = flagsAt + (hasExtended ? 4 : 2);
    let next: number;
    if (this.rebuilt) {
      next = this.rebuildName(nameAt);
      if (next < 0) return false;
    } else {
      let length = flags & 0xfff;
      // A name of 0xfff bytes or more: its length is where its NUL is.
      if (length === 0xfff) {
        const nul = buf.indexOf(0, nameAt);
        if (nul < 0 || nul >= this.have) return this.have < end ? this.need(Math.min(end, this.have * 2)) : this.fail();
        length = nul - nameAt;
      }
      if (nameAt + length >= end) return this.fail();
      next = at + ((nameAt - at + length + 8) & ~7); // padded with NULs to a multiple of 8 bytes
      if (next > this.have && this.have < end) return this.need(Math.min(end, next));
      this.name = buf;
      this.nameStart = nameAt;
      this.nameLength = length;
    }
    this.at = at;
    this.flags = flags;
    this.extended = extended;
    this.next = next;
    this.short = 0;
    this.read++;
    return true;
  }

  /** A v4 entry's name, at `nameAt`, rebuilt from the one before: where the next entry starts, or -1 (failed or short). Apart from step() so that V8 inlines step's v2/v3 path. */
  private rebuildName(nameAt: number): number {
    const buf = this.buf;
    const end = this.end;
    // The previous name less `strip` bytes, then a NUL-ended suffix; no padding. Most strips are
    // under 128: one byte, read here (readVarint for the rest).
    if (nameAt + 5 > this.have && this.have < end) {
      this.need(nameAt + 5);
      return -1;
    }
    let strip: number;
    let from: number;
    if (buf[nameAt]! < 0x80 && nameAt < end) {
      strip = buf[nameAt]!;
      from = nameAt + 1;
    } else {
      const varint = readVarint(buf, nameAt, Math.min(end, nameAt + 5));
      if (varint === null) {
        this.fail();
        return -1;
      }
      strip = varint.value;
      from = varint.next;
    }
    if (strip > this.nameLength) {
      this.fail();
      return -1;
    }
    const kept = this.nameLength - strip;
    let name = this.name;
    let length = kept;
    let nul = from;
    if (this.have >= end) {
      // The whole file is here: copied while the NUL is looked for, byte by byte (a suffix is a
      // few bytes, shorter than a call into Buffer's natives).
      for (; nul < end && buf[nul] !== 0; nul++) {
        if (length === name.length) name = this.grow(length + 1, length);
        name[length++] = buf[nul]!;
      }
      if (nul >= end) {
        this.fail();
        return -1;
      }
    } else {
      // Read in parts: the NUL is found before anything is copied, so a step short of bytes changes nothing.
      while (nul < this.have && buf[nul] !== 0) nul++;
      if (nul >= this.have) {
        this.need(Math.min(end, this.have * 2));
        return -1;
      }
      if (kept + (nul - from) > name.length) name = this.grow(kept + (nul - from), kept);
      while (from < nul) name[length++] = buf[from++]!;
    }
    this.nameLength = length;
    return nul + 1;
  }

  /** A name buffer of at least `size` bytes holding the first `keep` of the current one. */
  private grow(size: number, keep: number): Buffer {
    const grown = Buffer.allocUnsafe(Math.max(size, this.name.length * 2));
    this.name.copy(grown, 0, 0, keep);
    return (this.name = grown);
  }

  /** The current entry's path (git's bytes as UTF-8). */
  path(): string {
    return this.name.toString('utf8', this.nameStart, this.nameStart + this.nameLength);
  }

  /** The current entry's path bytes, to keep: a view of the index's bytes, or in v4 a copy (the next step overwrites its buffer). */
  pathBytes(): Buffer {
    const view = this.name.subarray(this.nameStart, this.nameStart + this.nameLength);
    return this.rebuilt ? Buffer.from(view) : view;
  }

  /** The current entry's stage: 0 merged, 1 base, 2 ours, 3 theirs. */
  get stage(): number {
    return (this.flags >> 12) & 3;
  }

  /** The current entry's mode (type and permission bits). */
  get mode(): number {
    return this.buf.readUInt32BE(this.at + 24);
  }

  /** The current entry's object id (hex). */
  oid(): string {
    return this.buf.toString('hex', this.at + 40, this.at + 40 + this.oidBytes);
  }

  /** Whether the entries all fit the bytes: false after a step that found them running past the end. */
  private fail(): false {
    this.broken = true;
    return false;
  }

  private need(bytes: number): false {
    this.short = Math.min(this.end, bytes);
    return false;
  }
}
