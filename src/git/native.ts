// GitHistory on the git binary. Each question takes a few git processes whose output
// (NUL-separated, unquoted paths) is parsed here; renames are paired by the shared rules
// (renames.ts, edited-renames.ts) rather than by git's own detection, so both engines agree.
import { gitFailed, malformedOutput, runGit, runGitBytes, type EnoughOutput, type GitResult } from './git-process.js';
import { UPSTREAM_NAME } from './upstream.js';
import { anyCaseToken, assertSince, branchName, inScope, newestByGraph, objectNamePrefix, repoRelativePath, scopePaths, splitMessage } from './normalize.js';
import { currentLives } from './file-lives.js';
import { lifeEnds, parseRevisions, revisionListing } from './revision-listing.js';
import { descendsFrom, newestRemovals, pairExactRenames, sameSecondRemovals, type RawChange } from './renames.js';
import { editedRenames } from './edited-renames.js';
import { headFiles } from './commit-cache.js';
import { uncommittedFromIndex } from './index-status.js';
import { headTree } from './head-tree.js';
import { indexRefusal } from './index-damage.js';
import { withIndexCopy } from './index-copy.js';
import { resolveGitDirsSync, type GitDirs } from './locate.js';
import { assertNoBlockingRules } from './blocking-files.js';
import { brokenHeadRef } from './head-files.js';
import type { ChangeScope, CommitInfo, FileRevision, GitHistory, HeadInfo } from './types.js';
import { entryOfKind, parseTreeListing, treeDir, type EntryKind } from './tree-files.js';
import { parseTree } from './object-parse.js';
import { pastSkew, type SkewSteps } from './skew-walk.js';
import { sentByRange, tipsByBase, type FoundRange } from './pushed-sets.js';
import { projectEntry } from '../store/safe-fs.js';

/**
 * Options on every call: unquoted paths, no replace refs (isomorphic-git ignores them), no
 * signature output mixed into formats, root commits diffed against the empty tree, messages
 * re-encoded to UTF-8 whatever the user's i18n.logOutputEncoding.
 */
const BASE_OPTIONS = [
  '-c', 'core.quotepath=off',
  '-c', 'log.showSignature=false',
  '-c', 'log.showRoot=true',
  '-c', 'i18n.logOutputEncoding=UTF-8',
  '--no-replace-objects',
];

/** git's well-known empty tree: what an unborn HEAD is compared against. */
const EMPTY_TREE_OID = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Record separator first, then NUL-terminated fields; -z ends the message with NUL too. */
const LOG_FORMAT = '--format=%x1e%H%x00%P%x00%ct %at%x00%B';
/** LOG_FORMAT with git's mark before the sha: "-" for a --boundary commit. */
const MARKED_LOG_FORMAT = '--format=%x1e%m%H%x00%P%x00%ct %at%x00%B';
/** Each commit's file changes against its first parent, as parseLog reads them (it pairs exact renames). */
const RAW_CHANGES = ['--no-renames', '--raw', '--no-abbrev', '-r', '-z', '--diff-merges=first-parent', '--ignore-submodules=none', '--no-relative', '--no-color'];

/** Tips one `git log` of pushedCommitsEach names at most (41 bytes each on its command line). */
const MAX_TIPS_PER_WALK = 1000;

/** `items` in runs of at most `size`. */
function chunked<T>(items: readonly T[], size: number): T[][] {
  const runs: T[][] = [];
  for (let i = 0; i < items.length; i += size) runs.push(items.slice(i, i + size));
  return runs;
}

/** Characters special in a POSIX extended regular expression, each escaped to match itself. */
const ERE_SPECIAL = /[\\.[\](){}*+?|^$]/g;

/** A printable ASCII token as an extended expression matching it with its letters in either case: "PLAT-7" -> "[Pp][Ll][Aa][Tt]-7". */
function anyCasePattern(token: string): string {
  return token.replace(ERE_SPECIAL, '\\$&').replace(/[A-Za-z]/g, (c) => `[${c.toUpperCase()}${c.toLowerCase()}]`);
}

/**
 * git log's options selecting the commits whose message holds any of `tokens` (as namesAny
 * says), one option list per git log to run. git tries each --grep pattern in turn on every
 * line of every message: on a long history, a dozen ticket ids cost more than reading the
 * commits. Printable ASCII tokens (ticket and PR ids) go in one extended expression, each
 * escaped to match itself and each letter a bracket of its two cases, found in one pass per
 * line and matching the bytes --fixed-strings --regexp-ignore-case does in the C locale, in
 * every locale (never -i itself: in a UTF-8 locale it also reads a Kelvin sign as "k", which
 * the embedded engine does not). Other tokens keep --fixed-strings, as git has always matched
 * them: a second search.
 */
export function messageGreps(tokens: readonly string[]): string[][] {
  const ascii = tokens.filter(anyCaseToken);
  const other = tokens.filter((t) => !anyCaseToken(t));
  const searches: string[][] = [];
  // A search's patterns stay under what one spawn may pass (Linux: 128 KiB per argument, 2 MiB
  // in all): thousands of ids still queued make several searches, never a spawn that fails.
  for (const part of bounded(ascii.map(anyCasePattern), 1)) searches.push(['--extended-regexp', `--grep=${part.join('|')}`]);
  for (const part of bounded(other, '--grep='.length + 1)) searches.push(['--fixed-strings', ...part.map((t) => `--grep=${t}`)]);
  return searches;
}

