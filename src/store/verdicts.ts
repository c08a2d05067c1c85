// Each checkpoint file's validation verdict, remembered the way git's index remembers a file's
// stat: a read-only command (validate, status, next, resume, doctor) that finds a file unchanged
// reuses the verdict instead of parsing and checking it again. Never used by a write or the merge
// driver. Doctor may: trusting a file by its stat is the trust git gives its own index, the clock
// rule and every drift check still run live, and a pushed tip is judged from git's blobs.
// Exact, not a guess:
//  - unchanged means the same device, inode, size, mtime and ctime to the nanosecond; a write
//    always sets ctime, which no tool can set back;
//  - git's "racy clean" rule: an entry is kept only for a file whose ctime is older, by the file
//    system's own clock, than the moment it was read (minus RACY_NS for coarse timestamps), so no
//    later change can carry the recorded ctime; a file changed in the last seconds is re-checked;
//  - the verdict leaves out the one clock rule (validate.ts futureSkew), which runs live;
//  - another build of the tool, or a cache file that is not exactly ours, is a miss.
// Kept per work tree in its git dir (<gitdir>/checkpoint/verdicts.json), never in the work tree.
import type { BigIntStats } from 'node:fs';
import { closeSync, fstatSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, cacheWrite, readCacheJson } from '../git/cache-files.js';
import { resolveGitDirsSync } from '../git/locate.js';
import type { Issue } from '../protocol/validate.js';

declare const CHECKPOINT_BUILD: string;
/**
 * This build's identity, set by scripts/build.mjs from the sources: what every answer kept in
 * .git/checkpoint/ by the rules of this code is keyed by. An unbundled run (tests from src/) has
 * none and keeps nothing.
 */
export const BUILD = typeof CHECKPOINT_BUILD === 'string' ? CHECKPOINT_BUILD : null;

const FILE = 'verdicts.json';
/** Entries kept: a project's checkpoints plus files named to validate, with room to spare. */
const MAX_ENTRIES = 256;
/** Margin for file systems whose timestamps are coarse (2 s on FAT, 1 s on ext3 and HFS+). */
const RACY_NS = 2_000_000_000n;
/** Far more than MAX_ENTRIES verdicts take: a larger file was not written by us and is a miss, not a long read. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** What validateCheckpoint says of a file without a clock, plus what the clock rule reads. */
export interface Verdict {
  errors: Issue[];
  warnings: Issue[];
  updatedAt: unknown;
  /** Where the file's non-ASCII bytes are (trusted-json.ts nonAsciiRuns): a trusted read parses them without a decode. */
  nonAscii: number[];
}

interface Entry extends Verdict {
  /** dev:ino:size:mtimeNs:ctimeNs of the file judged. */
  id: string;
  ctimeNs: string;
}

/** An entry learnt by this run, with when (process clock) its file was read. */
interface Learnt {
  key: string;
  entry: Entry;
  readAt: bigint;
}

const idOf = (st: BigIntStats) => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

export class Verdicts {
  /** As read from the cache file, unchecked (isEntry), or learnt by this run. */
  private readonly entries: Map<string, unknown>;
  private readonly learnt: Learnt[] = [];

  private constructor(
    private readonly gitdir: string | null,
    private readonly build: string | null,
    entries: Map<string, unknown>,
  ) {
    this.entries = entries;
  }

  /** The cache of the work tree at `root` (an empty one outside git or without a build id). */
  static open(root: string, build: string | null = BUILD): Verdicts {
    if (build === null) return new Verdicts(null, null, new Map());
    let gitdir: string;
    try {
      // A .git folder is the git dir (the common case, asked without a failing read of `commondir`).
      gitdir = statSync(join(root, '.git')).isDirectory() ? join(root, '.git') : resolveGitDirsSync(root).gitdir;
    } catch {
      return new Verdicts(null, null, new Map());
    }
    const file = readCacheJson(join(gitdir, 'checkpoint', FILE), MAX_FILE_BYTES) as { build?: unknown; entries?: unknown } | undefined;
    // Entries are checked when looked up: a run asks about a dozen of them.
    const entries = new Map<string, unknown>();
    if (file && file.build === build && Array.isArray(file.entries)) {
      for (const e of file.entries as unknown[]) if (Array.isArray(e) && e.length === 2 && typeof e[0] === 'string') entries.set(e[0], e[1]);
    }
    return new Verdicts(gitdir, build, entries);
  }

  /** The verdict on the file at `key` (its path and the name it is judged under) if `st` is the file judged. */
  lookup(key: string, st: BigIntStats): Verdict | undefined {
    const e = this.entries.get(key);
    return isEntry(e) && e.id === idOf(st) ? e : undefined;
  }

  /** Records the verdict on the file at `key`, just read with fstat `st`. */
  remember(key: string, st: BigIntStats, verdict: Verdict): void {
    if (this.build === null || this.lookup(key, st)) return;
    this.learnt.push({ key, entry: { ...verdict, id: idOf(st), ctimeNs: String(st.ctimeNs) }, readAt: process.hrtime.bigint() });
  }

  /** Writes what this run learnt; best effort (a read-only folder just means re-checking next time). Held back as every cache write (cacheWrite). */
  save(): void {
    if (this.learnt.length === 0 || this.gitdir === null) return;
    cacheWrite(() => this.write());
  }

  private write(): void {
    if (this.learnt.length === 0 || this.gitdir === null) return;
    const dir = cacheDir(this.gitdir, '', true);
    if (dir === null) return;
    const tmp = join(dir, `.${FILE}.${process.pid}.tmp`);
    let fd: number | null = null;
    try {
      fd = openSync(tmp, 'wx', 0o600);
      // The file system's clock now, and the process clock at the same moment.
      const stamp = fstatSync(fd, { bigint: true }).mtimeNs;
      const at = process.hrtime.bigint();
      for (const { key, entry, readAt } of this.learnt) {
        this.entries.delete(key); // re-inserted last: the oldest are dropped first
        // The file system's clock when the file was read, less the margin: a ctime before that is final.
        if (BigInt(entry.ctimeNs) < stamp - (at - readAt) - RACY_NS) this.entries.set(key, entry);
      }
      this.learnt.length = 0;
      writeSync(fd, JSON.stringify({ build: this.build, entries: [...this.entries].slice(-MAX_ENTRIES) }));
      closeSync(fd);
      fd = null;
      renameSync(tmp, join(dir, FILE));
    } catch {
      try {
        if (fd !== null) closeSync(fd);
        unlinkSync(tmp);
      } catch {
        // nothing left behind
      }
    }
  }
}

const isIssues = (v: unknown): v is Issue[] =>
  Array.isArray(v) && v.every((i) => typeof i === 'object' && i !== null && typeof i.path === 'string' && typeof i.message === 'string' && (i.level === 'error' || i.level === 'warning'));

function isEntry(v: unknown): v is Entry {
  const e = v as Partial<Entry> | null | undefined;
  return typeof e === 'object' && e !== null && typeof e.id === 'string' && typeof e.ctimeNs === 'string' && /^\d+$/.test(e.ctimeNs) && isIssues(e.errors) && isIssues(e.warnings) &&
    Array.isArray(e.nonAscii) && e.nonAscii.every(Number.isSafeInteger);
}
