// A per-skill lock file (O_EXCL create) so read -> merge -> write cycles of concurrent
// writers serialize instead of overwriting each other. A lock whose owner process is gone
// (same host), whose pid is now another process (Linux: the start the lock recorded is not that
// pid's), or that is older than STALE_LOCK_MS is broken, unless its writer is provably still
// running (same host, its start as recorded): a writer frozen inside its lock (Ctrl-Z, a
// debugger) would otherwise write over the one that broke it. Waiting is bounded and said.
import { openSync, closeSync, writeSync, unlinkSync, renameSync, lstatSync, linkSync, readFileSync, readlinkSync } from 'node:fs';
import { basename, dirname, relative } from 'node:path';
import { uniqueSuffix } from './atomic.js';
import { CheckpointError } from '../errors.js';
import { shown } from '../one-line.js';
import { readLeaf } from './safe-fs.js';
import { pathArg } from './paste-path.js';

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
  /**
   * Linux: which process `pid` was when it took the lock, `<pid namespace>@<start>` (the start in
   * clock ticks since boot, /proc/<pid>/stat field 22). Absent elsewhere, and in a lock an
   * earlier version wrote: such an owner is judged by its pid alone.
   */
  proc?: string;
}

/** After this long waiting, a writer says once what holds the lock and how to clear it. */
export const LOCK_NOTE_AFTER_MS = 1_000;

/** The start of process `pid` as the kernel counts it (Linux), or undefined when not readable. */
function startOf(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses; field 22 is the 20th after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This process's pid namespace (Linux), or undefined. */
function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

let selfProc: string | null | undefined;
/** This process as a lock records it (LockOwner.proc); undefined where /proc does not say. */
function myProc(): string | undefined {
  if (selfProc === undefined) {
    const ns = pidNamespace();
    const start = startOf('self');
    selfProc = ns !== undefined && start !== undefined ? `${ns}@${start}` : null;
  }
  return selfProc ?? undefined;
}

/**
 * Whether the live process `owner.pid` is the one that took the lock, as far as this machine can
 * tell: 'same' when the lock recorded its start in this very pid namespace and that pid's start
 * still matches; 'other' when it differs (the pid was reused after the writer died, or the file
 * names a process that never wrote it); 'unknown' without that record or /proc.
 */
function recordedProcess(owner: LockOwner): 'same' | 'other' | 'unknown' {
  if (typeof owner.proc !== 'string') return 'unknown';
  const at = owner.proc.lastIndexOf('@');
  const mine = myProc();
  if (at < 0 || mine === undefined || owner.proc.slice(0, at) !== mine.slice(0, mine.lastIndexOf('@'))) return 'unknown';
  const now = startOf(owner.pid);
  if (now === undefined) return 'unknown';
  return now === owner.proc.slice(at + 1) ? 'same' : 'other';
}

/** A process's name (Linux /proc/<pid>/comm), for saying what holds a lock; '' when not known. */
function nameOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
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

/**
 * The lock file's content when its owner is gone (same host) or it is too old; null while it is
 * live. A writer this machine can tell is still running is live however old its lock: a frozen
 * writer resumes mid-write, and breaking its lock would let two writes race (one lost).
 */
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
    const proc = recordedProcess(owner);
    // Alive, but another process than the one that took the lock: as stale as a gone owner.
    if (proc === 'other') return raw;
    if (proc === 'same') return null;
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
    try {
      unlinkSync(tmp);
    } catch (e) {
      // The temp file just made is gone: the folder was moved or replaced under the write (another
      // process renaming .checkpoints/). Nothing is written into a folder that does not hold still.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      throw new CheckpointError('E_LOCKED', `${basename(dirname(lockPath))}/ was moved or replaced while its lock was being taken; nothing was written`, { hint: 'make sure no other process renames the folder, then run the command again' });
    }
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
    hint: `remove it from git and from disk (git rm ${pathArg(root, rel)}, then commit); lock files are never committed (.checkpoints/.gitignore)`,
  });
}

/** Test-only: SIGSTOP this process as soon as it holds a lock (a writer frozen inside it, on demand). */
export const STOP_IN_LOCK_ENV = 'CHECKPOINT_TEST_STOP_IN_LOCK';

