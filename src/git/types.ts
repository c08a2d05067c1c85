// One interface for the history questions doctor, next and status ask. Two engines
// implement it (native `git` process, isomorphic-git) and must give identical answers.

export type ChangeStatus = 'A' | 'M' | 'D' | 'R';

export interface PathChange {
  status: ChangeStatus;
  /** Path after the change (for R, the new name). Repo-relative, forward slashes. */
  path: string;
  /**
   * For R: the old name. A walk pairs exact renames (same blob); editedRenames pairs a file
   * renamed with edits too, by a rule both engines share, so both agree.
   */
  from?: string;
}

export interface CommitInfo {
  sha: string;
  parents: string[];
  subject: string;
  /** Message after the subject line, trimmed. */
  body: string;
  /** Committer time, seconds since the epoch. */
  time: number;
  /**
   * Author time, seconds. A rebase, cherry-pick, `git am` or amend gives a commit a new committer
   * time and keeps this one (after.ts: a rewrite after a recorded save).
   */
  authorTime: number;
  /** Changes against the first parent (for a root commit: everything added). */
  changes: PathChange[];
  /**
   * Set by a walk given an anchor (commitsSince, commitsPast) on the commits git showed not to be
   * in the anchor's history (`rev-list <stops> --not <anchor>`): made after the anchor, whatever
   * their dates say. Absent: the walk proved nothing either way (judge by date).
   */
  pastAnchor?: true;
  /**
   * Set by pushedCommits on a merge: the changes whose result differs from every parent (git's
   * combined diff), what the merge itself did. A file it took whole from the merged-in side was
   * changed by a commit of that side; `changes` stays against the first parent, as the
   * first-parent line reads it.
   */
  ownChanges?: PathChange[];
}

export interface HeadInfo {
  sha: string;
  /** Short branch name, or null when detached. */
  branch: string | null;
}

/** A commit on HEAD's first-parent line where a file's blob differs from the first parent's. */
export interface FileRevision {
  sha: string;
  /** Committer time, seconds. */
  time: number;
  path: string;
  /** The file's blob after the commit; null when the commit deleted it. */
  blob: string | null;
  /** The commit's parents, first parent first: a merge that took the file from another parent says so (queued.ts). */
  parents: string[];
}

/** Which file changes a walk lists: every one, none, or those at or under these paths. */
export type ChangeScope = 'all' | 'none' | readonly string[];

export type EngineName = 'native' | 'isomorphic';

