// Differential test: the native and isomorphic engines must give identical answers to
// every question, on repositories built with real git to cover merges (criss-cross
// included), exact and inexact renames, deletions, file/directory swaps, clock skew,
// shallow clones, detached HEADs, linked worktrees and repositories without commits.
// Absolute facts are asserted too, so that both engines being wrong alike fails.
import { chmodSync, cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistory, type CommitInfo, type GitHistory } from '../../src/git/index.js';
import { setDeepWorkerScript } from '../../src/git/deep-thread.js';
import { cleanup, commitAll, dateEnv, git, gitTry, makeRepo, tempDir, write } from '../helpers/repo.js';

interface Fixture {
  dir: string;
  /** Named commits of the fixture (some may be absent from a shallow clone). */
  commits: Record<string, string>;
  /** Paths probed with uncommittedPaths. */
  paths: string[];
}

/** commitsNaming's tokens: ASCII, matched in messages with their letters in either case (types.ts). */
const NAMING_TOKENS = ['stale', 'merge', '#1', 'second paragraph', 'nowhere'];
const foldCase = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

const day = (n: number): string => `2026-01-${String(n).padStart(2, '0')}T00:00:00Z`;
const seconds = (iso: string): number => Date.parse(iso) / 1000;
const sha = (dir: string, rev: string): string => git(dir, ['rev-parse', rev]).trim();

function buildLinear(): Fixture {
  const dir = makeRepo();
  git(dir, ['config', 'core.filemode', 'true']);
  write(dir, 'a.txt', 'alpha\n');
  write(dir, 'docs/guide.md', 'guide\n');
  write(dir, 'notes.txt', 'notes\n');
  write(dir, '.gitignore', '*.log\n');
  const added = commitAll(dir, 'add files', day(2));
  write(dir, 'a.txt', 'alpha 2\n');
  write(dir, 'docs/api/ref.md', 'ref\n');
  const edited = commitAll(dir, 'edit a', day(3));
  rmSync(join(dir, 'notes.txt'));
  const deleted = commitAll(dir, 'delete notes\n\nthey were stale\n\nsecond paragraph\n', day(4));
  chmodSync(join(dir, 'a.txt'), 0o755);
  const chmodded = commitAll(dir, 'make a executable', day(5));
  rmSync(join(dir, 'docs/guide.md'));
  write(dir, 'docs/guide.md/index.md', 'guide\n');
  const fileToDir = commitAll(dir, 'guide becomes a directory', day(6));
  write(dir, 'a.txt', 'alpha 3\n');
  const sameSecond = commitAll(dir, 'same second as the previous commit', day(6));
  const root = sha(dir, 'HEAD~6');

  write(dir, 'a.txt', 'edited in the work tree\n');
  rmSync(join(dir, 'docs/api/ref.md'));
  write(dir, 'new.txt', 'untracked\n');
  write(dir, 'debug.log', 'ignored\n');
  write(dir, 'docs/guide.md/index.md', 'staged then reverted\n');
  git(dir, ['add', 'docs/guide.md/index.md']);
  write(dir, 'docs/guide.md/index.md', 'guide\n');
  const paths = ['a.txt', 'docs/api/ref.md', 'new.txt', 'debug.log', 'docs/guide.md/index.md', '.gitignore', 'missing.txt', 'docs', './a.txt'];
  return { dir, commits: { root, added, edited, deleted, chmodded, fileToDir, sameSecond }, paths };
}

function buildMerges(): Fixture {
  const dir = makeRepo();
  write(dir, 'base.txt', 'base\n');
  const m1 = commitAll(dir, 'base', day(2));
  git(dir, ['checkout', '-q', '-b', 'side']);
  write(dir, 'side.txt', 'side\n');
  write(dir, 'side/deep/x.txt', 'x\n');
  const s1 = commitAll(dir, 'side work', day(3));
  git(dir, ['checkout', '-q', 'main']);
  write(dir, 'main.txt', 'main\n');
  const m2 = commitAll(dir, 'main work', day(4));
  // Criss-cross: each branch merges the other's tip.
  git(dir, ['merge', '-q', '--no-ff', '-m', "Merge branch 'side'", s1], dateEnv(day(5)));
  const mergeSide = sha(dir, 'HEAD');
  git(dir, ['checkout', '-q', 'side']);
  git(dir, ['merge', '-q', '--no-ff', '-m', "Merge branch 'main' into side", m2], dateEnv(day(5)));
  const mergeMain = sha(dir, 'HEAD');
  write(dir, 'side.txt', 'side 2\n');
  const s2 = commitAll(dir, 'more side work', day(6));
  git(dir, ['checkout', '-q', 'main']);
  write(dir, 'base.txt', 'base 2\n');
  const m3 = commitAll(dir, 'more main work', day(6));
  git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #7 from someone/side\n\nSide work', 'side'], dateEnv(day(7)));
  const crissCross = sha(dir, 'HEAD');
  git(dir, ['tag', '-a', '-m', 'release', 'v1', m3], dateEnv(day(6)));
  git(dir, ['checkout', '-q', '-b', 'topic', m2]);
  write(dir, 'topic.txt', 'topic\n');
  const topic = commitAll(dir, 'unmerged topic', day(8));
  git(dir, ['checkout', '-q', 'main']);
  // What a fetch leaves: remote-tracking refs (and the symbolic origin/HEAD) new-branch pushes are judged against.
  git(dir, ['update-ref', 'refs/remotes/origin/main', m2]);
  git(dir, ['update-ref', 'refs/remotes/origin/side', s1]);
  git(dir, ['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main']);
  return { dir, commits: { m1, s1, m2, mergeSide, mergeMain, s2, m3, crissCross, topic }, paths: ['side.txt', 'topic.txt', 'base.txt'] };
}

function buildRenames(): Fixture {
  const dir = makeRepo();
  write(dir, 'keep.txt', 'same\n');
  write(dir, 'old.txt', 'content of old\n');
  write(dir, 'edit-me.txt', 'original\n');
  write(dir, 'twin1', 'twin\n');
  write(dir, 'twin2', 'twin\n');
  write(dir, 'empty1', '');
  const start = commitAll(dir, 'start', day(2));
  mkdirSync(join(dir, 'moved'));
  git(dir, ['mv', 'old.txt', 'moved/new.txt']);
  git(dir, ['mv', 'edit-me.txt', 'edited.txt']);
  write(dir, 'edited.txt', 'original, edited\n');
  git(dir, ['mv', 'twin1', 'z1']);
  git(dir, ['mv', 'twin2', 'z2']);
  git(dir, ['mv', 'empty1', 'empty2']);
  const renames = commitAll(dir, 'renames', day(3));
  write(dir, 'copy.txt', 'same\n');
  const copy = commitAll(dir, 'copy keep.txt', day(4));
  return { dir, commits: { start, renames, copy }, paths: ['z1', 'twin1'] };
}

/** Committer times out of order: a commit older than its parent hides the parent from the walk. */
function buildClockSkew(): Fixture {
  const dir = makeRepo();
  write(dir, 'f', '1\n');
  const newer = commitAll(dir, 'committed on a fast clock', day(10));
  write(dir, 'f', '2\n');
  const older = commitAll(dir, 'committed on a slow clock', day(5));
  write(dir, 'f', '3\n');
  const tip = commitAll(dir, 'tip', day(12));
  return { dir, commits: { newer, older, tip }, paths: ['f'] };
}

function shallowClone(source: Fixture): Fixture {
  const dir = tempDir();
  git(dir, ['clone', '-q', '--depth', '3', `file://${source.dir}`, 'clone']);
  return { dir: join(dir, 'clone'), commits: source.commits, paths: source.paths };
}

function buildDetached(): Fixture {
  const fixture = buildClockSkew();
  git(fixture.dir, ['checkout', '-q', '--detach', 'HEAD~1']);
  return fixture;
}

function buildLinkedWorktree(source: Fixture): Fixture {
  const dir = join(tempDir(), 'wt');
  git(source.dir, ['worktree', 'add', '-q', '-b', 'wt-branch', dir, source.commits.edited as string]);
  write(dir, 'wt.txt', 'worktree\n');
  const wtCommit = commitAll(dir, 'commit in linked worktree', day(9));
  write(dir, 'a.txt', 'dirty\n');
  return { dir, commits: { ...source.commits, wtCommit }, paths: ['a.txt', 'wt.txt', 'docs/guide.md'] };
}

