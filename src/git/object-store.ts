// Reading git objects by id straight from the object directories: loose files and packs
// through their .idx, with positional reads. isomorphic-git parses a whole pack index and
// reads the whole .pack into memory before it returns one object from it; a history walk
// that reads a few dozen commits from a 15 MB pack should cost those few dozen reads.
//
// Everything here may be hostile (a clone is somebody else's bytes): every offset, size and
// delta instruction is checked before it is used, delta chains are capped and loop-checked,
// nothing is allocated beyond a declared size the caller accepted, and a lie becomes one
// CheckpointError naming the file. Files are opened non-blocking and must be regular
// files, so a FIFO or /dev/zero planted in objects/ cannot hang or flood a read.
//
// Object ids are not re-hashed: like git's own revision walks, the reader trusts the pack
// index (index-pack verified it when the pack arrived) and the loose file's name. Both
// engines then give the same answer for the same bytes, and a walk costs no SHA-1 per object.
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import { inflatePrefix, inflateUpTo } from './zlib-inflate.js';
import { packMismatch } from './pack-damage.js';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface GitObject {
  type: ObjectType;
  /** Size in bytes as the object declares it. */
  size: number;
  /** The content; null when `size` is over the caller's `maxBytes` (the object was not inflated). */
  data: Buffer | null;
}

/** Reads an object some other way, for object directories this reader does not understand. */
export type FallbackReader = (oid: string) => Promise<{ type: ObjectType; data: Buffer } | null>;

/** No object (or delta, or delta base) larger than this is inflated, whatever a file declares. */
export const MAX_OBJECT_BYTES = 64 * 1024 * 1024;
/** git packs at most 4095 deltas deep (pack.depth's ceiling); a longer chain is a loop or a lie. */
export const MAX_DELTA_DEPTH = 4096;
/** git follows alternates five levels deep. */
const MAX_ALTERNATE_DEPTH = 5;
/** Recently resolved pack objects kept as delta bases: consecutive commits and trees share chains. */
const BASE_CACHE_BYTES = 16 * 1024 * 1024;
const BASE_CACHE_ENTRY_BYTES = 2 * 1024 * 1024;
const BASE_CACHE_ENTRY_OVERHEAD = 128;
/** Pack bytes are read and kept in pages this large, at most this many per pack (4 MiB). */
const PACK_PAGE_BYTES = 128 * 1024;
const PACK_PAGES_KEPT = 32;

/** 2 ** n for n < 64, by lookup: `2 ** n` with a variable n is a call into Math.pow, once per size byte and delta op. */
const POW2 = Array.from({ length: 64 }, (_, n) => 2 ** n);

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
const IDX_MAGIC = 0xff744f63;
/** Binary search in the idx by positional reads until a range this small is read at once. */
const IDX_CHUNK_ENTRIES = 512;
/**
 * A fan-out bucket's ids and offsets are kept once read when the bucket is at most this many
 * entries (a pack of up to ~1M objects): a walk looks up thousands of ids, and the table
 * costs 24 bytes per object at most, never more than the .idx git would map.
 */
const IDX_CACHED_BUCKET_ENTRIES = 4096;

function corrupt(file: string, what: string): CheckpointError {
  return new CheckpointError('E_GIT', `${shownPath(file)}: ${what}`, {
    hint: 'the repository\'s object store is damaged or was tampered with: run `git fsck`, or clone it again',
  });
}

/** A regular file opened for reading, or null when it does not exist. */
function openRegular(path: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    // Non-blocking: opening a FIFO must not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw error;
  }
  const stats = fstatSync(fd);
  if (!stats.isFile()) {
    closeSync(fd);
    throw corrupt(path, 'is not a regular file');
  }
  return { fd, size: stats.size };
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

/**
 * Inflates one zlib stream that starts at `start` and yields exactly `size` bytes, reading a
 * window that grows only while the stream runs past it. Output beyond `size` is refused.
 * `head` holds the bytes from `start` on that are already in memory (head[headAt..headEnd)).
 */
function inflateAt(file: string, read: (position: number, length: number) => Buffer, start: number, end: number, size: number, head?: Buffer, headAt = 0, headEnd = head?.length ?? 0): Buffer {
  // zlib adds about 5 bytes per 16 KiB stored block plus a few of framing: most streams fit the first window.
  let window = Math.min(end - start, size + (size >>> 10) + 64);
  for (;;) {
    try {
      const out = head && headEnd - headAt >= window ? inflateUpTo(head, size, headAt, window) : inflateUpTo(read(start, window), size);
      if (out.length !== size) throw corrupt(file, `an object at offset ${start} inflates to ${out.length} bytes, not the ${size} it declares`);
      return out;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR' && window < end - start) {
        window = Math.min(end - start, window * 2);
        continue;
      }
      if (error instanceof CheckpointError) throw error;
      if (code === 'ERR_BUFFER_TOO_LARGE') throw corrupt(file, `an object at offset ${start} inflates to more than the ${size} bytes it declares`);
      throw corrupt(file, `an object at offset ${start} does not inflate (${(error as Error).message})`);
    }
  }
}

