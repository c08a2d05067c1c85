// doctor = every check over every checkpoint, with one evidence walk shared by all.
import { readdirSync } from 'node:fs';
import { posix, relative, sep } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import type { CommitInfo, EngineName, GitHistory } from '../git/types.js';
import { broughtInBy } from './after.js';
import { newestByGraph } from '../git/normalize.js';
import { atOneHead } from '../git/commit-cache.js';
import { holdCacheWrites } from '../git/cache-files.js';
import { isObjectName, judge, type PushRange } from './push.js';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { shown, shownPath } from '../one-line.js';
import { judgePushedTips, ON_PUSHED_BRANCH, sentRanges } from './pushed-tips.js';
import { checkGeneratedFiles, type Untracked, checkLandedWork, checkOnline, checkProjectDir, checkSchema, checkStaleness, checkVerifiedSha, existsIn, foldedPatternDirs, generatedTargets, ignoredListed, namedAlternatives, notAFile, patternBase, lostFromPatterns, unpopulatedSubmodule } from './checks.js';
import { savedWithoutZone } from './instants.js';
import { waitsOnWork } from './blocker-waits.js';
import { datedFromWords, datedSanely, gatherEvidence, lastRemovalsAtHead, mentionsWork, toSeconds, walkBound, type Evidence } from './evidence.js';
import { commitToken } from './entries.js';
import { fieldPlaces } from '../protocol/field-places.js';
import { loadRemembered, readable, withConflicts, type Loaded } from '../read/load.js';
import { checkpointsIndex, checkpointsOutside } from '../store/index-conflicts.js';
import { outsideAsked, outsideLine, type OutsideCheckpoints } from '../store/sparse-checkout.js';
import { fetchHealth } from './online.js';
import { checkHookCurrent, checkLeftovers, checkRepoHealth } from './health.js';
import { checkNestedCheckpoints } from './nested.js';
import type { Finding } from './types.js';
import { walkDays } from '../store/config.js';
import { gitlinkedNote } from '../install/ignored.js';
import { indexNames, indexNamesAndGitlinks, NOTHING_OUTSIDE, readOutsideCheckout, type OutsideCheckout } from '../git/skip-worktree.js';
import { removes } from '../git/renames.js';
import { withEditedRenames } from './edited-renames.js';
import { sameAsSaved, unvouched, type SameAsSaved } from './net-change.js';
import { changedFiles, cosmeticOf, newCosmeticState, weighCosmeticChanges } from './cosmetic.js';
import { cosmeticUncommitted } from './uncommitted-whitespace.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { assertIndexNotBlocking } from '../git/index-guard.js';
import { withoutTrailingSlashes } from '../text-ends.js';

export interface DoctorOptions {
  root: string;
  now: Date;
  engine?: 'auto' | EngineName;
  /** Health URL to compare with HEAD, when --online was asked for. */
  onlineUrl?: string;
  /** Ranges a push sends (pre-push hook): only findings these commits cause or carry block. */
  pushed?: readonly PushRange[];
  /**
   * Each pushed range is every commit of `<from>..<to>`, those a remote-tracking ref holds too: a
   * push judged after it reached the remote (CI), whose refs then hold all it sent.
   */
  wholeRange?: boolean;
  /** One skill's checkpoint alone (what resume shows of it): the repository's own checks are left out. */
  skill?: string;
}

export interface DoctorReport {
  findings: Finding[];
  checkpoints: number;
  engine: EngineName | null;
  head: string | null;
  /** Under --pushed: how many commits the push sends. */
  pushed: number | null;
  /** Checkpoints git holds that this sparse checkout leaves out: not checked (a note says so). */
  outside: OutsideCheckpoints | null;
}


/**
 * The ranges with each end peeled to its commit: the hook passes the local object a ref points
 * at, which for an annotated tag is the tag, whose commits are the ones the push sends. An end
 * that names no commit (a deletion's zeros, an object this clone lacks) is kept as given.
 */
async function peeledRanges(root: string, history: GitHistory | null, ranges: readonly PushRange[]): Promise<PushRange[]> {
  const deletion = (r: PushRange) => /^0+$/.test(r.to);
  if (!history) {
    // No repository here (no .git at the root): nothing is pushed from it, so a `to` is a mistake, never "no drift".
    const given = ranges.find((r) => !deletion(r));
    if (given === undefined) return [...ranges];
    throw new CheckpointError('E_USAGE', `--pushed: ${shown(given.to)}, the commit it says is pushed, names no object: ${shownPath(root)} is not in a git repository`, {
      hint: 'run doctor --pushed inside the repository being pushed; the pre-push hook passes the ranges git gives it',
    });
  }
  ranges = await namedEndsResolved(history, ranges);
  const ends = ranges.flatMap((r) => (r.from === null ? [r.to] : [r.from, r.to]));
  const commits = await history.resolveCommits(ends, { peel: true });
  let i = 0;
  const peeled = ranges.map((r) => (r.from === null ? { from: null, to: commits[i++] } : { from: commits[i++], to: commits[i++] }));
  // What is pushed is an object of this repository (a tag of a tree peels to no commit, and is
  // one); `from`, the remote's old tip, may be one this clone lacks. Asked only when one did not peel.
  // A deletion (an all-zero `to`, as git names a deleted ref) sends nothing and is never looked up.
  const unpeeled = ranges.filter((r, k) => !peeled[k]!.to && !deletion(r));
  const known = unpeeled.length ? await history.namesObjects(unpeeled.map((r) => r.to)) : [];
  const unknown = unpeeled.find((_, k) => !known[k]);
  if (unknown) {
    throw new CheckpointError('E_USAGE', `--pushed: ${shown(unknown.to)}, the commit it says is pushed, names no object in this repository`, {
      hint: 'give the commit being pushed (git rev-parse <branch>); the pre-push hook passes the ranges git gives it',
    });
  }
  return ranges.map((r, k) => ({ from: r.from === null ? null : peeled[k]!.from ?? r.from, to: peeled[k]!.to ?? r.to }));
}