function buildEmpty(): Fixture {
  const dir = makeRepo({ commit: false });
  write(dir, 'untracked.txt', 'u\n');
  write(dir, 'staged.txt', 's\n');
  git(dir, ['add', 'staged.txt']);
  return { dir, commits: {}, paths: ['untracked.txt', 'staged.txt', 'missing.txt'] };
}

/**
 * Messages not in UTF-8: git log re-encodes by the commit's `encoding` header (true ISO-8859-1,
 * 0x85 included; Shift_JIS), and prints the raw bytes for an unknown encoding or none.
 */
function buildEncodings(): Fixture {
  const dir = makeRepo();
  const commitBytes = (encoding: string | null, message: Buffer, n: number): string => {
    write(dir, `f${n}.txt`, `${n}\n`);
    writeFileSync(join(dir, '.git/MSG'), message);
    git(dir, ['add', '-A']);
    git(dir, [...(encoding ? ['-c', `i18n.commitEncoding=${encoding}`] : []), 'commit', '-q', '--cleanup=verbatim', '-F', '.git/MSG'], dateEnv(day(2 + n)));
    return sha(dir, 'HEAD');
  };
  const latin1 = commitBytes('ISO-8859-1', Buffer.from('caf\xe9 latin1 (#12)\n\nna\xefve \x85 body\n', 'latin1'), 1);
  const sjis = commitBytes('Shift_JIS', Buffer.from([...Buffer.from('sjis '), 0x93, 0xfa, 0x96, 0x7b, 0x0a]), 2);
  const unknown = commitBytes('x-no-such-encoding', Buffer.from('unknown caf\xe9\n', 'latin1'), 3);
  // git commit would store invalid UTF-8 as Latin-1 re-encoded: write the object itself.
  const stamp = `${seconds(day(6))} +0000`;
  const head = sha(dir, 'HEAD');
  writeFileSync(join(dir, '.git/RAW'), Buffer.concat([
    Buffer.from(`tree ${sha(dir, 'HEAD^{tree}')}\nparent ${head}\nauthor A <a@x> ${stamp}\ncommitter A <a@x> ${stamp}\n\n`),
    Buffer.from('raw caf\xe9 \xff\r\n', 'latin1'),
  ]));
  const raw = git(dir, ['hash-object', '-t', 'commit', '-w', '.git/RAW']).trim();
  git(dir, ['reset', '-q', '--soft', raw]);
  const utf8 = commitBytes('utf8', Buffer.from('utf8 café\n'), 5);
  // iconv knows no byte 0x81 in CP1252 (WHATWG reads it as U+0081), nor any past 0x7f in ASCII.
  const cp1252 = commitBytes('windows-1252', Buffer.from([...Buffer.from('cp1252 '), 0x80, 0x0a]), 6);
  const cp1252Hole = commitBytes('windows-1252', Buffer.from([...Buffer.from('cp1252 hole '), 0x81, 0x80, 0x0a]), 7);
  const ascii = commitBytes('US-ASCII', Buffer.from('ascii caf\xe9\n', 'latin1'), 8);
  return { dir, commits: { latin1, sjis, unknown, raw, utf8, cp1252, cp1252Hole, ascii }, paths: [] };
}

/** The same repository with its objects packed: deltified by an aggressive gc, or with REF_DELTA bases. */
function packed(source: Fixture, repack: string[]): Fixture {
  const dir = tempDir();
  cpSync(source.dir, dir, { recursive: true });
  git(dir, repack);
  return { ...source, dir };
}

const fixtures = new Map<string, Fixture>();
const histories = new Map<string, { native: GitHistory; iso: GitHistory }>();

