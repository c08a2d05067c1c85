// The deep questions (commitsNaming, lastRemovals) look past the bounded walk, back to the
// oldest checkpoint: on a long-lived repository every commit since, and a root tree each,
// tens of thousands of objects. Read the way ObjectReader reads objects for one question (a
// memoized promise and a fully parsed object per read), the bookkeeping costs more than the
// reading. Here reads are synchronous while the store can answer alone, a commit is read
// from its header bytes, and a message is searched in its bytes before any is decoded.
// Whatever falls outside the common shape goes to the same full parsers (object-parse.ts),
// so the answers are the ones ObjectReader gives.
import { CommitQueue } from './commit-queue.js';
import { entryNamed, parseCommit, peelStep, type FileState, type ParsedCommit } from './object-parse.js';
import type { GitObject, ObjectStore } from './object-store.js';

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

/** Commits and path lookups of the deep questions, each read once for both. */
export class DeepReader {
  private readonly commits = new Map<string, WalkCommit>();
  /** Per path: root (or sub-) tree id -> what that tree holds at the path. */
  private readonly files = new Map<string, Map<string, FileState | null>>();
  /** Objects the fallback reader gave (null: it has none either). */
  private readonly fetched = new Map<string, GitObject | null>();

  constructor(
    private readonly store: ObjectStore,
    private readonly shallow: ReadonlySet<string>,
  ) {}

  /**
   * Commits reachable from `tip` without passing one older than `minTime`, each once, in
   * committer-time order (ObjectReader's walk): `visit` sees each before its parents are read.
   */
  async walk(tip: string, minTime: number, visit: (commit: WalkCommit) => void | Promise<void>): Promise<void> {
    const queue = new CommitQueue<WalkCommit>();
    const queued = new Set([tip]);
    queue.push(await this.commit(tip));
    for (let commit = queue.pop(); commit !== undefined && commit.time >= minTime; commit = queue.pop()) {
      const visiting = visit(commit);
      if (visiting) await visiting;
      for (const parent of commit.parents) {
        if (queued.has(parent)) continue;
        queued.add(parent);
        queue.push(this.now(() => this.commitNow(parent)) ?? (await this.commit(parent)));
      }
    }
  }

  async commit(sha: string): Promise<WalkCommit> {
    return this.later(() => this.commitNow(sha));
  }

  /** The file (blob, link or submodule) at `path` in tree `oid`, as ObjectReader.fileAt finds it. */
  async fileAt(oid: string, path: string): Promise<FileState | null> {
    const found = this.now(() => this.fileAtNow(oid, path));
    return found !== undefined ? found : this.later(() => this.fileAtNow(oid, path));
  }

  /** The commit parsed whole, as ObjectReader.commit gives it. */
  parsed(commit: WalkCommit): ParsedCommit {
    const parsed = parseCommit(commit.sha, commit.data);
    parsed.parents = commit.parents;
    return parsed;
  }

  /** `read()`'s answer, or undefined when it needs an object from the fallback reader. */
  private now<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (error) {
      if (error instanceof NeedsFallback) return undefined;
      throw error;
    }
  }

  /** `read()`'s answer, asking the fallback reader for each object it needs. */
  private async later<T>(read: () => T): Promise<T> {
    for (;;) {
      try {
        return read();
      } catch (error) {
        if (!(error instanceof NeedsFallback)) throw error;
        this.fetched.set(error.oid, await this.store.read(error.oid));
      }
    }
  }

  private commitNow(sha: string): WalkCommit {
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

  private fileAtNow(oid: string, path: string): FileState | null {
    let memo = this.files.get(path);
    if (memo === undefined) this.files.set(path, (memo = new Map()));
    let found = memo.get(oid);
    if (found === undefined) {
      const slash = path.indexOf('/');
      const tree = this.peel(oid, 'tree');
      const entry = entryNamed(tree.oid, tree.data, slash < 0 ? path : path.slice(0, slash));
      if (entry === null) found = null;
      else if (slash < 0) found = entry.type === 'tree' ? null : { oid: entry.oid, mode: entry.mode };
      else found = entry.type === 'tree' ? this.fileAtNow(entry.oid, path.slice(slash + 1)) : null;
      memo.set(oid, found);
    }
    return found;
  }

  private peel(oid: string, want: 'commit' | 'tree'): { oid: string; data: Buffer } {
    for (let depth = 0; ; depth++) {
      const step = peelStep(oid, this.read(oid), want, depth);
      if (typeof step !== 'string') return step;
      oid = step;
    }
  }

  private read(oid: string): GitObject | null {
    const fetched = this.fetched.get(oid);
    if (fetched !== undefined || this.fetched.has(oid)) return fetched ?? null;
    const found = this.store.readKnown(oid);
    if (found === undefined) throw new NeedsFallback(oid);
    return found;
  }
}

function fromParsed(commit: ParsedCommit, data: Buffer): WalkCommit {
  return { sha: commit.sha, parents: commit.parents, tree: commit.tree, time: commit.time, data };
}

const LF = 0x0a;
const SPACE = 0x20;
/** parseCommit's reading of a committer line (after "committer "). */
const STAMP = /^(.*) <(.*)> (.*) (.*)$/;

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
      const stamp = STAMP.exec(data.toString('utf8', at + 'committer '.length, end));
      if (stamp === null) return null;
      const time = Number(stamp[3]);
      return { sha, parents, tree, time: Number.isFinite(time) ? time : 0, data };
    }
    at = end + 1;
  }
  return null;
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

/**
 * `tokens` as UTF-8 bytes for mayName, or null when a search of the bytes could miss one: a
 * token holding U+FFFD (which an invalid byte decodes to) or a lone surrogate.
 */
export function tokenBytes(tokens: readonly string[]): Buffer[] | null {
  const bytes = tokens.map((t) => Buffer.from(t, 'utf8'));
  // A lone surrogate encodes as U+FFFD: such a token does not come back from its bytes.
  return tokens.every((t, i) => !t.includes('\uFFFD') && bytes[i]!.toString('utf8') === t) ? bytes : null;
}

/**
 * False only when the commit's message (as parseCommit decodes it) holds none of the tokens
 * (none empty, none with a newline). Without an `encoding` header or a carriage return, the
 * message is its bytes read as UTF-8, where a token's text appears exactly where its UTF-8
 * bytes do: an invalid byte reads as U+FFFD without swallowing a valid character after it,
 * and trimming blank lines cannot join text. Otherwise (or for null tokens): true, and the
 * caller decodes and checks.
 */
export function mayName(data: Buffer, tokens: readonly Buffer[] | null): boolean {
  const split = data.indexOf('\n\n');
  if (split < 0) return false; // the message is "\n"
  if (tokens === null) return true;
  const encoding = data.indexOf('\nencoding ');
  if ((encoding >= 0 && encoding < split) || data.indexOf(0x0d, split) >= 0) return true;
  return tokens.some((t) => data.indexOf(t, split + 2) >= 0);
}