/** git's variable-length sizes; a size past 2^53 (or any over `limit`) is reported as such. */
function checkedSize(file: string, size: number, what: string): number {
  if (!Number.isSafeInteger(size) || size > MAX_OBJECT_BYTES) {
    throw corrupt(file, `${what} declares ${Number.isSafeInteger(size) ? size : 'more than 2^53'} bytes, over the ${MAX_OBJECT_BYTES}-byte limit of this reader`);
  }
  return size;
}

/** A fan-out bucket of a pack index, as kept once read. */
interface Bucket {
  /** The ids, `stride` bytes apart (version 1: each after its offset). */
  shas: Buffer;
  /** Each id's bytes 1-4 as a number: a binary search step compares one. */
  words: Uint32Array;
  /** Version 2: each id's 32-bit offset word (empty for version 1). */
  offsets: Uint32Array;
}

/** A pack index (.idx, versions 1 and 2): fan-out table, sorted ids, offsets; read by position. */
class PackIndex {
  readonly count: number;
  private readonly fanout: Uint32Array;
  private readonly shaBase: number;
  private readonly stride: number;
  private readonly large: number;
  /** Per fan-out bucket: its ids and 32-bit offset words, read on first use. */
  private readonly buckets: (Bucket | undefined)[] = [];

  private constructor(
    readonly path: string,
    private readonly fd: number,
    readonly version: 1 | 2,
    fanout: Buffer,
    private readonly size: number,
  ) {
    this.fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      this.fanout[i] = fanout.readUInt32BE(i * 4);
      if (i > 0 && this.fanout[i]! < this.fanout[i - 1]!) throw corrupt(path, 'fan-out table is not sorted');
    }
    const n = (this.count = this.fanout[255]!);
    if (version === 2) {
      this.shaBase = 8 + 1024;
      this.stride = 20;
      const fixed = 8 + 1024 + n * 28 + 40;
      this.large = size >= fixed && (size - fixed) % 8 === 0 ? (size - fixed) / 8 : -1;
      if (this.large < 0 || this.large > n) throw corrupt(path, `is ${size} bytes, which does not fit the ${n} objects its fan-out table lists`);
    } else {
      this.shaBase = 1024 + 4;
      this.stride = 24;
      this.large = 0;
      if (size !== 1024 + n * 24 + 40) throw corrupt(path, `is ${size} bytes, which does not fit the ${n} objects its fan-out table lists`);
    }
  }

  /** The index at `path`, or 'unsupported' for an index version this reader does not know. */
  static open(path: string): PackIndex | 'unsupported' | null {
    const file = openRegular(path);
    if (file === null) return null;
    try {
      const head = readAt(file.fd, 0, 8);
      if (head.length < 8) throw corrupt(path, 'is truncated');
      if (head.readUInt32BE(0) === IDX_MAGIC) {
        if (head.readUInt32BE(4) !== 2) {
          closeSync(file.fd);
          return 'unsupported';
        }
        const fanout = readAt(file.fd, 8, 1024);
        if (fanout.length < 1024) throw corrupt(path, 'is truncated');
        return new PackIndex(path, file.fd, 2, fanout, file.size);
      }
      // Version 1 has no header: the fan-out table comes first.
      const fanout = readAt(file.fd, 0, 1024);
      if (fanout.length < 1024) throw corrupt(path, 'is truncated');
      return new PackIndex(path, file.fd, 1, fanout, file.size);
    } catch (error) {
      closeSync(file.fd);
      throw error;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  /** The checksum of its pack the .idx records (before its own, at the end). */
  packChecksum(): Buffer {
    return readAt(this.fd, this.size - 40, 20);
  }

  /** Pack offset of `oid` (20 bytes), or -1: find() and offset() in one, from the cached bucket when there is one. */
  offsetOf(oid: Buffer): number {
    const i = this.find(oid);
    if (i < 0) return -1;
    const first = oid[0]!;
    const bucket = this.buckets[first];
    if (bucket === undefined || this.version !== 2) return this.offset(i);
    const small = bucket.offsets[i - this.bucketStart(first)]!;
    // A 64-bit offset's word has its top bit set (read as unsigned): offset() follows it.
    return small < 0x80000000 ? small : this.offset(i);
  }

  /** Position of `oid` (20 bytes) in the sorted table, or -1. */
  find(oid: Buffer): number {
    const first = oid[0]!;
    let lo = first === 0 ? 0 : this.fanout[first - 1]!;
    let hi = this.fanout[first]!;
    const bucket = this.bucket(first, lo, hi);
    if (bucket) {
      const start = lo;
      // Bytes 1-4 as a number decide almost every step (byte 0 is the bucket's own); the
      // rest of the id is compared only on a tie, byte by byte, without a call into Buffer.compare.
      const key = oid.readUInt32BE(1);
      const words = bucket.words;
      const shas = bucket.shas;
      const stride = this.stride;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const word = words[mid - start]!;
        const at = (mid - start) * stride;
        // On a tie: byte 0 too (a damaged index may hold an id outside its bucket), then bytes 5-19.
        let cmp = word === key ? shas[at]! - oid[0]! : word < key ? -1 : 1;
        for (let b = 5; cmp === 0 && b < 20; b++) cmp = shas[at + b]! - oid[b]!;
        if (cmp === 0) return mid;
        if (cmp < 0) lo = mid + 1;
        else hi = mid;
      }
      return -1;
    }
    while (hi - lo > IDX_CHUNK_ENTRIES) {
      const mid = (lo + hi) >>> 1;
      const cmp = Buffer.compare(this.sha(mid), oid);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    const start = lo;
    const chunk = this.shas(lo, hi);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = (mid - start) * this.stride;
      // The id at `mid` against the one sought: negative when it sorts first.
      const cmp = chunk.compare(oid, 0, 20, at, at + 20);
      if (cmp === 0) return mid;
      if (cmp < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  /** Full ids in this index that start with `prefix` (hex), at most `limit` of them. */
  withPrefix(prefix: string, limit: number): string[] {
    const low = Buffer.from(prefix.padEnd(40, '0'), 'hex');
    const first = low[0]!;
    let lo = first === 0 ? 0 : this.fanout[first - 1]!;
    let hi = this.fanout[first]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (Buffer.compare(this.sha(mid), low) < 0) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < this.count && out.length < limit; i++) {
      const hex = this.sha(i).toString('hex');
      if (!hex.startsWith(prefix)) break;
      out.push(hex);
    }
    return out;
  }

  /** Pack offset of the object at position `i`. */
  offset(i: number): number {
    const n = this.count;
    if (this.version === 1) return this.uint32(1024 + i * 24);
    const bucket = this.buckets[this.bucketOf(i)];
    const start = bucket ? this.bucketStart(this.bucketOf(i)) : 0;
    const small = bucket ? bucket.offsets[i - start]! : this.uint32(8 + 1024 + n * 24 + i * 4);
    if ((small & 0x80000000) === 0) return small;
    // A 64-bit offset: the low 31 bits index the table of large offsets.
    const j = small & 0x7fffffff;
    if (j >= this.large) throw corrupt(this.path, `object ${i} points past the table of large offsets`);
    const big = readAt(this.fd, 8 + 1024 + n * 28 + j * 8, 8);
    const value = big.readBigUInt64BE(0);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt(this.path, `object ${i} has an offset past 2^53`);
    return Number(value);
  }

  /** The cached bucket `b` (positions lo..hi-1), read now if small enough; null when too large to keep. */
  private bucket(b: number, lo: number, hi: number): Bucket | null {
    const cached = this.buckets[b];
    if (cached) return cached;
    if (hi - lo > IDX_CACHED_BUCKET_ENTRIES) return null;
    const shas = this.shas(lo, hi);
    const words = new Uint32Array(hi - lo);
    for (let j = 0; j < words.length; j++) words[j] = shas.readUInt32BE(j * this.stride + 1);
    // Version 1 keeps each offset beside its id; version 2 in a table of its own.
    const table = this.version === 2 && hi > lo ? readAt(this.fd, 8 + 1024 + this.count * 24 + lo * 4, (hi - lo) * 4) : Buffer.alloc(0);
    if (table.length < (this.version === 2 ? (hi - lo) * 4 : 0)) throw corrupt(this.path, 'is truncated');
    const offsets = new Uint32Array(table.length / 4);
    for (let j = 0; j < offsets.length; j++) offsets[j] = table.readUInt32BE(j * 4);
    const bucket = { shas, words, offsets };
    this.buckets[b] = bucket;
    return bucket;
  }

  /** The fan-out bucket holding position `i`: the first byte of its id. */
  private bucketOf(i: number): number {
    let lo = 0;
    let hi = 255;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.fanout[mid]! > i) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private bucketStart(b: number): number {
    return b === 0 ? 0 : this.fanout[b - 1]!;
  }

  private sha(i: number): Buffer {
    const sha = readAt(this.fd, this.shaBase + i * this.stride, 20);
    if (sha.length < 20) throw corrupt(this.path, 'is truncated');
    return sha;
  }

  /** The ids at positions lo..hi-1, `stride` bytes apart. */
  private shas(lo: number, hi: number): Buffer {
    if (hi <= lo) return Buffer.alloc(0);
    const chunk = readAt(this.fd, this.shaBase + lo * this.stride, (hi - lo - 1) * this.stride + 20);
    if (chunk.length < (hi - lo - 1) * this.stride + 20) throw corrupt(this.path, 'is truncated');
    return chunk;
  }

  private uint32(position: number): number {
    const b = readAt(this.fd, position, 4);
    if (b.length < 4) throw corrupt(this.path, 'is truncated');
    return b.readUInt32BE(0);
  }
}

/** An entry's header in a pack: its type, declared size, where its zlib data starts, its delta base. */
interface PackEntry {
  type: number;
  size: number;
  dataStart: number;
  baseOffset?: number;
  baseOid?: string;
  /** The pack bytes already in memory from dataStart on: buffer[at..end), often the whole compressed object. */
  buffer: Buffer;
  at: number;
  end: number;
}

class Pack {
  private file: { fd: number; size: number } | null = null;
  private refusal: CheckpointError | null | undefined;
  private readonly pages = new Map<number, Buffer>();

  constructor(
    readonly id: number,
    readonly packPath: string,
    readonly index: PackIndex,
  ) {}

  close(): void {
    this.index.close();
    if (this.file) closeSync(this.file.fd);
  }

  /**
   * Why git would refuse this pack whole (its trailing checksum is not the one the .idx
   * records), or null. Only the 20-byte trailers are compared, as git does on opening a pack.
   */
  refused(): CheckpointError | null {
    if (this.refusal === undefined) {
      const file = this.open();
      this.refusal = readAt(file.fd, file.size - 20, 20).equals(this.index.packChecksum()) ? null : packMismatch(this.packPath);
    }
    return this.refusal;
  }

  private open(): { fd: number; size: number } {
    if (this.file) return this.file;
    const file = openRegular(this.packPath);
    if (file === null) throw corrupt(this.packPath, 'is missing, but its .idx is there');
    try {
      const head = readAt(file.fd, 0, 12);
      const ok = head.length === 12 && head.toString('latin1', 0, 4) === 'PACK' && [2, 3].includes(head.readUInt32BE(4));
      if (!ok) throw corrupt(this.packPath, 'is not a version 2 or 3 pack');
      if (head.readUInt32BE(8) !== this.index.count) throw corrupt(this.packPath, `holds ${head.readUInt32BE(8)} objects but its .idx lists ${this.index.count}`);
      if (file.size < 32) throw corrupt(this.packPath, 'is truncated');
    } catch (error) {
      closeSync(file.fd);
      throw error;
    }
    this.file = file;
    return file;
  }

  /**
   * `length` bytes at `position`, through a few pages kept per pack: git writes commits
   * together in walk order and a tree's deltas near it, so a long walk reads each page once
   * instead of making one read per object. A read longer than a page goes to the file.
   */
  private bytes(position: number, length: number): Buffer {
    const first = Math.floor(position / PACK_PAGE_BYTES);
    const last = Math.floor((position + length - 1) / PACK_PAGE_BYTES);
    if (length <= 0 || last - first > 1) return readAt(this.open().fd, position, length);
    const page = this.page(first);
    const at = position - first * PACK_PAGE_BYTES;
    if (first === last || at + length <= page.length) return page.subarray(at, at + length);
    // Only the bytes asked for: the next page whole would be a 128 KiB copy per object that crosses.
    return Buffer.concat([page.subarray(at), this.page(last).subarray(0, length - (page.length - at))], length);
  }

  private page(n: number): Buffer {
    let page = this.pages.get(n);
    if (page === undefined) {
      page = readAt(this.open().fd, n * PACK_PAGE_BYTES, PACK_PAGE_BYTES);
      // Oldest first out: a walk moves through the pack, and rarely comes back.
      if (this.pages.size >= PACK_PAGES_KEPT) this.pages.delete(this.pages.keys().next().value!);
      this.pages.set(n, page);
    }
    return page;
  }

  /** End of object data: the pack's trailing checksum follows it. */
  private get end(): number {
    return this.open().size - 20;
  }

  entry(offset: number): PackEntry {
    const end = this.end;
    if (!Number.isSafeInteger(offset) || offset < 12 || offset >= end) throw corrupt(this.packPath, `an object offset ${offset} lies outside the pack`);
    // The rest of the page holding the header (no copy), or the next 512 bytes read across pages.
    const pageNo = Math.floor(offset / PACK_PAGE_BYTES);
    let head = this.page(pageNo);
    let p = offset - pageNo * PACK_PAGE_BYTES;
    let limit = Math.min(head.length, end - pageNo * PACK_PAGE_BYTES);
    if (limit - p < Math.min(512, end - offset)) {
      head = this.bytes(offset, Math.min(512, end - offset));
      p = 0;
      limit = head.length;
    }
    const start = p;
    if (p >= limit) throw this.pastEnd(offset);
    let c = head[p++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    for (let shift = 4; c & 0x80; shift += 7) {
      if (shift > 53) throw corrupt(this.packPath, `the object at offset ${offset} declares an impossible size`);
      if (p >= limit) throw this.pastEnd(offset);
      c = head[p++]!;
      size += (c & 0x7f) * POW2[shift]!;
    }
    const entry: PackEntry = { type, size, dataStart: 0, baseOffset: undefined, baseOid: undefined, buffer: head, at: 0, end: limit };
    if (type === OFS_DELTA) {
      if (p >= limit) throw this.pastEnd(offset);
      c = head[p++]!;
      let back = c & 0x7f;
      while (c & 0x80) {
        if (p >= limit) throw this.pastEnd(offset);
        c = head[p++]!;
        back = (back + 1) * 128 + (c & 0x7f);
        if (back > offset) break;
      }
      // Bases come earlier in the pack: a base offset that is not strictly earlier is a lie (or a loop).
      if (back <= 0 || back > offset - 12) throw corrupt(this.packPath, `the delta at offset ${offset} names a base outside the pack`);
      entry.baseOffset = offset - back;
    } else if (type === REF_DELTA) {
      if (p + 20 > limit) throw corrupt(this.packPath, `the delta at offset ${offset} runs past the pack`);
      entry.baseOid = head.toString('hex', p, p + 20);
      p += 20;
    } else if (TYPES[type] === undefined) {
      throw corrupt(this.packPath, `the object at offset ${offset} has unknown type ${type}`);
    }
    entry.dataStart = offset + (p - start);
    entry.at = p;
    return entry;
  }

  private pastEnd(offset: number): CheckpointError {
    return corrupt(this.packPath, `the object header at offset ${offset} runs past the pack`);
  }

  inflate(entry: PackEntry, what: string): Buffer {
    const size = checkedSize(this.packPath, entry.size, what);
    return inflateAt(this.packPath, (at, length) => this.bytes(at, length), entry.dataStart, this.end, size, entry.buffer, entry.at, entry.end);
  }
}

/** A delta's header: the sizes of its base and of the result. */
function deltaSizes(file: string, delta: Buffer): { base: number; target: number; at: number } {
  let p = 0;
  const varint = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (p >= delta.length || shift > 49) throw corrupt(file, 'a delta has a malformed header');
      const c = delta[p++]!;
      value += (c & 0x7f) * POW2[shift]!;
      if (!(c & 0x80)) return value;
    }
  };
  const base = varint();
  const target = varint();
  return { base, target, at: p };
}

/** git's delta format: copy ranges of the base, insert literal bytes; every range checked. */
function applyDelta(file: string, base: Buffer, delta: Buffer): Buffer {
  const sizes = deltaSizes(file, delta);
  if (sizes.base !== base.length) throw corrupt(file, `a delta expects a ${sizes.base}-byte base, but its base has ${base.length}`);
  const target = checkedSize(file, sizes.target, 'a delta');
  const out = Buffer.allocUnsafe(target);
  let o = 0;
  let p = sizes.at;
  while (p < delta.length) {
    const op = delta[p++]!;
    if (op & 0x80) {
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) if (op & (1 << bit)) offset += (delta[p++] ?? 0) * POW2[8 * bit]!;
      for (let bit = 0; bit < 3; bit++) if (op & (16 << bit)) size += (delta[p++] ?? 0) * POW2[8 * bit]!;
      if (size === 0) size = 0x10000;
      if (p > delta.length || offset + size > base.length || o + size > target) throw corrupt(file, 'a delta copies outside its base or its result');
      // Tree deltas copy entries of a few dozen bytes: a loop costs less than Buffer.copy's call.
      if (size < 64) for (let i = 0; i < size; i++) out[o + i] = base[offset + i]!;
      else base.copy(out, o, offset, offset + size);
      o += size;
    } else if (op !== 0) {
      if (p + op > delta.length || o + op > target) throw corrupt(file, 'a delta inserts past its end or its result');
      if (op < 64) for (let i = 0; i < op; i++) out[o + i] = delta[p + i]!;
      else delta.copy(out, o, p, p + op);
      p += op;
      o += op;
    } else {
      throw corrupt(file, 'a delta holds the reserved instruction 0');
    }
  }
  if (o !== target) throw corrupt(file, `a delta yields ${o} bytes, not the ${target} it declares`);
  return out;
}

