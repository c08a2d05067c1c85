// Git's commit and tree objects as both of the embedded engine's readers parse them (the
// question-by-question ObjectReader and the deep walk's DeepReader): one parser, one answer.
import { decodeCommitText } from './commit-encoding.js';
import { withoutTrailing } from '../text-ends.js';
import type { GitObject } from './object-store.js';

/** One entry of a tree object, named as isomorphic-git names it. */
export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'tree' | 'blob' | 'commit';
}

export interface ParsedCommit {
  sha: string;
  /** First-parent order; empty for a root and for a shallow clone's boundary commits. */
  parents: string[];
  tree: string;
  time: number;
  /** Author time, seconds (0 when unreadable): a rebase or cherry-pick keeps it, and gives the commit a new `time` (after.ts). */
  authorTime: number;
  message: string;
}

/** What a path holds in a tree or on disk, as far as "does it differ" is concerned. */
export interface FileState {
  oid: string;
  mode: string;
}

/**
 * A commit as isomorphic-git parses one (so the engines' answers do not move): `tree` first,
 * then the `parent` lines that follow it, the first `committer`, the message after the blank
 * line without carriage returns or leading and trailing blank lines, decoded as git log does.
 */
export function parseCommit(sha: string, data: Buffer): ParsedCommit {
  // Headers are ASCII; the message is decoded alone, by the `encoding` header as git log does.
  const split = data.indexOf('\n\n');
  const text = data.toString('utf8', 0, split < 0 ? data.length : split);
  const headers: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(' ') && headers.length > 0) headers[headers.length - 1] += `\n${line.slice(1)}`;
    else headers.push(line);
  }
  const tree = /^tree ([0-9a-f]{40})$/.exec(headers[0] ?? '')?.[1];
  if (tree === undefined) throw new Error(`commit ${sha} does not start with a tree`);
  const parents: string[] = [];
  let i = 1;
  for (; i < headers.length && headers[i]!.startsWith('parent '); i++) parents.push(headers[i]!.slice('parent '.length));
  const committer = headers.slice(i).find((h) => h.startsWith('committer '));
  const stamp = committer === undefined ? null : readStamp(committer.slice('committer '.length));
  if (!stamp) throw new Error(`commit ${sha} has no readable committer line`);
  const time = Number(stamp[2]);
  const author = readStamp(headers.slice(i).find((h) => h.startsWith('author '))?.slice('author '.length) ?? '');
  const authorTime = Number(author?.[2]);
  const encoding = headers.slice(i).find((h) => h.startsWith('encoding '))?.slice('encoding '.length);
  const body = split < 0 ? '' : decodeCommitText(data.subarray(split + 2), encoding);
  const message = `${withoutTrailing(body.replace(/\r\n/g, '\n').replace(/^\n+/, ''), '\n')}\n`;
  return { sha, parents, tree, time: Number.isFinite(time) ? time : 0, authorTime: Number.isFinite(authorTime) ? authorTime : 0, message };
}

/**
 * An author or committer line (after "author "): its name, email, time and zone, as
 * /^(.*) <(.*)> (.*) (.*)$/ reads them (each greedy: the last " <" before the last "> " that a
 * space follows), or null. By hand: the regex's four greedy groups retried each other on a
 * hostile line of "<" and ">" (hours for a few kilobytes).
 */
export function readStamp(line: string): [string, string, string, string] | null {
  if (/[\n\r\u2028\u2029]/.test(line)) return null;
  const space = line.lastIndexOf(' ');
  const gt = space < 2 ? -1 : line.lastIndexOf('> ', space - 2);
  const lt = gt < 2 ? -1 : line.lastIndexOf(' <', gt - 2);
  if (lt < 0) return null;
  return [line.slice(0, lt), line.slice(lt + 2, gt), line.slice(gt + 2, space), line.slice(space + 1)];
}

/** A tree object's entries by name: `<mode> <name>\0<20-byte id>` each. */
export function parseTree(oid: string, data: Buffer): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    const nul = space < 0 ? -1 : data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new Error(`tree ${oid} is malformed at byte ${at}`);
    const mode = canonicalMode(data.toString('latin1', at, space));
    const path = data.toString('utf8', space + 1, nul);
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.set(path, { mode, path, oid: data.toString('hex', nul + 1, nul + 21), type });
    at = nul + 21;
  }
  return entries;
}

/** The entry `name` of a tree object, as parseTree would map it (the last of that name), without building the map. */
export function entryNamed(oid: string, data: Buffer, name: string): TreeEntry | null {
  let found: TreeEntry | null = null;
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(0x20, at);
    const nul = space < 0 ? -1 : data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 21 > data.length) throw new Error(`tree ${oid} is malformed at byte ${at}`);
    if (data.toString('utf8', space + 1, nul) === name) {
      const mode = canonicalMode(data.toString('latin1', at, space));
      found = { mode, path: name, oid: data.toString('hex', nul + 1, nul + 21), type: mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob' };
    }
    at = nul + 21;
  }
  return found;
}

/** Modes as git reads them from a tree (canon_mode): old "100664" files count as 100644. */
export function canonicalMode(raw: string): string {
  const mode = Number.parseInt(raw, 8);
  switch (mode & 0o170000) {
    case 0o040000:
      return '040000';
    case 0o120000:
      return '120000';
    case 0o160000:
      return '160000';
    default:
      return mode & 0o100 ? '100755' : '100644';
  }
}

/** How many tags (and a commit, for a tree) a peel goes through before it calls the chain a loop. */
const MAX_PEEL_DEPTH = 16;

/**
 * One step from `oid` (read as `found`) toward an object of type `want`: that object, or the
 * id its tag (or, for a tree, its commit) points to next. `depth` counts the steps taken.
 */
export function peelStep(oid: string, found: GitObject | null, want: 'commit' | 'tree', depth: number): { oid: string; data: Buffer } | string {
  if (depth >= MAX_PEEL_DEPTH) throw new Error(`tag ${oid} points through more than ${MAX_PEEL_DEPTH} tags`);
  if (found === null) throw new Error(`object ${oid} is missing`);
  if (found.data === null) throw new Error(`object ${oid} is ${found.size} bytes, too large to read`);
  if (found.type === want) return { oid, data: found.data };
  const next = found.type === 'tag' ? /^object ([0-9a-f]{40})\n/.exec(found.data.toString('latin1'))?.[1] : undefined;
  const tree = want === 'tree' && found.type === 'commit' ? /^tree ([0-9a-f]{40})\n/.exec(found.data.toString('latin1'))?.[1] : undefined;
  if (next === undefined && tree === undefined) throw new Error(`object ${oid} is a ${found.type}, not a ${want}`);
  return (next ?? tree)!;
}