export interface GitHistory {
  readonly engine: EngineName;
  readonly dir: string;
  /** null in a repository with no commits yet. */
  head(): Promise<HeadInfo | null>;
  /**
   * Commits reachable from HEAD whose committer time is >= `since` (seconds), found by a
   * walk that never goes past a commit older than `since`: cost follows the question.
   * With `anchor` (the commit that recorded the instant `since` stands for: a checkpoint's
   * save), it does go past an older commit that is not in the anchor's history: one dated in
   * the past by a skewed clock cannot hide the commits behind it (skew-walk.ts), and the commits
   * it finds after the anchor are listed whatever their dates, marked `pastAnchor`; `floor`: see commitsPast.
   * Newest first (committer time desc, then sha). `changes` says which file lists to produce:
   * 'all' (default), 'none' (subjects only: no tree is diffed), or only the changes at or
   * under the given repo-relative paths (exact renames paired within those).
   */
  commitsSince(since: number, opts?: { changes?: ChangeScope; anchor?: string; floor?: number }): Promise<CommitInfo[]>;
  /**
   * commitsSince's answer with `anchor` from its answer without (`walked`, back to `since`, with
   * the same `changes`): asks git only when the walked commits leave that answer open. A commit
   * dated before `floor` (the walk_days bound) counts as in the anchor's history.
   */
  commitsPast(walked: readonly CommitInfo[], since: number, anchor: string, opts?: { changes?: ChangeScope; floor?: number }): Promise<CommitInfo[]>;
  /** Full sha if `rev` names a commit object in this repository, else null. */
  resolveCommit(rev: string): Promise<string | null>;
  /**
   * resolveCommit for several names at once (one git process at most): answers in the same order.
   * With `peel`, a name of an annotated tag answers with the commit the tag points to (through
   * tags of tags): what a pushed tag sends.
   */
  resolveCommits(revs: readonly string[], opts?: { peel?: boolean }): Promise<(string | null)[]>;
  /** Whether each name names one object of any kind (a commit, a tag of a tree): unknown and ambiguous names do not. */
  namesObjects(revs: readonly string[]): Promise<boolean[]>;
  /**
   * The commit each revision name names (push.ts REVISION_NAME: a ref as git expands a short name,
   * HEAD, then ~N and ^N steps), a tag peeled to its commit; null when it names none. In order.
   */
  resolveRevisions(names: readonly string[]): Promise<(string | null)[]>;
  /**
   * Commits reachable from HEAD whose committer time is >= `since` (the walk stops there, as in
   * commitsSince) and whose message (subject or body) holds any of `tokens`: a token of
   * printable ASCII with its ASCII letters in either case, any other verbatim (normalize.ts
   * namesAny). Newest first, without file lists (changes: []). A targeted question for
   * history older than a bounded walk: costs one pass over commit messages, no tree is read.
   */
  commitsNaming(tokens: readonly string[], since: number): Promise<CommitInfo[]>;
  /**
   * For each of `paths`, the newest commit reachable from HEAD (walk bounded by `since` as in
   * commitsSince) whose changes against its first parent delete it or rename it away (exact
   * renames, as in commitsSince). Those commits, each once, newest first, with all their changes.
   */
  lastRemovals(paths: readonly string[], since: number): Promise<CommitInfo[]>;
  /**
   * Commits by full name (each a commit this repository has), each with all its changes against
   * its first parent, exact renames paired as in commitsSince: one commit's whole change where a
   * walk listed only some of it. In the order asked.
   */
  changesOf(shas: readonly string[]): Promise<CommitInfo[]>;
  /**
   * Of `paths`, the files commit `sha` (a full name) deleted against its first parent and added
   * elsewhere with edits, paired as git's rename detection pairs them (similarity of at least
   * 50%, edited-renames.ts): old path -> new path. `changes` pair exact renames only; this is
   * asked only about a listed file found deleted, so no walk reads a blob for it.
   */
  editedRenames(sha: string, paths: readonly string[]): Promise<Map<string, string>>;
  /** Whether commit `sha` is HEAD or an ancestor of it, by the commit graph alone (commit dates may be skewed). */
  isInHeadHistory(sha: string): Promise<boolean>;
  isShallow(): Promise<boolean>;
  /**
   * Each path's own revisions along HEAD's first-parent line, newest first: the commits where
   * its blob changed, back to the one that last created it at that path (none when HEAD
   * does not hold it). Costs the file's current life, not the repository's history. `from` (a
   * commit's full name): along that commit's first-parent line instead (none when it names no
   * commit here).
   */
  fileRevisions(paths: readonly string[], from?: string): Promise<FileRevision[]>;
  /** UTF-8 text of blobs by id; ids that are not blobs (or larger than `maxBytes`) are left out. */
  readBlobs(oids: readonly string[], maxBytes: number): Promise<Map<string, string>>;
  /**
   * The commits a push of `to` sends: reachable from `to` but not from `from`, or, when
   * `from` is null (a new branch), not from any remote-tracking ref. Newest first, with changes.
   * A `from` this repository does not have counts as null.
   */
  pushedCommits(from: string | null, to: string): Promise<CommitInfo[]>;
  /**
   * pushedCommits of each range, in order: the same answers, asked together (a push of many refs:
   * one walk for all the ranges that share a base). A commit two ranges send may be one object in both.
   * `wholeRange`: each range is `git log <from>..<to>` as git lists it, commits a remote-tracking
   * ref holds included (CI judges a push after it reached the remote, whose refs then hold it all).
   */
  pushedCommitsEach(ranges: readonly { from: string | null; to: string }[], opts?: { wholeRange?: boolean }): Promise<CommitInfo[][]>;
  /**
   * The files (blobs and links, not submodules) directly in each of `dirs` (repo-relative, '' for
   * the top) in commit `rev`'s tree (a hex object name), path -> blob id; with `recursive`, every
   * file at any depth under them. Empty when `rev` names no commit here.
   */
  filesIn(rev: string, dirs: readonly string[], opts?: { recursive?: boolean }): Promise<Map<string, string>>;
  /** filesIn of each of `revs`, in order: the same answers, asked together (commits sharing a folder's tree list it once). */
  filesInEach(revs: readonly string[], dirs: readonly string[], opts?: { recursive?: boolean }): Promise<Map<string, string>[]>;
  /**
   * The submodules (gitlinks) directly in each of `dirs` in commit `rev`'s tree, as filesIn lists
   * files: path -> the commit it pins. filesIn leaves them out: no file of this repository is there.
   */
  submodulesIn(rev: string, dirs: readonly string[]): Promise<Map<string, string>>;
  /** submodulesIn of each of `revs`, in order, asked together as filesInEach asks. */
  submodulesInEach(revs: readonly string[], dirs: readonly string[]): Promise<Map<string, string>[]>;
  /**
   * For each of `revs`, the symbolic links (mode 120000) directly in each of `dirs` of its tree:
   * path -> the blob holding the link's target. filesIn lists them among the files; this tells them apart.
   */
  linksInEach(revs: readonly string[], dirs: readonly string[]): Promise<Map<string, string>[]>;
  /**
   * Of `paths` (repo-relative, untracked), those git ignores: .gitignore files, info/exclude,
   * core.excludesFile, as `git check-ignore` reads them. Asked only about listed files git does not track.
   */
  ignoredPaths(paths: readonly string[]): Promise<Set<string>>;
  /** Of `paths`, those that differ between HEAD and the working tree (edited, deleted, untracked). */
  uncommittedPaths(paths: readonly string[]): Promise<string[]>;
  /**
   * Of the paths the last uncommittedPaths call returned, those the engine could not check as
   * git does (a filter driver it does not run, say), with what it could not apply: reported so
   * rather than called clean. Absent or empty when every answer is git's.
   */
  readonly unsure?: ReadonlyMap<string, string>;
}