/**
 * Recently used pack objects, bounded by bytes: two generations, the older dropped whole when
 * the newer fills half the budget; a hit in the older moves up. O(1) per use, unlike evicting
 * one Map entry at a time.
 */
class BaseCache {
  private young = new Map<number | string, { type: ObjectType; data: Buffer }>();
  private old = new Map<number | string, { type: ObjectType; data: Buffer }>();
  private youngBytes = 0;

  /** The key of the object at `offset` in `pack`: a number while both fit in one, as they do in any real pack. */
  static key(pack: Pack, offset: number): number | string {
    return offset < 2 ** 40 && pack.id < 2 ** 12 ? offset * 2 ** 12 + pack.id : `${pack.id}:${offset}`;
  }

  get(key: number | string): { type: ObjectType; data: Buffer } | undefined {
    const hit = this.young.get(key);
    if (hit) return hit;
    const older = this.old.get(key);
    if (older) this.set(key, older);
    return older;
  }

  set(key: number | string, value: { type: ObjectType; data: Buffer }): void {
    if (value.data.length > BASE_CACHE_ENTRY_BYTES || this.young.has(key)) return;
    this.young.set(key, value);
    // An entry's own cost counts too: a walk caches tens of thousands of 60-byte trees.
    this.youngBytes += value.data.length + BASE_CACHE_ENTRY_OVERHEAD;
    if (this.youngBytes > BASE_CACHE_BYTES / 2) {
      this.old = this.young;
      this.young = new Map();
      this.youngBytes = 0;
    }
  }
}