/** Where a writer says it is waiting (stderr: the MCP server's stdout is its protocol). Tests replace it. */
export const lockNotes = { write: (line: string) => void process.stderr.write(`${line}\n`) };

/** Whether the lock at `lockPath` names a process of this machine without the record (LockOwner.proc) every writer here makes. */
function unrecorded(lockPath: string): boolean {
  const owner = readOwner(lockPath);
  return owner !== null && myProc() !== undefined && owner.host === hostname() && typeof owner.proc !== 'string';
}

/** Who holds the lock at `lockPath`, for a message: "process 1 (systemd) on this machine since 10:02:03Z". */
function holderWords(lockPath: string): string {
  const owner = readOwner(lockPath);
  if (!owner) return 'a lock file that names no owner';
  const here = owner.host === hostname();
  const name = here ? nameOf(owner.pid) : '';
  const since = Number.isFinite(owner.at) && owner.at > 0 ? ` since ${new Date(owner.at).toISOString().slice(11, 19)}Z` : '';
  return `process ${owner.pid}${name ? ` (${shown(name)})` : ''} on ${here ? 'this machine' : shown(owner.host)}${since}`;
}

/**
 * The owner of the lock at `lockPath` when it is a writer of this machine still running (its
 * start as recorded), which is never broken: whether it is stopped (state T: Ctrl-Z, SIGSTOP, a
 * debugger), since then it never finishes by itself. Null for any other lock.
 */
function runningWriter(lockPath: string): { pid: number; stopped: boolean } | null {
  const owner = readOwner(lockPath);
  if (!owner || owner.host !== hostname() || recordedProcess(owner) !== 'same') return null;
  let state = '';
  try {
    const stat = readFileSync(`/proc/${owner.pid}/stat`, 'latin1');
    state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '';
  } catch {
    return null; // gone meanwhile
  }
  return { pid: owner.pid, stopped: state === 'T' || state === 't' };
}

/** What to do about a running writer that holds the lock: resume a stopped one, else wait for it. */
function runningWriterAdvice(w: { pid: number; stopped: boolean }): string {
  return w.stopped ? `it is stopped (Ctrl-Z or a debugger): resume it (fg in its shell, or kill -CONT ${w.pid}) so it finishes` : `it is still running: wait for it to finish (kill ${w.pid} if it is stuck)`;
}

export async function withLock<T>(lockPath: string, fn: () => Promise<T> | T, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  const proc = myProc();
  const me: LockOwner = { pid: process.pid, host: hostname(), nonce: `${uniqueSuffix()}.${Date.now()}`, at: Date.now(), ...(proc === undefined ? {} : { proc }) };
  const started = Date.now();
  const deadline = started + timeoutMs;
  let delay = 5;
  let firstWait = true;
  let noted = false;
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
      // Said once, well before the timeout: what holds the lock and how to clear it. At once for
      // a lock no writer of this version took (on Linux each records its process): it may be
      // held by an earlier version's writer, so it is waited for, but the user learns why now (before
      // the deadline is checked: a short wait that runs out still says it).
      if (!noted && (Date.now() - started >= LOCK_NOTE_AFTER_MS || unrecorded(lockPath))) {
        noted = true;
        const name = relative(process.cwd(), lockPath) || lockPath;
        const running = runningWriter(lockPath);
        lockNotes.write(`checkpoint: waiting up to ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`} for ${name}, held by ${holderWords(lockPath)}; ${running ? runningWriterAdvice(running) : `if no checkpoint command is running, delete ${name}`}`);
      }
      if (Date.now() > deadline) {
        const name = relative(process.cwd(), lockPath) || lockPath;
        // A writer still running keeps its lock however long it takes: never "delete" it under it.
        const running = runningWriter(lockPath);
        if (running) {
          throw new CheckpointError('E_LOCKED', `${name} is held by ${holderWords(lockPath)}, a checkpoint writer still running; nothing was written`, {
            hint: `${runningWriterAdvice(running)}, then retry; a running writer's lock is never broken`,
          });
        }
        // Named as the note said it at the start of the wait: whatever process it is, checkpoint's or not.
        throw new CheckpointError('E_LOCKED', `${name} is held by ${holderWords(lockPath)}`, {
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
