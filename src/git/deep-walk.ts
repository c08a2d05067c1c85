// The deep questions (commitsNaming, lastRemovals) look past the bounded walk, back to the
// oldest checkpoint: on a long-lived repository every commit since, and a root tree each,
// tens of thousands of objects. Read the way ObjectReader reads objects for one question (a
// memoized promise and a fully parsed object per read), the bookkeeping costs more than the
// reading. Here reads are synchronous while the store can answer alone, a commit is read
// from its header bytes, and a message is searched in its bytes before any is decoded.
// Whatever falls outside the common shape goes to the same full parsers (object-parse.ts),
// so the answers are the ones ObjectReader gives.
import { CommitQueue } from './commit-queue.js';
import { anyCaseToken, asciiLower } from './normalize.js';
import { entryNamed, parseCommit, peelStep, readStamp, type FileState, type ParsedCommit } from './object-parse.js';
import type { GitObject, ObjectStore } from './object-store.js';

/** Trees fileAt keeps at hand: a root tree and a subtree for each of a few paths. */
const RECENT_TREES = 8;

/** A commit as a deep walk reads it: its header's parents, root tree and time, and its bytes. */
export interface WalkCommit {
  sha: string;
  /** First-parent order; empty for a root and for a shallow clone's boundary commits. */
  parents: string[];
  tree: string;
  time: number;
  data: Buffer;
}

/** An object only the store's fallback reader (which is asynchronous) can give. */
class NeedsFallback extends Error {
  constructor(readonly oid: string) {
    super(`object ${oid} needs the fallback reader`);
  }
}

interface WalkState {
  queue: CommitQueue<WalkCommit>;
  queued: Set<string>;
  /** The commit being visited or having its parents queued, when a step stopped on it. */
  current: WalkCommit | undefined;
  visited: boolean;
}

/** Commits and path lookups of the deep questions, each read once for both. */
export class DeepReader {
  private readonly commits = new Map<string, WalkCommit>();
  /** Per path: root (or sub-) tree id -> what that tree holds at the path. */
  private readonly files = new Map<string, TwoGenerations<FileState | null>>();
  /** Objects the fallback reader gave (null: it has none either). */
  private readonly fetched = new Map<string, GitObject | null>();
  private readonly recentTrees: { asked: string; tree: { oid: string; data: Buffer } }[] = [];
  private nextRecent = 0;

  constructor(
    private readonly store: ObjectStore,
    private readonly shallow: ReadonlySet<string>,
  ) {}

  /**
   * Commits reachable from `tip` without passing one older than `minTime`, each once, in
   * committer-time order (ObjectReader's walk), each visited before its parents are read.
   * `visit` may use commit() and fileAt(); it may return a promise, which is awaited.
   */
  async walk(tip: string, minTime: number, visit: (commit: WalkCommit) => void | Promise<void>): Promise<void> {
    const walk: WalkState = { queue: new CommitQueue<WalkCommit>(), queued: new Set([tip]), current: undefined, visited: false };
    walk.queue.push(await this.later(() => this.commit(tip)));
    for (;;) {
      let pending: Promise<void> | null;
      try {
        pending = this.drain(walk, minTime, visit);
      } catch (error) {
        if (!(error instanceof NeedsFallback)) throw error;
        // The step that needed it runs again once the fallback reader has answered.
        await this.fetch(error.oid);
        continue;
      }
      if (pending === null) return;
      await pending;
    }
  }

  /** Walks on synchronously until the walk ends (null) or a visit returns a promise. */
  private drain(walk: WalkState, minTime: number, visit: (commit: WalkCommit) => void | Promise<void>): Promise<void> | null {
    for (;;) {
      let commit = walk.current;
      if (commit === undefined) {
        commit = walk.queue.pop();
        if (commit === undefined || commit.time < minTime) return null;
        walk.current = commit;
        walk.visited = false;
      }
      if (!walk.visited) {
        const pending = visit(commit);
        walk.visited = true;
        if (pending) return pending;
      }
      for (const parent of commit.parents) {
        if (walk.queued.has(parent)) continue;
        walk.queue.push(this.commit(parent));
        walk.queued.add(parent);
      }
      // Its children were visited before it and its parents are read: unless a clock runs
      // backwards nothing asks for it again, and kept, 20,000 commits would outlive the young
      // generation (a commit asked for again is read again).
      this.commits.delete(commit.sha);
      walk.current = undefined;
    }
  }