/**
 * The objects of one repository: its objects directory, then its alternates, as git finds
 * them. Packs are listed once and again only when an object is not found (a fetch or gc
 * may have packed it since); loose objects are looked up per read.
 */
export class ObjectStore {
  private packs: Pack[] | null = null;
  /** Index files this reader skipped: a miss then goes to the fallback reader. */
  private unsupported: string[] = [];
  private nextPackId = 0;
  private readonly bases = new BaseCache();
  private lastPack: Pack | null = null;
  /** The refusal of a pack that held the object asked for (see fromPacks). */
  private refusedPack: CheckpointError | null = null;
  private readonly dirs: string[];
  private readonly keyBytes = Buffer.alloc(20);

  /** `objectsDir` is the common git dir's `objects` (a linked worktree shares its main one). */
  constructor(
    objectsDir: string,
    private readonly fallback: FallbackReader | null = null,
  ) {
    this.dirs = objectDirs(objectsDir);
  }

  /**
   * The object `oid` (40 hex), or null when the repository does not have it. `data` is null
   * when the object is larger than `maxBytes`; nothing larger than MAX_OBJECT_BYTES is read.
   */
  async read(oid: string, maxBytes: number = MAX_OBJECT_BYTES): Promise<GitObject | null> {
    const found = this.readKnown(oid, maxBytes);
    if (found !== undefined) return found;
    // An index this reader does not know (a newer .idx version): isomorphic-git reads those
    // objects or says why not, rather than this reader answering "missing" for an object it has.
    const other = await this.fallback!(oid);
    if (other === null) return null;
    return { type: other.type, size: other.data.length, data: other.data.length > maxBytes ? null : other.data };
  }

