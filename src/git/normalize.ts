// Small rules both engines apply to what they read, so that equal repositories give
// equal answers whichever engine reads them.
import { posix } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import type { CommitInfo } from './types.js';

/** Subject is the first line of the message; body is the rest, trimmed. */
export function splitMessage(message: string): { subject: string; body: string } {
  const text = message.replace(/\r\n/g, '\n');
  const newline = text.indexOf('\n');
  if (newline < 0) return { subject: text.trim(), body: '' };
  return { subject: text.slice(0, newline).trim(), body: text.slice(newline + 1).trim() };
}

/**
 * Whether commitsNaming finds `token` with its ASCII letters in either case: a token of printable
 * ASCII (every id the landing search asks for: "PLAT-7" is written "plat-7" in a branch name).
 * Any other token is found exactly as written.
 */
export function anyCaseToken(token: string): boolean {
  return /^[\x20-\x7e]+$/.test(token);
}

/** `text` with its ASCII capitals in lower case and nothing else changed (no Unicode folding: a Kelvin sign stays). */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (run) => run.toLowerCase());
}

/** Whether `message` holds one of `tokens` as commitsNaming finds them (anyCaseToken). */
export function namesAny(message: string, tokens: readonly string[]): boolean {
  let lower: string | undefined;
  for (const t of tokens) {
    if (!anyCaseToken(t)) {
      if (message.includes(t)) return true;
    } else if ((lower ??= asciiLower(message)).includes(asciiLower(t))) return true;
  }
  return false;
}

/** Committer time descending, then sha ascending, so ties have one order. */
export function newestFirst(a: CommitInfo, b: CommitInfo): number {
  if (a.time !== b.time) return b.time - a.time;
  return a.sha < b.sha ? -1 : a.sha > b.sha ? 1 : 0;
}

/**
 * `commits` newest first. Commit times are whole seconds, and a rebase, a script or two
 * `git revert`s in a row make several in one: within a second a commit comes before its
 * ancestors among `commits`, however far apart (the graph knows which is newer where the clock
 * cannot), else by name (newestFirst), so the order never depends on the order a walk or a
 * cache gave. A list filtered from one in this order keeps it: filter, do not sort again.
 */
export function newestByGraph(commits: readonly CommitInfo[]): CommitInfo[] {
  const sorted = [...commits].sort(newestFirst);
  let depth: Int32Array | undefined;
  for (let start = 0; start < sorted.length; ) {
    let end = start + 1;
    while (end < sorted.length && sorted[end]!.time === sorted[start]!.time) end++;
    if (end - start > 1) {
      const d = (depth ??= lineDepths(sorted));
      // A stable sort: one depth keeps newestFirst's order by name. Depths are by place in
      // `sorted`, and only this second's places are rewritten.
      const tie = sorted.slice(start, end).map((c, i) => ({ c, d: d[start + i]! })).sort((a, b) => b.d - a.d);
      for (let i = 0; i < tie.length; i++) sorted[start + i] = tie[i]!.c;
    }
    start = end;
  }
  return sorted;
}

/**
 * Each commit's longest line of ancestors among `sorted` (0 where none of its parents is there),
 * by place: a commit's is greater than any of its ancestors' reached through the list. `sorted`
 * is newest first by time, so read oldest first a parent almost always comes before its children
 * (not where a clock was behind: those wait on a stack for their parents).
 */
function lineDepths(sorted: readonly CommitInfo[]): Int32Array {
  const at = new Map<string, number>();
  for (let i = 0; i < sorted.length; i++) at.set(sorted[i]!.sha, i);
  const UNSEEN = -1;
  const OPEN = -2;
  const depth = new Int32Array(sorted.length).fill(UNSEEN);
  for (let i = sorted.length - 1; i >= 0; i--) {
    if (depth[i] !== UNSEEN) continue;
    const stack = [i];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      let d = 0;
      let waiting = false;
      for (const p of sorted[top]!.parents) {
        const j = at.get(p);
        if (j === undefined) continue;
        const known = depth[j]!;
        if (known >= 0) d = Math.max(d, known + 1);
        // Git's graph has no cycle; a list that claimed one would count the loop's way once.
        else if (known === UNSEEN) {
          stack.push(j);
          waiting = true;
        }
      }
      if (waiting) depth[top] = OPEN;
      else {
        depth[top] = d;
        stack.pop();
      }
    }
  }
  return depth;
}

/** Short branch name for a ref HEAD points to; refs outside refs/heads/ keep their full name. */
export function branchName(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}

/**
 * Lower-cased object name when `rev` is a full or abbreviated (at least 4 hex digits)
 * object name, else null. Refs and revision expressions are not accepted: they mean
 * different things to git and isomorphic-git.
 */
export function objectNamePrefix(rev: string): string | null {
  return /^[0-9a-f]{4,40}$/i.test(rev) ? rev.toLowerCase() : null;
}

export function assertSince(since: number): void {
  if (Number.isNaN(since)) throw new CheckpointError('E_USAGE', 'commitsSince needs a time in seconds, got NaN');
}

/** `path` as a normalized repo-relative file path; throws for paths that leave the repository. */
export function repoRelativePath(path: string): string {
  // Already normal (the common case: paths this program made): posix.normalize would return it
  // as is. Skipped, as each call counts towards V8 optimizing node's path code.
  if (!path.includes('\\') && path.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..')) return path;
  const normalized = posix.normalize(path.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (posix.isAbsolute(normalized) || normalized === '.' || normalized === '..' || normalized.startsWith('../')) {
    throw new CheckpointError('E_PATH', `not a file path inside the repository: ${shownPath(path)}`);
  }
  return normalized;
}

/** A change scope's paths normalized: '' (the top: everything) stays as it is, the rest as repoRelativePath. */
export function scopePaths(scope: readonly string[]): string[] {
  return scope.map((p) => (p === '' ? '' : repoRelativePath(p)));
}

/** Whether `path` is one of `scope`'s paths or lies under one ('' covers everything). */
export function inScope(path: string, scope: readonly string[]): boolean {
  return scope.some((p) => p === '' || path === p || path.startsWith(`${p}/`));
}

/**
 * A change scope asked about once per tree entry of every commit a walk describes: its paths
 * and the folders on the way to them as sets, so a question costs a lookup per folder level of
 * the path asked instead of a comparison (and a string built) per path of the scope.
 */
export interface ScopeIndex {
  /** The scope holds '' (everything). */
  readonly all: boolean;
  readonly paths: ReadonlySet<string>;
  /** Every folder some path of the scope lies in (a, a/b for a/b/c). */
  readonly ways: ReadonlySet<string>;
}

export function indexScope(scope: readonly string[]): ScopeIndex {
  const paths = new Set(scope);
  const ways = new Set<string>();
  for (const p of paths) for (let i = p.indexOf('/'); i > 0; i = p.indexOf('/', i + 1)) ways.add(p.slice(0, i));
  return { all: paths.has(''), paths, ways };
}

/** inScope against an indexed scope. */
export function inScopeIndex(path: string, scope: ScopeIndex): boolean {
  if (scope.all || scope.paths.has(path)) return true;
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) if (scope.paths.has(path.slice(0, i))) return true;
  return false;
}

/** Whether some path of the scope lies under the folder `path`. */
export function leadsIntoScope(path: string, scope: ScopeIndex): boolean {
  return scope.ways.has(path);
}