/**
 * The ranges with each end given by name (`origin/main..HEAD`, typed by hand or in CI) as the
 * commit it names; one that names none is refused, never judged as pushing nothing.
 */
async function namedEndsResolved(history: GitHistory, ranges: readonly PushRange[]): Promise<readonly PushRange[]> {
  const names = [...new Set(ranges.flatMap((r) => (r.from === null ? [r.to] : [r.from, r.to])).filter((end) => !isObjectName(end)))];
  if (!names.length) return ranges;
  const shas = await history.resolveRevisions(names);
  const missing = names.find((_, i) => shas[i] === null);
  if (missing !== undefined) {
    throw new CheckpointError('E_USAGE', `--pushed: ${shown(missing)} names no commit in this repository`, {
      hint: 'give a branch, tag or remote-tracking ref git knows (git rev-parse --verify <name>), with ~N or ^N steps if you like, or a commit id',
    });
  }
  const sha = new Map(names.map((name, i) => [name, shas[i]!]));
  return ranges.map((r) => ({ from: r.from === null ? null : sha.get(r.from) ?? r.from, to: sha.get(r.to) ?? r.to }));
}

/** The check of the note saying the work tree's .checkpoints could not be read (under --pushed). */
export const WORK_TREE_UNREAD = 'work_tree';

/**
 * The work tree's checkpoints as loadRemembered reads them. Judging a push, a `.checkpoints` the
 * work tree cannot be read through (a link out of the project, a plain file: E_PATH, E_UNSAFE) is
 * a note, not a refusal: the pushed commits are judged on the checkpoints their own trees hold,
 * which git's objects give whatever the work tree has (red team 62d 3). Elsewhere it is refused.
 */
function workTreeCheckpoints(opts: DoctorOptions): { loaded: Loaded[]; unread: Finding | null } {
  try {
    return { loaded: loadRemembered(opts.root, opts.now, opts.skill), unread: null };
  } catch (e) {
    if (!opts.pushed || !isCheckpointError(e) || (e.code !== 'E_PATH' && e.code !== 'E_UNSAFE')) throw e;
    const hint = e.hint ? ` (${e.hint})` : '';
    return {
      loaded: [],
      unread: { level: 'info', check: WORK_TREE_UNREAD, skill: null, path: '.checkpoints/', message: `the work tree's checkpoints were not read: ${e.message}${hint}; the push is judged on the checkpoints the pushed commits hold` },
    };
  }
}

/** The commit names verified_for_sha values hold, to look up while the walk runs. */
function verifyTokens(checkpoints: readonly Checkpoint[]): string[] {
  return checkpoints.flatMap((cp) => fieldPlaces(cp, 'verified_for_sha').flatMap(({ value }) => {
    const token = typeof value === 'string' && value.trim() ? commitToken(value) : null;
    return token === null ? [] : [token];
  }));
}

/** `file` (under `root`) relative to it, `/`-separated: the plain prefix cut when it is one, as path.relative gives. */
function repoPath(root: string, file: string): string {
  const base = root.endsWith(sep) ? root : root + sep;
  const rest = file.startsWith(base) ? file.slice(base.length).split(sep) : null;
  const plain = rest !== null && rest.every((seg) => seg !== '' && seg !== '.' && seg !== '..');
  return (plain ? rest : relative(root, file).split(sep)).join('/');
}

export function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  // Every cache and the index reader ask what HEAD is: the git dir's files are read once. What
  // the run learnt is kept only when it completes: a refusal leaves .git as it found it.
  return holdCacheWrites(() => atOneHead(opts.root, () => doctor(opts)));
}