  /**
   * read() without the fallback reader, for a walk that does not wait on one: undefined when
   * only the fallback could answer (the object is not here, and some index was skipped).
   */
  readKnown(oid: string, maxBytes: number = MAX_OBJECT_BYTES): GitObject | null | undefined {
    if (!isObjectId(oid)) return null;
    const found = this.readSync(oid, maxBytes);
    return found === null && this.unsupported.length > 0 && this.fallback !== null ? undefined : found;
  }

  /** Full ids of the objects whose id starts with `prefix` (hex, 4 to 40 digits); at most `limit`. */
  withPrefix(prefix: string, limit = 2): string[] {
    const found = new Set<string>();
    const collect = () => {
      for (const pack of this.listPacks()) for (const oid of pack.index.withPrefix(prefix, limit)) found.add(oid);
      for (const dir of this.dirs) {
        let names: string[] = [];
        try {
          names = readdirSync(join(dir, prefix.slice(0, 2)));
        } catch {
          // no loose objects under that fan-out directory
        }
        for (const name of names) if (/^[0-9a-f]{38}$/.test(name) && (prefix.slice(0, 2) + name).startsWith(prefix)) found.add(prefix.slice(0, 2) + name);
      }
    };
    collect();
    if (found.size === 0 && this.rescan()) collect();
    return [...found].sort().slice(0, limit);
  }

