// The files our caches keep in the git dir (<common dir>/checkpoint/): read and written so that
// a link, a FIFO or a huge file planted there is a miss, never followed, never blocking. Every
// write to them goes through here (cacheWrite), so a run can hold them back until it completes.
import { lstatSync, mkdirSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLeaf } from '../store/safe-fs.js';

/** A cache file larger than this is not ours (a walk of thousands of commits stays far below). */
const MAX_CACHE_BYTES = 64 << 20;

/**
 * Writes held back by holdCacheWrites, in order, and the text of each file written so (what a
 * read in the same run gets). Module state, not per run: runs overlapping in one process share it.
 */
let held: { depth: number; failed: boolean; writes: (() => void)[]; texts: Map<string, string>; dirs: Set<string> } | null = null;

/**
 * Runs `run` with every cache write held back until it settles: made, in order, when it (and any
 * run overlapping it) completes; dropped when one throws. doctor's refusals (a damaged index, a
 * broken branch, git failing) come after it has learnt answers: .git is then left as it was.
 */
export async function holdCacheWrites<T>(run: () => Promise<T>): Promise<T> {
  held ??= { depth: 0, failed: false, writes: [], texts: new Map(), dirs: new Set() };
  const mine = held;
  mine.depth++;
  try {
    return await run();
  } catch (error) {
    mine.failed = true;
    throw error;
  } finally {
    if (--mine.depth === 0) {
      held = null;
      if (!mine.failed) {
        for (const write of mine.writes) {
          try {
            write();
          } catch {
            // best effort, as every cache write: the next run only works it out again
          }
        }
      }
    }
  }
}

/** Makes a cache write now, or when the run holding writes back completes. */
export function cacheWrite(write: () => void): void {
  if (held) held.writes.push(write);
  else write();
}

/** `<commonDir>/checkpoint[/sub]` when it is a real directory (made if missing and `create`); else null. */
export function cacheDir(commonDir: string, sub = '', create = false): string | null {
  // Each level is checked before the next is made in it: a link planted in place of a
  // directory would send our writes elsewhere.
  let dir = commonDir;
  for (const name of sub ? ['checkpoint', sub] : ['checkpoint']) {
    dir = join(dir, name);
    // To be made with the writes a run holds back: there for that run's own reads and writes.
    if (held?.dirs.has(dir)) continue;
    if (create && held) {
      const st = lstatSync(dir, { throwIfNoEntry: false });
      if (st && !st.isDirectory()) return null;
      if (!st) {
        held.dirs.add(dir);
        // Made level by level and checked as here, when the writes are made.
        cacheWrite(() => void cacheDir(commonDir, sub, true));
      }
      continue;
    }
    if (create) {
      try {
        mkdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
    }
    if (!realDir(dir)) return null;
  }
  return dir;
}

function realDir(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * Parsed JSON of a regular file of at most `maxBytes`, without following a link; undefined on any
 * doubt. With `prefix`, a file whose text does not start with it is a miss before any parsing:
 * after HEAD moves, every cache keyed by HEAD misses, and parsing a walk to learn that costs ms.
 */
export function readCacheJson(path: string, maxBytes = MAX_CACHE_BYTES, prefix?: string): unknown {
  const text = held?.texts.get(path) ?? readLeaf(path, maxBytes);
  if (text === null || (prefix !== undefined && !text.startsWith(prefix))) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Best effort: written to a fresh temp file (never through a link) and renamed over `name` (see cacheWrite). */
export function writeCacheJson(dir: string, name: string, value: unknown): void {
  const text = JSON.stringify(value);
  held?.texts.set(join(dir, name), text);
  cacheWrite(() => writeText(dir, name, text));
}

function writeText(dir: string, name: string, text: string): void {
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx' });
    renameSync(tmp, join(dir, name));
  } catch {
    try {
      unlinkSync(tmp);
    } catch {
      // nothing left behind
    }
  }
}

/** Keeps `current` and the newest others of `dir` whose names pass `ours`, `keep` in all; deletes the rest. */
export function pruneCacheDir(dir: string, ours: (name: string) => boolean, keep: number, current: string): void {
  cacheWrite(() => prune(dir, ours, keep, current));
}

function prune(dir: string, ours: (name: string) => boolean, keep: number, current: string): void {
  try {
    const files = readdirSync(dir).filter((name) => name !== current && ours(name)).flatMap((name) => {
      const st = lstatSync(join(dir, name), { throwIfNoEntry: false });
      return st?.isFile() ? [{ name, at: st.mtimeMs }] : [];
    });
    files.sort((a, b) => b.at - a.at);
    for (const { name } of files.slice(keep - 1)) unlinkSync(join(dir, name));
  } catch {
    // a race with another run: it prunes too
  }
}

/**
 * A cache file of answers that never change (keyed by object ids: a commit's tree, two blobs'
 * texts), read once per run: `get` marks an entry used, `set` learns one, and `save` writes the
 * `max` last used back, only when the run learnt something.
 */
export class KeptAnswers<T> {
  private readonly kept: Map<string, T>;
  private learnt = false;

  private constructor(private readonly commonDir: string | undefined, private readonly name: string, private readonly max: number, kept: Map<string, T>) {
    this.kept = kept;
  }

  /** The answers kept in `<commonDir>/checkpoint/<name>`; an entry whose value fails `valid` (or key, `validKey`) is dropped, a file that is not an object is none. */
  static read<T>(commonDir: string | undefined, name: string, max: number, valid: (value: unknown) => value is T, validKey: (key: string) => boolean = () => true): KeptAnswers<T> {
    const dir = commonDir === undefined ? null : cacheDir(commonDir);
    const file = dir ? readCacheJson(join(dir, name)) : undefined;
    const entries = file !== null && typeof file === 'object' && !Array.isArray(file) ? Object.entries(file as Record<string, unknown>) : [];
    return new KeptAnswers(commonDir, name, max, new Map(entries.filter((e): e is [string, T] => valid(e[1]) && validKey(e[0]))));
  }

  /** The kept answer for `key`, marked used (last in the order the cut keeps: a Map keeps insertion order). */
  get(key: string): T | undefined {
    const value = this.kept.get(key);
    if (value === undefined) return undefined;
    this.kept.delete(key);
    this.kept.set(key, value);
    return value;
  }

  set(key: string, value: T): void {
    this.kept.delete(key);
    this.kept.set(key, value);
    this.learnt = true;
  }

  /** Best effort, held back like every cache write: nothing when nothing was learnt. */
  save(): void {
    if (!this.learnt || this.commonDir === undefined) return;
    const dir = cacheDir(this.commonDir, '', true);
    if (dir) writeCacheJson(dir, this.name, Object.fromEntries([...this.kept].slice(-this.max)));
    this.learnt = false;
  }
}
