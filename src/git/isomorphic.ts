// GitHistory without a git binary. The walks are done here rather than with git.log: a
// date-ordered queue that stops where the question stops, and tree diffs against the first
// parent that skip subtrees whose oids match. Objects come from our own ObjectStore, whose
// cost follows the objects read; isomorphic-git (loaded only when needed) reads refs and
// config in unusual layouts, and objects behind a pack index the store does not know.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { MAX_RELAYED_CHARS, shown, shownPath } from '../one-line.js';
import { CommitQueue } from './commit-queue.js';
import { upstreamRef, UPSTREAM_NAME } from './upstream.js';
import { readGitFile } from './git-file.js';
import { brokenHeadRef, readHeadFiles, readHeadTarget } from './head-files.js';
import { headFiles } from './commit-cache.js';
import { resolveGitDirs, resolveGitDirsSync, type GitDirs } from './locate.js';
import { ObjectStore, type ObjectType } from './object-store.js';
import { assertSince, namesAny, branchName, indexScope, newestByGraph, objectNamePrefix, repoRelativePath, scopePaths, splitMessage, type ScopeIndex } from './normalize.js';
import { descendsFrom, newestRemovals, pairExactRenames, sameSecondRemovals, type RawChange } from './renames.js';
import { editedRenames } from './edited-renames.js';
import type { ChangeScope, CommitInfo, FileRevision, GitHistory, HeadInfo } from './types.js';
import { entryOfKind, treeDir, type EntryKind } from './tree-files.js';
import { entryDiff } from './tree-diff.js';
import { pastSkew, type SkewSteps } from './skew-walk.js';
import { sentByRange, tipsByBase, type FoundRange } from './pushed-sets.js';
import { commitHeader, DeepReader, mayName, tokenBytes, type WalkCommit } from './deep-walk.js';
import { DeepThread } from './deep-thread.js';
import { indexBlobIds, uncheckedPaths } from './skip-worktree.js';
import { indexRefusal } from './index-damage.js';
import { indexEntries } from './index-status.js';
import { attributeFilesAbove, eolAttributes, readEolConfig, type EolConfig } from './eol-attributes.js';
import { cleanRule, toGit, type CleanRule } from './eol-convert.js';
import { entryNamed, parseCommit, parseTree, peelStep, type FileState, type ParsedCommit, type TreeEntry } from './object-parse.js';

type IsoGit = typeof import('isomorphic-git');

/** One isomorphic-git cache per process, for the objects it still reads (see ObjectStore's fallback). */
const cache = {};

let isoGit: Promise<IsoGit> | null = null;
/** isomorphic-git on first use only: its bundle costs start-up, and most runs never need it. */
function loadIsoGit(): Promise<IsoGit> {
  isoGit ??= import('isomorphic-git').then(
    // Node resolves isomorphic-git to its CJS build; bundled, its API sits on `default`.
    (mod) => (typeof mod.resolveRef === 'function' ? mod : (mod as unknown as { default: IsoGit }).default) as IsoGit,
  );
  return isoGit;
}

export class IsoHistory implements GitHistory {
  readonly engine = 'isomorphic' as const;
  /** See GitHistory.unsure: paths reported without git's conversion, keyed as asked. */
  readonly unsure = new Map<string, string>();

  private constructor(
    readonly dir: string,
    private readonly dirs: GitDirs,
    private readonly store: ObjectStore,
  ) {}

  /** `dir` must be a work-tree root. */
  static async open(dir: string): Promise<IsoHistory> {
    const dirs = await resolveGitDirs(dir);
    const gitdir = dirs.commonDir;
    // git rewrites parents by a grafts file; a walk that ignored it would answer another history.
    if (fs.existsSync(join(gitdir, 'info', 'grafts'))) {
      throw new CheckpointError('E_GIT', `${shownPath(join(gitdir, 'info', 'grafts'))} rewrites this history, which the embedded engine does not follow`, {
        hint: 'use the native engine (git on PATH, no --engine isomorphic), or turn the grafts into replace refs: `git replace --convert-graft-file`',
      });
    }
    const store = new ObjectStore(join(gitdir, 'objects'), async (oid) => {
      const git = await loadIsoGit();
      try {
        const { type, object } = await git.readObject({ fs, gitdir, oid, format: 'content', cache });
        return object instanceof Uint8Array ? { type: type as ObjectType, data: Buffer.from(object) } : null;
      } catch (error) {
        if (errorCode(error) === 'NotFoundError') return null;
        throw error;
      }
    });
    return new IsoHistory(dir, dirs, store);
  }

  /** isomorphic-git, for refs and config. */
  private git(): Promise<IsoGit> {
    return loadIsoGit();
  }

  async head(): Promise<HeadInfo | null> {
    return this.guard('reading HEAD', async () => {
      const head = await this.readHead();
      return head.sha === null ? null : { sha: head.sha, branch: head.ref === null ? null : branchName(head.ref) };
    });
  }

  async commitsSince(since: number, { changes = 'all', anchor, floor }: { changes?: ChangeScope; anchor?: string; floor?: number } = {}): Promise<CommitInfo[]> {
    assertSince(since);
    return this.guard('listing recent commits', async () => {
      const tip = (await this.readHead()).sha;
      if (tip === null) return [];
      const walked = await this.walkFrom([tip], since, changes);
      return anchor === undefined ? newestByGraph(walked) : this.commitsPast(walked, since, anchor, { changes, floor });
    });
  }

  async commitsPast(walked: readonly CommitInfo[], since: number, anchor: string, { changes = 'all', floor }: { changes?: ChangeScope; floor?: number } = {}): Promise<CommitInfo[]> {
    return this.guard('listing recent commits', async () => {
      const tip = (await this.readHead()).sha;
      if (tip === null) return [...walked];
      const reader = await this.reader();
      const steps: SkewSteps = {
        walkFrom: (tips, t) => this.walkFrom(tips, t, changes),
        between: async (tips, excluded) => {
          const region = await between(reader, tips, excluded, floor !== undefined && floor > 0 ? Math.ceil(floor) : -Infinity);
          const inRegion = new Set(region.map((c) => c.sha));
          const edge = [...new Set(region.flatMap((c) => c.parents).filter((p) => !inRegion.has(p)))];
          const boundary = await Promise.all(edge.map((sha) => reader.commit(sha)));
          const scope = describedScope(changes);
          const described: CommitInfo[] = [];
          for (const commit of region) described.push(await describe(reader, commit, scope));
          return { region: described, boundary };
        },
      };
      return newestByGraph(await pastSkew(tip, walked, since, anchor, steps));
    });
  }

  /** commitsSince's walk from `tips`, described with the changes `changes` asks for (walk order). */
  private async walkFrom(tips: readonly string[], since: number, changes: ChangeScope): Promise<CommitInfo[]> {
    const scope = describedScope(changes);
    const reader = await this.reader();
    const recent: ParsedCommit[] = [];
    for await (const commit of walk(reader, tips, since)) recent.push(commit);
    // One commit at a time: consecutive commits share delta chains, and a base that is
    // still being inflated for one commit is not yet cached for the next.
    const infos: CommitInfo[] = [];
    // Commit objects only when no file list is asked for: no tree is read.
    for (const commit of recent) infos.push(await describe(reader, commit, scope));
    return infos;
  }

