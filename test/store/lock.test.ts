// The per-skill lock: exclusive, released on error, stale locks of dead owners broken,
// bounded waiting; a live pid that is not the lock's writer (Linux), broken at once.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { breakStaleLock, LOCK_NOTE_AFTER_MS, lockNotes, withLock } from '../../src/store/lock.js';
import { isTempFile, tempPathFor, writeFileAtomic } from '../../src/store/atomic.js';
import { CheckpointError } from '../../src/errors.js';
import { cleanup, git, makeRepo, tempDir, write } from '../helpers/repo.js';

let dir: string;
let lock: string;
beforeEach(() => {
  dir = tempDir();
  lock = join(dir, '.api.lock');
});
afterEach(() => cleanup(dir));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A pid that is certainly not running: a child that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('withLock', () => {
  it('runs one holder at a time', async () => {
    let inside = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withLock(lock, async () => {
          inside++;
          most = Math.max(most, inside);
          await sleep(5);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(existsSync(lock)).toBe(false);
  });

  it('returns the value and releases after an error', async () => {
    expect(await withLock(lock, () => 42)).toBe(42);
    await expect(withLock(lock, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });

  it('breaks the lock of an owner that is gone', async () => {
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname(), nonce: 'dead', at: Date.now() }));
    expect(await withLock(lock, () => 'ok', 2000)).toBe('ok');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('breaks a lock older than the stale limit whatever its content', async () => {
    writeFileSync(lock, 'garbage');
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(lock, old, old);
    expect(await withLock(lock, () => 'ok', 2000)).toBe('ok');
  });

  it('breaking a stale lock never removes a live lock that replaced it meanwhile', () => {
    // Waiter W judged the dead owner's lock stale; before W breaks it, another waiter broke it
    // and took the lock. W must leave that live lock in place.
    const dead = JSON.stringify({ pid: deadPid(), host: hostname(), nonce: 'dead', at: 0 });
    const live = JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'live', at: Date.now() });
    writeFileSync(lock, live);
    breakStaleLock(lock, dead);
    expect(readFileSync(lock, 'utf8')).toBe(live);
    expect(readdirSync(dir)).toEqual(['.api.lock']);
    // the judged lock itself is removed
    writeFileSync(lock, dead);
    breakStaleLock(lock, dead);
    expect(readdirSync(dir)).toEqual([]);
    // nothing to break is fine
    breakStaleLock(lock, dead);
  });

  it('a fresh lock file that names no owner ({}, 1, null, a pid that is no number) is not trusted as a live one: broken like garbage, well before the timeout', async () => {
    // Trusted as an owner, each was kept for STALE_LOCK_MS (60 s): every write waited out its timeout.
    const contents = ['{}', '1', 'null', '{"pid": "x", "host": "h"}', '{"pid": 0, "host": "h"}'];
    const locks = contents.map((text, i) => {
      const path = join(dir, `.s${i}.lock`);
      writeFileSync(path, text);
      return path;
    });
    expect(await Promise.all(locks.map((path) => withLock(path, () => 'ok', 20_000)))).toEqual(contents.map(() => 'ok'));
  });

  it('waits a bounded time for a live owner, then says who to ask', async () => {
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'alive', at: Date.now() }));
    const t0 = Date.now();
    const e = await quietly(() => withLock(lock, () => 'never', 300)).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CheckpointError);
    expect((e as CheckpointError).code).toBe('E_LOCKED');
    expect((e as CheckpointError).hint).toMatch(/delete/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    expect((e as CheckpointError).message).toMatch(new RegExp(`held by process ${process.pid} \\([^)]+\\) on this machine since \\d\\d:\\d\\d:\\d\\dZ$`));
    expect(existsSync(lock)).toBe(true); // not ours to remove
  });

  it('a lock naming a live process that is no checkpoint writer (sleep): the last line names it as the first did (red team 63 r2 5)', async () => {
    const sleeper = await bystander();
    try {
      writeFileSync(lock, JSON.stringify({ pid: sleeper.pid, host: hostname(), at: Date.now() }));
      const notes: { line: string; at: number }[] = [];
      const e = await quietly(() => withLock(lock, () => 'never', 300), notes).catch((x: unknown) => x);
      const holder = /held by (.*?); /.exec(notes[0]!.line)?.[1];
      expect(holder).toMatch(new RegExp(`^process ${sleeper.pid} \\(sleep\\) on this machine since `));
      expect((e as CheckpointError).message).toBe(`${relative(process.cwd(), lock)} is held by ${holder}`);
      expect((e as CheckpointError).hint).toBe(`wait and retry; if no checkpoint command is running, delete ${relative(process.cwd(), lock)}`);
    } finally {
      sleeper.stop();
    }
  });

  it('a lock file a commit brought (naming a live process) is refused at once, never waited for (red team, 12-04)', async () => {
    const repo = makeRepo();
    try {
      const planted = join(repo, '.checkpoints/.api.lock');
      write(repo, '.checkpoints/.api.lock', JSON.stringify({ pid: 1, host: hostname(), nonce: 'planted', at: Date.now() }));
      git(repo, ['add', '-f', '.checkpoints/.api.lock']);
      git(repo, ['commit', '-q', '-m', 'planted']);
      const e = await withLock(planted, () => 'never', 60_000).catch((x: unknown) => x);
      expect((e as CheckpointError).code).toBe('E_LOCKED');
      expect((e as CheckpointError).message).toBe('.checkpoints/.api.lock is committed to git: it is no lock a checkpoint process holds, so the skill cannot be locked');
      expect(readFileSync(planted, 'utf8')).toContain('planted');
    } finally {
      cleanup(repo);
    }
  });
});

