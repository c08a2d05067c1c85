// What HEAD gained since an earlier HEAD, read from the object store without git. An agent
// commits and asks `status` or `next` again: every answer kept at the previous HEAD is a miss,
// and asking again means loading child_process and starting git two to four times (BENCHMARKS.md
// "After a commit"). When the new commits are a plain line on top of the old HEAD, the walk is
// the old walk plus those commits, and the checkpoint files' history is the old one plus what
// those commits did to them (commit-cache.ts, queued.ts say how each answer is carried).
// Over merges, what a first-parent line did to files still carries (firstParentLine), and so do
// answers about the commits a walk from HEAD meets before the old HEAD's history (commitsBefore).
// Anything else (a commit dated before the walk's start, a message git and this reader could read
// apart, a shallow or grafted history, borrowed objects, an object the store cannot read on its
// own) is no answer here: the caller asks git as before.
import { isUtf8 } from 'node:buffer';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { indexScope, namesAny, scopePaths, splitMessage, type ScopeIndex } from './normalize.js';
import { entryDiff } from './tree-diff.js';
import { entryNamed, parseCommit, parseTree, type TreeEntry } from './object-parse.js';
import { ObjectStore } from './object-store.js';
import { pairExactRenames, type RawChange } from './renames.js';
import type { CommitInfo, FileRevision } from './types.js';

/** More new commits than this are walked by git: the line is read one object at a time. */
const MAX_NEW_COMMITS = 64;

/**
 * What HEAD's first-parent line back to `base` did to files, each commit (a merge included)
 * against its first parent: all that an answer about that line (a file's revisions, the dates
 * read from them) needs, whatever the commits' other parents brought in.
 */
export interface FirstParentGain {
  /** Whether some new commit changed anything under `dir` (a top-level folder name). */
  touches(dir: string): boolean;
  /**
   * What the new commits did to each of `paths` (files), newest first, as `git log --first-parent
   * --raw -- paths` lists it (the native engine's fileRevisions before it keeps current lives);
   * null when an object could not be read.
   */
  revisionsOf(paths: readonly string[]): (FileRevision & { added: boolean })[] | null;
}

/** HEAD's gain over `base` when it is a plain line: its commits newest first (no changes described), and the trees met. */
export interface FastForward extends FirstParentGain {
  commits: CommitInfo[];
  /**
   * The new commits again, each with its changes against its parent within `scope` (as the
   * engines' commitsSince describes them); null when an object could not be read.
   */
  describedIn(scope: readonly string[]): CommitInfo[] | null;
}

/** More commits than this met walking from HEAD to an earlier one over merges: git is asked. */
const MAX_MERGED_COMMITS = 256;

/** The commits a walk met (commitsBefore), and what commitsNaming finds among them. */
export interface MetCommits {
  naming(tokens: readonly string[]): CommitInfo[];
  /** Whether some met commit's file at one of `paths` differs from one of its parents' (null: an object unread). */
  touchAny(paths: readonly string[]): boolean | null;
}

/**
 * The commits a walk from `head` meets (through every parent, merges included) before it reaches
 * one in `stops` or `base`, passing a commit dated before `since` without going on past it, as the
 * engines' walks do; when it reaches `base`, meets at most MAX_MERGED_COMMITS and reads each
 * message as `git log --format=%B` gives it; else null.
 */