/** Bytes of patterns one search takes at most. */
const MAX_SEARCH_BYTES = 96 * 1024;

/** `items` in runs whose UTF-8 bytes (each plus `each`) stay within MAX_SEARCH_BYTES; an item alone over it runs alone. */
function bounded(items: readonly string[], each: number): string[][] {
  const runs: string[][] = [];
  let run: string[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = Buffer.byteLength(item) + each;
    if (run.length && bytes + size > MAX_SEARCH_BYTES) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(item);
    bytes += size;
  }
  if (run.length) runs.push(run);
  return runs;
}

export class NativeHistory implements GitHistory {
  readonly engine = 'native' as const;

  /** Full shas resolveCommits found to be commits: isInHeadHistory need not look them up again. */
  private readonly knownCommits = new Set<string>();
  /** lookupCommit's answers for full commit names. */
  private readonly foundCommits = new Map<string, Promise<{ sha: string; time: number } | null>>();
  /** treeListing's answers: a tree never changes. */
  private readonly treeListings = new Map<string, Promise<Map<string, string>>>();

  constructor(readonly dir: string) {}

  async head(): Promise<HeadInfo | null> {
    const files = headFiles(this.dir);
    if (files) return files.sha === null ? null : { sha: files.sha, branch: files.branch };
    throwIfBroken(this.dir);
    const [sha, ref] = await Promise.all([this.headSha(), this.git(['symbolic-ref', '--quiet', 'HEAD'], [1])]);
    if (sha === null) return null;
    const refName = ref.stdout.trim();
    return { sha, branch: refName ? branchName(refName) : null };
  }

  async commitsSince(since: number, { changes = 'all', anchor, floor }: { changes?: ChangeScope; anchor?: string; floor?: number } = {}): Promise<CommitInfo[]> {
    assertSince(since);
    if (since > Number.MAX_SAFE_INTEGER) return [];
    const head = await this.headSha();
    if (head === null) return [];
    const walked = await this.logSince([head], since, changes);
    if (anchor === undefined || walked === null) return walked ?? [];
    return this.commitsPast(walked, since, anchor, { changes, floor });
  }

  async commitsPast(walked: readonly CommitInfo[], since: number, anchor: string, { changes = 'all', floor }: { changes?: ChangeScope; floor?: number } = {}): Promise<CommitInfo[]> {
    const head = await this.headSha();
    if (head === null) return [...walked];
    // In a walk limited by negative refs, --max-age marks an older commit uninteresting, and its parents with it.
    const bound = floor !== undefined && floor > 0 ? [`--max-age=${Math.ceil(floor)}`] : [];
    const steps: SkewSteps = {
      walkFrom: async (tips, t) => (await this.logSince(tips, t, changes)) ?? [],
      between: (tips, excluded) => this.logBetween(tips, excluded, bound, changes),
    };
    return newestByGraph(await pastSkew(head, walked, since, anchor, steps));
  }

  /**
   * `git log --boundary tips --not excluded`: the commits there, with the changes `changes`
   * asks for, and the boundary (sha and time). One process: the changes are every file each
   * commit changed, kept where they are in scope (few commits: a pathspec walk beside it
   * would cost a second process for little).
   */
  private async logBetween(tips: readonly string[], excluded: readonly string[], bound: readonly string[], changes: ChangeScope): Promise<{ region: CommitInfo[]; boundary: { sha: string; time: number }[] }> {
    const scope = changes === 'all' ? null : changes === 'none' ? [] : scopePaths(changes);
    const listed = scope === null || scope.includes('') ? null : scope;
    const diff = listed?.length === 0 ? ['--no-patch', '-z', '--no-color'] : RAW_CHANGES;
    const out = await this.git(['log', ...bound, '--boundary', ...diff, MARKED_LOG_FORMAT, ...tips, '--not', ...excluded, '--']);
    const marks: string[] = [];
    const commits = parseLog(out.stdout, listed, marks);
    const region: CommitInfo[] = [];
    const boundary: { sha: string; time: number }[] = [];
    commits.forEach((c, i) => (marks[i] === '-' ? boundary.push({ sha: c.sha, time: c.time }) : region.push(c)));
    return { region, boundary };
  }

  /** commitsSince's walk from `tips` (commit names; HEAD's sha for the usual question); null when HEAD went unborn meanwhile. */
  private async logSince(tips: readonly string[], since: number, changes: ChangeScope): Promise<CommitInfo[] | null> {
    // Without options that make git "limit" the walk (topo order, negative refs, ...),
    // --max-age drops an older commit without queueing its parents: exactly our walk.
    const bound = since > 0 ? [`--max-age=${Math.ceil(since)}`] : [];
    const scope = changes === 'all' ? null : changes === 'none' ? [] : scopePaths(changes);
    if (scope?.includes('')) return this.logSince(tips, since, 'all');
    if (scope === null) {
      const log = await this.fromHead(['log', ...bound, ...RAW_CHANGES, LOG_FORMAT, ...tips, '--']);
      return log === null ? null : newestByGraph(parseLog(log.stdout));
    }
    // Subjects come from a walk that diffs nothing; the scope's changes from a second walk,
    // run alongside, that diffs only the trees the scope's paths lie in. --full-history
    // keeps that walk the same set of commits (a pathspec would otherwise prune side
    // branches); it shows only commits with a change in scope.
    const subjects = this.fromHead(['log', ...bound, '--no-patch', '-z', '--no-color', LOG_FORMAT, ...tips, '--']);
    const scoped = scope.length === 0
      ? Promise.resolve(null)
      : this.fromHead(['--literal-pathspecs', 'log', ...bound, '--full-history', ...RAW_CHANGES, '--format=%x1e%H%x00%x00%ct %at%x00', ...tips, '--', ...new Set(scope)]);
    const [all, changed] = await Promise.all([subjects, scoped]);
    if (all === null) return null;
    const commits = parseLog(all.stdout);
    const changesBySha = new Map((changed === null ? [] : parseLog(changed.stdout, scope)).map((c) => [c.sha, c.changes]));
    for (const c of commits) c.changes = changesBySha.get(c.sha) ?? [];
    return newestByGraph(commits);
  }