  async resolveCommit(rev: string): Promise<string | null> {
    return this.guard('resolving a commit', async () => (await lookupCommit(await this.reader(), rev))?.sha ?? null);
  }

  async resolveCommits(revs: readonly string[], opts: { peel?: boolean } = {}): Promise<(string | null)[]> {
    return this.guard('resolving commits', async () => {
      const reader = await this.reader();
      const out: (string | null)[] = [];
      for (const rev of revs) out.push((await lookupCommit(reader, rev, opts.peel))?.sha ?? null);
      return out;
    });
  }

  async resolveRevisions(names: readonly string[]): Promise<(string | null)[]> {
    return this.guard('resolving revision names', async () => {
      const reader = await this.reader();
      const out: (string | null)[] = [];
      for (const name of names) out.push(await this.resolveRevision(reader, name));
      return out;
    });
  }

  /** One REVISION_NAME: its ref as git expands a short name (or HEAD, or a branch's upstream), peeled, then each ~N and ^N step. */
  private async resolveRevision(reader: ObjectReader, name: string): Promise<string | null> {
    const upstream = UPSTREAM_NAME.exec(name);
    const m = upstream ? [name, '', upstream[2]!] : /^(.*?)((?:[~^]\d*)*)$/.exec(name)!;
    let sha: string | null;
    if (upstream) {
      // `@{u}` alone (or `HEAD@{u}`) is the current branch's (none when HEAD is detached), as git reads it.
      const current = !upstream[1] || upstream[1] === 'HEAD';
      const head = current ? (await this.readHead()).ref : null;
      const branch = !current ? upstream[1]! : head?.startsWith('refs/heads/') ? branchName(head) : null;
      const ref = branch === null ? null : upstreamRef(readGitFile(join(this.dirs.commonDir, 'config')) ?? '', branch);
      sha = ref === null ? null : await (await this.git()).resolveRef({ fs, gitdir: this.dirs.commonDir, ref }).catch(() => null);
    } else if (m[1] === 'HEAD') sha = (await this.readHead()).sha;
    else {
      // A short name expanded in git's order, each tried until one resolves: isomorphic-git's
      // expandRef takes a folder (refs/remotes/origin) for a ref, and never tries <remote>/HEAD.
      const git = await this.git();
      const n = m[1]!;
      sha = null;
      for (const ref of [n, `refs/${n}`, `refs/tags/${n}`, `refs/heads/${n}`, `refs/remotes/${n}`, `refs/remotes/${n}/HEAD`]) {
        sha = await git.resolveRef({ fs, gitdir: this.dirs.commonDir, ref }).catch(() => null);
        if (sha !== null) break;
      }
    }
    let commit = sha === null ? null : await reader.commit(sha).catch(() => null);
    for (const step of m[2]!.match(/[~^]\d*/g) ?? []) {
      if (commit === null) return null;
      const n = step.length > 1 ? Number(step.slice(1)) : 1;
      if (step[0] === '~') {
        for (let k = 0; k < n && commit !== null; k++) commit = commit.parents[0] === undefined ? null : await reader.commit(commit.parents[0]).catch(() => null);
      } else if (n > 0) {
        const parent = commit.parents[n - 1];
        commit = parent === undefined ? null : await reader.commit(parent).catch(() => null);
      }
    }
    return commit?.sha ?? null;
  }

  async namesObjects(revs: readonly string[]): Promise<boolean[]> {
    return this.guard('looking up objects', async () => {
      const reader = await this.reader();
      return revs.map((rev) => {
        const name = objectNamePrefix(rev);
        return name !== null && reader.expandOid(name).length === 1;
      });
    });
  }

  /** The deep questions (commitsNaming, lastRemovals) are asked together over the same old commits: one reader serves both. */
  private deep: DeepReaders | null = null;
  /** The deep-walk worker, once a deep question is asked (null: none to start, the answers come from this thread). */
  private thread: Promise<DeepThread | null> | null = null;
  private shallowOnce: Promise<Set<string>> | null = null;

  /**
   * A deep question from HEAD (none on an unborn branch). It walks in the deep-walk worker,
   * alongside whatever else this thread reads; if the worker cannot answer (no worker file,
   * an object only the fallback reader has, an error), it is asked again here, so answers and
   * errors are this thread's.
   */
  private deepAsk(action: string, asked: Omit<DeepQuestion, 'tip'>): Promise<CommitInfo[]> {
    return this.guard(action, async () => {
      const tip = (await this.readHead()).sha;
      if (tip === null) return [];
      const shallow = await (this.shallowOnce ??= this.shallowCommits());
      const question: DeepQuestion = { ...asked, tip };
      const thread = await (this.thread ??= DeepThread.start(join(this.dirs.commonDir, 'objects'), shallow));
      const answered = thread === null ? null : await thread.ask(question);
      if (answered !== null) return answered;
      this.deep ??= deepReaders(this.store, shallow);
      return deepAnswer(this.deep, question);
    });
  }

  async commitsNaming(tokens: readonly string[], since: number): Promise<CommitInfo[]> {
    assertSince(since);
    const wanted = [...new Set(tokens)].filter((t) => t !== '' && !t.includes('\n'));
    if (!wanted.length) return [];
    return this.deepAsk('searching commit messages', { kind: 'naming', wanted, since });
  }

  async lastRemovals(paths: readonly string[], since: number): Promise<CommitInfo[]> {
    assertSince(since);
    const wanted = [...new Set(paths.map(repoRelativePath))].filter(Boolean);
    if (!wanted.length) return [];
    return this.deepAsk('finding removed files', { kind: 'removals', wanted, since });
  }

  async changesOf(shas: readonly string[]): Promise<CommitInfo[]> {
    return this.guard('reading commits', async () => {
      const reader = await this.reader();
      const infos: CommitInfo[] = [];
      for (const sha of shas) infos.push(await describe(reader, await reader.commit(sha)));
      return infos;
    });
  }

  async editedRenames(sha: string, paths: readonly string[]): Promise<Map<string, string>> {
    if (!paths.length || !/^[0-9a-f]{40}$/.test(sha)) return new Map();
    return this.guard('pairing renamed files', async () => {
      const reader = await this.reader();
      if ((await reader.typeOf(sha)) !== 'commit') return new Map();
      const commit = await reader.commit(sha);
      const firstParent = commit.parents[0];
      // A root commit deleted nothing.
      if (firstParent === undefined) return new Map();
      const raw: RawChange[] = [];
      await diffTrees(reader, (await reader.commit(firstParent)).tree, commit.tree, '', raw);
      return editedRenames(raw, paths.map(repoRelativePath), (oids, maxBytes) => this.blobBytes(oids, maxBytes));
    });
  }

