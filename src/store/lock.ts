// A per-skill lock file (O_EXCL create) so read -> merge -> write cycles of concurrent
// writers serialize instead of overwriting each other. A lock whose owner process is gone
// (same host) or that is older than STALE_LOCK_MS is broken; waiting is bounded.
import { openSync, closeSync, writeSync, readFileSync, unlinkSync, renameSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { CheckpointError } from '../errors.js';

export const LOCK_TIMEOUT_MS = 15_000;
export const STALE_LOCK_MS = 60_000;

interface LockOwner {
  pid: number;
  host: string;
  nonce: string;
  at: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readOwner(path: string): LockOwner | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
  } catch {
    return null;
  }
}

function isStale(path: string, now: number): boolean {
  const owner = readOwner(path);
  if (owner && owner.host === hostname()) {
    try {
      process.kill(owner.pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return true;
    }
  }
  try {
    return now - statSync(path).mtimeMs > STALE_LOCK_MS;
  } catch {
    return false;
  }
}

/** Break a stale lock without racing another breaker: only the one whose rename succeeds removes it. */
function breakLock(path: string): void {
  const aside = `${path}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
    unlinkSync(aside);
  } catch {
    // Someone else broke or released it first.
  }
}

export async function withLock<T>(lockPath: string, fn: () => Promise<T> | T, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  const me: LockOwner = { pid: process.pid, host: hostname(), nonce: randomBytes(8).toString('hex'), at: Date.now() };
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    try {
      const fd = openSync(lockPath, 'wx', 0o644);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (isStale(lockPath, Date.now())) {
        breakLock(lockPath);
        continue;
      }
      if (Date.now() > deadline) {
        throw new CheckpointError('E_LOCKED', `${lockPath} is held by another checkpoint process`, {
          hint: `wait and retry; if no checkpoint command is running, delete ${lockPath}`,
        });
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 100);
    }
  }
  try {
    return await fn();
  } finally {
    if (readOwner(lockPath)?.nonce === me.nonce) unlinkSync(lockPath);
  }
}