async function doctor(opts: DoctorOptions): Promise<DoctorReport> {
  // A checkpoint unchanged since a run judged it is not judged again (verdicts.ts: git's own
  // rule for trusting a file's stat); the clock's rule and every drift check still run live.
  // One git's index holds unmerged (mid-merge, -rebase, -cherry-pick) is an error naming what ends
  // the merge, as status and next say: the tree holds one side's text, never checked as the state.
  // One a sparse checkout leaves out is in git, not here: a note (as a listed file left out is), never "0 checkpoints, no drift".
  const index = checkpointsIndex(opts.root);
  const leftOut = outsideAsked(checkpointsOutside(opts.root, index), opts.skill);
  const workTree = workTreeCheckpoints(opts);
  const loaded = withConflicts(opts.root, workTree.loaded, opts.skill, index).filter((l) => !(leftOut && l.skill === opts.skill && !l.file && !l.conflict));
  // A file whose only errors are hand-written slips is checked as status, next and resume read it.
  const readOnes = loaded.flatMap((l) => readable(l)?.checkpoint ?? []);
  // Skills whose file stamps updated_at without its zone: read as UTC, the save may be hours later.
  const unzoned = new Map(loaded.flatMap((l) => {
    const loose = l.file ? savedWithoutZone(l.file.value) : undefined;
    return loose === undefined ? [] : [[l.skill, loose] as const];
  }));
  // Each checkpoint's repo-relative path, worked out once (every check asks for it).
  const rels = new Map<string, string>();
  for (const l of loaded) if (!rels.has(l.skill)) rels.set(l.skill, repoPath(opts.root, l.path));
  const relOf = (skill: string) => rels.get(skill) ?? null;
  // An updated_at far in the future would date every change and landing "before" it: drift is
  // dated from a sane instant instead, and the clock's warning says which (datedSanely).
  const sane = await datedSanely(opts.root, readOnes.map((cp) => ({ rel: relOf(cp.skill)!, cp })), opts.now, opts.engine);
  const checkpoints = sane.files.map((f) => f.cp);
  // A blocker waiting on work is dated like an action (blocker-waits.ts): its file's revisions are read too.
  const dateQueued = checkpoints.filter((cp) => mentionsWork(cp) || waitsOnWork(cp)).map((cp) => ({ rel: relOf(cp.skill)!, cp }));
  const entries = new Map();
  // Each file looked for once in this run, however many checkpoints and checks name it.
  const exists = existsIn(opts.root);
  const targets = checkpoints.flatMap((cp) => generatedTargets(cp, opts.root, entries, exists));
  const cpRel = (cp: Checkpoint) => rels.get(cp.skill)!;
  // Checkpoints often list the same files: each is looked at once.
  // A listed path doctor cannot read as a file (a FIFO, one through a link out of the repository)
  // is a note (checkGeneratedFiles), never a question for git: neither engine looks beyond a link.
  // A brace's literal alternatives ("lib/{a,b}.ts") are listed files too: one missing is looked for as one.
  const generated = [...new Set(targets.flatMap((t) => (t.rel !== null ? [t.rel] : t.target.kind === 'pattern' ? namedAlternatives(opts.root, t.target) : [])))].filter((rel) => notAFile(rel, exists.at!(rel)) === null);
  const present = new Set(generated.filter(exists));
  // Bare names the work tree lacks ("Makefile", "TBD"): files only if git knows them. None: nothing asked.
  const bare = [...new Set(targets.flatMap((t) => (t.target.kind === 'note' && t.target.name !== undefined ? [t.target.name] : [])))];
  // Uncommitted edits matter only for literal generated files (the checkpoints are asked
  // about with them, for their level): none named, no git status at all.
  const watched = generated.length || bare.length ? [...new Set([...generated, ...bare, ...checkpoints.map(cpRel)])] : [];
  // File lists only where the checks look: the generated files (a missing one by its
  // directory, so a rename within it pairs up and names the new path; a pattern by its fixed
  // directory) and the checkpoints themselves (a session's own commits are not drift).
  const scopeOf = (rel: string) => (present.has(rel) || !rel.includes('/') ? rel : rel.slice(0, rel.lastIndexOf('/')));
  const alternatives = new Set(targets.flatMap((t) => (t.target.kind === 'pattern' ? t.target.alternatives : [])));
  const patterns = [...alternatives].flatMap((a) => patternBase(opts.root, a));
  // A missing file at the top has no folder to list: the top's files stand in for it, so a rename
  // to one of them pairs up there too.
  const topFiles = [...generated.filter((rel) => !present.has(rel)), ...bare].some((rel) => !rel.includes('/')) ? filesAtTop(opts.root) : [];
  const changesUnder = [...new Set([...generated.map(scopeOf), ...bare.map(scopeOf), ...checkpoints.map(cpRel), ...patterns, ...topFiles])];
  const missing = generated.filter((rel) => !present.has(rel));
  const notBefore = walkBound(opts.root, opts.now);
  // doctor vouches for the work tree (git status), so an index git would wait on is refused
  // even when no file is watched; the history questions themselves never read it.
  assertIndexNotBlocking(opts.root, ['status']);
  const recorded = checkpoints.map((cp) => ({ rel: cpRel(cp), cp }));
  const evidence = await gatherEvidence(opts.root, checkpoints, { engine: opts.engine, repoState: true, dateQueued, changesUnder, watch: watched, notBefore, verify: verifyTokens(checkpoints), missing, recorded });
  const ranges = opts.pushed ? await peeledRanges(opts.root, evidence.history, opts.pushed) : null;
  // What each range sends, asked once: the walk below and the pushed tips' judgement share it.
  const sent = ranges && evidence.history ? await sentRanges(evidence.history, ranges, { wholeRange: opts.wholeRange }) : [];
  // The commits a push sends in HEAD's history are judged in the work tree too, however far back
  // the walk was cut. Another branch's (a side branch pushed while main is checked out) are not:
  // what they changed is not in this work tree, and its tip is judged as pushed, alone, so the
  // push reads the same whichever branch is checked out (red team 62d, 07).
  if (ranges) {
    const head = evidence.head?.sha;
    const inHead = await Promise.all(sent.map(({ range }) => head !== undefined && (range.to.toLowerCase() === head || evidence.history!.isInHeadHistory(range.to))));
    const walked = new Set(evidence.commits.map((c) => c.sha));
    const more = new Map(sent.flatMap(({ commits }, i) => (inHead[i] ? commits.filter((c) => !walked.has(c.sha)).map((c) => [c.sha, c] as const) : [])));
    if (more.size) evidence.commits = newestByGraph([...evidence.commits, ...more.values()]);
  }
  // Read only when a listed file is missing or a pattern matches nothing: a sparse checkout's doing?
  let outside: OutsideCheckout | undefined;
  const outsideCheckout = () => (outside ??= evidence.history === null ? NOTHING_OUTSIDE : outsideOf(opts.root));
  let held: Set<string> | undefined;
  const inIndex = (rel: string) => (held ??= evidence.history === null ? new Set() : indexNames(opts.root, [...bare, ...missing])).has(rel);
  const findings: Finding[] = [...(workTree.unread ? [workTree.unread] : []), ...loaded.flatMap(checkSchema)];
  if (leftOut) findings.push({ level: 'info', check: 'sparse_checkout', skill: null, path: '.checkpoints/', message: outsideLine(leftOut) });
  for (const f of findings) {
    const rel = f.skill === null ? null : relOf(f.skill);
    if (f.check === 'schema' && f.path === 'updated_at' && rel !== null && sane.from.has(rel) && /in the future/.test(f.message)) f.message += datedFromWords(sane.from.get(rel)!);
  }
  const repoChecks = opts.skill === undefined;
  if (repoChecks) findings.push(...(await checkRepoHealth(opts.root, evidence.history !== null)), ...checkHookCurrent(opts.root), ...checkLeftovers(opts.root), ...checkNestedCheckpoints(opts.root));
  const verified = await Promise.all(checkpoints.map((cp) => checkVerifiedSha(cp, evidence)));
  // A pattern matching nothing here under a folder a sparse index folds: HEAD's tree says if it matches there.
  const folded = evidence.history && evidence.head ? foldedPatternDirs(targets, opts.root, evidence, exists, outsideCheckout) : [];
  const headFolded = folded.length ? new Set((await evidence.history!.filesIn(evidence.head!.sha, folded, { recursive: true })).keys()) : undefined;
  // A missing file (a bare name too: "Makefile", "docs/my notes.md"), or a pattern's match, that a
  // walked commit deleted may have moved out of the folders the walk lists changes under (`git mv
  // src/gen src/generated`, `git mv Makefile build/`): that commit's own changes, every path, say so.
  if (evidence.history && !evidence.shallow) await movedOut(evidence, [...missing, ...bare], lostFromPatterns(targets, opts.root, evidence, exists));
  // How far back a missing file the walk does not explain is searched for its removal (none: no history to search).
  const removalsSince = evidence.history && !evidence.shallow ? bareReach(checkpoints, notBefore) : undefined;
  // Every check runs before the work tree's answer is awaited: git reports it meanwhile.
  const perCheckpoint = checkpoints.map((cp, i) => ({
    before: [...checkProjectDir(cp, opts.root, evidence.history !== null, exists), ...checkStaleness(cp, opts.now)],
    files: checkGeneratedFiles(cp, { root: opts.root, evidence, checkpointRel: cpRel(cp), exists, outside: outsideCheckout, inIndex, headFolded, removalsSince, unzoned: unzoned.get(cp.skill) }),
    after: [...checkLandedWork(cp, evidence, relOf(cp.skill)!), ...verified[i]!],
  }));
  const dirty = await evidence.uncommitted;
  // A missing file the walk does not explain (a commit with a clock behind is dated before the
  // checkpoint, the walk's bound, though made after it) is looked for as a bare name is.
  const settled = (n: string) => !dirty.has(n) && !outsideCheckout().files.has(n) && unpopulatedSubmodule(outsideCheckout(), n, exists.at!) === undefined;
  const unexplained = [...bare.filter(settled), ...missing.filter((rel) => settled(rel) && !inIndex(rel))];
  if (unexplained.length && removalsSince !== undefined) await removalsOfBareNames(opts.root, opts.engine, evidence, unexplained, removalsSince);
  // A missing file no commit explains that git ignores (a build output not built here: a fresh
  // clone, CI) is no drift: git is asked only when there is such a file.
  const ignored = evidence.history === null ? undefined : await ignoredListed(evidence.history, missing.filter((rel) => settled(rel) && !inIndex(rel) && !touchedIn([...evidence.commits, ...evidence.removals], rel)), { prefilter: opts.root });
  const unsure = evidence.history?.unsure;
  const untracked = await untrackedOf(opts.root, evidence, generated.filter((rel) => present.has(rel) && dirty.has(rel)));
  // A listed file whose uncommitted change is only whitespace at line ends is not edited, as a commit of that change is not.
  const own = new Set(checkpoints.map(cpRel));
  const cosmeticDirty = evidence.history && evidence.head ? await cosmeticUncommitted(opts.root, evidence.history, evidence.head.sha, generated.filter((rel) => present.has(rel) && dirty.has(rel) && !own.has(rel) && !untracked.has(rel))) : new Set<string>();
  const edited = cosmeticDirty.size ? new Set([...dirty].filter((rel) => !cosmeticDirty.has(rel))) : dirty;
  const fileFindings = perCheckpoint.map(({ files }) => files(edited, unsure, untracked, ignored));
  // A change found is weighed: an edit of only line endings or trailing whitespace is none
  // (cosmetic.ts), and a file changed back since the save is no drift (net-change.ts). Blobs and
  // trees are read only when a change was found, once for all such checkpoints. Each recheck may
  // name another of a glob's matches: asked about in turn (cosmetic edits twice, as a change
  // back may leave one named).
  const saves = checkpoints.map((cp) => ({ rel: cpRel(cp), sec: toSeconds(cp.updated_at) }));
  const cosmetic = newCosmeticState();
  const sames = new Map<number, SameAsSaved>();
  const recheck = (i: number) => {
    const cp = checkpoints[i]!;
    return checkGeneratedFiles(cp, { root: opts.root, evidence, checkpointRel: cpRel(cp), exists, outside: outsideCheckout, inIndex, headFolded, removalsSince, unzoned: unzoned.get(cp.skill), sameAsSaved: sames.get(i), cosmetic: cosmeticOf(cosmetic) })(edited, unsure, untracked, ignored);
  };
  // Answers about commits and blobs are kept in .git/checkpoint, but not for an engine asked for by name: that one is exercised.
  const keep = (opts.engine ?? 'auto') === 'auto';
  await weighCosmeticChanges(opts.root, evidence, fileFindings, cosmetic, recheck, keep);
  await weighChangesAgainstSaves(opts.root, evidence, saves, fileFindings, (i, same) => {
    sames.set(i, same);
    return recheck(i);
  }, keep);
  await weighCosmeticChanges(opts.root, evidence, fileFindings, cosmetic, recheck, keep);
  perCheckpoint.forEach(({ before, after }, i) => findings.push(...before, ...fileFindings[i]!, ...after));
  if (evidence.history && repoChecks) findings.push(...(await ignoredCheckpoints(opts.root, evidence.history, loaded.map((l) => ({ skill: l.skill, rel: relOf(l.skill)! })))));
  if (opts.onlineUrl !== undefined) findings.push(...checkOnline(await fetchHealth(opts.onlineUrl), evidence.head?.sha ?? null));
  // A commit on HEAD's line made after a checkpoint, dated before the walk_days bound: said so.
  const bySkill = new Map(checkpoints.map((cp) => [cpRel(cp), cp.skill]));
  for (const { rel, stop } of evidence.hiddenBy) findings.push(hiddenFinding(bySkill.get(rel) ?? null, stop, walkDays(opts.root)));
  // A shallow clone's history ends at its boundary: say so rather than what the cut searched.
  if (evidence.shallow) findings.push(SHALLOW_FINDING);
  else if (evidence.cutAt !== null) findings.push(cutFinding(evidence, walkDays(opts.root)));
  if (ranges) {
    // A push is judged as pushed: the work tree's findings are printed and never block.
    const tips = evidence.history ? await judgePushedTips(opts.root, opts.now, evidence, sent) : { findings: [], commits: [] };
    return { findings: mergePushed(findings, tips.findings, broughtInBySha(evidence.commits)), pushed: tips.commits.length, checkpoints: counted(loaded), engine: evidence.history?.engine ?? null, head: evidence.head?.sha ?? null, outside: leftOut };
  }
  return { findings: judge(findings, null, relOf), pushed: null, checkpoints: counted(loaded), engine: evidence.history?.engine ?? null, head: evidence.head?.sha ?? null, outside: leftOut };
}