  /** The commit `sha` (through tags). Throws NeedsFallback inside walk(), which retries. */
  commit(sha: string): WalkCommit {
    let commit = this.commits.get(sha);
    if (commit === undefined) {
      // An annotated tag reads as the commit it points to, under that commit's oid.
      const { oid, data } = this.peel(sha, 'commit');
      commit = commitHeader(oid, data) ?? fromParsed(parseCommit(oid, data), data);
      if (this.shallow.has(oid)) commit.parents = [];
      this.commits.set(sha, commit);
    }
    return commit;
  }

  /** The commit parsed whole, as ObjectReader.commit gives it. */
  parsed(commit: WalkCommit): ParsedCommit {
    const parsed = parseCommit(commit.sha, commit.data);
    parsed.parents = commit.parents;
    return parsed;
  }

  /** `read()`'s answer, asking the fallback reader for each object it needs. */
  private async later<T>(read: () => T): Promise<T> {
    for (;;) {
      try {
        return read();
      } catch (error) {
        if (!(error instanceof NeedsFallback)) throw error;
        await this.fetch(error.oid);
      }
    }
  }

  private async fetch(oid: string): Promise<void> {
    this.fetched.set(oid, await this.store.read(oid));
  }

  /**
   * The file (blob, link or submodule) at `path` in tree `oid`, as ObjectReader.fileAt finds
   * it. Throws NeedsFallback inside walk(), which retries.
   */
  fileAt(oid: string, path: string): FileState | null {
    let memo = this.files.get(path);
    if (memo === undefined) this.files.set(path, (memo = new TwoGenerations()));
    let found = memo.get(oid);
    if (found === undefined) {
      const slash = path.indexOf('/');
      const tree = this.tree(oid);
      const entry = entryNamed(tree.oid, tree.data, slash < 0 ? path : path.slice(0, slash));
      if (entry === null) found = null;
      else if (slash < 0) found = entry.type === 'tree' ? null : { oid: entry.oid, mode: entry.mode };
      else found = entry.type === 'tree' ? this.fileAt(entry.oid, path.slice(slash + 1)) : null;
      memo.set(oid, found);
    }
    return found;
  }

  /**
   * The tree `oid` (through tags and commits), from the few read last: a commit's trees are
   * looked up once per path, so with several paths each is asked for again at once.
   */
  private tree(oid: string): { oid: string; data: Buffer } {
    const recent = this.recentTrees;
    for (let i = 0; i < recent.length; i++) if (recent[i]!.asked === oid) return recent[i]!.tree;
    const tree = this.peel(oid, 'tree');
    recent[this.nextRecent] = { asked: oid, tree };
    this.nextRecent = (this.nextRecent + 1) % RECENT_TREES;
    return tree;
  }

  private peel(oid: string, want: 'commit' | 'tree'): { oid: string; data: Buffer } {
    for (let depth = 0; ; depth++) {
      const step = peelStep(oid, this.read(oid), want, depth);
      if (typeof step !== 'string') return step;
      oid = step;
    }
  }

  private read(oid: string): GitObject | null {
    if (this.fetched.size > 0 && this.fetched.has(oid)) return this.fetched.get(oid)!;
    const found = this.store.readKnown(oid);
    if (found === undefined) throw new NeedsFallback(oid);
    return found;
  }
}

/** Entries per generation of a TwoGenerations memo. */
const GENERATION = 2048;