  async resolveCommit(rev: string): Promise<string | null> {
    return (await this.lookupCommit(rev))?.sha ?? null;
  }

  async resolveCommits(revs: readonly string[], opts: { peel?: boolean } = {}): Promise<(string | null)[]> {
    const names = revs.map(objectNamePrefix);
    const asked = [...new Set(names.filter((n): n is string => n !== null))];
    if (!asked.length) return revs.map(() => null);
    const input = asked.map((name) => (opts.peel ? `${name}^{commit}` : name));
    // Ambiguous prefixes stay ambiguous whatever core.disambiguate says, as in lookupCommit.
    const out = (await this.git(['-c', 'core.disambiguate=none', 'cat-file', '--batch-check'], [], `${input.join('\n')}\n`)).stdout.split('\n');
    const found = new Map(asked.map((name, i) => {
      const [sha, type] = (out[i] ?? '').split(' ');
      const commit = type === 'commit' && sha !== undefined && /^[0-9a-f]{40}$/.test(sha) ? sha : null;
      if (commit) this.knownCommits.add(commit);
      return [name, commit];
    }));
    return names.map((name) => (name === null ? null : found.get(name) ?? null));
  }

  async resolveRevisions(names: readonly string[]): Promise<(string | null)[]> {
    if (!names.length) return [];
    // One process: cat-file takes revision expressions. The names hold no blank (REVISION_NAME).
    // Not an upstream (`@{u}`): cat-file dies on a branch without one, so each is asked of
    // rev-parse alone (a user's range holds one or two).
    const plain = names.filter((n) => !UPSTREAM_NAME.test(n));
    const out = plain.length ? (await this.git(['cat-file', '--batch-check'], [], `${plain.map((n) => `${n}^{commit}`).join('\n')}\n`)).stdout.split('\n') : [];
    const sha = (line: string | undefined) => {
      const [id, type] = (line ?? '').split(' ');
      return type === 'commit' && id !== undefined && /^[0-9a-f]{40,64}$/.test(id) ? id : null;
    };
    let i = 0;
    return Promise.all(names.map(async (n) => {
      if (!UPSTREAM_NAME.test(n)) return sha(out[i++]);
      const r = await this.git(['rev-parse', '--verify', '--quiet', `${n}^{commit}`], [1, 128]);
      return r.code === 0 ? sha(`${r.stdout.trim()} commit`) : null;
    }));
  }

  async namesObjects(revs: readonly string[]): Promise<boolean[]> {
    const names = revs.map(objectNamePrefix);
    const asked = names.filter((n): n is string => n !== null);
    if (!asked.length) return revs.map(() => false);
    const out = (await this.git(['-c', 'core.disambiguate=none', 'cat-file', '--batch-check'], [], `${asked.join('\n')}\n`)).stdout.split('\n');
    // "<sha> <type> <size>" for an object; "<name> missing" or "<name> ambiguous" otherwise.
    let i = 0;
    return names.map((name) => name !== null && /^[0-9a-f]{40,64} \w+ \d+$/.test(out[i++] ?? ''));
  }

  async commitsNaming(tokens: readonly string[], since: number): Promise<CommitInfo[]> {
    assertSince(since);
    const wanted = [...new Set(tokens)].filter((t) => t !== '' && !t.includes('\n'));
    if (!wanted.length || since > Number.MAX_SAFE_INTEGER) return [];
    const bound = since > 0 ? [`--max-age=${Math.ceil(since)}`] : [];
    const logs = await Promise.all(messageGreps(wanted).map((grep) => this.fromHead(['log', ...bound, ...grep, '--no-patch', '-z', '--no-color', LOG_FORMAT, 'HEAD', '--'])));
    if (logs.includes(null)) return [];
    const found = logs.flatMap((log) => parseLog(log!.stdout));
    // Two searches (ASCII and other tokens, or parts of many) may both find a commit: once each.
    const once = logs.length > 1 ? [...new Map(found.map((c) => [c.sha, c])).values()] : found;
    return newestByGraph(once);
  }

  async lastRemovals(paths: readonly string[], since: number): Promise<CommitInfo[]> {
    assertSince(since);
    const wanted = [...new Set(paths.map(repoRelativePath))].filter(Boolean);
    if (!wanted.length || since > Number.MAX_SAFE_INTEGER) return [];
    const bound = since > 0 ? [`--max-age=${Math.ceil(since)}`] : [];
    // Commits touching the paths (against any parent: --full-history), each with its whole
    // first-parent diff (--full-diff), so a deletion pairs with the addition it was renamed to.
    const log = await this.fromHead([
      '--literal-pathspecs', 'log', ...bound, '--full-history', '--full-diff', '--no-renames', '--raw', '--no-abbrev', '-r', '-z',
      '--diff-merges=first-parent', '--ignore-submodules=none', '--no-relative', '--no-color', LOG_FORMAT, 'HEAD', '--', ...wanted,
    ]);
    if (log === null) return [];
    const candidates = parseLog(log.stdout);
    // Removals of a path in one second: which descends from which, asked of git (rare: a script, a rebase).
    const pairs: [string, string][] = [];
    for (const tie of sameSecondRemovals(candidates, wanted)) {
      for (const a of tie) for (const b of tie) if (a !== b && (await this.git(['merge-base', '--is-ancestor', b.sha, a.sha], [1, 128])).code === 0) pairs.push([a.sha, b.sha]);
    }
    return newestRemovals(candidates, wanted, descendsFrom(pairs));
  }