  /** Whether some object directory held an index this reader does not know. */
  get skipped(): readonly string[] {
    return this.unsupported;
  }

  close(): void {
    for (const pack of this.packs ?? []) pack.close();
    this.packs = null;
  }

  private readSync(oid: string, maxBytes: number): GitObject | null {
    this.refusedPack = null;
    let found = this.fromPacks(oid, maxBytes) ?? this.fromLoose(oid, maxBytes);
    if (found === null && this.rescan()) found = this.fromPacks(oid, maxBytes);
    if (found === null && this.refusedPack) throw this.refusedPack;
    return found;
  }

  private fromPacks(oid: string, maxBytes: number): GitObject | null {
    const key = this.key(oid);
    // The pack that held the last object first, as git looks: a walk's objects sit together.
    const packs = this.listPacks();
    const last = this.lastPack !== null && packs.includes(this.lastPack) ? this.lastPack : null;
    for (let n = last === null ? 0 : -1; n < packs.length; n++) {
      const pack = n < 0 ? last! : packs[n]!;
      if (n >= 0 && pack === last) continue;
      const offset = pack.index.offsetOf(key);
      if (offset < 0) continue;
      // As git: a refused pack's objects are looked for elsewhere; found nowhere, its refusal is the error.
      const refused = pack.refused();
      if (refused) {
        this.refusedPack ??= refused;
        continue;
      }
      this.lastPack = pack;
      return this.resolve(pack, offset, maxBytes, oid);
    }
    return null;
  }

  private fromLoose(oid: string, maxBytes: number): GitObject | null {
    for (const dir of this.dirs) {
      const path = join(dir, oid.slice(0, 2), oid.slice(2));
      const found = readLoose(path, maxBytes);
      if (found !== null) return found;
    }
    return null;
  }