/**
 * A memo of the last few thousand answers: a walk asks about each tree as a commit's and then
 * as its parent's, a few commits apart, and a memo of every tree of 20,000 commits would only
 * be carried from one garbage collection to the next.
 */
class TwoGenerations<T> {
  private young = new Map<string, T>();
  private old = new Map<string, T>();

  get(key: string): T | undefined {
    const value = this.young.get(key);
    return value !== undefined ? value : this.old.get(key);
  }

  set(key: string, value: T): void {
    if (this.young.size >= GENERATION) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }
}

function fromParsed(commit: ParsedCommit, data: Buffer): WalkCommit {
  return { sha: commit.sha, parents: commit.parents, tree: commit.tree, time: commit.time, data };
}

const LF = 0x0a;
const SPACE = 0x20;

/**
 * The header of a commit in git's own shape, read from its bytes: "tree <id>", "parent <id>"
 * lines (lower-case hex ids, no continuation lines), then the first "committer" line, not
 * continued. Anything else is null, for parseCommit to read (or refuse) as it always has.
 */
export function commitHeader(sha: string, data: Buffer): WalkCommit | null {
  if (!idLine(data, 0, 'tree ')) return null;
  const tree = data.toString('latin1', 5, 45);
  const parents: string[] = [];
  let at = 46;
  while (startsWith(data, at, 'parent ')) {
    if (!idLine(data, at, 'parent ')) return null;
    parents.push(data.toString('latin1', at + 7, at + 47));
    at += 48;
  }
  // The headers end at the first blank line (or the end): the committer must come before.
  while (at < data.length && data[at] !== LF) {
    let end = data.indexOf(LF, at);
    if (end < 0) end = data.length;
    // A line starting with a space continues the header before it.
    if (data[at] !== SPACE && startsWith(data, at, 'committer ')) {
      if (data[end + 1] === SPACE) return null;
      let time = stampTime(data, at + 'committer '.length, end);
      if (time < 0) {
        const stamp = readStamp(data.toString('utf8', at + 'committer '.length, end));
        if (stamp === null) return null;
        time = Number(stamp[2]);
      }
      return { sha, parents, tree, time: Number.isFinite(time) ? time : 0, data };
    }
    at = end + 1;
  }
  return null;
}

const LT = 0x3c;
const GT = 0x3e;

/**
 * readStamp's time (its third part) read from the bytes of a committer line (data[from..end)) in
 * the shape with one way to read it: one "<", one ">" (after " <" and
 * before "> "), and a time of 1-15 ASCII digits before the line's last space. -1 otherwise,
 * for readStamp itself: other bytes after the ">" (a signed or spaced time), and the characters
 * readStamp refuses (CR, U+2028, U+2029), are left to it.
 */
function stampTime(data: Buffer, from: number, end: number): number {
  const lt = data.indexOf(LT, from);
  if (lt < from + 1 || lt >= end || data[lt - 1] !== SPACE) return -1;
  const gt = data.indexOf(GT, lt + 1);
  if (gt < 0 || gt + 1 >= end || data[gt + 1] !== SPACE) return -1;
  for (let i = from; i < end; i++) {
    const c = data[i]!;
    if (c === 0x0d || (c === LT && i !== lt) || (c === GT && i !== gt) || (c === 0xe2 && data[i + 1] === 0x80 && (data[i + 2] === 0xa8 || data[i + 2] === 0xa9))) return -1;
  }
  // "> <digits> <zone>": the zone (the last space's right) must hold no space.
  let time = 0;
  let i = gt + 2;
  for (; i < end && i - (gt + 2) < 16; i++) {
    const c = data[i]!;
    if (c === SPACE) break;
    if (c < 0x30 || c > 0x39) return -1;
    time = time * 10 + (c - 0x30);
  }
  if (i === gt + 2 || i - (gt + 2) > 15 || i >= end || data[i] !== SPACE) return -1;
  for (let j = i + 1; j < end; j++) if (data[j] === SPACE) return -1;
  return time;
}