  async changesOf(shas: readonly string[]): Promise<CommitInfo[]> {
    if (!shas.length) return [];
    const bySha = new Map(parseLog((await this.git(['log', '--no-walk=unsorted', ...RAW_CHANGES, LOG_FORMAT, ...shas, '--'])).stdout).map((c) => [c.sha, c]));
    return shas.flatMap((sha) => bySha.get(sha) ?? []);
  }

  async editedRenames(sha: string, paths: readonly string[]): Promise<Map<string, string>> {
    if (!paths.length || !/^[0-9a-f]{40}$/.test(sha)) return new Map();
    // The commit against its first parent, every file (a root commit deleted nothing).
    const diff = await this.git(['diff-tree', '--no-commit-id', ...RAW_CHANGES, sha], [128]);
    if (diff.code !== 0) return new Map();
    const fields = diff.stdout.split('\0');
    const raw: RawChange[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) raw.push(rawChange(fields[i]!, fields[i + 1]!));
    return editedRenames(raw, paths.map(repoRelativePath), (oids, maxBytes) => this.blobBytes(oids, maxBytes));
  }

  async isInHeadHistory(rev: string): Promise<boolean> {
    const target = this.knownCommits.has(rev) ? { sha: rev } : await this.lookupCommit(rev);
    if (!target) return false;
    // Ancestry by the graph alone: a walk cut off by commit dates misses ancestors with skewed clocks.
    const head = await this.headSha();
    if (head === null) return false;
    const answer = await this.git(['merge-base', '--is-ancestor', target.sha, head], [1, 128]);
    return answer.code === 0;
  }

  async pushedCommits(from: string | null, to: string): Promise<CommitInfo[]> {
    const tip = await this.lookupCommit(to);
    if (!tip) return [];
    const base = from === null ? null : await this.lookupCommit(from);
    // What any remote already has is no commit of this push's own (a branch that merged main
    // in pushes main's commits again): as for a new branch, so both get one verdict.
    const exclude = [...(base ? [`^${base.sha}`] : []), '--not', '--remotes'];
    const args = [
      'log', ...RAW_CHANGES, LOG_FORMAT, tip.sha, ...exclude, '--',
    ];
    const commits = parseLog((await this.git(args)).stdout);
    const merges = commits.filter((c) => c.parents.length > 1);
    if (merges.length) {
      // A merge changed only what differs from every parent (git's combined diff): a file it
      // took whole from the merged-in side was changed by a commit of that side, not by it.
      const own = await this.mergeOwnPaths(merges.map((c) => c.sha));
      for (const c of merges) {
        const paths = own.get(c.sha) ?? new Set<string>();
        c.ownChanges = c.changes.filter((ch) => paths.has(ch.path) || (ch.from !== undefined && paths.has(ch.from)));
      }
    }
    return newestByGraph(commits);
  }

  async pushedCommitsEach(ranges: readonly { from: string | null; to: string }[], opts: { wholeRange?: boolean } = {}): Promise<CommitInfo[][]> {
    // Every end looked up in one process, then one walk per base (most often one: new refs have
    // none) for all its tips; each range's commits are found in its walk (pushed-sets.ts).
    const ends = await this.commitsNamed(ranges.flatMap((r) => [r.to, r.from ?? '']));
    const found: FoundRange[] = ranges.map((_, i) => ({ tip: ends[2 * i] ?? null, base: ends[2 * i + 1] ?? null }));
    const walks = new Map<string, Map<string, CommitInfo>>();
    await Promise.all([...tipsByBase(found)].flatMap(([base, tips]) => {
      const walked = new Map<string, CommitInfo>();
      walks.set(base, walked);
      // A spawn's arguments stay well under what the system passes, however many refs are pushed.
      return chunked(tips, MAX_TIPS_PER_WALK).map(async (part) => {
        const args = ['log', ...RAW_CHANGES, LOG_FORMAT, ...part, ...(base ? [`^${base}`] : []), ...(opts.wholeRange ? [] : ['--not', '--remotes']), '--'];
        for (const c of parseLog((await this.git(args)).stdout)) walked.set(c.sha, c);
      });
    }));
    const merges = [...walks.values()].flatMap((walked) => [...walked.values()].filter((c) => c.parents.length > 1));
    if (merges.length) {
      // As pushedCommits: a merge's own changes, one diff-tree for every walk's merges.
      const own = await this.mergeOwnPaths([...new Set(merges.map((c) => c.sha))]);
      for (const c of merges) {
        const paths = own.get(c.sha) ?? new Set<string>();
        c.ownChanges = c.changes.filter((ch) => paths.has(ch.path) || (ch.from !== undefined && paths.has(ch.from)));
      }
    }
    return sentByRange(found, walks);
  }