export function commitsBefore(commonDir: string, head: string, base: string, stops: ReadonlySet<string>, since: number): MetCommits | null {
  if (head === base || !historyAsStored(commonDir)) return null;
  const store = new ObjectStore(join(commonDir, 'objects'));
  const met: { info: CommitInfo; tree: string; message: string }[] = [];
  const seen = new Set<string>();
  const queue = [head];
  let reached = false;
  while (queue.length) {
    const sha = queue.pop()!;
    if (sha === base) reached = true;
    if (sha === base || stops.has(sha) || seen.has(sha)) continue;
    seen.add(sha);
    if (seen.size > MAX_MERGED_COMMITS) return null;
    let data: Buffer | null;
    try {
      data = store.readKnown(sha)?.data ?? null;
    } catch {
      return null;
    }
    const commit = data && plainCommit(sha, data, { anyParents: true });
    if (!commit) return null;
    if (commit.info.time < since) continue;
    met.push(commit);
    queue.push(...commit.info.parents);
  }
  if (!reached) return null;
  const object = (oid: string): Buffer | null => store.readKnown(oid)?.data ?? null;
  // The entry (mode and id) at `path` in `tree`, or null; once per tree and path (a parent's
  // tree is most often another met commit's).
  const entries = new Map<string, string | null>();
  const fileOf = (tree: string, path: string): string | null => {
    const key = `${tree}\0${path}`;
    if (!entries.has(key)) entries.set(key, readFileOf(tree, path));
    return entries.get(key)!;
  };
  const readFileOf = (tree: string, path: string): string | null => {
    let at: string | null = tree;
    let entry: TreeEntry | null = null;
    for (const name of path.split('/')) {
      const data: Buffer | null = at === null ? null : object(at);
      if (at !== null && !data) throw new Error(`tree ${at} unread`);
      entry = at !== null && data ? entryNamed(at, data, name) : null;
      at = entry?.type === 'tree' ? entry.oid : null;
    }
    return entry ? `${entry.mode} ${entry.oid}` : null;
  };
  return {
    naming: (tokens) => met.filter((c) => namesAny(c.message, tokens)).map((c) => c.info),
    touchAny(paths) {
      try {
        return met.some(({ info, tree }) => info.parents.some((parent) => {
          const data = object(parent);
          if (!data) throw new Error(`commit ${parent} unread`);
          const before = parseCommit(parent, data).tree;
          return paths.some((path) => fileOf(tree, path) !== fileOf(before, path));
        }));
      } catch {
        return null;
      }
    },
  };
}

/**
 * Whether the history is the objects as stored here: objects borrowed from another repository
 * (alternates), grafts and a shallow boundary are left to git.
 */
function historyAsStored(commonDir: string): boolean {
  return !existsSync(join(commonDir, 'shallow')) && !existsSync(join(commonDir, 'info', 'grafts')) && !existsSync(join(commonDir, 'objects', 'info', 'alternates'));
}

/** A line as read: `plain` when every commit on it is an ordinary one (fastForward's condition). */
interface Line {
  gain: FastForward;
  plain: boolean;
}

const known = new Map<string, Line | null>();

/** The first-parent line from `head` back to `base`, read once per process (status asks for the walk and the dates alike). */
function line(commonDir: string, head: string, base: string): Line | null {
  const key = `${commonDir}\0${head}\0${base}`;
  let found = known.get(key);
  if (found === undefined) {
    found = readLine(commonDir, head, base);
    known.set(key, found);
  }
  return found;
}

/**
 * The commits from `head` back to `base` (excluded) when they are a line of ordinary commits,
 * each dated at or after `since` and read exactly as `git log --format=%B` gives its message;
 * else null.
 */
export function fastForward(commonDir: string, head: string, base: string, since = -Infinity): FastForward | null {
  const found = line(commonDir, head, base);
  return found && found.plain && found.gain.commits.every((c) => c.time >= since) ? found.gain : null;
}

/**
 * What `head`'s first-parent line back to `base` did to files, when `base` is on that line (a
 * pull that brought merges, a merge made here), at most MAX_NEW_COMMITS back; else null.
 */
export function firstParentLine(commonDir: string, head: string, base: string): FirstParentGain | null {
  return line(commonDir, head, base)?.gain ?? null;
}