  async isInHeadHistory(rev: string): Promise<boolean> {
    return this.guard('checking HEAD history', async () => {
      const reader = await this.reader();
      const target = await lookupCommit(reader, rev);
      const tip = (await this.readHead()).sha;
      if (target === null || tip === null) return false;
      // No cut-off by date: an ancestor whose committer clock was skewed is still an ancestor.
      // The date-ordered walk meets a well-dated target early and stops there.
      for await (const commit of walk(reader, [tip], -Infinity)) {
        if (commit.sha === target.sha) return true;
      }
      return false;
    });
  }

  async pushedCommits(from: string | null, to: string): Promise<CommitInfo[]> {
    return this.guard('listing pushed commits', async () => {
      const reader = await this.reader();
      const tip = await lookupCommit(reader, to);
      if (tip === null) return [];
      const base = from === null ? null : await lookupCommit(reader, from);
      // What any remote already has is no commit of this push's own (native.ts says why).
      const excluded = [...(base ? [base.sha] : []), ...(await this.remoteTips(reader))];
      const infos: CommitInfo[] = [];
      for (const commit of await between(reader, [tip.sha], excluded)) infos.push(await describeOwn(reader, commit));
      return newestByGraph(infos);
    });
  }

  async pushedCommitsEach(ranges: readonly { from: string | null; to: string }[], opts: { wholeRange?: boolean } = {}): Promise<CommitInfo[][]> {
    return this.guard('listing pushed commits', async () => {
      const reader = await this.reader();
      const found: FoundRange[] = [];
      for (const { from, to } of ranges) {
        const tip = await lookupCommit(reader, to);
        const base = tip === null || from === null ? null : await lookupCommit(reader, from);
        found.push({ tip: tip?.sha ?? null, base: base?.sha ?? null });
      }
      // One walk per base for all its tips, each commit described once (pushed-sets.ts).
      const remotes = opts.wholeRange ? [] : await this.remoteTips(reader);
      const walks = new Map<string, Map<string, CommitInfo>>();
      for (const [base, tips] of tipsByBase(found)) {
        const walked = new Map<string, CommitInfo>();
        for (const commit of await between(reader, tips, [...(base ? [base] : []), ...remotes])) walked.set(commit.sha, await describeOwn(reader, commit));
        walks.set(base, walked);
      }
      return sentByRange(found, walks);
    });
  }

  /** Commits the remote-tracking refs point at (tags and other objects skipped). */
  private async remoteTips(reader: ObjectReader): Promise<string[]> {
    const git = await this.git();
    const refs = await git.listRefs({ fs, gitdir: this.dirs.commonDir, filepath: 'refs/remotes' }).catch(() => [] as string[]);
    const tips: string[] = [];
    for (const ref of refs) {
      if (ref.endsWith('/HEAD')) continue;
      const sha = await git.resolveRef({ fs, gitdir: this.dirs.commonDir, ref: `refs/remotes/${ref}` }).catch(() => null);
      const commit = sha === null ? null : await lookupCommit(reader, sha);
      if (commit) tips.push(commit.sha);
    }
    return tips;
  }

  async fileRevisions(paths: readonly string[], from?: string): Promise<FileRevision[]> {
    if (paths.length === 0) return [];
    if (from !== undefined && !/^[0-9a-f]{40}$/.test(from)) return [];
    // Sorted as git lists a commit's raw entries.
    const relative = [...new Set(paths.map(repoRelativePath))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return this.guard('listing file revisions', async () => {
      const reader = await this.reader();
      // As `git log <name>` reads it: a tag's commit (an object name that is no commit here has no line).
      const tip = from === undefined ? (await this.readHead()).sha : (await lookupCommit(reader, from, true))?.sha ?? null;
      if (tip === null) return [];
      const out: FileRevision[] = [];
      // The tip's first-parent line; each commit's file compared with its first parent's, for
      // the paths the tip holds, each until the commit that created it: then the walk stops.
      const headTree = (await reader.commit(tip)).tree;
      const held = await Promise.all(relative.map((path) => fileInTree(reader, headTree, path)));
      let open = relative.filter((_, i) => held[i] !== null);
      const folder = new Map(open.map((path) => [path, folderOf(path)]));
      let folders = [...new Set(folder.values())];
      // Each folder's tree in the commit at hand: its parent's, as read in the step before.
      let here = new Map<string, string | null>();
      // Each commit is read once, as the parent of the one before, and not kept.
      for (let commit: LineCommit | null = await reader.lineCommit(tip); commit !== null && open.length > 0; ) {
        const parent: string | undefined = commit.parents[0];
        const parentCommit: LineCommit | null = parent === undefined ? null : await reader.lineCommit(parent);
        const parentTree = parentCommit === null ? null : parentCommit.tree;
        // A folder whose tree is the parent's holds the same files: most commits change none of
        // the folders asked about, and are passed with one look-up per folder, not per file.
        const changed: string[] = [];
        const there = new Map<string, string | null>();
        for (const dir of folders) {
          const now = here.has(dir) ? here.get(dir)! : await reader.folderAt(commit.tree, dir);
          const before = parentTree === null ? null : await reader.folderAt(parentTree, dir);
          there.set(dir, before);
          if (now !== before) changed.push(dir);
        }
        here = there;
        if (changed.length > 0) {
          for (const path of open) {
            if (!changed.includes(folder.get(path)!)) continue;
            const [now, before] = await Promise.all([fileInTree(reader, commit.tree, path), fileInTree(reader, parentTree, path)]);
            if (now?.oid === before?.oid && now?.mode === before?.mode) continue;
            if (now !== null) out.push({ sha: commit.sha, time: commit.time, path, blob: now.oid, parents: [...commit.parents] });
            if (before === null || now === null) open = open.filter((p) => p !== path);
          }
          folders = [...new Set(open.map((path) => folder.get(path)!))];
        }
        commit = parentCommit;
      }
      return out;
    });
  }

  async readBlobs(oids: readonly string[], maxBytes: number): Promise<Map<string, string>> {
    return this.guard('reading blobs', async () => {
      const bytes = await this.blobBytes(oids, maxBytes);
      return new Map([...bytes].map(([oid, b]) => [oid, b.toString('utf8')]));
    });
  }

  /** Blobs' bytes by id; ids that are not blobs, or larger than `maxBytes`, are left out. */
  private async blobBytes(oids: readonly string[], maxBytes: number): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    for (const oid of new Set(oids)) {
      // A blob over maxBytes comes back without its data: it is never inflated.
      const found = await this.store.read(oid, maxBytes);
      if (found?.type === 'blob' && found.data !== null) out.set(oid, found.data);
    }
    return out;
  }

