// The one reader of HEAD, the branch and the shallow state from the git dir's files, so the
// commands that need them start no git process. Exact for the plain "files" ref backend,
// linked worktrees (HEAD per worktree, refs via commondir) and packed-refs; anything unusual
// (reftable or other extensions, a symref chain, a sha-256 repository, a loose ref git finds
// broken: brokenHeadRef says why) answers null, and the caller asks git instead.
import { pasteArg } from '../shell-words.js';
import { lstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { MAX_SHOWN_PATH_CHARS, shown, shownPath } from '../one-line.js';
import { resolveGitDirsSync, type GitDirs } from './locate.js';
import { branchName } from './normalize.js';
import { withoutTrailing } from '../text-ends.js';
import { readGitFile } from './git-file.js';
import { usesSha256 } from './object-format.js';

const SHA = /^[0-9a-f]{40}$/;

export interface HeadFiles extends GitDirs {
  /** HEAD's commit; null on an unborn branch (no commit yet). */
  sha: string | null;
  /** Full ref HEAD points at (refs/heads/main), or null when detached. */
  ref: string | null;
  /** Short branch name, or null when detached. */
  branch: string | null;
  /** Whether the clone is shallow (the common dir holds a `shallow` file). */
  shallow: boolean;
  /** Identity of the shallow boundary ("size:mtime", '' when not shallow), for cache keys. */
  shallowKey: string;
}

export type HeadTarget = { sha: string; ref: null } | { sha: null; ref: string };

/**
 * What a git dir's HEAD file names, as git reads it: a commit (detached) or a ref (`ref:`,
 * then optional blanks); null when it holds neither. Throws when the file cannot be read.
 * Also the isomorphic engine's start for layouts readHeadFiles leaves to others.
 */
export function readHeadTarget(gitdir: string): HeadTarget | null {
  const text = readGitFile(join(gitdir, 'HEAD'));
  if (typeof text !== 'string') throw new Error(`${join(gitdir, 'HEAD')}: ${text === null ? 'no such file' : 'not a readable plain file'}`);
  const head = text.trim();
  if (SHA.test(head)) return { sha: head, ref: null };
  if (head.startsWith('ref:')) return { sha: null, ref: head.slice('ref:'.length).trim() };
  return null;
}

/** HEAD as the files say; null when unsure (ask git then). */
export function readHeadFiles(root: string): HeadFiles | null {
  try {
    const dirs = resolveGitDirsSync(root);
    if (unusualConfig(dirs.commonDir)) return null;
    const target = readHeadTarget(dirs.gitdir);
    if (!target) return null;
    let shallowKey = '';
    const st = statSync(join(dirs.commonDir, 'shallow'), { throwIfNoEntry: false });
    if (st) shallowKey = `${st.size}:${st.mtimeMs}`;
    const shallow = st !== undefined;
    if (target.ref === null) return { ...dirs, sha: target.sha, ref: null, branch: null, shallow, shallowKey };
    const ref = target.ref;
    if (!/^refs\/\S+$/.test(ref) || ref.includes('..')) return null;
    const sha = resolveRef(dirs, ref);
    if (sha === undefined) return null;
    return { ...dirs, sha, ref, branch: branchName(ref), shallow, shallowKey };
  } catch {
    return null;
  }
}

/** The loose file of the branch HEAD names (it may not exist); null when HEAD is detached, unreadable or names no plain ref. */
export function headRefFile(dirs: GitDirs): string | null {
  try {
    const ref = readHeadTarget(dirs.gitdir)?.ref;
    return ref && /^refs\/\S+$/.test(ref) && !ref.includes('..') ? join(refHome(dirs, ref), ref) : null;
  } catch {
    return null;
  }
}

/** The git dir holding a ref's loose file and log: per-worktree refs (refs/bisect, refs/worktree) live in the worktree's own. */
function refHome({ gitdir, commonDir }: GitDirs, ref: string): string {
  return /^refs\/(bisect|worktree|rewritten)\//.test(ref) ? gitdir : commonDir;
}

/** A branch's commit: loose ref, then packed-refs; null when neither has it (unborn); undefined when unsure (or broken: brokenHeadRef). */
function resolveRef(dirs: GitDirs, ref: string): string | null | undefined {
  const loose = readGitFile(join(refHome(dirs, ref), ref));
  if (loose === undefined) return undefined;
  if (loose !== null) {
    const sha = parseLooseRef(loose, 40);
    return sha === null || sha === 'symref' ? undefined : sha;
  }
  return packedRef(dirs.commonDir, ref);
}

/**
 * A loose ref file's object id as git parses it (trailing blanks trimmed, then `hexLength` hex
 * digits in either case, ending there or at a blank; git's blanks are space, tab, CR and LF):
 * lower-cased. 'symref' for `ref:`; null when git finds the ref broken.
 */
function parseLooseRef(text: string, hexLength: 40 | 64): string | 'symref' | null {
  const body = withoutTrailing(text, ' \t\r\n');
  if (body.startsWith('ref:')) return 'symref';
  const id = body.slice(0, hexLength);
  const ends = body.length === hexLength || ' \t\r\n'.includes(body[hexLength]!);
  return id.length === hexLength && /^[0-9a-f]+$/i.test(id) && ends ? id.toLowerCase() : null;
}
/** A ref's commit in packed-refs; null when it is not there; undefined when unsure. */
function packedRef(commonDir: string, ref: string): string | null | undefined {
  const packed = readGitFile(join(commonDir, 'packed-refs'));
  if (packed === undefined) return undefined;
  for (const line of (packed ?? '').split('\n')) {
    if (line.length === 41 + ref.length && line.endsWith(` ${ref}`)) {
      const sha = line.slice(0, 40);
      return SHA.test(sha) ? sha : undefined;
    }
  }
  return null;
}

/**
 * Why git cannot read HEAD's branch, as one error (null when it can, or when unsure): its loose
 * file is a plain file holding neither an object id nor `ref:` (empty after a crash, say). git
 * then refuses HEAD ("your current branch appears to be broken") and never falls back to
 * packed-refs, so neither engine may: one answers "no commits yet", the other an older commit.
 * The engines ask this only when readHeadFiles stepped aside.
 */
export function brokenHeadRef(root: string): CheckpointError | null {
  try {
    const dirs = resolveGitDirsSync(root);
    const ref = readHeadTarget(dirs.gitdir)?.ref;
    if (!ref || !/^refs\/\S+$/.test(ref) || ref.includes('..')) return null;
    const file = join(refHome(dirs, ref), ref);
    // A link is git's own business (a symref when it names refs/...); only a plain file is judged.
    if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return null;
    const text = readGitFile(file);
    if (typeof text !== 'string') return null;
    const hexLength = usesSha256(dirs.commonDir) ? 64 : 40;
    if (parseLooseRef(text, hexLength) !== null) return null;
    const packed = packedRef(dirs.commonDir, ref);
    const what = text.trim() === '' ? 'is empty' : 'holds no commit id';
    const log = join(refHome(dirs, ref), 'logs', ref);
    const last = statSync(log, { throwIfNoEntry: false })?.isFile() ? ` (the last line of ${shownPath(log)} names its last commit)` : '';
    // A command to paste: the path one shell word, whatever it holds (a space, a `;`, a `$(`);
    // a path too long to show whole is named, cut, with no command (a cut path is another file).
    const rm = pasteArg(file);
    const removal = `${rm.length <= MAX_SHOWN_PATH_CHARS ? `\`rm ${rm}\`` : shownPath(file)}${packed ? ` (packed-refs still has it at ${packed.slice(0, 12)})` : ''}`;
    return new CheckpointError('E_GIT', `the current branch ${shown(branchName(ref))} is broken: ${shownPath(file)} ${what}, so git cannot read HEAD ("your current branch appears to be broken")`, {
      hint: `remove the broken file: ${removal}, then \`git update-ref ${pasteArg(ref)} '<commit>'\` if the branch was further on${last}`,
    });
  } catch {
    return null;
  }
}

/**
 * reftable, sha-256 and other extensions change how refs are stored; a grafts file changes
 * history below an unchanged HEAD (so nothing may be kept by HEAD): leave those to git.
 */
function unusualConfig(commonDir: string): boolean {
  if (statSync(join(commonDir, 'info', 'grafts'), { throwIfNoEntry: false }) !== undefined) return true;
  const text = readGitFile(join(commonDir, 'config'));
  // Not a plain file: git itself must say what it makes of it.
  if (text === undefined) return true;
  // The regex only where the word is (its i flag makes it costly to compile): most configs lack it.
  // A line's own blanks before "[" (not `^\s*`, which retried from each line of a long run of blank lines).
  return text !== null && text.toLowerCase().includes('extensions') && /^[^\S\n\r\u2028\u2029]*\[\s*extensions\b/im.test(text);
}