function readLine(commonDir: string, head: string, base: string): Line | null {
  if (head === base || !historyAsStored(commonDir)) return null;
  const store = new ObjectStore(join(commonDir, 'objects'));
  // A root tree is read by touches() and again by the diffs: once each.
  const kept = new Map<string, Buffer | null>();
  const read = (oid: string): Buffer | null => {
    let data = kept.get(oid);
    if (data !== undefined) return data;
    try {
      const found = store.readKnown(oid);
      data = found && found.data ? found.data : null;
    } catch {
      data = null;
    }
    kept.set(oid, data);
    return data;
  };
  const commits: CommitInfo[] = [];
  const trees: string[] = [];
  let plain = true;
  let sha = head;
  while (sha !== base) {
    if (commits.length === MAX_NEW_COMMITS) return null;
    const data = read(sha);
    let commit: { info: CommitInfo; tree: string } | null = data && plainCommit(sha, data);
    if (!commit) {
      // A merge, or a message git and this reader could read apart: the line holds for what its
      // first parents did to files, not for its commits.
      commit = data && anyCommit(sha, data);
      plain = false;
    }
    // A root commit before `base`: `base` is not on this line.
    if (!commit || commit.info.parents.length === 0) return null;
    commits.push(commit.info);
    trees.push(commit.tree);
    sha = commit.info.parents[0]!;
  }
  // Of the base only its tree is read: it may be a merge (main after a pull request) or anything.
  const baseData = read(base);
  let baseTree: string;
  try {
    if (!baseData) return null;
    baseTree = parseCommit(base, baseData).tree;
  } catch {
    return null;
  }
  trees.push(baseTree);
  const touched = new Map<string, boolean>();
  const tree = (oid: string | null): Map<string, TreeEntry> => {
    if (oid === null) return new Map();
    const data = read(oid);
    if (!data) throw new Error(`tree ${oid} unread`);
    return parseTree(oid, data);
  };
  const gain: FastForward = {
    commits,
    revisionsOf(paths) {
      const index = indexScope([...new Set(paths)]);
      if (index.all) return null;
      try {
        return commits.flatMap((c, i) => {
          const raw: RawChange[] = [];
          diffTrees(tree, trees[i + 1]!, trees[i]!, '', raw, index);
          // Files asked about only: a path that is a folder here is no file's revision.
          return raw.filter((r) => index.paths.has(r.path)).map((r) => ({ sha: c.sha, time: c.time, path: r.path, blob: r.status === 'D' ? null : r.oid, parents: c.parents, added: r.status === 'A' }));
        });
      } catch {
        return null;
      }
    },
    describedIn(scope) {
      const index = indexScope(scopePaths(scope));
      if (index.all) return null;
      try {
        return commits.map((c, i) => {
          const raw: RawChange[] = [];
          diffTrees(tree, trees[i + 1]!, trees[i]!, '', raw, index);
          return { ...c, changes: pairExactRenames(raw) };
        });
      } catch {
        return null;
      }
    },
    touches(dir) {
      let answer = touched.get(dir);
      if (answer === undefined) {
        answer = true;
        try {
          // One root tree all along (commits that changed no file): nothing to read.
          const at = trees.every((tree) => tree === trees[0]) ? [] : trees.map((tree) => {
            const data = read(tree);
            if (!data) throw new Error(`tree ${tree} unread`);
            return entryNamed(tree, data, dir)?.oid ?? null;
          });
          answer = at.some((oid) => oid !== at[0]);
        } catch {
          // unread: as if touched, so the caller asks git
        }
        touched.set(dir, answer);
      }
      return answer;
    },
  };
  return { gain, plain };
}

/**
 * A commit with one parent (with `anyParents`, a merge or a root too) whose message git and parseCommit read alike: no `encoding` header,
 * valid UTF-8, no carriage return, not starting with a blank line. Its subject and body are
 * split as the native engine splits `%B`.
 */
function plainCommit(sha: string, data: Buffer, opts: { anyParents?: boolean } = {}): { info: CommitInfo; tree: string; message: string } | null {
  const split = data.indexOf('\n\n');
  if (split < 0) return null;
  const message = data.subarray(split + 2);
  if (!isUtf8(message) || message.includes(0x0d) || message[0] === 0x0a || data.subarray(0, split).includes('\nencoding ')) return null;
  let parsed;
  try {
    parsed = parseCommit(sha, data);
  } catch {
    return null;
  }
  if (!opts.anyParents && parsed.parents.length !== 1) return null;
  const text = message.toString('utf8');
  const { subject, body } = splitMessage(text);
  return { info: { sha, parents: parsed.parents, subject, body, time: parsed.time, authorTime: parsed.authorTime, changes: [] }, tree: parsed.tree, message: text };
}

/** Any commit as parseCommit reads it (a merge, an `encoding` header, a CR): its parents and tree are what a first-parent line needs. */
function anyCommit(sha: string, data: Buffer): { info: CommitInfo; tree: string } | null {
  try {
    const parsed = parseCommit(sha, data);
    return { info: { sha, parents: parsed.parents, subject: '', body: '', time: parsed.time, authorTime: parsed.authorTime, changes: [] }, tree: parsed.tree };
  } catch {
    return null;
  }
}