/** Runs `fn` with the lock's waiting notes kept in `notes`, each with when it came, instead of printed. */
async function quietly<T>(fn: () => Promise<T>, notes: { line: string; at: number }[] = []): Promise<T> {
  const write = lockNotes.write;
  lockNotes.write = (line) => void notes.push({ line, at: Date.now() });
  try {
    return await fn();
  } finally {
    lockNotes.write = write;
  }
}

/** A live process that is no checkpoint writer, and what the kernel says of it: its start and pid namespace. */
async function bystander(): Promise<{ pid: number; start: string; ns: string; stop: () => void }> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  await new Promise((r) => child.once('spawn', r));
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'latin1');
  return { pid: child.pid!, start: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!, ns: readlinkSync('/proc/self/ns/pid'), stop: () => child.kill('SIGKILL') };
}

describe.runIf(process.platform === 'linux')('a lock naming a live process that is not its writer (red team, 12-05)', () => {
  it('recorded start is not that pid\'s (the pid was reused, or the file names a bystander): broken at once, as a gone owner\'s', async () => {
    const other = await bystander();
    try {
      writeFileSync(lock, JSON.stringify({ pid: other.pid, host: hostname(), nonce: 'reused', at: Date.now(), proc: `${other.ns}@${Number(other.start) - 1}` }));
      // Taken, though its pid lives on for 30 s past the 10 s this writer would wait for it: broken.
      expect(await quietly(() => withLock(lock, () => 'ok', 10_000))).toBe('ok');
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      other.stop();
    }
  });

  it('the writer that took it (its start as recorded) is waited for, never broken: concurrent writers still serialize', async () => {
    const other = await bystander();
    try {
      const held = JSON.stringify({ pid: other.pid, host: hostname(), nonce: 'live', at: Date.now(), proc: `${other.ns}@${other.start}` });
      writeFileSync(lock, held);
      const e = await quietly(() => withLock(lock, () => 'never', 300)).catch((x: unknown) => x);
      expect((e as CheckpointError).code).toBe('E_LOCKED');
      expect(readFileSync(lock, 'utf8')).toBe(held);
      // A lock this process takes records it, so a waiter can tell.
      const seen = await withLock(join(dir, '.web.lock'), () => JSON.parse(readFileSync(join(dir, '.web.lock'), 'utf8')) as { proc?: string });
      expect(seen.proc).toMatch(/^pid:\[\d+\]@\d+$/);
    } finally {
      other.stop();
    }
  });

  it('the writer that took it is never broken however old its lock (frozen by Ctrl-Z past 60 s): the waiter times out naming it, since when, and what to do (red team 12-07)', async () => {
    const other = await bystander();
    try {
      const held = JSON.stringify({ pid: other.pid, host: hostname(), nonce: 'frozen', at: Date.parse('2026-12-07T09:00:00Z'), proc: `${other.ns}@${other.start}` });
      writeFileSync(lock, held);
      // Older than STALE_LOCK_MS, as a writer stopped for two minutes leaves it.
      const old = (Date.now() - 120_000) / 1000;
      utimesSync(lock, old, old);
      const e = await quietly(() => withLock(lock, () => 'never', 300)).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(CheckpointError);
      expect((e as CheckpointError).code).toBe('E_LOCKED');
      const name = relative(process.cwd(), lock);
      expect((e as CheckpointError).message).toBe(`${name} is held by process ${other.pid} (sleep) on this machine since 09:00:00Z, a checkpoint writer still running; nothing was written`);
      expect((e as CheckpointError).hint).toBe(`it is still running: wait for it to finish (kill ${other.pid} if it is stuck), then retry; a running writer's lock is never broken`);
      expect(readFileSync(lock, 'utf8')).toBe(held);
      // Stopped, it never finishes by itself: the hint says how to resume it.
      process.kill(other.pid, 'SIGSTOP');
      while (readFileSync(`/proc/${other.pid}/stat`, 'latin1').split(') ')[1]![0] !== 'T') await sleep(5);
      const stopped = await quietly(() => withLock(lock, () => 'never', 300)).catch((x: unknown) => x);
      expect((stopped as CheckpointError).hint).toMatch(new RegExp(`^it is stopped \\(Ctrl-Z or a debugger\\): resume it \\(fg in its shell, or kill -CONT ${other.pid}\\) so it finishes, then retry`));
      expect(readFileSync(lock, 'utf8')).toBe(held);
    } finally {
      other.stop();
    }
  });

  it('a lock that names a live process without that record (planted, or an earlier version\'s): waited for, and said at once, with what holds it and how to clear it', async () => {
    const other = await bystander();
    try {
      writeFileSync(lock, JSON.stringify({ pid: other.pid, host: hostname(), nonce: 'planted', at: Date.parse('2026-12-05T10:02:03Z') }));
      const notes: { line: string; at: number }[] = [];
      // A wait shorter than LOCK_NOTE_AFTER_MS: the note comes from the missing record, and is said
      // before a writer gives up, so no timing decides whether it is there.
      expect(LOCK_NOTE_AFTER_MS).toBeGreaterThan(500);
      const e = await quietly(() => withLock(lock, () => 'never', 500), notes).catch((x: unknown) => x);
      expect((e as CheckpointError).code).toBe('E_LOCKED');
      const name = relative(process.cwd(), lock);
      expect(notes.map((n) => n.line)).toEqual([`checkpoint: waiting up to 500 ms for ${name}, held by process ${other.pid} (sleep) on this machine since 10:02:03Z; if no checkpoint command is running, delete ${name}`]);
    } finally {
      other.stop();
    }
  });
});

describe('writeFileAtomic', () => {
  it('writes the content and leaves no temp file', () => {
    const target = join(dir, 'a.checkpoint.json');
    writeFileAtomic(target, 'one');
    writeFileAtomic(target, Buffer.from('two'));
    expect(readdirSync(dir)).toEqual(['a.checkpoint.json']);
    expect(spawnSync('cat', [target], { encoding: 'utf8' }).stdout).toBe('two');
  });

  it('temp names are hidden and recognisable', () => {
    const t = tempPathFor(join(dir, 'a.checkpoint.json'));
    const name = t.slice(dir.length + 1);
    expect(isTempFile(name)).toBe(true);
    expect(name.startsWith('.a.checkpoint.json.')).toBe(true);
    expect(isTempFile('a.checkpoint.json')).toBe(false);
  });
});
