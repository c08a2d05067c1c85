// The files our caches keep in the git dir (<common dir>/checkpoint/): read and written so that
// a link, a FIFO or a huge file planted there is a miss, never followed, never blocking.
import { lstatSync, mkdirSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLeaf } from '../store/safe-fs.js';

/** A cache file larger than this is not ours (a walk of thousands of commits stays far below). */
const MAX_CACHE_BYTES = 64 << 20;

/** `<commonDir>/checkpoint[/sub]` when it is a real directory (made if missing and `create`); else null. */
export function cacheDir(commonDir: string, sub = '', create = false): string | null {
  // Each level is checked before the next is made in it: a link planted in place of a
  // directory would send our writes elsewhere.
  let dir = commonDir;
  for (const name of sub ? ['checkpoint', sub] : ['checkpoint']) {
    dir = join(dir, name);
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
  const text = readLeaf(path, maxBytes);
  if (text === null || (prefix !== undefined && !text.startsWith(prefix))) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Best effort: written to a fresh temp file (never through a link) and renamed over `name`. */
export function writeCacheJson(dir: string, name: string, value: unknown): void {
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify(value), { flag: 'wx' });
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