/** Every file that differs between two trees within `scope`, as the embedded engine's walk finds them (tree-diff.ts). */
function diffTrees(tree: (oid: string | null) => Map<string, TreeEntry>, before: string | null, after: string | null, prefix: string, out: RawChange[], scope: ScopeIndex): void {
  if (before === after) return;
  const old = tree(before);
  const now = tree(after);
  const names = [...old.keys(), ...[...now.keys()].filter((name) => !old.has(name))];
  for (const name of names) {
    const step = entryDiff(old.get(name), now.get(name), prefix + name, scope);
    if (step === null) continue;
    if (step.subtrees) diffTrees(tree, step.subtrees[0], step.subtrees[1], `${prefix}${name}/`, out, scope);
    out.push(...step.changes);
  }
}

/**
 * The blobs `oids` as text (each at most `maxBytes`, else left out), as the engines' readBlobs
 * gives them, read from the object store; null when some could only be read by git, or are
 * missing (git may fetch them, or say they are missing).
 */
export function blobTexts(commonDir: string, oids: readonly string[], maxBytes: number): Map<string, string> | null {
  if (existsSync(join(commonDir, 'objects', 'info', 'alternates'))) return null;
  const store = new ObjectStore(join(commonDir, 'objects'));
  const out = new Map<string, string>();
  try {
    for (const oid of new Set(oids)) {
      const found = store.readKnown(oid, maxBytes);
      // Not here (a partial clone fetches it on demand) or only the fallback reader has it: git's to answer.
      if (!found) return null;
      if (found.type === 'blob' && found.data !== null) out.set(oid, found.data.toString('utf8'));
    }
  } catch {
    return null;
  }
  return out;
}

/** Commit `sha`'s author time (seconds), read from the object store as blobTexts reads; null when git must answer. */
export function storedAuthorTime(commonDir: string, sha: string): number | null {
  if (existsSync(join(commonDir, 'objects', 'info', 'alternates'))) return null;
  try {
    const found = new ObjectStore(join(commonDir, 'objects')).readKnown(sha);
    return found && found.type === 'commit' && found.data !== null ? parseCommit(sha, found.data).authorTime : null;
  } catch {
    return null;
  }
}

/**
 * The files directly in folder `dir` (repo-relative, no trailing slash) of each commit of `shas`,
 * path -> blob, as filesIn lists them, read from the object store; null when git must answer (a
 * history not as stored: shallow, grafted, borrowed; an object unread).
 */
export function storedFolderFiles(commonDir: string, shas: readonly string[], dir: string): Map<string, string>[] | null {
  return storedFilesIn(commonDir, shas, [dir]);
}

/**
 * storedFolderFiles for several folders (`''`: the top) at once, each commit's answer one map, as
 * filesInEach gives it; `recursive`: the files at any depth under them.
 */
export function storedFilesIn(commonDir: string, shas: readonly string[], dirs: readonly string[], recursive = false): Map<string, string>[] | null {
  if (!historyAsStored(commonDir)) return null;
  const store = new ObjectStore(join(commonDir, 'objects'));
  const read = (oid: string) => {
    const found = store.readKnown(oid);
    if (!found || found.data === null) throw new Error(`object ${oid} unread`);
    return found.data;
  };
  const list = (tree: string, at: string, out: Map<string, string>): void => {
    for (const entry of parseTree(tree, read(tree)).values()) {
      const path = at === '' ? entry.path : `${at}/${entry.path}`;
      if (entry.type === 'blob') out.set(path, entry.oid);
      else if (recursive && entry.type === 'tree') list(entry.oid, path, out);
    }
  };
  try {
    return shas.map((sha) => {
      const out = new Map<string, string>();
      const top = parseCommit(sha, read(sha)).tree;
      for (const dir of new Set(dirs)) {
        let tree: string | null = top;
        for (const name of dir === '' ? [] : dir.split('/')) {
          const entry: TreeEntry | null = tree === null ? null : entryNamed(tree, read(tree), name);
          tree = entry?.type === 'tree' ? entry.oid : null;
        }
        if (tree !== null) list(tree, dir, out);
      }
      return out;
    });
  } catch {
    return null;
  }
}

/** The top-level folder of each repository-relative path ('' for a file at the top), once each. */
export function topFolders(paths: readonly string[]): string[] {
  return [...new Set(paths.map((p) => (p.includes('/') ? p.slice(0, p.indexOf('/')) : '')))];
}