/** `<name><40 lower-case hex>\n` at `at`, not followed by a continuation line. */
function idLine(data: Buffer, at: number, name: string): boolean {
  const end = at + name.length + 40;
  if (end >= data.length || data[end] !== LF || data[end + 1] === SPACE || !startsWith(data, at, name)) return false;
  for (let i = at + name.length; i < end; i++) {
    const c = data[i]!;
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

function startsWith(data: Buffer, at: number, text: string): boolean {
  if (at + text.length > data.length) return false;
  for (let i = 0; i < text.length; i++) if (data[at + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** A token as mayName searches for it: its UTF-8 bytes, lower-cased when its ASCII letters match in either case (anyCaseToken). */
interface Needle {
  bytes: Buffer;
  anyCase: boolean;
}

/** Tokens as mayName searches for them, by first byte (an any-case token under both cases of its first letter). */
export interface Needles {
  byFirstByte: (Needle[] | undefined)[];
}

/**
 * `tokens` (none empty, none with a newline) prepared for mayName, or null when a search of
 * the bytes could miss one: a token holding U+FFFD (which an invalid byte decodes to) or a
 * lone surrogate (which encodes as U+FFFD).
 */
export function tokenBytes(tokens: readonly string[]): Needles | null {
  const byFirstByte: (Needle[] | undefined)[] = new Array(256).fill(undefined);
  for (const token of tokens) {
    const anyCase = anyCaseToken(token);
    const bytes = Buffer.from(anyCase ? asciiLower(token) : token, 'utf8');
    if (token.includes('\uFFFD') || (!anyCase && bytes.toString('utf8') !== token) || bytes.length === 0) return null;
    const first = bytes[0]!;
    const needle = { bytes, anyCase };
    (byFirstByte[first] ??= []).push(needle);
    if (anyCase && first >= 0x61 && first <= 0x7a) (byFirstByte[first - 0x20] ??= []).push(needle);
  }
  return { byFirstByte };
}

/** Whether `needle` stands in `data` at `at`, an any-case needle's letters in either case. */
function needleAt(data: Buffer, at: number, needle: Needle): boolean {
  const bytes = needle.bytes;
  const length = bytes.length;
  if (at + length > data.length) return false;
  if (!needle.anyCase) return data.compare(bytes, 0, length, at, at + length) === 0;
  for (let k = 0; k < length; k++) {
    const want = bytes[k]!;
    // A lower-case letter wanted: the byte with 0x20 set is it only for that letter in either case.
    const c = want >= 0x61 && want <= 0x7a ? data[at + k]! | 0x20 : data[at + k]!;
    if (c !== want) return false;
  }
  return true;
}

/**
 * False only when the commit's message (as parseCommit decodes it) holds none of the tokens.
 * Without an `encoding` header or a carriage return, the message is its bytes read as UTF-8,
 * where a token's text appears exactly where its UTF-8 bytes do: an invalid byte reads as
 * U+FFFD without swallowing a valid character after it, and trimming blank lines cannot join
 * text. Otherwise (or for null needles): true, and the caller decodes and checks.
 */
export function mayName(data: Buffer, needles: Needles | null): boolean {
  // The headers end at the first blank line; an `encoding` header among them re-encodes the message.
  let split = -1;
  let encoded = false;
  for (let i = 0; i + 1 < data.length; i++) {
    if (data[i] !== LF) continue;
    if (data[i + 1] === LF) {
      split = i;
      break;
    }
    if (data[i + 1] === 0x65 && startsWith(data, i + 1, 'encoding ')) encoded = true;
  }
  if (split < 0) return false; // the message is "\n", and no token is
  if (needles === null || encoded) return true;
  const byFirstByte = needles.byFirstByte;
  for (let i = split + 2; i < data.length; i++) {
    const byte = data[i]!;
    if (byte === 0x0d) return true;
    const group = byFirstByte[byte];
    if (group === undefined) continue;
    for (const needle of group) if (needleAt(data, i, needle)) return true;
  }
  return false;
}