/** Rounds of weighChangesAgainstSaves at most: each asks only about files the last one newly called changed. */
const NET_CHANGE_ROUNDS = 4;

/**
 * The generated-file findings `found` (per checkpoint) weighed against what each save saw: a file
 * changed since that holds the blob it held at the save was changed back (net-change.ts), and
 * `recheck` runs that checkpoint's file checks again knowing it. Only the files a finding names as
 * changed are looked up (one listing of their folders at HEAD and the saves per round), so a
 * real change costs one small listing, not one of every file the later commits touched; a round
 * that finds one changed back asks again about what the recheck then names.
 */
async function weighChangesAgainstSaves(
  root: string,
  evidence: Evidence,
  saves: readonly { rel: string; sec: number }[],
  found: Finding[][],
  recheck: (i: number, same: SameAsSaved) => Finding[],
  keep: boolean,
): Promise<void> {
  const head = evidence.head?.sha;
  if (!evidence.history || head === undefined || !evidence.savedIn) return;
  // Per checkpoint: the save's commit, the files its tree cannot vouch for, those asked, and what each round answered.
  const state = new Map<number, { saved: string; elsewhere: Set<string>; asked: Set<string>; answers: SameAsSaved[] }>();
  for (let round = 0; round < NET_CHANGE_ROUNDS; round++) {
    const asks: { i: number; saved: string; files: string[] }[] = [];
    found.forEach((findings, i) => {
      const files = changedFiles(findings);
      if (!files.length) return;
      let st = state.get(i);
      if (st === undefined) {
        const { rel, sec } = saves[i]!;
        const saved = evidence.savedIn!(rel, sec);
        if (saved === null) return;
        const elsewhere = unvouched(evidence.commits, evidence.madeAfter(rel, null, sec), rel, saved);
        st = { saved, elsewhere, asked: new Set(), answers: [] };
        state.set(i, st);
      }
      const fresh = files.filter((f) => !st!.asked.has(f) && !st!.elsewhere.has(f));
      for (const f of fresh) st.asked.add(f);
      if (fresh.length) asks.push({ i, saved: st.saved, files: fresh });
    });
    if (!asks.length) return;
    const answers = await sameAsSaved(root, evidence.history, head, asks, keep);
    let again = false;
    asks.forEach(({ i, files }, k) => {
      const st = state.get(i)!;
      st.answers.push(answers[k]!);
      // Only a file changed back alters what the checks find.
      if (!files.some((f) => answers[k]!(f))) return;
      again = true;
      found[i] = recheck(i, (file) => !st.elsewhere.has(file) && st.answers.some((same) => same(file)));
    });
    if (!again) return;
  }
}