  /**
   * The object at `offset`: its delta chain is followed down to a stored base (or a cached
   * one), then applied upwards. The result's size is known from the top delta before any
   * base is inflated, so an object over `maxBytes` costs one small inflate.
   */
  private resolve(pack: Pack, offset: number, maxBytes: number, oid: string): GitObject {
    const top = pack.entry(offset);
    const type = TYPES[top.type];
    if (type === undefined) return this.resolveDelta(pack, offset, top, maxBytes, oid);
    // Stored whole. A commit is rarely a delta base (and is kept as one when reached as a
    // base): a walk over thousands of them would only churn the cache.
    const key = type === 'commit' ? null : BaseCache.key(pack, offset);
    const cached = key === null ? undefined : this.bases.get(key);
    if (cached) return { type: cached.type, size: cached.data.length, data: cached.data.length > maxBytes ? null : cached.data };
    if (top.size > maxBytes) return { type, size: top.size, data: null };
    const data = pack.inflate(top, `object ${oid}`);
    if (key !== null) this.bases.set(key, { type, data });
    return { type, size: data.length, data };
  }

  /**
   * A delta at `offset` (its entry `top`): its chain is followed down to a stored base (or a
   * cached one), then applied upwards. The result's size is known from the top delta before
   * any base is inflated, so an object over `maxBytes` costs one small inflate.
   */
  private resolveDelta(pack: Pack, offset: number, top: PackEntry, maxBytes: number, oid: string): GitObject {
    const cachedTop = this.bases.get(BaseCache.key(pack, offset));
    if (cachedTop) return { type: cachedTop.type, size: cachedTop.data.length, data: cachedTop.data.length > maxBytes ? null : cachedTop.data };
    // Where the base of a delta `entry` in `from` is (its own pack first, as git looks); null: in no pack.
    const next = (from: Pack, entry: PackEntry) => (entry.baseOffset !== undefined ? { pack: from, offset: entry.baseOffset } : this.locate(entry.baseOid!, from));
    const chain: { pack: Pack; offset: number; entry: PackEntry }[] = [{ pack, offset, entry: top }];
    const seen = new Set<number | string>([BaseCache.key(pack, offset)]);
    let base: { type: ObjectType; data: Buffer } | null = null;
    let baseEntry: { pack: Pack; entry: PackEntry; key: number | string } | null = null;
    for (let at = next(pack, top); ; ) {
      if (at === null) {
        // A base outside every pack (a thin pack completed by loose objects).
        const link = chain[chain.length - 1]!;
        const baseOid = link.entry.baseOid!;
        const loose = this.fromLoose(baseOid, MAX_OBJECT_BYTES);
        if (loose?.data == null) throw corrupt(link.pack.packPath, `the delta base ${baseOid} of ${oid} ${loose ? 'is too large to read' : 'is missing'}`);
        base = { type: loose.type, data: loose.data };
        break;
      }
      const key = BaseCache.key(at.pack, at.offset);
      const cached = this.bases.get(key);
      if (cached) {
        base = cached;
        break;
      }
      if (seen.has(key) || chain.length > MAX_DELTA_DEPTH) {
        throw corrupt(at.pack.packPath, seen.has(key) ? `the delta chain of ${oid} loops` : `the delta chain of ${oid} is deeper than ${MAX_DELTA_DEPTH}`);
      }
      seen.add(key);
      const entry = at.pack.entry(at.offset);
      if (TYPES[entry.type] !== undefined) {
        baseEntry = { pack: at.pack, entry, key };
        break;
      }
      chain.push({ pack: at.pack, offset: at.offset, entry });
      at = next(at.pack, entry);
    }
    const type = base?.type ?? TYPES[baseEntry!.entry.type]!;
    const topDelta = pack.inflate(top, `a delta of ${oid}`);
    const size = deltaSizes(pack.packPath, topDelta).target;
    if (size > maxBytes) return { type, size, data: null };
    let data = base?.data;
    if (data === undefined) {
      // Stored whole, shared by the deltas built on it: kept for the next one.
      data = baseEntry!.pack.inflate(baseEntry!.entry, `a delta base of ${oid}`);
      this.bases.set(baseEntry!.key, { type, data });
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const link = chain[i]!;
      const delta = i === 0 ? topDelta : link.pack.inflate(link.entry, `a delta of ${oid}`);
      data = applyDelta(link.pack.packPath, data, delta);
      this.bases.set(BaseCache.key(link.pack, link.offset), { type, data });
    }
    return { type, size: data.length, data };
  }

  /** Where a REF_DELTA base is: the delta's own pack first, as git looks. */
  private locate(oid: string, preferred: Pack): { pack: Pack; offset: number } | null {
    const key = this.key(oid);
    for (const pack of [preferred, ...this.listPacks().filter((p) => p !== preferred)]) {
      const offset = pack.index.offsetOf(key);
      if (offset >= 0) return { pack, offset };
    }
    return null;
  }