let workerBefore: string | null | undefined;
beforeAll(async () => {
  // The isomorphic engine's deep questions are answered in this thread here: the worker runs
  // the same deepAnswers, and deep-thread.test holds its answers to this thread's and git's on
  // its own histories (with the worker, each fixture's engine starts a thread: +40% time).
  workerBefore = setDeepWorkerScript(null);
  const linear = buildLinear();
  const merges = buildMerges();
  fixtures.set('linear', linear);
  fixtures.set('merges', merges);
  fixtures.set('renames', buildRenames());
  fixtures.set('clock skew', buildClockSkew());
  fixtures.set('shallow linear', shallowClone(linear));
  fixtures.set('shallow merges', shallowClone(merges));
  fixtures.set('detached', buildDetached());
  fixtures.set('linked worktree', buildLinkedWorktree(linear));
  fixtures.set('no commits', buildEmpty());
  fixtures.set('encodings', buildEncodings());
  fixtures.set('packed merges', packed(merges, ['gc', '-q', '--aggressive', '--prune=now']));
  fixtures.set('packed linear, REF_DELTA', packed(linear, ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-a', '-d', '-f']));
  for (const [name, { dir }] of fixtures) {
    const [native, iso] = await Promise.all([createHistory({ dir, engine: 'native' }), createHistory({ dir, engine: 'isomorphic' })]);
    histories.set(name, { native, iso });
  }
});

afterAll(() => {
  setDeepWorkerScript(workerBefore); // vitest reuses this process for other files
  for (const { dir } of fixtures.values()) cleanup(dir.replace(/\/(clone|wt)$/, ''));
});

/**
 * Commit times in the repository, plus bounds outside any history; with `plusOne`, each time
 * plus one second too. A cut-off between two commit times walks the same commits as the next
 * time up, so the times alone give every walk there is; the second after each checks that the
 * bound itself is inclusive, asked of commitsSince (the other questions share its walk).
 */
function cutoffs(dir: string, { plusOne = false } = {}): number[] {
  const log = gitTry(dir, ['log', '--all', '--format=%ct']);
  const times = log.status === 0 ? log.stdout.split('\n').filter(Boolean).map(Number) : [];
  return [...new Set([-5, 0, ...times, ...(plusOne ? times.map((t) => t + 1) : []), 4_000_000_000])].sort((a, b) => a - b);
}

type Spelling = 'full' | 'short' | 'upper' | 'four';
const SPELL: Record<Spelling, (sha: string) => string> = { full: (s) => s, short: (s) => s.slice(0, 7), upper: (s) => s.toUpperCase(), four: (s) => s.slice(0, 4) };

/** Every commit of a fixture, and the tags and trees it has: read from git once per fixture. */
const objectsOf = new Map<Fixture, { shas: string[]; objects: string[]; sampled: Set<string> }>();
function objectNames(fixture: Fixture): { shas: string[]; objects: string[]; sampled: Set<string> } {
  let names = objectsOf.get(fixture);
  if (!names) {
    const all = gitTry(fixture.dir, ['rev-list', '--all']);
    const present = all.status === 0 ? all.stdout.split('\n').filter(Boolean) : [];
    const shas = [...new Set([...present, ...Object.values(fixture.commits)])];
    const tags = git(fixture.dir, ['for-each-ref', '--format=%(objectname)', 'refs/tags/']).split('\n').filter(Boolean);
    const trees = present.length === 0 ? [] : [sha(fixture.dir, 'HEAD^{tree}'), ...git(fixture.dir, ['ls-tree', 'HEAD']).split(/\s+/).filter((w) => /^[0-9a-f]{40}$/.test(w))];
    // Git's sample of them (Questions.sample): every tag, the root tree, every third entry of it.
    names = { shas, objects: [...tags, ...trees], sampled: new Set([...tags, ...trees.filter((_, i) => i % 3 === 0)]) };
    objectsOf.set(fixture, names);
  }
  return names;
}

/** Full, short, upper-case and 4-digit names of every commit, plus names of non-commits and nothing. */
function revisions(fixture: Fixture, spellings: Spelling[] = ['full', 'short', 'upper', 'four']): string[] {
  const { shas, objects } = objectNames(fixture);
  return [
    ...shas.flatMap((s) => spellings.map((spell) => SPELL[spell](s))),
    ...objects,
    'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef',
    '0000',
    'abc',
    'HEAD',
    'main',
  ];
}

interface Questions {
  /** Every spelling of every name (resolveCommits asks them all in one batch). */
  revs: string[];
  /** Asked one by one: the upper-case spelling is the full name once normalized (normalize.ts, shared by both engines). */
  oneByOne: string[];
  /** Ancestry is asked of the full and 7-digit names, and of every name that is no commit. */
  ancestry: string[];
  times: number[];
  timesPlusOne: number[];
  pairs: [string | null, string][];
  /** The commits filesIn is asked about (with HEAD, and a name that is no commit). */
  treeRevs: string[];
  /**
   * What git itself (the native engine) is asked one by one, where a batch question asks it all
   * in one process (resolveCommits, pushedCommitsEach, filesInEach): a sample, each name once in
   * one of its spellings, each kind of pair, each folder on a third of the commits. The embedded
   * engine is asked every one, each answer held to git's answer in the batch; git's one-by-one
   * answers are held to its batch answers on the sample (a process each: ~5 ms of CPU).
   */
  sample: { oneByOne: string[]; ancestry: string[]; pairs: [string | null, string][]; treeRevs: string[]; recursive: [string, string][]; times: number[] };
}

/** The names, times and pairs a fixture is asked about, listed once (each list asks git) and shared by both engines. */
const listed = new Map<Fixture, Questions>();
function questions(fixture: Fixture): Questions {
  let q = listed.get(fixture);
  if (!q) {
    const oneByOne = revisions(fixture, ['full', 'short', 'four']);
    const ancestry = revisions(fixture, ['full', 'short']);
    const { shas, objects, sampled: objectSample } = objectNames(fixture);
    /** `names` with each commit in one of `spellings` (in turn), the objects' sample, and the names of nothing. */
    const sampled = (names: string[], spellings: Spelling[]) =>
      names.filter((r) => !shas.some((s, i) => spellings.some((spell, j) => j !== i % spellings.length && SPELL[spell](s) === r)) && (!objects.includes(r) || objectSample.has(r)));
    const pairs = pushPairs(fixture);
    const treeRevs = [...new Set([...Object.values(fixture.commits), 'HEAD', 'deadbeef'])];
    const times = cutoffs(fixture.dir);
    q = {
      revs: revisions(fixture),
      oneByOne,
      ancestry,
      times,
      timesPlusOne: cutoffs(fixture.dir, { plusOne: true }),
      pairs: pairs.map((p) => p.pair),
      treeRevs,
      sample: {
        // Each commit in one spelling (in turn full, 7-digit, 4-digit); every name that is no commit.
        oneByOne: sampled(oneByOne, ['full', 'short', 'four']),
        // isInHeadHistory has no batch: the embedded engine's answers are held to git's graph (rev-list).
        ancestry: sampled(ancestry, ['full', 'short']),
        // The first and last pair of each relation (a new branch, the tip itself, an ancestor, ...).
        pairs: pairs.filter((p, i) => !pairs.slice(0, i).some((o) => o.relation === p.relation) || !pairs.slice(i + 1).some((o) => o.relation === p.relation)).map((p) => p.pair),
        treeRevs: treeRevs.filter((_, i) => i % 3 === 0 || i >= treeRevs.length - 2),
        recursive: TREE_DIRS.flatMap((d, j) => {
          const revs = treeRevs.slice(0, -1);
          const third = revs.filter((_, i) => (i + j) % 3 === 0);
          return (third.length ? third : [revs[j % revs.length]!]).map((rev): [string, string] => [rev, d]);
        }),
        // commitsSince's subjects-only walk and commitsNaming: every third time, and 0. The embedded
        // engine's answers at every time are held to git's full walk at that time (commitsSince).
        times: times.filter((t, i) => i % 3 === 0 || t === 0),
      },
    };
    listed.set(fixture, q);
  }
  return q;
}

/** An engine's answers to every question; the one-by-one questions a batch also asks, all of them (`every`) or the sample. */
async function answers(history: GitHistory, fixture: Fixture, every: boolean) {
  const q = questions(fixture);
  const oneByOne = every ? q.oneByOne : q.sample.oneByOne;
  const pairs = every ? q.pairs : q.sample.pairs;
  const treeRevs = every ? q.treeRevs : q.sample.treeRevs;
  const recursive = every ? q.treeRevs.slice(0, -1).flatMap((rev) => TREE_DIRS.map((d): [string, string] => [rev, d])) : q.sample.recursive;
  const fileRevisions = await history.fileRevisions(fixture.paths);
  return {
    head: await history.head(),
    isShallow: await history.isShallow(),
    commitsSince: Object.fromEntries(await Promise.all(q.timesPlusOne.map(async (t) => [t, await history.commitsSince(t)]))),
    subjectsOnly: Object.fromEntries(await Promise.all((every ? q.times : q.sample.times).map(async (t) => [t, await history.commitsSince(t, { changes: 'none' })]))),
    scoped: Object.fromEntries(await Promise.all(scopes(fixture).map(async (scope) => [scope.join(','), await history.commitsSince(0, { changes: scope })]))),
    resolveCommit: Object.fromEntries(await Promise.all(oneByOne.map(async (r) => [r, await history.resolveCommit(r)]))),
    isInHeadHistory: Object.fromEntries(await Promise.all((every ? q.ancestry : q.sample.ancestry).map(async (r) => [r, await history.isInHeadHistory(r)]))),
    resolveCommits: await history.resolveCommits(q.revs),
    // The pushed ends of a ref: an annotated tag's name answers with its commit.
    resolveCommitsPeeled: await history.resolveCommits(q.revs, { peel: true }),
    commitsNaming: Object.fromEntries(await Promise.all((every ? q.times : q.sample.times).map(async (t) => [t, await history.commitsNaming(NAMING_TOKENS, t)]))),
    lastRemovals: Object.fromEntries(await Promise.all(q.times.map(async (t) => [t, await history.lastRemovals([...fixture.paths, 'notes.txt', 'docs/guide.md', 'tool.sh'], t)]))),
    uncommittedPaths: await history.uncommittedPaths(fixture.paths),
    // Every commit of the walk, oldest first (answered in the order asked).
    changesOf: await history.changesOf((await history.commitsSince(-Infinity, { changes: 'none' })).map((c) => c.sha).reverse()),
    // Each named commit as the checkpoint's commit, the walk starting at its date: past skew (skew-walk.ts).
    anchored: await anchoredWalks(history, fixture),
    fileRevisions,
    // Each named commit's own first-parent line (a merge's other parent's, say), and names that are no commit.
    fileRevisionsFrom: Object.fromEntries(await Promise.all([...new Set([...Object.values(fixture.commits), 'deadbeef'.repeat(5), 'HEAD'])].map(async (rev) => [rev, await history.fileRevisions(fixture.paths, rev)]))),
    readBlobs: [...(await history.readBlobs(fileRevisions.flatMap((r) => (r.blob ? [r.blob] : [])), 1 << 20))].sort(),
    pushedCommits: Object.fromEntries(await Promise.all(pairs.map(async ([from, to]) => [`${from}..${to}`, await history.pushedCommits(from, to)]))),
    // Every pair at once, as a push of many refs asks (a deleted ref's zeros and a tag's name among them).
    pushedCommitsEach: await history.pushedCommitsEach([...q.pairs, [null, '0'.repeat(40)] as const, [null, 'deadbeef'] as const].map(([from, to]) => ({ from, to }))),
    filesIn: Object.fromEntries(await Promise.all(treeRevs.map(async (rev) => [rev, [...(await history.filesIn(rev, TREE_DIRS))].sort()]))),
    filesInEach: await filesInEach(history, q.treeRevs),
    // Keyed "<rev> <folder>".
    filesInRecursive: Object.fromEntries(await Promise.all(recursive.map(async ([rev, d]) => [`${rev} ${d}`, [...(await history.filesIn(rev, [d], { recursive: true }))].sort()]))),
  };
}

/**
 * filesInEach of `revs` for the folder sets filesIn is asked about above (TREE_DIRS flat, each
 * folder recursive), so the batch is checked against those answers with no git asked again, plus
 * a set naming a folder twice (both engines must agree on it): path-sorted entries.
 */
async function filesInEach(history: GitHistory, revs: readonly string[]): Promise<Record<string, [string, string][][]>> {
  const sorted = (lists: Map<string, string>[]) => lists.map((m) => [...m].sort());
  const out: Record<string, [string, string][][]> = { [TREE_DIRS.join(',')]: sorted(await history.filesInEach(revs, TREE_DIRS)) };
  for (const d of TREE_DIRS) out[`r ${d}`] = sorted(await history.filesInEach(revs, [d], { recursive: true }));
  out['docs,docs/api,docs'] = sorted(await history.filesInEach(revs, ['docs', 'docs/api', 'docs']));
  return out;
}

async function anchoredWalks(history: GitHistory, fixture: Fixture): Promise<Record<string, CommitInfo[]>> {
  const dated = new Map((await history.commitsSince(-Infinity, { changes: 'none' })).map((c) => [c.sha, c.time]));
  const anchors = [...new Set(Object.values(fixture.commits))].filter((sha) => dated.has(sha));
  return Object.fromEntries(await Promise.all(anchors.map(async (anchor) => [anchor, await history.commitsSince(dated.get(anchor)!, { anchor, changes: 'none' })])));
}

/** Change scopes: each path, its directory, all of them, one naming nothing, and the top ('': everything, as a top-level glob's base). */
function scopes(fixture: Fixture): string[][] {
  const paths = [...new Set(fixture.paths.map((p) => p.replace(/^\.\//, '')))];
  const dirs = paths.flatMap((p) => (p.includes('/') ? [p.slice(0, p.lastIndexOf('/'))] : []));
  return [...paths.map((p) => [p]), ...dirs.map((d) => [d]), [...paths, ...dirs], ['no/such/dir'], ['', 'no/such/dir']];
}

/** Directories probed with filesIn: the top, nested ones, a file, a missing one, a file that became a directory, spellings. */
const TREE_DIRS = ['', 'docs', 'docs/api', './docs/', 'docs/guide.md', 'a.txt', 'missing', 'moved', '.'];

/**
 * (from, to) pairs of named commits, and new-branch pushes (null: judged against remote-tracking
 * refs). For each tip, a named commit of every relation they can have to it: the tip itself,
 * an ancestor, a descendant, a commit on another branch, one this clone does not have; the first
 * and the last where the distance changes the answer (an ancestor near and far, another branch
 * forked early and late). A descendant pushes nothing and an absent base is a new branch
 * whichever it is. (All n² pairs only repeat these relations at other distances.)
 */
/** Each commit's parents in git's graph (rev-list --all --parents; a shallow clone's boundary has none), read once per fixture. */
const graphs = new Map<Fixture, Map<string, string[]>>();
function parentsOf(fixture: Fixture): Map<string, string[]> {
  let parents = graphs.get(fixture);
  if (!parents) {
    const listed = gitTry(fixture.dir, ['rev-list', '--all', '--parents']);
    parents = new Map((listed.status === 0 ? listed.stdout.split('\n').filter(Boolean) : []).map((l) => [l.slice(0, 40), l.split(' ').slice(1)]));
    graphs.set(fixture, parents);
  }
  return parents;
}

/** `head` and every commit it descends from. */
function headAncestry(fixture: Fixture, head: string | null): Set<string> {
  const parents = parentsOf(fixture);
  const seen = new Set<string>();
  for (let todo = head === null ? [] : [head], c = todo.pop(); c !== undefined; c = todo.pop()) if (!seen.has(c)) todo.push(...(seen.add(c), parents.get(c) ?? []));
  return seen;
}

function pushPairs(fixture: Fixture): { pair: [string | null, string]; relation: string }[] {
  const shas = [...new Set(Object.values(fixture.commits))];
  const parents = parentsOf(fixture);
  const ancestors = (sha: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [...(parents.get(sha) ?? [])];
    for (let c = todo.pop(); c !== undefined; c = todo.pop()) if (!seen.has(c)) todo.push(...(seen.add(c), parents.get(c) ?? []));
    return seen;
  };
  return shas.flatMap((to) => {
    const above = ancestors(to);
    const relation = (from: string) =>
      !parents.has(from) ? 'absent' : from === to ? 'same' : above.has(from) ? 'ancestor' : ancestors(from).has(to) ? 'descendant' : 'other branch';
    const byRelation = new Map<string, string[]>();
    for (const from of shas) byRelation.set(relation(from), [...(byRelation.get(relation(from)) ?? []), from]);
    const distance = new Set(['ancestor', 'other branch']);
    const froms = [...byRelation].flatMap(([rel, list]) => [...new Set([list[0]!, distance.has(rel) ? list.at(-1)! : list[0]!])].map((from) => ({ from, rel })));
    return [{ pair: [null, to] as [string | null, string], relation: 'new branch' }, ...froms.map(({ from, rel }) => ({ pair: [from, to] as [string | null, string], relation: rel }))];
  });
}

/**
 * The packed copies hold the same history and work tree as their loose source: git reads them
 * alike (our own reads of HEAD and packed-refs are checked against git in head-files.test.ts), so
 * the isomorphic engine's answers on the packs are held to the native answers on the source.
 */
const PACKED_FROM: Record<string, string> = { 'packed merges': 'merges', 'packed linear, REF_DELTA': 'linear' };

type Answers = Awaited<ReturnType<typeof answers>>;
const asked = new Map<string, Promise<Answers>>();

/** An engine's answers on a fixture, asked once for the tests that compare or reuse them. */
function answersOf(name: string, engine: 'native' | 'isomorphic'): Promise<Answers> {
  if (engine === 'native' && PACKED_FROM[name]) return answersOf(PACKED_FROM[name], 'native');
  const key = `${engine} ${name}`;
  if (!asked.has(key)) {
    const { native, iso, fixture } = engines(name);
    asked.set(key, engine === 'native' ? answers(native, fixture, false) : answers(iso, fixture, true));
  }
  return asked.get(key)!;
}

function engines(name: string): { native: GitHistory; iso: GitHistory; fixture: Fixture } {
  return { ...(histories.get(name) as { native: GitHistory; iso: GitHistory }), fixture: fixtures.get(name) as Fixture };
}

function byCommit(list: CommitInfo[], sha: string | undefined): CommitInfo {
  const found = list.find((c) => c.sha === sha);
  if (!found) throw new Error(`commit ${sha} not listed`);
  return found;
}

const FIXTURES = ['linear', 'merges', 'renames', 'clock skew', 'shallow linear', 'shallow merges', 'detached', 'linked worktree', 'no commits', 'encodings', 'packed merges', 'packed linear, REF_DELTA'];

describe.each(FIXTURES)('%s: both engines', (name) => {
  it('give identical answers to every question', async () => {
    const { native, fixture } = engines(name);
    const [fromNative, fromIso] = await Promise.all([answersOf(name, 'native'), answersOf(name, 'isomorphic')]);
    const ONE_BY_ONE = ['resolveCommit', 'isInHeadHistory', 'pushedCommits', 'filesIn', 'filesInRecursive', 'subjectsOnly', 'commitsNaming'] as const;
    const rest = (a: Answers) => Object.fromEntries(Object.entries(a).filter(([k]) => !(ONE_BY_ONE as readonly string[]).includes(k)));
    expect(rest(fromIso)).toEqual(rest(fromNative));
    // The one-by-one questions: git was asked a sample (its answers are the embedded engine's
    // there), and each of the embedded engine's answers is git's answer to the batch question.
    for (const k of ONE_BY_ONE) {
      const sampled = fromNative[k] as Record<string, unknown>;
      expect(Object.keys(sampled).length > 0, k).toBe(Object.keys(fromIso[k]).length > 0);
      expect(sampled, k).toEqual(Object.fromEntries(Object.keys(sampled).map((key) => [key, (fromIso[k] as Record<string, unknown>)[key]])));
    }
    const { revs, oneByOne, ancestry, pairs, treeRevs, times } = questions(fixture);
    // At each time, the subjects-only walk is git's full walk without the changes, and the
    // commits naming a token are those of it whose message holds one (as random-dags.test's model).
    const walk = (t: number): CommitInfo[] => (fromNative.commitsSince[t] as CommitInfo[]).map((c) => ({ ...c, changes: [] }));
    const naming = (t: number) => walk(t).filter((c) => NAMING_TOKENS.some((tok) => foldCase(`${c.subject}\n${c.body}`).includes(foldCase(tok))));
    for (const [answered, all] of [[fromIso, true], [fromNative, false]] as const) {
      const at = all ? times : Object.keys(answered.subjectsOnly).map(Number);
      expect(at.length).toBeGreaterThan(0);
      expect(Object.keys(answered.commitsNaming).map(Number).sort()).toEqual([...at].sort());
      for (const t of at) expect(answered.subjectsOnly[t], `${answered === fromIso ? 'isomorphic' : 'native'} at ${t}`).toEqual(walk(t));
      for (const t of at) expect(answered.commitsNaming[t], `${answered === fromIso ? 'isomorphic' : 'native'} at ${t}`).toEqual(naming(t));
    }
    expect(oneByOne.map((r) => fromIso.resolveCommit[r])).toEqual(oneByOne.map((r) => fromNative.resolveCommits[revs.indexOf(r)]));
    // In HEAD's history: the commit a name resolves to is HEAD or an ancestor in git's graph.
    const inHead = headAncestry(fixture, fromNative.head?.sha ?? null);
    const oracle = (names: string[]) => names.map((r) => inHead.has(fromNative.resolveCommits[revs.indexOf(r)] ?? ''));
    expect(ancestry.map((r) => fromIso.isInHeadHistory[r])).toEqual(oracle(ancestry));
    const askedAncestry = Object.keys(fromNative.isInHeadHistory);
    expect(askedAncestry.map((r) => fromNative.isInHeadHistory[r])).toEqual(oracle(askedAncestry));
    expect(oracle(ancestry).some(Boolean)).toBe(fromNative.head !== null);
    expect(pairs.map(([from, to]) => fromIso.pushedCommits[`${from}..${to}`])).toEqual(fromNative.pushedCommitsEach.slice(0, pairs.length));
    expect(treeRevs.map((rev) => fromIso.filesIn[rev])).toEqual(fromNative.filesInEach[TREE_DIRS.join(',')]);
    for (const d of TREE_DIRS) expect(treeRevs.slice(0, -1).map((rev) => fromIso.filesInRecursive[`${rev} ${d}`]), d).toEqual(fromNative.filesInEach[`r ${d}`]!.slice(0, -1));
    // Absolute facts: the batch answers as one-by-one lookups do (git's, on its sample); the
    // targeted searches are the unbounded walk filtered by message and by removal.
    const asked = Object.keys(fromNative.resolveCommit);
    expect(asked.map((r) => fromNative.resolveCommits[revs.indexOf(r)])).toEqual(asked.map((r) => fromNative.resolveCommit[r]));
    const all: CommitInfo[] = fromNative.commitsSince[0];
    // A commit read again with all its changes is the one the unbounded walk described.
    expect(fromNative.changesOf).toEqual([...all].reverse());
    // An ASCII token with its letters in either case (types.ts).
    expect((await native.commitsNaming(['stale'], 0)).map((c) => c.sha)).toEqual(all.filter((c) => `${c.subject}\n${c.body}`.replace(/[A-Z]/g, (l) => l.toLowerCase()).includes('stale')).map((c) => c.sha));
    for (const c of await native.lastRemovals(['notes.txt', 'docs/guide.md'], 0)) {
      expect(c.changes.some((ch) => (ch.status === 'D' || ch.status === 'R') && ['notes.txt', 'docs/guide.md'].includes(ch.from ?? ch.path))).toBe(true);
    }
  });

  it.each(['native', 'isomorphic'] as const)('%s: the batch questions answer as the one-by-one ones do', async (engine) => {
    const { native, iso, fixture } = engines(name);
    const history = engine === 'native' ? native : iso;
    const answered = await answersOf(name, engine);
    const { pairs, treeRevs: revs } = questions(fixture);
    // The one-by-one answers were asked above (answers(); of git, its sample): compared, not asked again.
    const key = ([from, to]: [string | null, string]) => `${from}..${to}`;
    const askedPairs = pairs.flatMap((p, i) => (key(p) in answered.pushedCommits ? [i] : []));
    expect(askedPairs.length).toBe(Object.keys(answered.pushedCommits).length);
    expect(askedPairs.map((i) => answered.pushedCommitsEach[i])).toEqual(askedPairs.map((i) => answered.pushedCommits[key(pairs[i]!)]));
    expect(answered.pushedCommitsEach.slice(pairs.length)).toEqual([[], []]);
    expect(answered.pushedCommitsEach).toHaveLength(pairs.length + 2);
    const askedRevs = revs.flatMap((rev, i) => (rev in answered.filesIn ? [i] : []));
    expect(askedRevs.length).toBe(Object.keys(answered.filesIn).length);
    expect(askedRevs.map((i) => answered.filesInEach[TREE_DIRS.join(',')]![i])).toEqual(askedRevs.map((i) => answered.filesIn[revs[i]!]));
    expect(answered.filesInEach[TREE_DIRS.join(',')]).toHaveLength(revs.length);
    for (const d of TREE_DIRS) {
      const askedHere = revs.slice(0, -1).flatMap((rev, i) => (`${rev} ${d}` in answered.filesInRecursive ? [i] : []));
      expect(askedHere.length, d).toBeGreaterThan(0);
      expect(askedHere.map((i) => answered.filesInEach[`r ${d}`]![i]), d).toEqual(askedHere.map((i) => answered.filesInRecursive[`${revs[i]} ${d}`]));
    }
    // A name that is no commit lists nothing, recursive or not; a folder named twice lists it once.
    for (const d of TREE_DIRS) expect(answered.filesInEach[`r ${d}`]!.at(-1)).toEqual([]);
    const checked = engine === 'native' ? askedRevs : revs.map((_, i) => i);
    expect(checked.map((i) => answered.filesInEach['docs,docs/api,docs']![i])).toEqual(await Promise.all(checked.map(async (i) => [...(await history.filesIn(revs[i]!, ['docs', 'docs/api']))].sort())));
  });

  it.each(['native', 'isomorphic'] as const)('%s: lists exactly the walk, newest first', async (engine) => {
    const { fixture } = engines(name);
    const all: CommitInfo[] = (await answersOf(name, engine)).commitsSince[0];
    const reachable = gitTry(fixture.dir, ['rev-list', 'HEAD']);
    expect(all.map((c) => c.sha).sort()).toEqual(reachable.status === 0 ? reachable.stdout.split('\n').filter(Boolean).sort() : []);
    for (let i = 1; i < all.length; i++) expect((all[i - 1] as CommitInfo).time).toBeGreaterThanOrEqual((all[i] as CommitInfo).time);
  });

  it.each(['native', 'isomorphic'] as const)('%s: a change scope lists the same walk, with only the changes at or under its paths', async (engine) => {
    const { fixture } = engines(name);
    const answered = await answersOf(name, engine);
    const all: CommitInfo[] = answered.commitsSince[0];
    const subjects: CommitInfo[] = answered.subjectsOnly[0];
    const strip = (list: CommitInfo[]) => list.map(({ changes: _, ...c }) => c);
    expect(strip(subjects)).toEqual(strip(all));
    expect(subjects.every((c) => c.changes.length === 0)).toBe(true);
    for (const scope of scopes(fixture)) {
      const scoped: CommitInfo[] = answered.scoped[scope.join(',')];
      expect(strip(scoped)).toEqual(strip(all));
      const inScope = (p: string) => scope.some((s) => s === '' || p === s || p.startsWith(`${s}/`));
      for (const c of scoped) {
        expect(c.changes.every((ch) => inScope(ch.path) && (ch.from === undefined || inScope(ch.from)))).toBe(true);
        // Every change in scope that the full walk lists is there (a rename from outside the scope as an addition).
        const full = byCommit(all, c.sha).changes.filter((ch) => inScope(ch.path) || (ch.from !== undefined && inScope(ch.from)));
        expect(c.changes.map((ch) => ch.path).sort()).toEqual(
          full.flatMap((ch) => [...(inScope(ch.path) ? [ch.path] : []), ...(ch.from !== undefined && inScope(ch.from) && !inScope(ch.path) ? [ch.from] : [])]).sort(),
        );
      }
    }
  });
});

describe.each(['native', 'isomorphic'] as const)('%s engine, absolute facts', (engine) => {
  const pick = (name: string) => {
    const { native, iso, fixture } = engines(name);
    return { history: engine === 'native' ? native : iso, commits: fixture.commits, dir: fixture.dir, paths: fixture.paths };
  };

  it('filesIn: the files directly in a directory of a commit, not the work tree', async () => {
    const { history, commits, dir } = pick('linear');
    const blob = (rev: string) => sha(dir, rev);
    expect([...(await history.filesIn(commits.edited as string, ['docs', 'docs/api', 'missing']))].sort()).toEqual([
      ['docs/api/ref.md', blob(`${commits.edited}:docs/api/ref.md`)],
      ['docs/guide.md', blob(`${commits.edited}:docs/guide.md`)],
    ]);
    // docs/api/ref.md is deleted in the work tree but still in HEAD; new.txt is untracked.
    const top = await history.filesIn(sha(dir, 'HEAD'), ['', 'docs/api']);
    expect([...top.keys()].sort()).toEqual(['.gitignore', 'a.txt', 'docs/api/ref.md']);
    expect(await history.filesIn('deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', [''])).toEqual(new Map());
    // recursive: every file at any depth under the folders, and only under them.
    expect([...(await history.filesIn(sha(dir, 'HEAD'), ['docs'], { recursive: true })).keys()].sort()).toEqual(['docs/api/ref.md', 'docs/guide.md/index.md']);
    expect([...(await history.filesIn(sha(dir, 'HEAD'), [''], { recursive: true })).keys()].sort()).toEqual(['.gitignore', 'a.txt', 'docs/api/ref.md', 'docs/guide.md/index.md']);
  });

  it('messages are decoded by their encoding header as git log prints them, and searched as such', async () => {
    const { history, commits } = pick('encodings');
    const all = await history.commitsSince(0);
    expect(byCommit(all, commits.latin1)).toMatchObject({ subject: 'café latin1 (#12)', body: 'naïve \u0085 body' });
    expect(byCommit(all, commits.sjis).subject).toBe('sjis 日本');
    expect(byCommit(all, commits.unknown).subject).toBe('unknown caf\ufffd');
    expect(byCommit(all, commits.raw).subject).toBe('raw caf\ufffd \ufffd');
    expect(byCommit(all, commits.utf8).subject).toBe('utf8 café');
    expect(byCommit(all, commits.cp1252).subject).toBe('cp1252 €');
    expect(byCommit(all, commits.cp1252Hole).subject).toBe('cp1252 hole \ufffd\ufffd');
    expect(byCommit(all, commits.ascii).subject).toBe('ascii caf\ufffd');
    expect((await history.commitsNaming(['café', '日本'], 0)).map((c) => c.sha).sort()).toEqual([commits.latin1, commits.sjis, commits.utf8].sort());
    // Asked alongside a removal question, as doctor asks: the same commits.
    const [named] = await Promise.all([history.commitsNaming(['café', '日本'], 0), history.lastRemovals(['gone.txt'], 0)]);
    expect(named.map((c) => c.sha).sort()).toEqual([commits.latin1, commits.sjis, commits.utf8].sort());
  });

  it('linear history: statuses, message split, a commit before its parent in the same second, work-tree changes', async () => {
    const { history, commits, paths } = pick('linear');
    const all = await history.commitsSince(0);
    expect(all).toHaveLength(7);
    expect(byCommit(all, commits.root)).toMatchObject({ parents: [], subject: 'root', changes: [] });
    expect(byCommit(all, commits.added).changes).toEqual([
      { status: 'A', path: '.gitignore' },
      { status: 'A', path: 'a.txt' },
      { status: 'A', path: 'docs/guide.md' },
      { status: 'A', path: 'notes.txt' },
    ]);
    expect(byCommit(all, commits.edited).changes).toEqual([
      { status: 'M', path: 'a.txt' },
      { status: 'A', path: 'docs/api/ref.md' },
    ]);
    expect(byCommit(all, commits.deleted)).toMatchObject({
      subject: 'delete notes',
      body: 'they were stale\n\nsecond paragraph',
      time: seconds(day(4)),
      changes: [{ status: 'D', path: 'notes.txt' }],
    });
    expect(byCommit(all, commits.chmodded).changes).toEqual([{ status: 'M', path: 'a.txt' }]);
    // The file moved into a directory of its own name, content unchanged: still an exact rename.
    expect(byCommit(all, commits.fileToDir).changes).toEqual([{ status: 'R', path: 'docs/guide.md/index.md', from: 'docs/guide.md' }]);
    // One second: the graph orders them, whatever their names (sameSecond is fileToDir's child).
    expect(all.slice(0, 2).map((c) => c.sha)).toEqual([commits.sameSecond, commits.fileToDir]);
    expect((await history.commitsSince(seconds(day(5)))).map((c) => c.sha).sort()).toEqual(
      [commits.chmodded, commits.fileToDir, commits.sameSecond].sort(),
    );
    expect(await history.commitsSince(seconds(day(6)) + 1)).toEqual([]);
    expect(await history.head()).toEqual({ sha: commits.sameSecond, branch: 'main' });
    // Ignored files count: they are not committed either. A staged edit reverted on disk does not.
    expect(await history.uncommittedPaths(paths)).toEqual([
      'a.txt',
      'docs/api/ref.md',
      'new.txt',
      'debug.log',
      './a.txt',
    ]);
  });

  it('merges: changes against the first parent, bounded ancestry', async () => {
    const { history, commits } = pick('merges');
    const all = await history.commitsSince(0);
    expect(byCommit(all, commits.mergeSide)).toMatchObject({
      parents: [commits.m2, commits.s1],
      changes: [
        { status: 'A', path: 'side.txt' },
        { status: 'A', path: 'side/deep/x.txt' },
      ],
    });
    expect(byCommit(all, commits.crissCross)).toMatchObject({
      subject: 'Merge pull request #7 from someone/side',
      body: 'Side work',
      parents: [commits.m3, sha(pick('merges').dir, 'side')],
      changes: [{ status: 'M', path: 'side.txt' }],
    });
    expect(all.map((c) => c.sha)).toContain(commits.mergeMain);
    expect(all.map((c) => c.sha)).not.toContain(commits.topic);
    expect(await history.isInHeadHistory(commits.mergeMain as string)).toBe(true);
    expect(await history.isInHeadHistory((commits.s1 as string).slice(0, 8))).toBe(true);
    expect(await history.isInHeadHistory(commits.topic as string)).toBe(false);
    expect(await history.resolveCommit(commits.topic as string)).toBe(commits.topic);
    const tagObject = git(pick('merges').dir, ['rev-parse', 'v1']).trim();
    expect(tagObject).not.toBe(commits.m3);
    expect(await history.resolveCommit(tagObject)).toBeNull();
    expect(await history.isInHeadHistory(tagObject)).toBe(false);
    // Peeled (a pushed tag): the tag names its commit; a commit names itself; a tree names none.
    const tree = git(pick('merges').dir, ['rev-parse', `${commits.m3}^{tree}`]).trim();
    expect(await history.resolveCommits([tagObject, tagObject.slice(0, 8), commits.m3 as string, tree], { peel: true })).toEqual([commits.m3, commits.m3, commits.m3, null]);
  });

  it('renames: only D+A of the same non-empty blob become R', async () => {
    const { history, commits } = pick('renames');
    const all = await history.commitsSince(0);
    expect(byCommit(all, commits.renames).changes).toEqual([
      { status: 'D', path: 'edit-me.txt' },
      { status: 'A', path: 'edited.txt' },
      { status: 'D', path: 'empty1' },
      { status: 'A', path: 'empty2' },
      { status: 'R', path: 'moved/new.txt', from: 'old.txt' },
      { status: 'R', path: 'z1', from: 'twin1' },
      { status: 'R', path: 'z2', from: 'twin2' },
    ]);
    expect(byCommit(all, commits.copy).changes).toEqual([{ status: 'A', path: 'copy.txt' }]);
  });

  it('pushedCommits: what git rev-list sends that no remote-tracking ref has, a merge with what it changed itself', async () => {
    const { history, commits, dir } = pick('merges');
    const revList = (...args: string[]) => git(dir, ['rev-list', ...args]).split('\n').filter(Boolean).sort();
    const listed = async (from: string | null, to: string) => (await history.pushedCommits(from, to)).map((c) => c.sha).sort();
    expect(await listed(commits.m2 as string, commits.crissCross as string)).toEqual(revList(commits.crissCross as string, `^${commits.m2}`, '--not', '--remotes'));
    // What a remote already has is not sent again by this push, whatever the base: s1 is on origin/side.
    expect(await listed(commits.m1 as string, commits.crissCross as string)).not.toContain(commits.s1);
    expect(await listed(null, commits.crissCross as string)).toEqual(revList(commits.crissCross as string, '--not', '--remotes'));
    expect(await listed(null, commits.m2 as string)).toEqual([]);
    // A from this clone does not have (someone else pushed first): judged as a new branch.
    expect(await listed('deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', commits.topic as string)).toEqual([commits.topic]);
    // crissCross took side.txt whole from s2, which this push sends too: against its first parent
    // it changed side.txt, of its own it changed nothing; s2 changed it.
    const pushed = await history.pushedCommits(commits.m3 as string, commits.crissCross as string);
    expect(byCommit(pushed, commits.crissCross).changes).toEqual([{ status: 'M', path: 'side.txt' }]);
    expect(byCommit(pushed, commits.crissCross).ownChanges).toEqual([]);
    expect(byCommit(pushed, commits.s2).changes).toEqual([{ status: 'M', path: 'side.txt' }]);
    expect(byCommit(pushed, commits.s2).ownChanges).toBeUndefined();
  });

  it('resolveRevisions: a ref by its short name, HEAD, ~N and ^N steps and a tag peeled, as git rev-parse names them (doctor --pushed origin/main..HEAD)', async () => {
    for (const name of ['merges', 'packed merges', 'linked worktree']) {
      const { history, dir } = pick(name);
      const names = ['HEAD', 'HEAD~1', 'HEAD^', 'HEAD^2', 'HEAD~1^2', 'HEAD^0', 'origin/side', 'origin/main', 'origin', 'refs/remotes/origin/side', 'v1', 'v1~1', 'main', 'nope', 'HEAD~999', 'HEAD^3'];
      const git_ = (n: string) => gitTry(dir, ['rev-parse', '--verify', '--quiet', `${n}^{commit}`]);
      const expected = names.map((n) => (git_(n).status === 0 ? git_(n).stdout.trim() : null));
      expect(await history.resolveRevisions(names), name).toEqual(expected);
      expect(expected.filter((x) => x !== null).length, name).toBeGreaterThan(3);
    }
  });

  it("fileRevisions: the file's own first-parent revisions, with blob ids, and their contents", async () => {
    const { history, commits, dir } = pick('merges');
    const revs = await history.fileRevisions(['side.txt']);
    expect(revs.map((r) => r.sha)).toEqual([commits.crissCross, commits.mergeSide]);
    expect(revs[0]!.blob).toBe(git(dir, ['rev-parse', `${commits.crissCross}:side.txt`]).trim());
    const blobs = await history.readBlobs([revs[0]!.blob!, revs[1]!.blob!, commits.m2 as string], 1 << 20);
    expect([...blobs.values()].sort()).toEqual(['side\n', 'side 2\n'].sort());
    expect((await history.readBlobs([revs[0]!.blob!], 3)).size).toBe(0);
    // With each commit's parents: a merge names the side it took the file from.
    expect(revs.map((r) => r.parents)).toEqual([[commits.m3, commits.s2], [commits.m2, commits.s1]]);
    // Along another commit's first-parent line: the side branch's own revisions.
    expect((await history.fileRevisions(['side.txt'], commits.s2 as string)).map((r) => r.sha)).toEqual([commits.s2, commits.s1]);
    expect(await history.fileRevisions(['side.txt'], 'deadbeef'.repeat(5))).toEqual([]);
  });

  it('clock skew: the walk stops at a commit older than the cut-off; ancestry ignores dates', async () => {
    const { history, commits } = pick('clock skew');
    expect((await history.commitsSince(seconds(day(6)))).map((c) => c.sha)).toEqual([commits.tip]);
    // Unless the commit it stops at is not in the checkpoint commit's history: then it goes on
    // behind it, and lists it too, marked as made after the anchor (its date says before).
    const past = await history.commitsSince(seconds(day(6)), { anchor: commits.newer });
    expect(past.map((c) => c.sha)).toEqual([commits.tip, commits.newer, commits.older]);
    expect(past.map((c) => c.pastAnchor ?? false)).toEqual([false, false, true]);
    expect((await history.commitsSince(seconds(day(6)), { anchor: commits.older })).map((c) => c.sha)).toEqual([commits.tip]);
    expect(await history.isInHeadHistory(commits.older as string)).toBe(true);
    // Ancestry follows the graph, not the dates: an ancestor reached only through an older
    // (skewed) commit is still in HEAD's history.
    expect(await history.isInHeadHistory(commits.newer as string)).toBe(true);
  });

  it('shallow clone: boundary commits are roots with everything added', async () => {
    const { history, commits } = pick('shallow linear');
    expect(await history.isShallow()).toBe(true);
    const all = await history.commitsSince(0);
    expect(all.map((c) => c.sha)).toEqual([commits.sameSecond, commits.fileToDir, commits.chmodded]);
    expect(byCommit(all, commits.chmodded)).toMatchObject({
      parents: [],
      changes: [
        { status: 'A', path: '.gitignore' },
        { status: 'A', path: 'a.txt' },
        { status: 'A', path: 'docs/api/ref.md' },
        { status: 'A', path: 'docs/guide.md' },
      ],
    });
    expect(await history.resolveCommit(commits.added as string)).toBeNull();
    expect(await history.isInHeadHistory(commits.added as string)).toBe(false);
    expect(await pick('linear').history.isShallow()).toBe(false);
  });

  it('detached HEAD and linked worktree: HEAD, branch and history of the right checkout', async () => {
    const detached = pick('detached');
    expect(await detached.history.head()).toEqual({ sha: detached.commits.older, branch: null });
    expect(await detached.history.isInHeadHistory(detached.commits.tip as string)).toBe(false);
    const linked = pick('linked worktree');
    expect(await linked.history.head()).toEqual({ sha: linked.commits.wtCommit, branch: 'wt-branch' });
    expect((await linked.history.commitsSince(seconds(day(7)))).map((c) => c.subject)).toEqual(['commit in linked worktree']);
    expect(await linked.history.isInHeadHistory(linked.commits.deleted as string)).toBe(false);
    expect(await linked.history.uncommittedPaths(['a.txt', 'wt.txt', 'docs/guide.md'])).toEqual(['a.txt']);
  });

  it('no commits: no HEAD, no history, every present file uncommitted', async () => {
    const { history } = pick('no commits');
    expect(await history.head()).toBeNull();
    expect(await history.commitsSince(0)).toEqual([]);
    expect(await history.isShallow()).toBe(false);
    expect(await history.uncommittedPaths(['untracked.txt', 'staged.txt', 'missing.txt'])).toEqual(['untracked.txt', 'staged.txt']);
  });
});

it('any message bytes under a single-byte encoding (or UTF-8, ASCII, an unknown one): both engines read what git log prints', async () => {
  const dir = makeRepo();
  try {
    // Bytes weighted toward the ranges where decoders differ (C1, the code pages' holes). Multi-byte
    // encodings are left to the fixed cases: glibc's and WHATWG's tables differ on rare sequences.
    const byte = fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xa0 }), fc.integer({ min: 0x80, max: 0xff }));
    const encoding = fc.constantFrom('ISO-8859-1', 'latin1', 'windows-1252', 'CP1252', 'ISO-8859-15', 'KOI8-R', 'KOI8-U', 'windows-1251', 'windows-1250', 'ISO-8859-2', 'ISO-8859-3', 'IBM866', 'UTF-8', 'ASCII', 'x-unknown');
    const cases = fc.sample(fc.tuple(encoding, fc.array(byte, { minLength: 1, maxLength: 12 })), { numRuns: 40, seed: 12 });
    cases.forEach(([enc, bytes], n) => {
      writeFileSync(join(dir, '.git/MSG'), Buffer.from([...Buffer.from(`m${n} `), ...bytes, 0x0a]));
      git(dir, ['-c', `i18n.commitEncoding=${enc}`, 'commit', '-q', '--allow-empty', '--cleanup=verbatim', '-F', '.git/MSG'], dateEnv(day(2)));
    });
    const [native, iso] = await Promise.all([createHistory({ dir, engine: 'native' }), createHistory({ dir, engine: 'isomorphic' })]);
    const read = async (h: GitHistory) => (await h.commitsSince(0)).map(({ sha, subject, body }) => ({ sha, subject, body }));
    const fromNative = await read(native);
    expect(fromNative).toHaveLength(cases.length + 1);
    expect(await read(iso)).toEqual(fromNative);
  } finally {
    cleanup(dir);
  }
});

it('submodulesIn lists a submodule\'s gitlink (path -> pinned commit) that filesIn leaves out, alike on both engines (12-06)', async () => {
  const [dir, sub] = [makeRepo(), makeRepo()];
  try {
    write(sub, 'lib/s.ts', 'export {};\n');
    const pinned = commitAll(sub, 'sub', day(2));
    write(dir, 'vendor/x.ts', 'export {};\n');
    const before = commitAll(dir, 'vendor files', day(2));
    git(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/sub']);
    const head = commitAll(dir, 'vendor', day(3));
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir, engine });
      expect([...(await history.submodulesIn(head, ['', 'vendor', 'vendor/sub', 'missing']))], engine).toEqual([['vendor/sub', pinned]]);
      expect([...(await history.filesIn(head, ['vendor'], { recursive: true })).keys()], engine).toEqual(['vendor/x.ts']);
      expect(await history.submodulesIn('deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', ['vendor']), engine).toEqual(new Map());
      // Asked together for many tips (a push of many refs), as asked one by one.
      const each = await history.submodulesInEach([head, before, 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef', head], ['', 'vendor', 'vendor/sub', 'missing']);
      expect(each.map((m) => [...m]), engine).toEqual([[['vendor/sub', pinned]], [], [], [['vendor/sub', pinned]]]);
    }
  } finally {
    cleanup(dir);
    cleanup(sub);
  }
});

it('linksInEach lists the symbolic links filesIn counts among the files, alike on both engines', async () => {
  const dir = makeRepo();
  try {
    write(dir, 'meta/cps/a.json', '{}\n');
    write(dir, '.checkpoints', 'meta/cps'); // a plain file first: its name, not a link
    const plain = commitAll(dir, 'plain', day(2));
    rmSync(join(dir, '.checkpoints'));
    symlinkSync('meta/cps', join(dir, '.checkpoints'));
    symlinkSync('a.json', join(dir, 'meta/cps/b.json'));
    const linked = commitAll(dir, 'linked', day(3));
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir, engine });
      // Both tops read in one batch (native: the trees read together), a missing commit listing nothing.
      const each = await history.linksInEach([linked, plain, 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef'], ['', 'meta/cps']);
      const blob = (rev: string, path: string) => git(dir, ['rev-parse', `${rev}:${path}`]).trim();
      expect(each.map((m) => [...m].sort()), engine).toEqual([[['.checkpoints', blob(linked, '.checkpoints')], ['meta/cps/b.json', blob(linked, 'meta/cps/b.json')]], [], []]);
      expect([...(await history.linksInEach([linked], ['']))[0]!.keys()], engine).toEqual(['.checkpoints']);
      // filesIn still lists a link among the files.
      expect((await history.filesIn(linked, [''])).has('.checkpoints'), engine).toBe(true);
      expect((await history.readBlobs([blob(linked, '.checkpoints')], 100)).get(blob(linked, '.checkpoints')), engine).toBe('meta/cps');
    }
  } finally {
    cleanup(dir);
  }
});

it('a rename of an executable keeps R; an untracked directory is not a file', async () => {
  const dir = makeRepo();
  try {
    write(dir, 'tool.sh', 'echo hi\n');
    chmodSync(join(dir, 'tool.sh'), 0o755);
    commitAll(dir, 'tool', day(2));
    mkdirSync(join(dir, 'bin'));
    git(dir, ['mv', 'tool.sh', 'bin/tool.sh']);
    const moved = commitAll(dir, 'move tool', day(3));
    mkdirSync(join(dir, 'scratch'));
    writeFileSync(join(dir, 'scratch/file'), 'x');
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir, engine });
      expect(byCommit(await history.commitsSince(0), moved).changes).toEqual([{ status: 'R', path: 'bin/tool.sh', from: 'tool.sh' }]);
      expect(await history.uncommittedPaths(['scratch', 'scratch/file', 'bin/tool.sh'])).toEqual(['scratch/file']);
    }
  } finally {
    cleanup(dir);
  }
});