/**
 * Checkpoints git ignores (a `.gitignore` rule over them): never committed, so no other clone or
 * branch sees them. Only files the index lacks are asked about, and git only when the ignore
 * files read here may ignore one.
 */
async function ignoredCheckpoints(root: string, history: GitHistory, files: readonly { skill: string; rel: string }[]): Promise<Finding[]> {
  const { held: tracked, gitlinks } = indexNamesAndGitlinks(root, files.map((f) => f.rel));
  const untracked = files.filter((f) => !tracked.has(f.rel));
  if (!untracked.length) return [];
  // Inside a submodule's gitlink (a folder committed as one, never initialised): git add skips
  // every file under it as the submodule's, so none is committed, ignored or not.
  const linked = untracked.flatMap((f) => {
    const link = gitlinks.find((l) => f.rel.startsWith(`${l}/`));
    return link === undefined ? [] : [{ ...f, link }];
  });
  const rest = untracked.filter((f) => !linked.some((l) => l.rel === f.rel));
  const ignored = rest.length ? await ignoredListed(history, rest.map((f) => f.rel), { prefilter: root }) : new Set<string>();
  // A rule that ignores the folder itself (`.checkpoints/`): git cannot re-include a file in an
  // excluded folder, so `!<file>` after it does nothing; the folder's contents must be the rule.
  const folders = [...new Set(rest.filter((f) => ignored.has(f.rel)).map((f) => posix.dirname(f.rel)))];
  const ignoresFolder = folders.length ? (await import('../install/ignored.js')).ignoresFolder : () => false;
  const ignoredFolders = new Set(folders.filter((folder) => ignoresFolder(root, folder)));
  const fix = (rel: string) => {
    const folder = posix.dirname(rel);
    return ignoredFolders.has(folder)
      ? `it ignores the ${folder}/ folder itself, and git cannot re-include a file in an ignored folder: remove it, or replace it with ${folder}/* and add !${rel} after that`
      : `remove it, or add !${rel} after it`;
  };
  return [
    ...linked.map((f): Finding => ({ level: 'warning', check: 'gitlink', skill: f.skill, path: '', message: gitlinkedNote(f.link, f.rel) })),
    ...rest.filter((f) => ignored.has(f.rel)).map((f): Finding => ({
      level: 'warning', check: 'gitignore', skill: f.skill, path: '',
      message: `git ignores ${f.rel}: it is never committed, so no other clone or branch sees it; \`git check-ignore -v ${f.rel}\` names the rule: ${fix(f.rel)}`,
    })),
  ];
}