  async filesIn(rev: string, dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>> {
    return this.treeEntries(rev, dirs, opts.recursive === true, 'blob');
  }

  async filesInEach(revs: readonly string[], dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>[]> {
    // In process, each tree read once (the object cache): one commit after another.
    const out: Map<string, string>[] = [];
    for (const rev of revs) out.push(await this.filesIn(rev, dirs, opts));
    return out;
  }

  async submodulesIn(rev: string, dirs: readonly string[]): Promise<Map<string, string>> {
    return this.treeEntries(rev, dirs, false, 'commit');
  }

  async submodulesInEach(revs: readonly string[], dirs: readonly string[]): Promise<Map<string, string>[]> {
    const out: Map<string, string>[] = [];
    for (const rev of revs) out.push(await this.submodulesIn(rev, dirs));
    return out;
  }

  async linksInEach(revs: readonly string[], dirs: readonly string[]): Promise<Map<string, string>[]> {
    const out: Map<string, string>[] = [];
    for (const rev of revs) out.push(await this.treeEntries(rev, dirs, false, 'link'));
    return out;
  }

  /** The entries of `kind` (files, or submodules' gitlinks) in `dirs` of commit `rev`'s tree (filesIn, submodulesIn). */
  private async treeEntries(rev: string, dirs: readonly string[], recursive: boolean, kind: EntryKind): Promise<Map<string, string>> {
    return this.guard('listing a commit\'s files', async () => {
      const reader = await this.reader();
      const commit = await lookupCommit(reader, rev);
      const out = new Map<string, string>();
      if (commit === null) return out;
      for (const dir of new Set(dirs.map(treeDir))) {
        let entries = await reader.tree(commit.tree);
        for (const name of dir ? dir.split('/') : []) {
          const entry = entries.get(name);
          entries = entry?.type === 'tree' ? await reader.tree(entry.oid) : new Map();
        }
        const visit = async (at: string, listed: typeof entries): Promise<void> => {
          for (const [name, entry] of listed) {
            const path = at ? `${at}/${name}` : name;
            if (entryOfKind(kind, entry.type, entry.mode)) out.set(path, entry.oid);
            else if (recursive && entry.type === 'tree') await visit(path, await reader.tree(entry.oid));
          }
        };
        await visit(dir, entries);
      }
      return out;
    });
  }

  async isShallow(): Promise<boolean> {
    return readHeadFiles(this.dir)?.shallow ?? exists(this.shallowFile);
  }

  async ignoredPaths(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    // Loaded only now: no run that lists no untracked file reads a rule.
    const { ignoredIn } = await import('./ignore-rules.js');
    const ignored = ignoredIn(this.dir, this.dirs, paths.map(repoRelativePath));
    return new Set(paths.filter((p) => ignored.has(repoRelativePath(p))));
  }

  async uncommittedPaths(paths: readonly string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    const unique = [...new Set(paths)];
    const relative = unique.map(repoRelativePath);
    return this.guard('comparing the working tree with HEAD', async () => {
      // HEAD and the disk are compared without the index, but a damaged one is refused as the native engine refuses it.
      const refused = indexRefusal(this.dirs.gitdir);
      if (refused) throw refused;
      const tip = (await this.readHead()).sha;
      const reader = await this.reader();
      const tree = tip === null ? null : (await reader.commit(tip)).tree;
      const states = await Promise.all(relative.map((path) => Promise.all([fileInTree(reader, tree, path), fileOnDisk(join(this.dir, path))])));
      const unsure = await this.settleConversions(relative, states);
      // core.filemode is read only when an executable bit alone tells a file apart.
      let honorExecBit = true;
      if (states.some(([committed, onDisk]) => sameFile(committed, onDisk, false) !== sameFile(committed, onDisk, true))) {
        const fileMode: unknown = await (await this.git()).getConfig({ fs, gitdir: this.dirs.commonDir, path: 'core.filemode' });
        honorExecBit = !['false', 'no', 'off', '0'].includes(String(fileMode).toLowerCase());
      }
      // A path the index keeps out of the work tree (skip-worktree: a sparse checkout) or marks
      // assume-unchanged is never compared with the disk: git status lists it as nothing, absent or edited.
      const differing = relative.filter((_, i) => !sameFile(states[i]![0], states[i]![1], honorExecBit));
      const skipped = differing.length ? uncheckedPaths(this.dirs.gitdir, differing) : new Set<string>();
      // A file inside a submodule is the submodule's: git status here says nothing of it. The
      // submodule itself is modified only when its checkout left the commit recorded here.
      for (const path of differing) {
        const committed = states[relative.indexOf(path)]![0];
        if (committed?.mode === '160000' ? !submoduleMoved(this.dir, this.dirs.commonDir, path, committed.oid) : await insideSubmodule(reader, tree, path)) skipped.add(path);
      }
      const reported = unique.filter((_, i) => !sameFile(states[i]![0], states[i]![1], honorExecBit) && !skipped.has(relative[i]!));
      this.unsure.clear();
      for (const path of reported) {
        const why = unsure.get(repoRelativePath(path));
        if (why !== undefined) this.unsure.set(path, why);
      }
      return reported;
    });
  }

  /**
   * What git status makes of a file, where HEAD's blob and the disk alone can mislead: git
   * answers from the index's stat data first, then the size it recorded, then the content after
   * its clean conversion (core.autocrlf, the text/eol attributes). So a file whose bytes differ
   * from HEAD's blob is clean when its stat data match, or when the conversion gives that blob;
   * and a file holding HEAD's very bytes is modified when its size is not the one recorded (a
   * CRLF checkout run through dos2unix) or the conversion gives another blob (CRLF committed
   * before `text` was set). A conversion this engine cannot reproduce (a filter driver, ident,
   * an encoding, what eol-attributes.ts does not follow) is settled only by the stat data;
   * otherwise a differing file stays uncommitted (never clean on a guess). File content is read
   * only when the stat data do not settle it.
   */
  private async settleConversions(paths: readonly string[], states: [FileState | null, FileState | null][]): Promise<Map<string, string>> {
    const unsure = new Map<string, string>();
    const plain = (f: FileState | null): f is FileState => f !== null && (f.mode === '100644' || f.mode === '100755');
    const candidates = paths.flatMap((path, i) => {
      const [committed, onDisk] = states[i]!;
      return plain(committed) && plain(onDisk) ? [{ path, i, committed, onDisk, same: committed.oid === onDisk.oid }] : [];
    });
    if (candidates.length === 0) return unsure;
    const { gitdir } = this.dirs;
    const entries = indexEntries(gitdir, candidates.map((c) => c.path));
    const rules = new RuleReader(this.dir, this.dirs, this.store, candidates.map((c) => c.path));
    for (const { path, i, committed, onDisk, same } of candidates) {
      const clean = () => (states[i] = [committed, { ...onDisk, oid: committed.oid }]);
      const modified = () => (states[i] = [committed, { ...onDisk, oid: MODIFIED_BY_INDEX }]);
      const entry = entries?.get(path);
      // Staged, flagged or unreadable: git answers by other rules than these.
      if (!entry || entry.flagged || entry.oid !== committed.oid) {
        if (!same && entries === null) {
          const rule = await rules.of(path);
          if ('inexact' in rule) unsure.set(path, rule.inexact);
        }
        continue;
      }
      const st = await lstat(join(this.dir, path), { bigint: true }).catch(() => null);
      if (!st?.isFile()) continue;
      if (entry.settles(st)) {
        if (!same) clean();
        continue;
      }
      // A size other than the one recorded is a change to git, whatever the conversion makes of it.
      if (entry.size !== 0 && BigInt(entry.size) !== (st.size & 0xffffffffn)) {
        if (same) modified();
        continue;
      }
      // Only the content tells: git converts it, this engine can or says it could not.
      const rule = await rules.of(path);
      if ('inexact' in rule) {
        if (!same) unsure.set(path, rule.inexact);
        continue;
      }
      if (rule.action === 'binary') continue; // stored as it is: the bytes tell
      const blob = (await this.store.read(committed.oid))?.data ?? null;
      if (blob === null) continue;
      const converted = blobId(toGit(await readFile(join(this.dir, path)), rule.action, blob));
      if (converted === committed.oid) clean();
      else if (same) modified();
    }
    return unsure;
  }

  private get shallowFile(): string {
    return join(this.dirs.commonDir, 'shallow');
  }

  /** A reader for one question; shallow boundary commits read as roots, as git shows them. */
  private async reader(): Promise<ObjectReader> {
    return new ObjectReader(this.store, await this.shallowCommits());
  }

  /** HEAD's ref (null when detached) and commit (null when the branch has no commits yet). */
  private async readHead(): Promise<{ ref: string | null; sha: string | null }> {
    // As read for this run (commit-cache.ts headFiles): the commit walked is the one answers are kept under.
    const files = headFiles(this.dir);
    if (files) return { ref: files.ref, sha: files.sha };
    // isomorphic-git would read past a broken loose ref to packed-refs, where git refuses.
    const broken = brokenHeadRef(this.dir);
    if (broken) throw broken;
    // Unusual layouts: the HEAD file as head-files.ts reads it, then isomorphic-git's own ref
    // resolution (symref chains and the like).
    const target = readHeadTarget(this.dirs.gitdir);
    if (!target) throw new Error('HEAD holds neither a ref nor a commit id');
    if (target.ref === null) return target;
    const ref = target.ref;
    try {
      return { ref, sha: await (await this.git()).resolveRef({ fs, gitdir: this.dirs.commonDir, ref }) };
    } catch (error) {
      if (errorCode(error) === 'NotFoundError') return { ref, sha: null };
      throw error;
    }
  }

  private async shallowCommits(): Promise<Set<string>> {
    const text = await readFile(this.shallowFile, 'utf8').catch(() => '');
    return new Set(text.split('\n').map((line) => line.trim()).filter(Boolean));
  }

  /** Runs an engine step; anything but a CheckpointError becomes one E_GIT line naming the step. */
  private async guard<T>(step: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isCheckpointError(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new CheckpointError('E_GIT', `${step} failed in ${shownPath(this.dir)}: ${shown(reason, MAX_RELAYED_CHARS)}`, { cause: error });
    }
  }
}

/** Stands for a file git status calls modified though its bytes are HEAD's (see settleConversions). */
const MODIFIED_BY_INDEX = 'modified by the index rules';

/** Largest staged .gitattributes read from the index; a larger one makes the answer inexact. */
const MAX_STAGED_ATTRIBUTES_BYTES = 1024 * 1024;

/**
 * The clean conversion rule of each path, read once per question: config, then the attribute
 * files above the paths. A .gitattributes missing from the work tree is read from the index
 * as git reads it (a deletion not yet committed still applies its rules; `git rm --cached`
 * leaves the work tree's file, which git reads first).
 */
class RuleReader {
  private config: EolConfig | undefined;
  private staged: Map<string, string | undefined> | undefined;

  constructor(
    private readonly root: string,
    private readonly dirs: GitDirs,
    private readonly store: ObjectStore,
    private readonly paths: readonly string[],
  ) {}

  async of(path: string): Promise<CleanRule> {
    const config = (this.config ??= readEolConfig(this.dirs.gitdir, this.dirs.commonDir));
    if (config.inexact) return { inexact: config.inexact };
    const staged = (this.staged ??= await this.readStaged());
    const attrs = eolAttributes(this.root, this.dirs.commonDir, path, config, (rel) => (staged.has(rel) ? staged.get(rel) : null));
    return 'inexact' in attrs ? attrs : cleanRule(attrs, config.autocrlf);
  }

  /** The staged text of each attribute file the work tree lost (undefined: one this reader cannot read). */
  private async readStaged(): Promise<Map<string, string | undefined>> {
    const files = [...new Set(this.paths.flatMap(attributeFilesAbove))];
    const lost = (await Promise.all(files.map(async (rel) => ((await lstat(join(this.root, rel)).catch(() => null)) === null ? [rel] : [])))).flat();
    const out = new Map<string, string | undefined>();
    for (const [rel, oid] of indexBlobIds(this.dirs.gitdir, lost)) {
      const blob = oid === '' ? null : await this.store.read(oid, MAX_STAGED_ATTRIBUTES_BYTES);
      out.set(rel, blob?.type === 'blob' && blob.data !== null ? blob.data.toString('utf8') : undefined);
    }
    return out;
  }
}

/** A deep question as the main thread and the deep-walk worker both answer it. */
export interface DeepQuestion {
  kind: 'naming' | 'removals';
  tip: string;
  /** Tokens (naming) or repository-relative paths (removals): unique, none empty. */
  wanted: string[];
  since: number;
}

/** The readers the deep questions share. */
export interface DeepReaders {
  walk: DeepReader;
  reader: ObjectReader;
}

export function deepReaders(store: ObjectStore, shallow: ReadonlySet<string>): DeepReaders {
  return { walk: new DeepReader(store, shallow), reader: new ObjectReader(store, shallow) };
}

/** commitsNaming's or lastRemovals' answer, read with `readers`. */
export async function deepAnswer(readers: DeepReaders, question: DeepQuestion): Promise<CommitInfo[]> {
  return (await deepAnswers(readers, [question]))[0]!;
}

/**
 * The answers to `questions`, in order. Questions from the same tip back to the same time
 * share one walk (the deep-walk worker gets doctor's two together): each commit is read and
 * visited once for all of them, in the order a walk for each alone visits it, so every
 * answer is the one that walk gives.
 */
export async function deepAnswers(readers: DeepReaders, questions: readonly DeepQuestion[]): Promise<CommitInfo[][]> {
  const groups = new Map<string, DeepQuestion[]>();
  for (const q of questions) {
    const key = `${q.tip} ${q.since}`;
    const group = groups.get(key);
    if (group) group.push(q);
    else groups.set(key, [q]);
  }
  const answers = new Map<DeepQuestion, CommitInfo[]>();
  for (const group of groups.values()) await walkFor(readers, group, answers);
  return questions.map((q) => answers.get(q)!);
}

/** One walk answering `group` (one tip, one since), each answer set in `answers`. */
async function walkFor({ walk: deep, reader }: DeepReaders, group: readonly DeepQuestion[], answers: Map<DeepQuestion, CommitInfo[]>): Promise<void> {
  const naming = group.filter((q) => q.kind === 'naming').map((q) => ({ q, needles: tokenBytes(q.wanted), infos: [] as CommitInfo[] }));
  const removals = group.filter((q) => q.kind === 'removals').map((q) => ({ q, candidates: [] as CommitInfo[], newest: new Map<string, WalkCommit>() }));
  const { tip, since } = group[0]!;
  // The walk only notes the few commits that may answer; they are decoded and described after
  // it, in walk order. The walk's loop, compiled once tens of thousands of commits in, then
  // never meets code it has not run (which would throw its compiled code away to compile again).
  const mayAnswer: WalkCommit[] = [];
  const removed: { commit: WalkCommit; removing: typeof removals }[] = [];
  await deep.walk(tip, since, (commit) => {
    // The removals first: their reads may stop the visit (an object for the fallback reader),
    // which then runs again from the start, so nothing is recorded before them.
    const removing = removals.length > 0 ? removalsBy(deep, commit, removals) : NONE;
    if (removing.length > 0) removed.push({ commit, removing });
    // Commit objects only: no tree is read, and a message is decoded only when its bytes may hold a token.
    for (let i = 0; i < naming.length; i++) {
      if (mayName(commit.data, naming[i]!.needles)) {
        mayAnswer.push(commit);
        break;
      }
    }
  });
  for (const commit of mayAnswer) {
    let parsed: ParsedCommit | undefined;
    for (const n of naming) {
      if (!mayName(commit.data, n.needles)) continue;
      parsed ??= deep.parsed(commit);
      const message = parsed.message;
      if (namesAny(message, n.q.wanted)) n.infos.push(summary(parsed, []));
    }
  }
  for (const { commit, removing } of removed) {
    const info = await describe(reader, deep.parsed(commit));
    for (const r of removing) r.candidates.push(info);
  }
  for (const n of naming) answers.set(n.q, newestByGraph(n.infos));
  for (const r of removals) {
    // Removals of a path in one second: which descends from which, by the graph (as the native engine asks git).
    const pairs: [string, string][] = [];
    for (const tie of sameSecondRemovals(r.candidates, r.q.wanted)) {
      for (const a of tie) for (const b of tie) if (a !== b && (await hasAncestor(reader, a.sha, b.sha))) pairs.push([a.sha, b.sha]);
    }
    answers.set(r.q, newestRemovals(r.candidates, r.q.wanted, descendsFrom(pairs)));
  }
}

/** Whether `ancestor` is reachable from `sha` through parents (rare: asked only of removals in one second). */
async function hasAncestor(reader: ObjectReader, sha: string, ancestor: string): Promise<boolean> {
  const seen = new Set<string>([sha]);
  const todo = [sha];
  while (todo.length) {
    for (const p of (await reader.lineCommit(todo.pop()!)).parents) {
      if (p === ancestor) return true;
      if (!seen.has(p)) {
        seen.add(p);
        todo.push(p);
      }
    }
  }
  return false;
}

/** removalsBy's answer for most commits, without an array each. */
const NONE: never[] = [];

/**
 * The removal questions `commit` answers: a commit removes a path (a D, or an R away from it,
 * in its first-parent diff) exactly when its parent holds a file there and it does not: one
 * lookup per tree and path, never a diff, and a subtree is read only when its id changed.
 * Then that commit's whole diff is read, so the deletion pairs with the addition it was
 * renamed to. A path whose removal was found is looked up again only in a commit of that
 * second or later: the walk goes by time, so once the missing files are explained the rest of
 * history is read for its commits alone, while a commit whose clock runs ahead of its children's
 * is still looked at. Every removal of that second stays a candidate: newestRemovals orders
 * them by the graph (a descendant first), as the native engine does, never by sha.
 */
function removalsBy<T extends { q: DeepQuestion; newest: Map<string, WalkCommit> }>(deep: DeepReader, commit: WalkCommit, removals: readonly T[]): T[] {
  // A length check, not parents[0] read past the end: the root commit would deoptimise the walk's compiled loop.
  if (commit.parents.length === 0) return NONE;
  const parentTree = deep.commit(commit.parents[0]!).tree;
  if (parentTree === commit.tree) return NONE;
  let answered: T[] = NONE;
  let found: [Map<string, WalkCommit>, string][] | null = null;
  for (const r of removals) {
    let hit = false;
    for (const path of r.q.wanted) {
      const best = r.newest.get(path);
      if (best !== undefined && commit.time < best.time) continue;
      if (!removes(deep, parentTree, commit.tree, path)) continue;
      hit = true;
      (found ??= []).push([r.newest, path]);
    }
    if (hit) (answered === NONE ? (answered = []) : answered).push(r);
  }
  // Noted once every read is done: a read the fallback reader must answer runs the visit again.
  if (found !== null) for (const [newest, path] of found) newest.set(path, commit);
  return answered;
}

/**
 * Whether `path` is a file in `parentTree` and not in `tree`. Both are looked up every time,
 * not the second only when the first holds it: a commit's tree is the next commit's parent
 * tree, looked up once for both, and a lookup first made thousands of commits in would throw
 * the walk's compiled loop away to compile it again.
 */
function removes(deep: DeepReader, parentTree: string, tree: string, path: string): boolean {
  const had = deep.fileAt(parentTree, path) !== null;
  const has = deep.fileAt(tree, path) !== null;
  return had && !has;
}

/** What a first-parent walk reads of a commit (ObjectReader.lineCommit). */
type LineCommit = Pick<ParsedCommit, 'sha' | 'parents' | 'tree' | 'time'>;

/**
 * Commits and trees read while answering one question, each read once. Objects never
 * change, but the repository can gain some between questions, so nothing outlives one.
 */
class ObjectReader {
  private readonly commits = new Map<string, Promise<ParsedCommit>>();
  private readonly trees = new Map<string, Promise<Map<string, TreeEntry>>>();
  private readonly files = new Map<string, Promise<FileState | null>>();

  constructor(
    private readonly store: ObjectStore,
    private readonly shallow: ReadonlySet<string>,
  ) {}

  commit(sha: string): Promise<ParsedCommit> {
    return memoized(this.commits, sha, async () => {
      // An annotated tag reads as the commit it points to, under that commit's oid.
      const { oid, data } = await this.peel(sha, 'commit');
      const commit = parseCommit(oid, data);
      if (this.shallow.has(oid)) commit.parents = [];
      return commit;
    });
  }

  /**
   * A commit's tree, parents and time, not kept: for a walk that meets each commit once (a
   * first-parent line) and reads no message, where 20,000 kept commits would outlive the young
   * generation. Read from the headers alone (commitHeader) where that gives parseCommit's answer.
   */
  async lineCommit(sha: string): Promise<LineCommit> {
    const kept = this.commits.get(sha);
    if (kept !== undefined) return kept;
    const { oid, data } = await this.peel(sha, 'commit');
    const { tree, parents, time } = commitHeader(oid, data) ?? parseCommit(oid, data);
    return { sha: oid, tree, parents: this.shallow.has(oid) ? [] : parents, time };
  }

  /** Entries by name; the empty tree for null. A commit (or tag) reads as its tree. */
  tree(oid: string | null): Promise<Map<string, TreeEntry>> {
    if (oid === null) return Promise.resolve(new Map());
    return memoized(this.trees, oid, async () => parseTree(oid, (await this.peel(oid, 'tree')).data));
  }

  /**
   * The file (blob, link or submodule) at `path` in tree `oid`, as fileInTree finds it, but
   * kept per tree and path instead of per parsed tree: a walk asking about a few paths in
   * thousands of root trees holds one answer each, and a subtree whose id did not change
   * between two commits is not read again.
   */
  fileAt(oid: string, path: string): Promise<FileState | null> {
    return memoized(this.files, `${oid}/${path}`, async () => {
      const slash = path.indexOf('/');
      const entry = entryNamed(oid, (await this.peel(oid, 'tree')).data, slash < 0 ? path : path.slice(0, slash));
      if (entry === null) return null;
      if (slash < 0) return entry.type === 'tree' ? null : { oid: entry.oid, mode: entry.mode };
      return entry.type === 'tree' ? this.fileAt(entry.oid, path.slice(slash + 1)) : null;
    });
  }

  /**
   * The tree id of folder `dir` ('' the tree itself) in tree `oid`, or null when there is none,
   * read entry by entry like fileAt, without keeping the trees on the way (a walk of a folder's
   * history reads each root tree once).
   */
  async folderAt(oid: string | null, dir: string): Promise<string | null> {
    let at = oid;
    for (const name of dir === '' ? [] : dir.split('/')) {
      if (at === null) return null;
      const entry = entryNamed(at, (await this.peel(at, 'tree')).data, name);
      at = entry?.type === 'tree' ? entry.oid : null;
    }
    return at;
  }

  /** Full ids of the objects an abbreviation names: none, one, or (ambiguous) two. */
  expandOid(prefix: string): string[] {
    return this.store.withPrefix(prefix, 2);
  }

  /** An object's type without reading its content (null when missing). */
  async typeOf(oid: string): Promise<ObjectType | null> {
    return (await this.store.read(oid, 0))?.type ?? null;
  }

  /** The object `oid`, through tags (and, for a tree, a commit), down to an object of type `want`. */
  private async peel(oid: string, want: 'commit' | 'tree'): Promise<{ oid: string; data: Buffer }> {
    for (let depth = 0; ; depth++) {
      const step = peelStep(oid, await this.store.read(oid), want, depth);
      if (typeof step !== 'string') return step;
      oid = step;
    }
  }
}

function memoized<T>(memo: Map<string, Promise<T>>, key: string, read: () => Promise<T>): Promise<T> {
  let value = memo.get(key);
  if (value === undefined) {
    value = read();
    memo.set(key, value);
  }
  return value;
}

/**
 * Commits reachable from `tip` without passing a commit older than `minTime`, in queue
 * order. Parents are read as they are queued, so the walk also reads the older commits
 * at its frontier, and no further.
 */
async function* walk(reader: ObjectReader, tips: readonly string[], minTime: number): AsyncGenerator<ParsedCommit> {
  const queue = new CommitQueue<ParsedCommit>();
  const queued = new Set(tips);
  for (const tip of queued) queue.push(await reader.commit(tip));
  for (let commit = queue.pop(); commit !== undefined && commit.time >= minTime; commit = queue.pop()) {
    yield commit;
    const unseen = commit.parents.filter((parent) => !queued.has(parent));
    for (const parent of unseen) queued.add(parent);
    for (const parent of await Promise.all(unseen.map((sha) => reader.commit(sha)))) queue.push(parent);
  }
}

/** git's SLOP (revision.c): how many uninteresting commits a limited walk reads past the last interesting one. */
const SLOP = 5;

/**
 * `git rev-list tips --not excluded...` as git's limit_list works it out (revision.c), so both
 * engines list the same commits even where dates lie: one walk in date order (ties first come,
 * first served, as commit_list_insert_by_date keeps them), painting "uninteresting" down from
 * the excluded commits through every parent already read; it stops SLOP commits after the
 * queue holds only uninteresting ones and none newer than the last interesting commit, and a
 * commit painted after it was listed is dropped from the answer. A commit older than `floor`
 * is uninteresting too, and its parents with it (git's --max-age in a limited walk).
 */
async function between(reader: ObjectReader, tips: readonly string[], excluded: readonly string[], floor = -Infinity): Promise<ParsedCommit[]> {
  const bad = new Set<string>(excluded); // UNINTERESTING
  const seen = new Set<string>(); // SEEN: queued once
  const parsed = new Map<string, ParsedCommit>(); // read by the walk: their parents are known to the painting
  const parse = async (sha: string) => {
    let commit = parsed.get(sha);
    if (!commit) parsed.set(sha, (commit = await reader.commit(sha)));
    return commit;
  };
  // mark_parents_uninteresting: down through parents already read, stopping at painted ones.
  const paintParents = (commit: ParsedCommit) => {
    const stack = [...commit.parents];
    while (stack.length) {
      const sha = stack.pop()!;
      if (bad.has(sha)) continue;
      bad.add(sha);
      const known = parsed.get(sha);
      if (known) stack.push(...known.parents);
    }
  };
  const queue = new ArrivalQueue<ParsedCommit>();
  const initial: ParsedCommit[] = [];
  for (const sha of [...tips, ...excluded]) {
    const commit = await parse(sha);
    if (bad.has(sha)) paintParents(commit);
    if (seen.has(sha)) continue;
    seen.add(sha);
    initial.push(commit);
  }
  for (const commit of initial.sort((a, b) => b.time - a.time)) queue.push(commit);
  let slop = SLOP;
  let date = Infinity;
  let interesting: string | null = null;
  const listed: ParsedCommit[] = [];
  for (let commit = queue.pop(); commit !== undefined; commit = queue.pop()) {
    if (interesting === commit.sha) interesting = null;
    if (commit.time < floor) bad.add(commit.sha);
    const uninteresting = bad.has(commit.sha);
    for (const sha of commit.parents) {
      if (uninteresting) bad.add(sha);
      const parent = await parse(sha);
      if (uninteresting && parent.parents.length) paintParents(parent);
      if (seen.has(sha)) continue;
      seen.add(sha);
      queue.push(parent);
    }
    if (uninteresting) {
      paintParents(commit);
      // still_interesting: go on while something queued is newer than the last listed commit or
      // still interesting; else SLOP more commits.
      const top = queue.peek();
      if (top === undefined) break;
      if (date <= top.time) slop = SLOP;
      else {
        if (interesting !== null && bad.has(interesting)) interesting = null;
        interesting ??= queue.find((c) => !bad.has(c.sha))?.sha ?? null;
        slop = interesting !== null ? SLOP : slop - 1;
      }
      if (slop) continue;
      break;
    }
    date = commit.time;
    listed.push(commit);
  }
  return listed.filter((c) => !bad.has(c.sha));
}

/** A max-heap on committer time where equal times leave in the order they came (commit_list_insert_by_date). */
class ArrivalQueue<T extends { time: number }> {
  private readonly heap: { item: T; seq: number }[] = [];
  private seq = 0;

  private before(a: { item: T; seq: number }, b: { item: T; seq: number }): boolean {
    return a.item.time > b.item.time || (a.item.time === b.item.time && a.seq < b.seq);
  }

  push(item: T): void {
    const heap = this.heap;
    const entry = { item, seq: this.seq++ };
    let i = heap.length;
    heap.push(entry);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(entry, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = entry;
  }

  peek(): T | undefined {
    return this.heap[0]?.item;
  }

  pop(): T | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top?.item;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && this.before(heap[right]!, heap[left]!) ? right : left;
      if (!this.before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
    return top!.item;
  }

  /** The first queued item (in no particular order) that passes `test`. */
  find(test: (item: T) => boolean): T | undefined {
    return this.heap.find((e) => test(e.item))?.item;
  }
}

/** The changes a walk describes: null for all, else the scope's paths indexed (none for 'none'). */
function describedScope(changes: ChangeScope): ScopeIndex | null {
  const scope = changes === 'all' ? null : indexScope(changes === 'none' ? [] : scopePaths(changes));
  return scope === null || scope.all ? null : scope;
}

/** A commit with its changes against the first parent: all (scope null), or those in `scope` only. */
async function describe(reader: ObjectReader, commit: ParsedCommit, scope: ScopeIndex | null = null): Promise<CommitInfo> {
  const raw: RawChange[] = [];
  if (scope === null || scope.paths.size > 0) {
    const firstParent = commit.parents[0];
    const parentTree = firstParent === undefined ? null : (await reader.commit(firstParent)).tree;
    await diffTrees(reader, parentTree, commit.tree, '', raw, scope);
  }
  return summary(commit, raw);
}

/**
 * A commit with its changes against the first parent; for a merge, only those whose result
 * differs from every parent (git's combined diff): a file it took whole from the merged-in side
 * was changed by a commit of that side, not by the merge.
 */
async function describeOwn(reader: ObjectReader, commit: ParsedCommit): Promise<CommitInfo> {
  if (commit.parents.length < 2) return describe(reader, commit);
  const raw: RawChange[] = [];
  await diffTrees(reader, (await reader.commit(commit.parents[0]!)).tree, commit.tree, '', raw);
  const others = await Promise.all(commit.parents.slice(1).map(async (p) => (await reader.commit(p)).tree));
  const own: RawChange[] = [];
  for (const change of raw) {
    const result = change.status === 'D' ? null : change.oid;
    const states = await Promise.all(others.map((tree) => fileInTree(reader, tree, change.path)));
    if (states.every((state) => (state?.oid ?? null) !== result)) own.push(change);
  }
  return { ...summary(commit, raw), ownChanges: pairExactRenames(own) };
}

/** A commit with the given raw changes (paired into renames). */
function summary(commit: ParsedCommit, raw: RawChange[]): CommitInfo {
  const { subject, body } = splitMessage(commit.message);
  return { sha: commit.sha, parents: commit.parents, subject, body, time: commit.time, authorTime: commit.authorTime, changes: pairExactRenames(raw) };
}

/**
 * Appends to `out` every file that differs between two trees (null: the empty tree), or only
 * those in `scope`. An entry the two trees share is passed over before its path is built.
 */
async function diffTrees(reader: ObjectReader, before: string | null, after: string | null, prefix: string, out: RawChange[], scope: ScopeIndex | null = null): Promise<void> {
  if (before === after) return;
  const [old, now] = await Promise.all([reader.tree(before), reader.tree(after)]);
  const names = [...old.keys(), ...[...now.keys()].filter((name) => !old.has(name))];
  for (const name of names) {
    const step = entryDiff(old.get(name), now.get(name), prefix + name, scope);
    if (step === null) continue;
    if (step.subtrees) await diffTrees(reader, step.subtrees[0], step.subtrees[1], `${prefix}${name}/`, out, scope);
    out.push(...step.changes);
  }
}

/** The folder of a repository-relative path ('' for one at the top). */
function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** The blob (or link, or submodule) at `path` in `tree`, or null when there is none. */
async function fileInTree(reader: ObjectReader, tree: string | null, path: string): Promise<FileState | null> {
  const names = path.split('/');
  let entries = await reader.tree(tree);
  for (const [i, name] of names.entries()) {
    const entry = entries.get(name);
    if (entry === undefined) return null;
    if (i === names.length - 1) return entry.type === 'tree' ? null : { oid: entry.oid, mode: entry.mode };
    if (entry.type !== 'tree') return null;
    entries = await reader.tree(entry.oid);
  }
  return null;
}

/**
 * Whether the submodule checked out at `path` is at another commit than `recorded` (git status's
 * ` M`): read from its HEAD in this repository's own `.git/modules/`, never through a `.git` file
 * pointing elsewhere; false when that cannot be read so (another layout, an unusual ref).
 */
function submoduleMoved(root: string, commonDir: string, path: string, recorded: string): boolean {
  try {
    const at = join(root, path);
    if (!resolve(resolveGitDirsSync(at).gitdir).startsWith(join(commonDir, 'modules') + sep)) return false;
    const head = readHeadFiles(at)?.sha;
    return typeof head === 'string' && head !== recorded;
  } catch {
    return false;
  }
}

/** Whether a folder on `path`'s way in `tree` is a submodule (a gitlink entry): the file is the submodule's. */
async function insideSubmodule(reader: ObjectReader, tree: string | null, path: string): Promise<boolean> {
  if (tree === null) return false;
  const names = path.split('/');
  let entries = await reader.tree(tree);
  for (const name of names.slice(0, -1)) {
    const entry = entries.get(name);
    if (entry === undefined) return false;
    if (entry.type === 'commit') return true;
    if (entry.type !== 'tree') return false;
    entries = await reader.tree(entry.oid);
  }
  return false;
}

/**
 * The commit an object name abbreviates, or null (unknown, ambiguous, or not a commit). A tag's
 * own name does not name a commit, unless `peel` asks for the commit it points to (`<name>^{commit}`).
 */
async function lookupCommit(reader: ObjectReader, rev: string, peel = false): Promise<ParsedCommit | null> {
  const name = objectNamePrefix(rev);
  if (name === null) return null;
  const matches = reader.expandOid(name);
  const oid = matches[0];
  if (matches.length !== 1 || oid === undefined) return null;
  const type = await reader.typeOf(oid);
  if (type === 'commit') return reader.commit(oid);
  // reader.commit peels through tags; a tag of a tree or blob (or a broken chain) has no commit.
  return peel && type === 'tag' ? reader.commit(oid).catch(() => null) : null;
}

/** A regular file or symlink on disk as git would store it; null for missing paths and directories. */
async function fileOnDisk(absolute: string): Promise<FileState | null> {
  const stats = await lstat(absolute).catch(() => null);
  if (stats?.isSymbolicLink()) return { oid: blobId(Buffer.from(await readlink(absolute))), mode: '120000' };
  if (!stats?.isFile()) return null;
  const mode = stats.mode & 0o100 ? '100755' : '100644';
  return { oid: blobId(await readFile(absolute)), mode };
}

/** The id git gives a blob holding `content`. */
function blobId(content: Uint8Array): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

function sameFile(committed: FileState | null, onDisk: FileState | null, honorExecBit: boolean): boolean {
  if (committed === null || onDisk === null) return committed === onDisk;
  if (committed.oid !== onDisk.oid) return false;
  // Without core.filemode git ignores the executable bit, but a file is never a symlink.
  return honorExecBit ? committed.mode === onDisk.mode : (committed.mode === '120000') === (onDisk.mode === '120000');
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
}