  /**
   * The commit each name is (lookupCommit's answers), those not yet known asked in one process: a
   * name resolveCommits found (doctor peels every pushed end first) is not asked again.
   */
  private async commitsNamed(names: readonly string[]): Promise<(string | null)[]> {
    const unknown = [...new Set(names.filter((n) => !this.knownCommits.has(n)))];
    const looked = new Map(unknown.length ? (await this.resolveCommits(unknown)).map((sha, i) => [unknown[i]!, sha]) : []);
    return names.map((n) => (this.knownCommits.has(n) ? n : looked.get(n) ?? null));
  }

  /** Each merge's paths whose result differs from every parent (`git diff-tree -c`). */
  private async mergeOwnPaths(merges: readonly string[]): Promise<Map<string, Set<string>>> {
    const args = ['diff-tree', '--stdin', '-c', '--raw', '--no-abbrev', '-z', '-r', '--no-renames', '--ignore-submodules=none', '--no-relative', '--no-color'];
    const fields = (await this.git(args, [], `${merges.join('\n')}\n`)).stdout.split('\0');
    const own = new Map<string, Set<string>>();
    let paths: Set<string> | null = null;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (f.startsWith(':')) {
        if (paths === null) throw malformedOutput('git diff-tree -c: an entry before its commit');
        paths.add(fields[++i] ?? '');
      } else if (/^[0-9a-f]{40,64}$/.test(f)) own.set(f, (paths = new Set()));
      else if (f.trim() !== '') throw malformedOutput(`git diff-tree -c: unexpected field ${JSON.stringify(f.slice(0, 40))}`);
    }
    return own;
  }

  async fileRevisions(paths: readonly string[], from?: string): Promise<FileRevision[]> {
    if (paths.length === 0) return [];
    if (from !== undefined && !/^[0-9a-f]{40}$/.test(from)) return [];
    const args = revisionListing(from ?? 'HEAD', paths.map(repoRelativePath));
    // A pathspec also matches files under a directory of that name: keep the files asked about.
    const wanted = new Set(paths.map(repoRelativePath));
    // git lists the line back to its first commit; the rest of it is of no file's current life
    // once each has one that ended (lifeEnds): git is stopped there.
    const enough = lifeEnds(wanted);
    // Another commit's line: an object name that is no commit here has none.
    const log = from === undefined ? await this.fromHead(args, enough) : await this.git(args, [128], undefined, undefined, enough).then((r) => (r.code === 0 ? r : null));
    return log === null ? [] : currentLives(parseRevisions(log.stdout).filter((r) => wanted.has(r.path)));
  }

  async readBlobs(oids: readonly string[], maxBytes: number): Promise<Map<string, string>> {
    const bytes = await this.blobBytes(oids, maxBytes);
    return new Map([...bytes].map(([oid, b]) => [oid, b.toString('utf8')]));
  }

  /** Blobs' bytes by id; ids that are not blobs, or larger than `maxBytes`, are left out. */
  private async blobBytes(oids: readonly string[], maxBytes: number): Promise<Map<string, Buffer>> {
    const wanted = [...new Set(oids)].filter((oid) => /^[0-9a-f]{40}$/.test(oid));
    const out = new Map<string, Buffer>();
    if (!wanted.length) return out;
    // Sizes first, so a huge blob in a hostile history is never read into memory.
    const sizes = (await this.git(['cat-file', '--batch-check'], [], `${wanted.join('\n')}\n`)).stdout.split('\n');
    const small = wanted.filter((_, i) => {
      const [, type, size] = (sizes[i] ?? '').split(' ');
      return type === 'blob' && Number(size) <= maxBytes;
    });
    if (!small.length) return out;
    const raw = runGitBytes(this.dir, ['cat-file', '--batch'], `${small.join('\n')}\n`);
    let at = 0;
    for (const oid of small) {
      const headerEnd = raw.indexOf(10, at);
      const size = Number(raw.subarray(at, headerEnd).toString('latin1').split(' ')[2]);
      out.set(oid, raw.subarray(headerEnd + 1, headerEnd + 1 + size));
      at = headerEnd + 1 + size + 1;
    }
    return out;
  }

  async filesIn(rev: string, dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>> {
    return this.treeEntries(rev, dirs, opts.recursive === true, 'blob');
  }

  async submodulesIn(rev: string, dirs: readonly string[]): Promise<Map<string, string>> {
    return this.treeEntries(rev, dirs, false, 'commit');
  }

  async filesInEach(revs: readonly string[], dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>[]> {
    return this.entriesInEach(revs, dirs, opts.recursive === true, 'blob');
  }

  async submodulesInEach(revs: readonly string[], dirs: readonly string[]): Promise<Map<string, string>[]> {
    return this.entriesInEach(revs, dirs, false, 'commit');
  }

  async linksInEach(revs: readonly string[], dirs: readonly string[]): Promise<Map<string, string>[]> {
    return this.entriesInEach(revs, dirs, false, 'link');
  }

  /** treeEntries of each of `revs`, in two processes and one `ls-tree` per distinct folder tree (filesInEach, submodulesInEach). */
  private async entriesInEach(revs: readonly string[], dirs: readonly string[], recursive: boolean, kind: EntryKind): Promise<Map<string, string>[]> {
    const wanted = [...new Set(dirs.map(treeDir))];
    // A folder named through "." or "..", or holding a line break, is no `<commit>:<path>` line to
    // ask cat-file: each commit listed as filesIn lists it.
    if (!wanted.length || wanted.some((d) => d.includes('\n') || (d !== '' && d.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')))) {
      return Promise.all(revs.map((rev) => this.treeEntries(rev, dirs, recursive, kind)));
    }
    const commits = await this.commitsNamed(revs);
    // Each folder's tree in each commit, in one process: many commits share one (a pushed tag and
    // its neighbours' .checkpoints), and each tree is listed once.
    const asked = [...new Set(commits.filter((c): c is string => c !== null))];
    const lines = asked.flatMap((sha) => wanted.map((d) => (d === '' ? `${sha}^{tree}` : `${sha}:${d}`)));
    const out = lines.length ? (await this.git(['cat-file', '--batch-check'], [], `${lines.join('\n')}\n`)).stdout.split('\n') : [];
    const trees = new Map<string, string | null>(lines.map((line, i) => {
      const [oid, type] = (out[i] ?? '').split(' ');
      return [line, type === 'tree' && oid !== undefined && /^[0-9a-f]{40}$/.test(oid) ? oid : null];
    }));
    const listings = new Map<string, Promise<Map<string, string>>>();
    const distinct = [...new Set(trees.values())].filter((oid): oid is string => oid !== null);
    // One folder's entries: the tree objects themselves, all in one process (one ls-tree each
    // was a process per tip in a push of many refs: the top folder differs in every commit).
    if (!recursive) this.readTrees(distinct.filter((oid) => !this.treeListings.has(`${oid}\0false\0${kind}`)), kind);
    for (const oid of distinct) listings.set(oid, this.treeListing(oid, recursive, kind));
    return Promise.all(commits.map(async (sha) => {
      const files = new Map<string, string>();
      if (sha === null) return files;
      for (const d of wanted) {
        const oid = trees.get(d === '' ? `${sha}^{tree}` : `${sha}:${d}`);
        if (oid) for (const [path, blob] of await listings.get(oid)!) files.set(d === '' ? path : `${d}/${path}`, blob);
      }
      return files;
    }));
  }

  /** The entries of `kind` directly in each of the trees `oids`, read in one `cat-file --batch` into treeListing's cache. */
  private readTrees(oids: readonly string[], kind: EntryKind): void {
    if (oids.length < 2) return;
    let raw: Buffer;
    try {
      raw = runGitBytes(this.dir, ['cat-file', '--batch'], `${oids.join('\n')}\n`);
    } catch {
      return; // each tree is then listed by ls-tree, which says what went wrong
    }
    let at = 0;
    for (const oid of oids) {
      const headerEnd = raw.indexOf(10, at);
      const [, type, size] = raw.toString('latin1', at, headerEnd).split(' ');
      if (type !== 'tree') return; // not what was asked (a replaced object?): ls-tree answers the rest
      const data = raw.subarray(headerEnd + 1, headerEnd + 1 + Number(size));
      at = headerEnd + 1 + Number(size) + 1;
      const entries = new Map<string, string>();
      try {
        for (const entry of parseTree(oid, data).values()) if (entryOfKind(kind, entry.type, entry.mode)) entries.set(entry.path, entry.oid);
      } catch {
        return; // a malformed tree: ls-tree says what is wrong with it
      }
      this.treeListings.set(`${oid}\0false\0${kind}`, Promise.resolve(entries));
    }
  }

  /** The entries of `kind` in tree `oid` (every depth: `recursive`), by their paths in it; each tree listed once a run. */
  private treeListing(oid: string, recursive: boolean, kind: EntryKind): Promise<Map<string, string>> {
    const key = `${oid}\0${recursive}\0${kind}`;
    let listing = this.treeListings.get(key);
    if (!listing) {
      this.treeListings.set(key, (listing = this.git(['ls-tree', ...(recursive ? ['-r'] : []), '-z', '--full-tree', oid]).then((r) => parseTreeListing(r.stdout, [''], recursive, kind))));
      listing.catch(() => this.treeListings.delete(key));
    }
    return listing;
  }

  /** The entries of `kind` (files, or submodules' gitlinks) in `dirs` of commit `rev`'s tree (filesIn, submodulesIn). */
  private async treeEntries(rev: string, dirs: readonly string[], recursive: boolean, kind: EntryKind): Promise<Map<string, string>> {
    // A tip resolveCommits found (the pushed ones) is a commit already: not looked up again.
    const commit = this.knownCommits.has(rev) ? { sha: rev } : await this.lookupCommit(rev);
    if (!commit || !dirs.length) return new Map();
    const specs = [...new Set(dirs.map(treeDir))].map((d) => (d ? `${d}/` : './'));
    return parseTreeListing((await this.git(['--literal-pathspecs', 'ls-tree', ...(recursive ? ['-r'] : []), '-z', '--full-name', commit.sha, '--', ...specs])).stdout, dirs.map(treeDir), recursive, kind);
  }

  async isShallow(): Promise<boolean> {
    const files = headFiles(this.dir);
    if (files) return files.shallow;
    return (await this.git(['rev-parse', '--is-shallow-repository'])).stdout.trim() === 'true';
  }

  async ignoredPaths(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    // Exit 1: none of them is ignored; 128: one lies beyond a symbolic link (git holds nothing
    // there) or git cannot tell: none taken as ignored, the answer doctor gave before asking.
    assertNoBlockingRules(this.dir, this.gitDirs(), paths.map(repoRelativePath));
    const out = await this.git(['check-ignore', '-z', '--stdin'], [1, 128], `${paths.map(repoRelativePath).join('\0')}\0`);
    if (out.code === 128) return new Set();
    const ignored = new Set(out.stdout.split('\0'));
    return new Set(paths.filter((p) => ignored.has(repoRelativePath(p))));
  }

  async uncommittedPaths(paths: readonly string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    const relative = new Map(paths.map((path) => [path, repoRelativePath(path)]));
    const pathspecs = [...new Set(relative.values())];
    // The common case, a clean index at HEAD, from git's own index file: no process at all.
    const fromIndex = await this.statusFromIndex(pathspecs);
    if (fromIndex) return [...relative].filter(([, path]) => fromIndex.has(path)).map(([original]) => original);
    // git refuses some damaged indexes and reads others past their end (a garbled answer): both
    // refused here as the embedded engine refuses them. Only here: the answer above needs an intact index.
    const refused = indexRefusal(this.indexDir());
    if (refused) throw refused;
    // A listed folder is asked about as itself only (a tracked file it replaced), not what is in
    // it: git would walk the whole folder, reading the rules of each folder below (a FIFO there
    // hung it), for records the answer drops. Its exclusion would hide a path listed inside it
    // too: such a folder is left out (what replaced the file is then reported as untracked).
    // Looked at with safe-fs's walk: a listed path under a file (ENOTDIR) or through a link out is
    // no folder here, and neither is a submodule's checkout (one entry to git, its state its own).
    const folders = new Set(pathspecs.filter((path) => projectEntry(this.dir, path).kind === 'folder' && projectEntry(this.dir, `${path}/.git`).kind === 'missing'));
    const asked = pathspecs.filter((path) => !folders.has(path) || !pathspecs.some((other) => other.startsWith(`${path}/`)));
    assertNoBlockingRules(this.dir, this.gitDirs(), asked.map((path) => (folders.has(path) ? `${path}/` : path)));
    const specs = asked.flatMap((path) => (folders.has(path) ? [`:(literal)${path}`, `:(literal,exclude)${path}/`] : [`:(literal)${path}`]));
    // One process for tracked edits (staged or not), untracked and ignored files (each ignored
    // file by name: "traditional" with all untracked files). Works on an unborn HEAD too.
    const status = await this.git(['--no-optional-locks', 'status', '--porcelain=v2', '-z', '--untracked-files=all', '--ignored=traditional', '--no-renames', '--', ...specs]);
    const { changed, unsure } = parseStatus(status.stdout);
    if (unsure.length) {
      // Edited in the index and again in the work tree: only a comparison says whether the
      // work tree went back to HEAD's content (rare, so a second process only then). git diff
      // compares as git does, but writes back the index it refreshed: it is given a copy to
      // write (index-copy.ts), written whole (core.splitIndex off: no shared index into .git).
      const base = (await this.headSha()) ?? EMPTY_TREE_OID;
      const args = ['-c', 'core.splitIndex=false', '--no-optional-locks', '--literal-pathspecs', 'diff', base, '--name-only', '-z', '--no-renames', '--no-relative', '--', ...unsure];
      const diff = await withIndexCopy(this.indexDir(), (index) => this.git(args, [], undefined, { GIT_INDEX_FILE: index }));
      for (const path of diff.stdout.split('\0')) if (path) changed.add(path);
    }
    return [...relative].filter(([, path]) => changed.has(path)).map(([original]) => original);
  }

  /** The git dir holding the index. */
  private indexDir(): string {
    return this.gitDirs().gitdir;
  }

  private gitDirs(): GitDirs {
    return headFiles(this.dir) ?? resolveGitDirsSync(this.dir);
  }

  /** uncommittedFromIndex's answer (null: ask git), with HEAD's root tree read once per HEAD. */
  private async statusFromIndex(paths: readonly string[]): Promise<Set<string> | null> {
    const files = headFiles(this.dir);
    if (!files?.sha) return null;
    const answer = uncommittedFromIndex({ root: this.dir, gitdir: files.gitdir, commonDir: files.commonDir, paths });
    if (answer === null) return null;
    // The index holds HEAD exactly when its cached root tree is HEAD's.
    return answer.tree === (await headTree(this.dir)) ? answer.changed : null;
  }

  /**
   * Runs a command that names HEAD, with HEAD's commit as read for this run in its place: what git
   * walks is then the commit the answer is kept under, even if HEAD moves (and comes back) while
   * it runs. Null when HEAD is unborn (a repository without commits).
   */
  private async fromHead(args: readonly string[], enough?: EnoughOutput): Promise<GitResult | null> {
    const sha = await this.headSha();
    if (sha === null) return null;
    // The revision `HEAD`, not a path named so after `--`.
    const end = args.indexOf('--');
    const result = await this.git(args.map((a, i) => (a === 'HEAD' && (end < 0 || i < end) ? sha : a)), [128], undefined, undefined, enough);
    if (result.code === 0) return result;
    if ((await this.headSha()) === null) return null;
    throw gitFailed(this.dir, args, result);
  }

  private async headSha(): Promise<string | null> {
    const files = headFiles(this.dir);
    if (files) return files.sha;
    // rev-parse --quiet answers a broken branch as it does an unborn one: "no commits yet".
    throwIfBroken(this.dir);
    const result = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], [1]);
    return result.code === 0 ? result.stdout.trim() : null;
  }

  /** Sha and committer time of the commit an object name abbreviates; null for anything else. */
  private lookupCommit(rev: string): Promise<{ sha: string; time: number } | null> {
    const name = objectNamePrefix(rev);
    if (name === null) return Promise.resolve(null);
    // A full name, once found, is that commit for good (objects never change), asked once even by
    // concurrent questions; a prefix may turn ambiguous and a missing object may arrive: asked each time.
    if (name.length !== 40) return this.readCommit(name);
    let found = this.foundCommits.get(name);
    if (!found) {
      this.foundCommits.set(name, (found = this.readCommit(name)));
      found.then((c) => c ?? this.foundCommits.delete(name), () => this.foundCommits.delete(name));
    }
    return found;
  }

  private async readCommit(name: string): Promise<{ sha: string; time: number } | null> {
    // Ambiguous prefixes must stay ambiguous whatever core.disambiguate says, as in isomorphic-git.
    const result = await this.git(['-c', 'core.disambiguate=none', 'cat-file', '--batch'], [], `${name}\n`);
    const headerEnd = result.stdout.indexOf('\n');
    const [sha, type] = result.stdout.slice(0, headerEnd).split(' ');
    if (type !== 'commit' || sha === undefined) return null;
    return { sha, time: committerTime(result.stdout.slice(headerEnd + 1)) };
  }

  private git(args: readonly string[], allowedExitCodes: readonly number[] = [], input?: string, env?: NodeJS.ProcessEnv, enough?: EnoughOutput) {
    return runGit(this.dir, [...BASE_OPTIONS, ...args], { allowedExitCodes, input, env, enough });
  }
}

function throwIfBroken(root: string): void {
  const broken = brokenHeadRef(root);
  if (broken) throw broken;
}

/**
 * `git status --porcelain=v2 -z`: the paths whose work-tree file differs from HEAD's, and
 * those it cannot tell (index and work tree both changed, so the work tree may equal HEAD).
 */
function parseStatus(out: string): { changed: Set<string>; unsure: string[] } {
  const changed = new Set<string>();
  const unsure: string[] = [];
  for (const record of out.split('\0')) {
    const kind = record[0];
    if (kind === '?' || kind === '!') changed.add(record.slice(2));
    else if (kind === 'u') changed.add(fieldsAfter(record, 10));
    else if (kind === '1') {
      const [x, y] = [record[2], record[3]];
      const path = fieldsAfter(record, 8);
      // X: HEAD vs index; Y: index vs work tree ('.' unchanged).
      if (x === 'A' && y === 'D') continue; // added, then removed from disk: HEAD and disk both lack it
      if (x !== '.' && y !== '.' && y !== 'D' && x !== 'A') unsure.push(path);
      else changed.add(path);
    }
  }
  return { changed, unsure };
}

/** The rest of a record after its first `n` space-separated fields (paths may hold spaces). */
function fieldsAfter(record: string, n: number): string {
  let at = 0;
  for (let i = 0; i < n; i++) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}

function committerTime(commitObject: string): number {
  const headers = commitObject.slice(0, commitObject.indexOf('\n\n'));
  const committer = headers.split('\n').find((line) => line.startsWith('committer '));
  const match = committer && /> (-?\d+) [+-]\d{4}$/.exec(committer);
  if (!match?.[1]) throw malformedOutput('commit object without a committer time');
  return Number(match[1]);
}

/**
 * Parses `git log -z --raw` with LOG_FORMAT: per commit, "\x1e" sha NUL parents NUL times
 * NUL message NUL, then optionally "\n" and raw entries ":modes oids STATUS" NUL path NUL.
 * With `marks` (MARKED_LOG_FORMAT), each record's mark character is pushed there, in order.
 */
function parseLog(out: string, scope: readonly string[] | null = null, marks?: string[]): CommitInfo[] {
  const commits: CommitInfo[] = [];
  let at = 0;
  const field = (): string => {
    const end = out.indexOf('\0', at);
    if (end < 0) throw malformedOutput('git log output ends mid-record');
    const value = out.slice(at, end);
    at = end + 1;
    return value;
  };
  while (at < out.length) {
    if (out[at] !== '\x1e') throw malformedOutput(`unexpected git log output at offset ${at}`);
    at++;
    // MARKED_LOG_FORMAT: one mark character first.
    if (marks) marks.push(out[at++] ?? '');
    const sha = field();
    const parents = field().split(' ').filter(Boolean);
    // "%ct %at": committer time, then author time (after.ts: a rewrite keeps the author's).
    const [time, authorTime] = field().split(' ').map(Number) as [number, number];
    const message = splitMessage(field());
    if (out[at] === '\n') at++;
    const raw: RawChange[] = [];
    while (out[at] === ':') {
      const meta = field();
      const path = field();
      if (scope === null || inScope(path, scope)) raw.push(rawChange(meta, path));
    }
    commits.push({ sha, parents, subject: message.subject, body: message.body, time, authorTime, changes: pairExactRenames(raw) });
  }
  return commits;
}

/** One raw entry, ":100644 100644 <old> <new> M". A type change (T) counts as a modification. */
function rawChange(meta: string, path: string): RawChange {
  const [oldMode, newMode, oldOid, newOid, status] = meta.split(' ');
  if (oldOid === undefined || newOid === undefined || status === undefined) throw malformedOutput(`unexpected raw diff line: ${meta}`);
  if (status === 'D') return { status: 'D', path, oid: oldOid, mode: oldMode!.slice(1) };
  if (status === 'A') return { status: 'A', path, oid: newOid, mode: newMode! };
  return { status: 'M', path, oid: newOid, mode: newMode! };
}