/** Whether one of `commits` changed `rel`, or a file under it when it is a folder ("build/", "build"). */
function touchedIn(commits: readonly CommitInfo[], rel: string): boolean {
  const name = withoutTrailingSlashes(rel);
  const hit = (p: string | undefined) => p !== undefined && (p === name || p.startsWith(`${name}/`));
  return commits.some((c) => c.changes.some((ch) => hit(ch.path) || hit(ch.from)));
}

/** The index's skip-worktree entries for the work tree at `root` (none where there is no git dir there). */
function outsideOf(root: string): OutsideCheckout {
  try {
    return readOutsideCheckout(resolveGitDirsSync(root).gitdir);
  } catch {
    return NOTHING_OUTSIDE;
  }
}

/**
 * A bare name or missing file the walk does not explain ("Makefile" deleted before the checkpoint
 * was written, or by a commit dated before it; a word like "TBD" that never was a file): its last
 * removal in HEAD's history back to `since` (bareReach), the answer kept by HEAD. Added to the
 * evidence's removals, where a missing file's commit is looked for.
 */
async function removalsOfBareNames(root: string, engine: DoctorOptions['engine'], evidence: Evidence, names: readonly string[], since: number): Promise<void> {
  const touches = (c: CommitInfo, n: string) => c.changes.some((ch) => ch.path === n || ch.from === n);
  const unexplained = names.filter((n) => !evidence.commits.some((c) => touches(c, n)) && !evidence.removals.some((c) => removes(c, n)));
  if (!unexplained.length || evidence.shallow) return;
  const removed = await lastRemovalsAtHead((engine ?? 'auto') === 'auto' && root, BARE_REMOVALS_FILE, evidence.history!, unexplained, since);
  const asked = new Set(unexplained);
  const found = await withEditedRenames(evidence.history!, removed, (_, path) => asked.has(path));
  const known = new Set(evidence.removals.map((c) => c.sha));
  evidence.removals = newestByGraph([...evidence.removals, ...found.filter((c) => !known.has(c.sha))]);
}

