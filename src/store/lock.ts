// A per-skill lock file (O_EXCL create) so read -> merge -> write cycles of concurrent
// writers serialize instead of overwriting each other. A lock whose owner process is gone
// (same host) or that is older than STALE_LOCK_MS is broken; waiting is bounded.
import { openSync, closeSync, writeSync, unlinkSync, renameSync, lstatSync, linkSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { uniqueSuffix } from './atomic.js';
import { CheckpointError } from '../errors.js';
import { shown } from '../one-line.js';
import { readLeaf } from './safe-fs.js';

/** This machine's name, asked only when a lock is taken or judged: read-only commands never load node:os. */
const hostname = (): string => process.getBuiltinModule('node:os').hostname();

/** A lock file holds one small JSON owner record; more is not a lock we wrote. */
const MAX_LOCK_BYTES = 4096;

export const LOCK_TIMEOUT_MS = 15_000;
export const STALE_LOCK_MS = 60_000;

interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
  at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The owner a lock file names, or null when it holds none this version writes (`{}`, `1`, text). */
function parseOwner(raw: string): LockOwner | null {
  let v: Partial<LockOwner> | null;
  try {
    v = JSON.parse(raw) as Partial<LockOwner> | null;
  } catch {
    return null;
  }
  // Judged by its shape: anything else would be trusted as a live owner for STALE_LOCK_MS.
  if (typeof v !== 'object' || v === null || !Number.isSafeInteger(v.pid) || (v.pid as number) <= 0 || typeof v.host !== 'string') return null;
  return v as LockOwner;
}

function readOwner(path: string): LockOwner | null {
  try {
    const raw = readLeaf(path, MAX_LOCK_BYTES);
    return raw === null ? null : parseOwner(raw);
  } catch {
    return null;
  }
}

/** The lock file's content when its owner is gone (same host) or it is too old; null while it is live. */
function staleContent(path: string, now: number): string | null {
  const raw = readLeaf(path, MAX_LOCK_BYTES);
  if (raw === null) return null;
  const owner = parseOwner(raw);
  if (owner && owner.host === hostname()) {
    try {
      process.kill(owner.pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return raw;
    }
  }
  try {
    // No readable owner: not a lock this version writes (it links complete ones), so do not wait long.
    return now - lstatSync(path).mtimeMs > (owner ? STALE_LOCK_MS : 2_000) ? raw : null;
  } catch {
    return null;
  }
}

/**
 * Breaks the stale lock whose content was `judged`, without racing another breaker: only the one
 * whose rename succeeds removes it. If what it moved aside is not the judged lock (another waiter
 * broke it and took the lock meanwhile), that live lock is put back.
 */
export function breakStaleLock(path: string, judged: string): void {
  const aside = `${path}.${uniqueSuffix()}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return; // someone else broke or released it first
  }
  try {
    if (readLeaf(aside, MAX_LOCK_BYTES) !== judged) linkSync(aside, path);
  } catch {
    // a newer lock already stands at `path`, or the content could not be read: leave it
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // already gone
    }
  }
}

/**
 * Takes the lock in one atomic step with its owner already written: the owner goes into a
 * private temp file, which is then hard-linked to the lock name (link fails with EEXIST when
 * the lock is held). A writer killed at any moment leaves either no lock or a complete one.
 */
function acquire(lockPath: string, me: LockOwner): void {
  const tmp = `${lockPath}.${uniqueSuffix()}.tmp`;
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, JSON.stringify(me));
  } catch (e) {
    // A full disk fails the write: take the temp file back out rather than leave it behind.
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
  closeSync(fd);
  try {
    linkSync(tmp, lockPath);
  } finally {
    unlinkSync(tmp);
  }
}

/** A folder, link or FIFO at the lock name never goes away by waiting: say so at once. */
function notALockFile(lockPath: string): void {
  let st;
  try {
    st = lstatSync(lockPath);
  } catch {
    return; // released meanwhile
  }
  if (st.isFile()) return;
  const what = st.isDirectory() ? 'a folder' : st.isSymbolicLink() ? 'a symlink' : 'not a regular file';
  const name = relative(process.cwd(), lockPath) || lockPath;
  throw new CheckpointError('E_LOCKED', `${name} is ${what}, not a lock file checkpoint writes, so the skill cannot be locked`, {
    hint: `remove it (${st.isDirectory() ? 'rmdir' : 'rm'} ${name}) and retry; lock files are never committed (.checkpoints/.gitignore)`,
  });
}

/**
 * A lock file git tracks came with a commit (a clone may hold anything): no checkpoint process
 * holds it, and waiting for it only times out. Said at once. Lock paths are
 * `<root>/.checkpoints/.<skill>.lock` (checkpoints.ts lockPathFor): the root is two folders up.
 */
async function notCommitted(lockPath: string): Promise<void> {
  const root = dirname(dirname(lockPath));
  const rel = relative(root, lockPath).split('\\').join('/');
  // Loaded only when a lock is contended: the index reader's config lookups load node:os.
  const { indexNames } = await import('../git/skip-worktree.js');
  if (!indexNames(root, [rel]).has(rel)) return;
  throw new CheckpointError('E_LOCKED', `${rel} is committed to git: it is no lock a checkpoint process holds, so the skill cannot be locked`, {
    hint: `remove it from git and from disk (git rm ${rel}, then commit); lock files are never committed (.checkpoints/.gitignore)`,
  });
}

/** Test-only: SIGSTOP this process as soon as it holds a lock (a writer frozen inside it, on demand). */
export const STOP_IN_LOCK_ENV = 'CHECKPOINT_TEST_STOP_IN_LOCK';

export async function withLock<T>(lockPath: string, fn: () => Promise<T> | T, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  const me: LockOwner = { pid: process.pid, host: hostname(), nonce: `${uniqueSuffix()}.${Date.now()}`, at: Date.now() };
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  let firstWait = true;
  for (;;) {
    try {
      acquire(lockPath, me);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      notALockFile(lockPath);
      if (firstWait) await notCommitted(lockPath);
      firstWait = false;
      const stale = staleContent(lockPath, Date.now());
      if (stale !== null) {
        breakStaleLock(lockPath, stale);
        continue;
      }
      if (Date.now() > deadline) {
        const name = relative(process.cwd(), lockPath) || lockPath;
        const owner = readOwner(lockPath);
        const who = owner ? ` (process ${owner.pid} on ${owner.host === hostname() ? 'this machine' : shown(owner.host)})` : '';
        throw new CheckpointError('E_LOCKED', `${name} is held by another checkpoint process${who}`, {
          hint: `wait and retry; if no checkpoint command is running, delete ${name}`,
        });
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 100);
    }
  }
  try {
    if (process.env[STOP_IN_LOCK_ENV] === '1') process.kill(process.pid, 'SIGSTOP');
    return await fn();
  } finally {
    if (readOwner(lockPath)?.nonce === me.nonce) unlinkSync(lockPath);
  }
}