it('an executable bit alone counts as a change only when core.filemode is on; links and content always count', async () => {
  const dir = makeRepo();
  try {
    write(dir, 'run.sh', 'echo run\n');
    write(dir, 'edited.txt', 'before\n');
    commitAll(dir, 'files', day(2));
    chmodSync(join(dir, 'run.sh'), 0o755);
    write(dir, 'edited.txt', 'after\n');
    for (const [mode, expected] of [['true', ['run.sh', 'edited.txt']], ['false', ['edited.txt']]] as const) {
      git(dir, ['config', 'core.filemode', mode]);
      for (const engine of ['native', 'isomorphic'] as const) {
        const history = await createHistory({ dir, engine });
        expect(await history.uncommittedPaths(['run.sh', 'edited.txt']), `${engine}, core.filemode ${mode}`).toEqual(expected);
      }
    }
  } finally {
    cleanup(dir);
  }
});

it('uncommittedPaths: staged edits, edits the work tree undid, ignored files in ignored folders, names with spaces', async () => {
  for (const commit of [true, false]) {
    const dir = makeRepo({ commit });
    try {
      write(dir, '.gitignore', 'build/\n*.log\n');
      write(dir, 'kept.txt', 'one\n');
      write(dir, 'undone.txt', 'one\n');
      write(dir, 'staged only.txt', 'one\n');
      write(dir, 'both.txt', 'one\n');
      if (commit) commitAll(dir, 'files', day(2));
      // Staged, then the work tree put back to HEAD's content: the work tree equals HEAD.
      write(dir, 'undone.txt', 'two\n');
      git(dir, ['add', 'undone.txt']);
      write(dir, 'undone.txt', 'one\n');
      write(dir, 'staged only.txt', 'two\n');
      git(dir, ['add', 'staged only.txt']);
      write(dir, 'both.txt', 'two\n');
      git(dir, ['add', 'both.txt']);
      write(dir, 'both.txt', 'three\n');
      write(dir, 'build/out/gen.js', 'x\n');
      write(dir, 'debug.log', 'x\n');
      write(dir, 'gone.txt', 'x\n');
      git(dir, ['add', 'gone.txt']);
      rmSync(join(dir, 'gone.txt'));
      const paths = ['kept.txt', 'undone.txt', 'staged only.txt', 'both.txt', 'build/out/gen.js', 'debug.log', 'gone.txt', 'never.txt'];
      // Without commits every file on disk differs from the (empty) HEAD; a file added then removed from disk does not.
      const expected = commit
        ? ['staged only.txt', 'both.txt', 'build/out/gen.js', 'debug.log']
        : ['kept.txt', 'undone.txt', 'staged only.txt', 'both.txt', 'build/out/gen.js', 'debug.log'];
      for (const engine of ['native', 'isomorphic'] as const) {
        const history = await createHistory({ dir, engine });
        expect(await history.uncommittedPaths(paths), `${engine}, ${commit ? 'with' : 'without'} commits`).toEqual(expected);
      }
    } finally {
      cleanup(dir);
    }
  }
});