const BARE_REMOVALS_FILE = 'bare-removals.json';

/**
 * The walk lists a commit's changes only under the listed files' folders (and a pattern's fixed
 * folder), so a file it moved out of them (a folder renamed) reads as deleted there. The newest
 * walked commit deleting a missing listed file, or a file a pattern would match and no longer does,
 * is read again with all its changes (exact renames paired, as the walk pairs them), so the
 * finding says where the file went. Those commits only: no further walk. A deletion still left
 * in them, or in the removals found in older history, may be a rename with edits: asked of those
 * commits alone (withEditedRenames).
 */
async function movedOut(evidence: Evidence, missing: readonly string[], lost: readonly ((path: string) => boolean)[]): Promise<void> {
  if (!missing.length && !lost.length) return;
  const gone = new Set(missing);
  const isGone = (path: string) => gone.has(path) || lost.some((test) => test(path));
  const newest = new Map<string, string>();
  for (const c of evidence.commits) {
    for (const ch of c.changes) {
      if (ch.status === 'D' && !newest.has(ch.path) && isGone(ch.path)) newest.set(ch.path, c.sha);
    }
  }
  const full = newest.size ? new Map((await evidence.history!.changesOf([...new Set(newest.values())])).map((c) => [c.sha, c.changes])) : new Map<string, CommitInfo['changes']>();
  const commits = evidence.commits.map((c) => {
    const changes = full.get(c.sha);
    return changes === undefined ? c : { ...c, changes };
  });
  [evidence.commits, evidence.removals] = await Promise.all([
    withEditedRenames(evidence.history!, commits, (c, path) => newest.get(path) === c.sha),
    withEditedRenames(evidence.history!, evidence.removals, (_, path) => isGone(path)),
  ]);
}

/**
 * How far back a bare name's removal is looked for: the walk_days bound (the start of its day, so
 * the kept answer serves a day's runs), or the oldest checkpoint's save when older (as far as any
 * missing file's removal is searched); all history under walk_days 0.
 */
function bareReach(checkpoints: readonly Checkpoint[], notBefore: number | undefined): number {
  if (notBefore === undefined) return 0;
  const saved = checkpoints.map((c) => toSeconds(c.updated_at)).filter((t) => Number.isFinite(t));
  return Math.max(0, Math.min(notBefore - (notBefore % 86_400), ...saved));
}

/**
 * Of `files` (present, with uncommitted changes), those git does not track: neither the index
 * nor HEAD's tree holds them (HEAD too: an index this reader cannot follow holds nothing).
 */
async function untrackedOf(root: string, evidence: Evidence, files: readonly string[]): Promise<Map<string, Untracked>> {
  if (!files.length || evidence.history === null) return new Map();
  // A folder listed with its slash ("vendor/lib/") is held under its name (a submodule's gitlink).
  const bare = (rel: string) => withoutTrailingSlashes(rel);
  const held = indexNames(root, files.map(bare));
  let candidates = files.filter((rel) => !held.has(bare(rel)));
  if (candidates.length && evidence.head !== null) {
    const dirs = [...new Set(candidates.map((rel) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '')))];
    const inHead = await evidence.history.filesIn(evidence.head.sha, dirs);
    candidates = candidates.filter((rel) => !inHead.has(rel));
  }
  const ignored = await evidence.history.ignoredPaths(candidates);
  return new Map(candidates.map((rel) => [rel, ignored.has(rel) ? 'ignored' : 'untracked']));
}

/** Files directly in the work tree's top folder (at most a few hundred): where a file renamed at the top went. */
function filesAtTop(root: string): string[] {
  try {
    return readdirSync(root, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name).slice(0, 500);
  } catch {
    return [];
  }
}

const SHALLOW_FINDING: Finding = {
  level: 'info', check: 'history', skill: null, path: '',
  message: 'shallow clone: landings, renames and removals older than its boundary cannot be checked (`git fetch --unshallow` to check)',
};