  /** `oid` as 20 bytes, in a buffer reused by every lookup (a walk makes tens of thousands). */
  private key(oid: string): Buffer {
    // Decoded here: Buffer.write(hex) is a call into C++, and every id here is 40 lower-case hex digits (isObjectId).
    const key = this.keyBytes;
    for (let i = 0; i < 20; i++) key[i] = (HEX_VALUE[oid.charCodeAt(2 * i)]! << 4) | HEX_VALUE[oid.charCodeAt(2 * i + 1)]!;
    return key;
  }

  private listPacks(): Pack[] {
    if (this.packs === null) this.packs = this.scan([]);
    return this.packs;
  }

  /** Lists the pack directories again; true when a pack appeared. */
  private rescan(): boolean {
    const before = this.listPacks();
    const after = this.scan(before);
    const grew = after.some((pack) => !before.includes(pack));
    for (const pack of before) if (!after.includes(pack)) pack.close();
    this.packs = after;
    return grew;
  }

  private scan(known: readonly Pack[]): Pack[] {
    const packs: Pack[] = [];
    const unsupported: string[] = [];
    for (const dir of this.dirs) {
      const packDir = join(dir, 'pack');
      let names: string[] = [];
      try {
        names = readdirSync(packDir).sort();
      } catch {
        continue;
      }
      // A multi-pack-index, when present, only sums up these same packs: git keeps each
      // pack's own .idx beside it, so reading the .idx files finds every object.
      for (const name of names) {
        if (!name.startsWith('pack-') || !name.endsWith('.idx')) continue;
        const idxPath = join(packDir, name);
        const old = known.find((pack) => pack.index.path === idxPath);
        if (old) {
          packs.push(old);
          continue;
        }
        const packPath = idxPath.slice(0, -'.idx'.length) + '.pack';
        if (!names.includes(name.slice(0, -'.idx'.length) + '.pack')) continue; // a pack being written or removed
        const index = PackIndex.open(idxPath);
        if (index === 'unsupported') unsupported.push(idxPath);
        else if (index !== null) packs.push(new Pack(this.nextPackId++, packPath, index));
      }
    }
    this.unsupported = unsupported;
    return packs;
  }
}

/** Each lower-case hex digit's value by character code. */
const HEX_VALUE = (() => {
  const table = new Uint8Array(128);
  for (let c = 0; c < 16; c++) table['0123456789abcdef'.charCodeAt(c)] = c;
  return table;
})();

/** 40 lower-case hex digits. */
function isObjectId(oid: string): boolean {
  if (oid.length !== 40) return false;
  for (let i = 0; i < 40; i++) {
    const c = oid.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** A loose object: a zlib stream of "<type> <size>\0<content>". */
function readLoose(path: string, maxBytes: number): GitObject | null {
  const file = openRegular(path);
  if (file === null) return null;
  try {
    // The header first, from the stream's first bytes, so an object over the cap is never inflated.
    const start = readAt(file.fd, 0, Math.min(file.size, 256));
    let header: Buffer;
    try {
      // "blob " and 16 digits at most, and the NUL: more is no header this reader takes.
      header = inflatePrefix(start, 32);
    } catch (error) {
      throw corrupt(path, `does not inflate (${(error as Error).message})`);
    }
    const nul = header.indexOf(0);
    const match = /^(commit|tree|blob|tag) (\d{1,16})$/.exec(header.toString('latin1', 0, nul < 0 ? 0 : nul));
    if (nul < 0 || match === null) throw corrupt(path, 'has no valid object header');
    const type = match[1] as ObjectType;
    const size = Number(match[2]);
    if (size > maxBytes) return { type, size, data: null };
    checkedSize(path, size, 'the object');
    const whole = inflateAt(path, (at, length) => readAt(file.fd, at, length), 0, file.size, nul + 1 + size);
    return { type, size, data: whole.subarray(nul + 1) };
  } finally {
    closeSync(file.fd);
  }
}

/** The object directory and its alternates, depth first, each once, as git lists them. */
function objectDirs(objectsDir: string): string[] {
  const dirs: string[] = [];
  const visit = (dir: string, depth: number) => {
    const absolute = resolve(dir);
    if (dirs.includes(absolute)) return;
    dirs.push(absolute);
    if (depth >= MAX_ALTERNATE_DEPTH) return;
    let text = '';
    try {
      const file = openRegular(join(absolute, 'info', 'alternates'));
      if (file === null) return;
      try {
        text = file.size > 1024 * 1024 ? '' : readFileSync(file.fd, 'utf8');
      } finally {
        closeSync(file.fd);
      }
    } catch {
      return; // not a regular file: git would not read it either
    }
    for (const line of text.split('\n')) {
      const entry = line.trim();
      if (entry === '' || entry.startsWith('#')) continue;
      // Relative alternates are relative to this objects directory.
      visit(isAbsolute(entry) ? entry : join(absolute, entry), depth + 1);
    }
  };
  visit(objectsDir, 0);
  return dirs;
}
