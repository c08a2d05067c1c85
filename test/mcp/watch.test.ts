// The watch behind the MCP server's resource notifications, with the OS's events chosen by the
// test: a fake fs.watch that delivers only what a case emits, fake timers for the debounce and
// the re-arm. Real git checkouts change the files; which events arrive, in which order, is the
// case. Whatever arrives, each change of the folder is announced once.
import { EventEmitter } from 'node:events';
import { existsSync, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEBOUNCE_MS, RETRY_MS, watchCheckpoints } from '../../src/mcp/watch.js';
import { cleanup, commitAll, git, makeRepo, write } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

type Listener = (event: string, file: string | null) => void;
interface Fake extends EventEmitter {
  path: string;
  listener: Listener;
  closed: boolean;
}

const dirs: string[] = [];
let watchers: Fake[] = [];
beforeEach(() => void (watchers = []));
afterEach(() => {
  vi.useRealTimers();
  dirs.splice(0).forEach(cleanup);
});

/** As fs.watch: refuses a path that is not there; otherwise a watcher that hears only what the test emits. */
function fakeWatch(path: string, _opts: { persistent: boolean }, listener: Listener): FSWatcher {
  if (!existsSync(path)) throw Object.assign(new Error(`ENOENT: no such file or directory, watch '${path}'`), { code: 'ENOENT' });
  const w = Object.assign(new EventEmitter(), { path, listener, closed: false, close: () => void (w.closed = true) }) as Fake;
  watchers.push(w);
  return w as unknown as FSWatcher;
}

/** The watcher still open on `path` (the folder or the project root). */
function on(path: string): Fake {
  const w = watchers.filter((x) => !x.closed && x.path === path);
  expect(w, `one open watcher on ${path}`).toHaveLength(1);
  return w[0]!;
}

/** A project whose main branch adopted checkpoint (a checkpoint and the folder's README) and an `old` branch from before. */
function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'notes.txt', 'before checkpoint\n');
  commitAll(dir, 'init');
  git(dir, ['branch', 'old']);
  write(dir, '.checkpoints/README.md', 'Session state for agents (see docs/checkpoints.md).\n');
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { status: 'parked (waiting on PR 12)', step: 'auth, then the rate limiter', eval_scores: [{ rubric: 'audit', score: 8.0, max: 10, at: '2026-06-01T00:00:00Z' }] }), null, 2)}\n`);
  commitAll(dir, 'adopt checkpoint');
  return dir;
}

// What the folder watcher hears of a checkout that removes .checkpoints/: git deletes the
// README first, so the first event may find the folder already gone; the rest may never come.
const removals: Record<string, (w: Fake) => void> = {
  'only the README, the folder already gone': (w) => w.listener('rename', 'README.md'),
  'the checkpoint, then the README': (w) => (w.listener('rename', 'api.checkpoint.json'), w.listener('rename', 'README.md')),
  'the README, then the checkpoint': (w) => (w.listener('rename', 'README.md'), w.listener('rename', 'api.checkpoint.json')),
  'an event without a name': (w) => w.listener('rename', null),
  'no event, the watch failing': (w) => void w.emit('error', new Error('EPERM')),
};

describe('watchCheckpoints: a git checkout that removes .checkpoints/ and brings it back', () => {
  for (const [name, deliver] of Object.entries(removals)) {
    it(`announces the checkpoint gone, then back, once each: ${name}`, () => {
      const dir = project();
      const folder = join(dir, '.checkpoints');
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const calls: (string[] | null)[] = [];
      const w = watchCheckpoints(dir, (skills) => void calls.push(skills), fakeWatch);
      try {
        git(dir, ['checkout', '-q', 'old']);
        expect(existsSync(folder)).toBe(false);
        deliver(on(folder));
        vi.advanceTimersByTime(DEBOUNCE_MS + RETRY_MS + DEBOUNCE_MS);
        expect(calls).toEqual([['api']]);

        // Back on main: the root's watcher hears the folder come back.
        git(dir, ['checkout', '-q', 'main']);
        on(dir).listener('rename', '.checkpoints');
        vi.advanceTimersByTime(DEBOUNCE_MS + RETRY_MS + DEBOUNCE_MS);
        expect(calls).toEqual([['api'], ['api']]);
        on(folder); // watching the folder again, and nothing more to say
        vi.advanceTimersByTime(10 * RETRY_MS);
        expect(calls).toEqual([['api'], ['api']]);
      } finally {
        w.close();
      }
    });
  }

  it('a folder removed and made anew before the first event is read is watched anew, its new content announced', () => {
    const dir = project();
    const folder = join(dir, '.checkpoints');
    git(dir, ['checkout', '-q', '-b', 'other']);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { step: 'on the other branch (see notes)' }), null, 2)}\n`);
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(freshCheckpoint('web', { status: 'someday' }), null, 2)}\n`);
    commitAll(dir, 'other');
    git(dir, ['checkout', '-q', 'main']);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const calls: (string[] | null)[] = [];
    const w = watchCheckpoints(dir, (skills) => void calls.push(skills), fakeWatch);
    try {
      const before = on(folder);
      git(dir, ['checkout', '-q', 'old']);
      git(dir, ['checkout', '-q', 'other']);
      // All the old folder's watcher hears: a file, then the folder itself (named by its own name, as
      // inotify does); the new folder may or may not have the old one's inode.
      before.listener('rename', 'README.md');
      before.listener('rename', '.checkpoints');
      vi.advanceTimersByTime(DEBOUNCE_MS + RETRY_MS + DEBOUNCE_MS);
      expect(before.closed).toBe(true);
      expect(calls).toEqual([['api', 'web']]);
      on(folder).listener('change', 'web.checkpoint.json');
      vi.advanceTimersByTime(DEBOUNCE_MS);
      expect(calls).toEqual([['api', 'web']]); // heard, but nothing changed since
    } finally {
      w.close();
    }
  });
});