/** The one line saying where the walk stopped and what older history was still searched. */
function cutFinding(evidence: Evidence, days: number): Finding {
  const day = (sec: number) => new Date(sec * 1000).toISOString().slice(0, 10);
  const deep = evidence.deep;
  const asked = [
    ...(deep?.tokens.length ? [`for ${listed(deep.tokens)} (still queued)`] : []),
    ...(deep?.files.length ? [`for the removal of ${listed(deep.files)}`] : []),
  ];
  const older = deep && asked.length ? `older commits back to ${day(deep.since)} were searched only ${asked.join(' and ')}` : 'older commits were not checked';
  return { level: 'info', check: 'history', skill: null, path: '', message: `history walk cut at ${day(evidence.cutAt!)} (walk_days ${days}): ${older}; set "walk_days": 0 in .checkpoints/config.json to check all` };
}

/**
 * A commit on HEAD's first-parent line that descends from the commit recording `skill`'s save but
 * is dated before the walk_days bound (skew-walk.ts's floor): the walk stops there, so what it and
 * the commits behind it did since the checkpoint was not checked. Exact (evidence.ts noteHidden).
 */
function hiddenFinding(skill: string | null, stop: string, days: number): Finding {
  const short = stop.slice(0, 7);
  return {
    level: 'info', check: 'history', skill, path: '',
    message: `${short} on HEAD's first-parent line was made after this checkpoint was committed, but is dated before the history walk's bound (walk_days ${days}; a clock behind?): what it and the commits behind it changed or landed was not checked (\`git log --first-parent ${short}\` lists them; "walk_days": 0 in .checkpoints/config.json checks them)`,
    evidence: { sha: stop },
  };
}

function listed(items: readonly string[]): string {
  return items.length <= 3 ? items.join(', ') : `${items.slice(0, 3).join(', ')} and ${items.length - 3} more`;
}

/** broughtInBy for a merge named by its sha: false for one not walked. */
function broughtInBySha(commits: readonly CommitInfo[]): (merge: string, sha: string) => boolean {
  let bySha: Map<string, CommitInfo> | null = null;
  return (merge, sha) => {
    bySha ??= new Map(commits.map((c) => [c.sha, c]));
    const m = bySha.get(merge);
    return m !== undefined && broughtInBy(commits, m, sha);
  };
}

/** How a pushed tip's own finding ends (pushed-tips.ts `where`): the tip, shortened. */
export const PUSHED_IN = / \(as pushed in ([0-9a-f]+)\)$/;

/**
 * Work-tree findings (never blocking) plus the pushed tips' findings; a tip finding that says
 * what a work-tree one already says (the tip is the checked-out state) is shown once, in the
 * work tree's words (which carry a date, or a rename found before the push). About a file,
 * "the same" is the same entry, file, kind (missing or changed) and commit, whatever the wording:
 * a side branch's commit the work tree's merge brought in is that merge's change (red team
 * 12-07: two lines, the blocking one naming a commit dated before the save).
 */
function mergePushed(workTree: readonly Finding[], tips: readonly Finding[], broughtIn: (merge: string, sha: string) => boolean): Finding[] {
  const strip = (m: string) => m.replace(PUSHED_IN, '').replace(ON_PUSHED_BRANCH, '');
  const about = (f: Finding) => (f.evidence?.file === undefined ? strip(f.message) : `${f.evidence.file}\0${f.evidence.missing === true}`);
  const key = (f: Finding) => `${f.skill}\0${f.check}\0${f.path}\0${about(f)}`;
  const tipByKey = new Map(tips.map((f) => [key(f), f]));
  // A work tree's note about a file that a pushed tip makes drift ("not tracked by git" here,
  // "not committed" as pushed): the tip's line alone says it.
  const fileOf = (f: Finding) => `${f.skill}\0${f.check}\0${f.path}\0${f.evidence?.file}`;
  const tipDrift = new Set(tips.filter((f) => f.evidence?.file !== undefined && (f.level === 'error' || f.level === 'warning')).map(fileOf));
  const superseded = (f: Finding) => (f.level === 'info' || f.level === 'advice') && f.evidence?.file !== undefined && tipDrift.has(fileOf(f));
  const shown = new Set<string>();
  const out: Finding[] = workTree.filter((f) => !superseded(f)).map((f) => {
    const tip = tipByKey.get(key(f));
    // A tip naming another commit (a side branch's own change) is its own line, unless the work
    // tree's commit is that tip itself: a merge at the tip, which brought the side branch's change in.
    const tipSha = PUSHED_IN.exec(tip?.message ?? '')?.[1];
    const sameChange = tip?.evidence?.sha === undefined || tip.evidence.sha === f.evidence?.sha || (tipSha !== undefined && f.evidence?.sha?.startsWith(tipSha) === true)
      || (f.evidence?.sha !== undefined && broughtIn(f.evidence.sha, tip.evidence.sha));
    if (!tip || !sameChange) return { ...f, blocks: false };
    shown.add(key(f));
    return { ...f, blocks: (tip.blocks ?? false) && (f.level === 'error' || f.level === 'warning') };
  });
  for (const f of tips) {
    // Advice and notes about a pushed tip repeat the work tree's; only its drift is new.
    if (shown.has(key(f)) || (f.level !== 'error' && f.level !== 'warning')) continue;
    shown.add(key(f));
    out.push(f);
  }
  return out;
}

/** The checkpoints doctor reports on: a misnamed file is a finding, not a checkpoint. */
function counted(loaded: readonly Loaded[]): number {
  return loaded.filter((l) => !l.misnamed).length;
}
