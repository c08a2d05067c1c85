// What a push sends, judged as pushed: the checkpoints in each pushed tip's tree (not the
// work tree), against the commits that push sends. Only these findings can block a push.
import { posix } from 'node:path';
import { indexNames } from '../git/skip-worktree.js';
import { isCheckpointError } from '../errors.js';
import type { CommitInfo, GitHistory } from '../git/types.js';
import { newestByGraph } from '../git/normalize.js';
import { removes } from '../git/renames.js';
import { quoted, shown } from '../one-line.js';
import { globMatcher } from '../glob.js';
import type { Checkpoint } from '../protocol/types.js';
import { listEntries, type ListEntry } from '../protocol/field-places.js';
import { validateCheckpoint } from '../protocol/validate.js';
import { numberTextIn } from '../protocol/format.js';
import { MAX_READ_BYTES, parseCheckpointText } from '../store/checkpoints.js';
import { isMisnamedCheckpoint, misnamedProblem, misnamedStem, skillFromFileName } from '../store/skill-name.js';
import { checkLandedWork, checkSchema, checkVerifiedSha, fromProjectDir, fromRepoTop, ignoredListed, inProjectFolder, notAFile, projectNames, projectSubfolder, repoRelative, repoTopPath, type Untracked } from './checks.js';
import { projectEntry } from '../store/safe-fs.js';
import { entryLookups, entryPartCandidates, entryParts, globBase, goneNote, hasGlob, parseEntry, plannedNote, underProjectName, type EntryTarget } from './entries.js';
import { gainedFiles } from './gained.js';
import { linkedDirs } from './tip-dirs.js';
import { checkNestedPushed } from './nested.js';
import { filesAt, sameInTexts, unvouched } from './net-change.js';
import { cosmeticChanges, editsInPlace, MAX_ASKED_PER_FILE } from './cosmetic.js';
import { datedFromWords, datedSanely, NO_EVIDENCE, type Evidence } from './evidence.js';
import { committedAfter, mayPrecedeUnzonedSave, savedWithoutZone, toSeconds, unzonedSave, type Unzoned } from './instants.js';
import { readable, type Loaded } from '../read/load.js';
import type { PushRange } from './push.js';
import { dateQueuedActions, recordedInstants } from './queued.js';
import { ancestorsIn, descendantsIn, queuedAfter, recordedBefore, walkGraph } from './after.js';
import type { Finding } from './types.js';
import { withoutTrailingSlashes } from '../text-ends.js';
import { markGoneCommand, splitGoneCommand } from './fix-commands.js';

const DIR = '.checkpoints';
const short = (sha: string) => sha.slice(0, 7);

export interface PushedJudgement {
  /** Findings about the pushed tips; drift among them blocks. */
  findings: Finding[];
  /** Every commit the push sends (all ranges). */
  commits: CommitInfo[];
}

/** A range the push names, once (a tag and a branch at one commit are one), with the commits it sends. */
export interface SentRange {
  range: PushRange;
  commits: CommitInfo[];
}

/**
 * The distinct ranges a push names and what each sends, asked of git together (pushedCommitsEach):
 * a push of many refs (`git push --tags`, a first push to a new remote) costs a walk, not one per
 * ref. A deleted ref (no tip) sends nothing and is left out.
 */
export async function sentRanges(history: GitHistory, ranges: readonly PushRange[], opts: { wholeRange?: boolean } = {}): Promise<SentRange[]> {
  const distinct = new Map<string, PushRange>();
  for (const range of ranges) {
    const key = `${range.from ?? ''}..${range.to}`;
    if (!/^0+$/.test(range.to) && !distinct.has(key)) distinct.set(key, range);
  }
  const asked = [...distinct.values()];
  const sent = await history.pushedCommitsEach(asked, opts);
  return asked.map((range, i) => ({ range, commits: sent[i] ?? [] }));
}

/** Judges every pushed range (sentRanges), one tip after another, in the push's order. */
export async function judgePushedTips(root: string, now: Date, evidence: Evidence, sent: readonly SentRange[]): Promise<PushedJudgement> {
  const history = evidence.history!;
  const all = new Map<string, CommitInfo>();
  for (const { commits } of sent) for (const c of commits) all.set(c.sha, c);
  // What each tip reads, asked for every tip at once: their .checkpoints folders (tips often
  // share one tree), every checkpoint's text in one read, and the folders their generated_files
  // are looked for in. Each tip is then judged from these answers as it would be alone.
  const tips = [...new Set(sent.map(({ range }) => range.to))];
  const trees = new TipTrees(history, tips);
  await trees.prefetch(tips, [DIR]);
  // A tip whose .checkpoints holds no file may keep it as a link to a folder of the project:
  // that folder, listed for every such tip at once (git is asked only when one holds none).
  const plain = await Promise.all(tips.map((tip) => trees.filesIn(tip, [DIR])));
  const linked = await linkedDirs(history, tips.filter((_, i) => plain[i]!.size === 0));
  const dirOf = (tip: string) => linked.get(tip) ?? DIR;
  for (const dir of new Set(linked.values())) await trees.prefetch([...linked].flatMap(([tip, d]) => (d === dir ? [tip] : [])), [dir]);
  const inDirs = new Map(await Promise.all(tips.map(async (tip) => [tip, [...(await trees.filesIn(tip, [dirOf(tip)]))]] as const)));
  const checkpointFiles = (tip: string) => inDirs.get(tip)!.filter(([path]) => skillFromFileName(posix.basename(path)) !== null);
  const texts = await history.readBlobs([...new Set(tips.flatMap((tip) => checkpointFiles(tip).map(([, oid]) => oid)))], MAX_READ_BYTES);
  const read = new Map(tips.map((tip) => [tip, { dir: dirOf(tip), inDir: inDirs.get(tip)!, files: checkpointFiles(tip), texts }]));
  const lookups = new Map<string, { dirs: string[]; tips: string[] }>();
  for (const tip of tips) {
    for (const [path, oid] of checkpointFiles(tip)) {
      const cp = readable(loadBlob(path, texts.get(oid), now))?.checkpoint;
      const dirs = cp === undefined ? [] : tipLookups(root, cp).dirs;
      if (!dirs.length) continue;
      const key = JSON.stringify(dirs);
      const group = lookups.get(key) ?? { dirs, tips: [] };
      group.tips.push(tip);
      lookups.set(key, group);
    }
  }
  await Promise.all([...lookups.values()].map(({ dirs, tips: some }) => trees.prefetch([...new Set(some)], dirs)));
  // Whether git tracks a file here asks of the work tree, the index and HEAD, never of a tip: once a run.
  const untracked = new Map<string, Promise<Untracked | 'not-a-file' | undefined>>();
  const here = (file: string) => {
    let answer = untracked.get(file);
    if (!answer) untracked.set(file, (answer = untrackedHere(root, history, trees, evidence.head?.sha ?? null, file)));
    return answer;
  };
  const findings: Finding[] = [];
  for (const { range, commits } of sent) findings.push(...(await judgeTip(root, now, evidence, range.to, commits, read.get(range.to)!, trees, here)));
  return { findings, commits: [...all.values()] };
}

/**
 * filesIn of the pushed tips, each question asked of git once a run; `prefetch` answers one
 * question for many tips at once (filesInEach), and so does `everyTip` for the questions each
 * tip asks alike once judged (a missing file's folder, its submodules). The maps it hands out
 * are shared: never changed.
 */
class TipTrees {
  private readonly known = new Map<string, Promise<Map<string, string>>>();

  constructor(private readonly history: GitHistory, private readonly tips: readonly string[]) {}

  /** filesIn of `tip`, asked for every pushed tip at once the first time (a push of many refs: two processes, not two per tip). */
  async everyTip(tip: string, dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>> {
    await this.prefetch(this.tips, dirs, opts);
    return this.filesIn(tip, dirs, opts);
  }

  /** submodulesIn of `tip`, asked for every pushed tip at once the first time. */
  submodulesIn(tip: string, dirs: readonly string[]): Promise<Map<string, string>> {
    const key = (t: string) => JSON.stringify([t, dirs, 'submodules']);
    if (!this.known.has(key(tip))) {
      const asked = this.tips.includes(tip) ? this.tips.filter((t) => !this.known.has(key(t))) : [tip];
      const listed = this.history.submodulesInEach(asked, dirs);
      asked.forEach((t, i) => this.known.set(key(t), listed.then((all) => all[i]!)));
    }
    return this.known.get(key(tip))!;
  }

  filesIn(tip: string, dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<Map<string, string>> {
    const key = TipTrees.key(tip, dirs, opts);
    let files = this.known.get(key);
    if (!files) this.known.set(key, (files = this.history.filesIn(tip, dirs, opts)));
    return files;
  }

  async prefetch(tips: readonly string[], dirs: readonly string[], opts: { recursive?: boolean } = {}): Promise<void> {
    const asked = tips.filter((tip) => !this.known.has(TipTrees.key(tip, dirs, opts)));
    if (!asked.length) return;
    const listed = this.history.filesInEach(asked, dirs, opts);
    asked.forEach((tip, i) => this.known.set(TipTrees.key(tip, dirs, opts), listed.then((all) => all[i]!)));
    await listed;
  }

  private static key(tip: string, dirs: readonly string[], opts: { recursive?: boolean }): string {
    return JSON.stringify([tip, dirs, opts.recursive === true]);
  }
}

/** What judgePushedTips read for a tip before judging it: its .checkpoints listing, the checkpoint files in it and their texts. */
interface TipRead {
  /** Where the tip keeps its checkpoints: `.checkpoints`, or the folder it links to (tip-dirs.ts). */
  dir: string;
  inDir: readonly (readonly [string, string])[];
  files: readonly (readonly [string, string])[];
  texts: ReadonlyMap<string, string>;
}

async function judgeTip(root: string, now: Date, repo: Evidence, tip: string, commits: readonly CommitInfo[], { dir, inDir, files, texts }: TipRead, trees: TipTrees, untracked: Seen['untracked']): Promise<Finding[]> {
  const history = repo.history!;
  // What the push itself changed: a merge, only what differs from every parent (the rest is the
  // merged-in side's, already on the remote or sent by its own commits). The first-parent line's
  // reading of the checkpoint file (afterRecorded) keeps every commit's changes as they are.
  const own = commits.map((c) => (c.ownChanges ? { ...c, changes: c.ownChanges } : c));
  const touched = new Set(own.flatMap((c) => c.changes.flatMap((ch) => (ch.from ? [ch.path, ch.from] : [ch.path]))));
  const loaded = files.map(([path, oid]) => loadBlob(path, texts.get(oid), now));
  const where = ` (as pushed in ${short(tip)})`;
  const out: Finding[] = [];
  // A misnamed checkpoint file is never read as one: it blocks when the push carries it (adds,
  // renames to or changes it), in the words the work tree's finding uses (mergePushed pairs them).
  for (const [path] of inDir) {
    const name = posix.basename(path);
    if (posix.dirname(path) !== dir || !isMisnamedCheckpoint(name)) continue;
    // Named as the work tree names it (through a .checkpoints link too), so mergePushed pairs the two.
    out.push({ level: 'error', check: 'file-name', skill: misnamedStem(name), path: '', message: misnamedProblem(name) + where, evidence: { file: `${DIR}/${name}` }, blocks: touched.has(path) });
  }
  out.push(...(await checkNestedPushed(root, own, (dirs) => trees.filesIn(tip, dirs), where)));
  // Read as the work tree's doctor reads it: a file whose only errors are hand-written slips is checked too.
  // An updated_at far in the future is dated from a sane instant, as in the work tree (datedSanely).
  const sane = await datedSanely(root, loaded.flatMap((l) => {
    const r = readable(l);
    return r ? [{ rel: l.path, cp: r.checkpoint }] : [];
  }), now, 'auto', history);
  const valid = sane.files;
  const unzoned = new Map(loaded.flatMap((l) => {
    const loose = l.file ? savedWithoutZone(l.file.value) : undefined;
    return loose === undefined ? [] : [[l.path, loose] as const];
  }));
  // An invalid or conflicted checkpoint blocks when the push carries it (changes that file), or
  // will carry it once reconciled (`exposed`, below).
  const schemaOf = (l: (typeof loaded)[number], carried: boolean): Finding[] => {
    const dated = (f: Finding) => (f.check === 'schema' && f.path === 'updated_at' && sane.from.has(l.path) && /in the future/.test(f.message) ? datedFromWords(sane.from.get(l.path)!) : '');
    return checkSchema(l).map((f) => ({ ...f, message: f.message + dated(f) + where, blocks: carried && (f.level === 'error' || f.level === 'warning') }));
  };
  // Work a pushed commit lands while the tip's checkpoint still queues it, dated by when it was
  // queued, or placed after it by the commit graph (afterRecorded).
  const queued = await dateQueuedActions(root, history, valid);
  const recorded = new Map(valid.map(({ rel }) => [rel, afterRecorded(tip, commits, rel)]));
  // A pushed commit in an instant's own second, or re-made by a rewrite after the recording (a
  // rebase), that the commit which recorded the instant reaches through pushed commits was made
  // before it (after.ts recordedBefore, as in the work tree). The recording commits come from
  // the revisions dateQueuedActions has just read (kept per HEAD): no git asked again.
  const anchors = new Map((await recordedInstants(root, () => Promise.resolve(history), valid)).map((i) => [`${i.rel}\0${i.text ?? ''}\0${i.text === null ? 's' : 't'}`, i]));
  const below = ancestorsIn(commits);
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  // A commit dated before the instant it recorded (a clock ahead): the pushed commits descending
  // from it were made after it, whatever their dates. Beside `recorded` (the tip's own revision of
  // the file): a merge on the tip's line that brought such a save in from a side branch recorded
  // nothing, the side commit did (queued.ts), and what descends from that commit came after the save.
  const later = descendantsIn(commits);
  // Whether a queued text's date can be true is read from its queuing commit's history: the pushed
  // commits and, below them, HEAD's walk (after.ts queuedAfter), as the work tree's check reads it.
  const known = walkGraph([...commits, ...repo.commits]);
  const madeAfter: Evidence['madeAfter'] = (rel, text, sec) => {
    const graph = rel === undefined ? undefined : recorded.get(rel);
    const anchor = rel === undefined ? undefined : anchors.get(`${rel}\0${text ?? ''}\0${text === null ? 's' : 't'}`);
    const first = anchor !== undefined && anchor.at === sec ? anchor.anchor : null;
    const ahead = first !== null && anchor!.ahead ? later(first) : undefined;
    // Beside the side commit (another line merged in): after the save when dated after that commit (after.ts `within`).
    const beside = first !== null && anchor!.ahead ? anchor!.via?.recorded : undefined;
    return queuedAfter((c) => {
      if (!committedAfter(c.time, sec)) return (graph?.(c) ?? false) || (ahead?.has(c.sha) ?? false) || (beside !== undefined && c.time > beside && !below(first!).has(c.sha));
      return !(first !== null && recordedBefore(sec, bySha.get(first), c, below));
    }, sec, first === null ? undefined : anchor!.queuedIn, known);
  };
  const evidence: Evidence = { ...NO_EVIDENCE, commits: [...commits], queued, thisRepo: repo.thisRepo, madeAfter };
  const landed = new Map(valid.map(({ rel, cp }) => [rel, checkLandedWork(cp, evidence, rel).map((f) => ({ ...f, message: f.message + where, blocks: true }))]));
  // verified_for_sha is judged against HEAD's history: only for a pushed HEAD that carries the checkpoint.
  if (repo.head !== null && tip.length === 40 && repo.head.sha === tip.toLowerCase()) {
    for (const { rel, cp } of valid) if (touched.has(rel)) out.push(...(await checkVerifiedSha(cp, repo)).map((f) => ({ ...f, message: f.message + where, blocks: f.level === 'warning' })));
  }
  // A pushed HEAD's missing file may have been renamed before the push: HEAD's walk knows where to.
  const isHead = repo.head !== null && repo.head.sha === tip.toLowerCase();
  // The commit that recorded a checkpoint's save, from HEAD's revisions (`anchors`): the tree a
  // changed-back file is compared with (net-change.ts), where it is known to be in the tip's history.
  const savedIn = (rel: string, sec: number): string | null => {
    const save = anchors.get(`${rel}\0\0s`);
    if (save === undefined || save.at !== sec) return null;
    return isHead || save.anchor === tip.toLowerCase() || below(tip.toLowerCase()).has(save.anchor) ? save.anchor : null;
  };
  const atHead = isHead ? [...repo.commits, ...repo.removals] : [];
  // Whether HEAD's walk shows all the history since a save (a pushed HEAD only): not when it
  // started after it (from the work tree's later save, not committed yet; the walk_days bound) or a
  // shallow clone's boundary may hide some.
  const walkSince = (sec: number) => isHead && !repo.shallow && repo.walkedSince !== undefined && repo.walkedSince <= sec;
  const filesOf = (rel: string, cp: Checkpoint, carried: ReadonlySet<string>) => checkTipFiles(root, history, trees, tip, cp, rel, { commits: own, atHead, head: repo.head?.sha ?? null, madeAfter, headMadeAfter: repo.madeAfter, walkSince, unzoned: unzoned.get(rel), afterSave: (r) => recorded.get(r) ?? (() => false), untracked, savedIn }, carried, where);
  const listed = new Map<string, Finding[]>();
  for (const { rel, cp } of valid) listed.set(rel, await filesOf(rel, cp, touched));
  // Reconciling what blocks (done --landed, a save after a changed file) changes the checkpoint,
  // and the next push carries it: its other findings (a slip, a file renamed long ago, already on
  // the remote) would block that push. Judged as carried now, so one refusal lists all a
  // reconcile must fix and following its advice once lets the next push through.
  const exposed = new Set(valid.filter(({ rel }) => !touched.has(rel) && [...landed.get(rel)!, ...listed.get(rel)!].some((f) => f.blocks)).map(({ rel }) => rel));
  for (const { rel, cp } of valid) if (exposed.has(rel)) listed.set(rel, await filesOf(rel, cp, new Set([...touched, rel])));
  for (const l of loaded) out.push(...schemaOf(l, touched.has(l.path) || exposed.has(l.path)));
  for (const { rel } of valid) out.push(...landed.get(rel)!, ...listed.get(rel)!);
  return isHead ? out : out.map(onPushedBranch);
}

/**
 * A finding about a tip that is not the checked-out branch (a side branch pushed while main is
 * checked out): its command, run here, would act on the checked-out checkpoint (`done --landed`
 * finds nothing there, an update edits main's file). It is named for that branch, checked out
 * first, as a missing file's update is, and is no `fix` (a command to run in this checkout).
 */
function onPushedBranch(f: Finding): Finding {
  // A template (fix_template) is worded the same; it stays a template, to be filled in there.
  const fix = f.fix ?? f.fix_template;
  if (fix === undefined) return f;
  const { fix: _here, ...rest } = f;
  const message = f.message
    .replace(`(\`${fix}\`)`, `(${ON_PUSHED_BRANCH}\`${fix}\`)`)
    .replace(`fix: ${fix}`, `fix, on the branch you pushed (check it out first): ${fix}`);
  return { ...rest, message };
}

/** How onPushedBranch leads a command in; a finding the work tree shares reads without it (run.ts mergePushed). */
export const ON_PUSHED_BRANCH = 'on the branch you pushed: check it out first, then ';

/**
 * Which pushed commits the commit graph places after every instant the tip's checkpoint at `rel`
 * recorded, whatever their dates. Those instants were recorded in the commit that last changed
 * the file on the tip's first-parent line (r) or in its history. When r is not pushed, it is in
 * the history of what the remote already has, and no pushed commit is in it: all are after. When
 * r is pushed, a pushed commit is in its history exactly when r reaches it through pushed commits
 * (a path through one not pushed would make it not pushed either): the others are after. Exact,
 * from the commits the push sends alone.
 */
export function afterRecorded(tip: string, commits: readonly CommitInfo[], rel: string): (c: Pick<CommitInfo, 'sha'>) => boolean {
  const bySha = new Map(commits.map((c) => [c.sha, c]));
  let recorded: CommitInfo | undefined;
  for (let c = bySha.get(tip.toLowerCase()); c !== undefined; c = bySha.get(c.parents[0] ?? '')) {
    if (c.changes.some((ch) => ch.path === rel || ch.from === rel)) {
      recorded = c;
      break;
    }
  }
  if (recorded === undefined) return () => true;
  const r = recorded;
  const below = ancestorsIn(commits)(r.sha);
  return (c) => c.sha !== r.sha && !below.has(c.sha);
}

function loadBlob(path: string, text: string | undefined, now: Date): Loaded {
  const name = posix.basename(path);
  const skill = skillFromFileName(name)!;
  if (text === undefined) return { skill, path, problem: `${path} is larger than ${MAX_READ_BYTES} bytes or unreadable in the pushed commit` };
  try {
    const { value, format } = parseCheckpointText(text, path);
    const sizeBytes = Buffer.byteLength(text);
    const validation = validateCheckpoint(value, { fileName: name, now, sizeBytes, numberText: numberTextIn(value, () => format.texts) });
    return { skill, path, file: { skill, path, text, value, format, sizeBytes }, validation, ...(validation.errors.length ? {} : { checkpoint: value as unknown as Checkpoint }) };
  } catch (e) {
    if (!isCheckpointError(e)) throw e;
    return { skill, path, problem: e.message };
  }
}

/** What judgeTip knows of the commits around a tip, for its generated_files. */
interface Seen {
  /** The commits the push sends, each with its own changes (a merge's: what differs from every parent). */
  commits: readonly CommitInfo[];
  /** HEAD's walk (since the oldest save) and its removals, when the tip is HEAD; else none. */
  atHead: readonly CommitInfo[];
  head: string | null;
  /** madeAfter over the pushed commits (judgeTip). */
  madeAfter: Evidence['madeAfter'];
  /** madeAfter over HEAD's walk, as the work tree's check reads it (for `atHead`). */
  headMadeAfter: Evidence['madeAfter'];
  /** Whether `atHead` holds every commit of the tip's history since instant `sec`. */
  walkSince: (sec: number) => boolean;
  /** The tip's file writes updated_at without its zone (savedWithoutZone). */
  unzoned?: Unzoned;
  /** The pushed commits the graph alone places after the save of the checkpoint at `rel` (afterRecorded). */
  afterSave: (rel: string) => (c: Pick<CommitInfo, 'sha'>) => boolean;
  /** untrackedHere of a file, for HEAD (judgePushedTips asks once a run). */
  untracked: (file: string) => Promise<Untracked | 'not-a-file' | undefined>;
  /** The commit in the tip's history that recorded the save `sec` of the checkpoint at `rel`, when known (judgeTip). */
  savedIn: (rel: string, sec: number) => string | null;
}

/**
 * Where checkTipFiles looks for a checkpoint's generated_files in a tip: the repo-relative paths
 * its entries may name (`looked`), and the folders (`dirs`) that hold the literal ones.
 */
function tipLookups(root: string, cp: Checkpoint): { entries: ListEntry[]; direct: (p: string) => string; looked: string[]; sub: string | null; named: boolean; dirs: string[] } {
  // context_primer's list, then one written at the top level, as the work tree's check reads them.
  const entries = listEntries(cp, 'generated_files');
  const direct = fromProjectDir(cp, root) ?? ((p: string) => p);
  const names = projectNames(cp, root);
  // Each part of a list ("src/a.ts, src/b.ts") too: which it is, the tip's tree says below.
  const candidates = entries.flatMap(({ entry: e }) => (typeof e === 'string' ? entryPartCandidates(e).flatMap(entryLookups) : []));
  // One written from the folder above the project ("demo/src/a.ts") may name its rest (inProjectFolder).
  const rests = candidates.flatMap((c) => underProjectName(c, names) ?? []);
  const looked = [...new Set([...candidates, ...rests].flatMap((c) => {
    const r = repoRelative(root, direct(c)) ?? repoTopPath(root, direct(c));
    return r === null || r.split('/').includes('..') ? [] : [r];
  }))];
  // A package's checkpoint kept at the top (project_dir packages/app) may name each in its folder.
  const sub = projectSubfolder(cp, root);
  const paths = looked.filter((r) => !hasGlob(r));
  const rels = sub === null ? paths : [...paths, ...paths.map((r) => `${sub}/${r}`)];
  return { entries, direct, looked, sub, named: rests.length > 0, dirs: [...new Set(rels.map((r) => posix.dirname(r)).map((d) => (d === '.' ? '' : d)))] };
}

/**
 * generated_files entries against the tip's tree: a listed file the push deleted, renamed or
 * otherwise left missing, or changed after the checkpoint without updating it; a glob's or brace's
 * matches, as its matches are judged in the work tree (tipPatternChanged).
 */
async function checkTipFiles(root: string, history: GitHistory, trees: TipTrees, tip: string, cp: Checkpoint, rel: string, seen: Seen, touched: ReadonlySet<string>, where: string): Promise<Finding[]> {
  const { commits } = seen;
  const { entries, direct, looked, sub, named, dirs } = tipLookups(root, cp);
  const tree = dirs.length ? await trees.filesIn(tip, dirs) : new Map<string, string>();
  const mapped = sub === null && !named ? direct : inProjectFolder(cp, root, await atTipTop(history, tip, tree, looked));
  const inTip = (p: string) => {
    const r = repoRelative(root, mapped(p));
    return r !== null && tree.has(r);
  };
  const after = toSeconds(cp.updated_at);
  // A file changed back since the save holds the blob the commit that recorded it holds, where that tree can vouch for it (net-change.ts).
  const savedAt = seen.savedIn(rel, after);
  const back = savedAt === null ? null : { saved: savedAt, unsure: unvouched(commits, seen.madeAfter(rel, null, after), rel, savedAt) };
  const base = { check: 'generated_files', skill: cp.skill, blocks: true } as const;
  const out: Finding[] = [];
  // Files found changed, each with the pushed commits that edit it: weighed for cosmetic edits
  // (cosmetic.ts) all at once after the loop, then put in their place among `out`.
  const edited: { at: number; file: string; path: string; by: CommitInfo[] }[] = [];
  const reported = new Set<string>();
  // A listed file the tip lacks (a path entry, or a brace's literal alternative): its finding when
  // the push is to blame, having removed it (caused) or changed the checkpoint that lists it (carried); else null.
  // `part`: the part of the entry naming the file, null for a brace's alternative (its entry names the others too).
  const missingFromTip = async (file: string, path: string, entry: string, part: string | null): Promise<Finding | null> => {
    // "src/a.ts (deleted)": the checkpoint itself says the file is gone on purpose.
    if (goneNote(entry) !== null) return null;
    // "docs/api.md — to write": not made yet, as the entry says, unless a pushed commit removed it.
    if (!touched.has(file) && plannedNote(entry) !== null) return null;
    // A folder ("src/gen/", "packages/api") is no file of the tip's listing: it is there when the
    // tip holds a file under it, and the push removed it when a pushed commit changed one under it.
    const folder = withoutTrailingSlashes(file);
    const under = (p: string | undefined) => p !== undefined && p.startsWith(`${folder}/`);
    const touchedUnder = [...touched].some(under);
    // Caused or carried. A folder listed with its slash is changed at its own name too: a submodule's gitlink ("vendor/sub/").
    if (!touched.has(file) && !touched.has(folder) && !touched.has(rel) && !touchedUnder) return null;
    if ((file.endsWith('/') || touchedUnder || projectEntry(root, folder).kind === 'folder') && (await trees.everyTip(tip, [folder], { recursive: true })).size > 0) return null;
    // A submodule, or a path inside one: the tip holds its gitlink, never its files (filesIn lists none).
    if (await inSubmodule(trees, tip, folder)) return null;
    // Carried, but a file git does not track here: ignored (a build output), no commit ever
    // holds it, so the tip lacking it is not the push's doing (the work tree's check notes it);
    // never added, the push carries a checkpoint naming a file it leaves out: said so.
    const untracked = touched.has(file) ? undefined : await seen.untracked(file);
    // A FIFO, or a path through a link out of the repository: git can hold no such file, so
    // no push is to blame and "commit it" would be wrong (the work tree's note says what it is).
    if (untracked === 'ignored' || untracked === 'not-a-file') return null;
    if (untracked === 'untracked') {
      return { ...base, level: 'warning', path, message: `${file} is not committed (the work tree has it untracked); commit it or drop it from the checkpoint${where}`, evidence: { file, missing: true } };
    }
    // The pushed commits first; else the newest removal HEAD's history shows (its walk, the deep search).
    const rename = commits.find((c) => c.changes.some((ch) => ch.status === 'R' && (ch.from === file || ch.from === folder)));
    const by = rename ?? commits.find((c) => c.changes.some((ch) => ch.path === file || ch.from === file || ch.path === folder || ch.from === folder || under(ch.path) || under(ch.from))) ?? newestRemoval(seen.atHead, file) ?? newestRemoval(seen.atHead, folder);
    // A deletion may be a rename with edits (`git mv` and an edit): that commit alone is asked.
    const to = by?.changes.find((ch) => ch.status === 'R' && (ch.from === file || ch.from === folder))?.path ?? (by && removes(by, file) ? (await history.editedRenames(by.sha, [file])).get(file) : undefined);
    // A complete skill's file renamed is advice in the work tree, as its edits are: never a block.
    if (to && cp.status === 'complete') return null;
    const update = updateOnTip(by && part !== null ? markOnTip(path, entry, part, to ? `renamed to ${to}` : 'deleted') : null);
    return {
      ...base, level: 'warning', path,
      message: by ? `${file} is missing${to ? `: renamed to ${to}` : ''} in ${short(by.sha)} ${quoted(by.subject)}; ${update}${where}` : `${file} is missing${where}`,
      evidence: { file, missing: true, ...(by ? { sha: by.sha } : {}), ...(to ? { renamed_to: to } : {}) },
    };
  };
  const parts = entries.flatMap(({ path, entry }) => (typeof entry === 'string' ? entryParts(entry, inTip).map((part) => ({ part, path, entry })) : []));
  // The update that says in the tip's entry at `path` that the file `part` names is gone, as the
  // work tree's check names it (checks.ts markOf): an entry listing other files, each in the tip, split.
  const markGone = (path: string, entry: string, part: string, what: string): string | null => {
    if (part.trim() === entry.trim()) return markGoneCommand(cp.skill, path, entry, what);
    const listed = parts.filter((p) => p.path === path).map((p) => p.part.trim());
    const there = (p: string) => {
      const t = parseEntry(p, inTip);
      return t.kind === 'path' && inTip(t.path);
    };
    if (!listed.every((p) => p === part.trim() || there(p))) return null;
    return splitGoneCommand(cp.skill, path, entry, listed, part.trim(), what, (text) => entryParts(text, inTip));
  };
  // A tip other than HEAD (a side branch pushed while main is checked out): the update that says
  // so in its entry runs on that branch, not here (a pushed HEAD's is the work tree's line).
  const markOnTip = (path: string, entry: string, part: string, what: string) => (seen.head !== tip.toLowerCase() ? markGone(path, entry, part, what) : null);
  // Patterns are judged once every literal entry has been: a file one names is reported under it.
  const patterns: { target: Extract<EntryTarget, { kind: 'pattern' }>; path: string; entry: string }[] = [];
  for (const { part, path, entry } of parts) {
    const written = parseEntry(part, inTip);
    // "/src/a.ts" outside this checkout: read from the top, as the work tree's check reads it.
    const fromTop = written.kind === 'path' ? fromRepoTop({ kind: 'path', path: mapped(written.path) }, root, (r) => tree.has(r)) : written;
    const parsed = fromTop.kind === 'path' && written.kind === 'path' && fromTop.path === mapped(written.path) ? written : fromTop;
    // A bare name ("Makefile") the tip lacks is a file when a pushed commit changed it.
    const target = parsed.kind === 'note' && parsed.name !== undefined && touched.has(parsed.name) ? { kind: 'path' as const, path: parsed.name } : parsed;
    if (target.kind === 'pattern') {
      // A brace of literal alternatives alone ("lib/{a,b}.ts") names files, each judged as listed (below), not a pattern matching nothing.
      // One whose note says its files are gone ("src/gen/*.ts (deleted)") may match nothing, as the work tree's check reads it.
      if (target.alternatives.some(hasGlob) && goneNote(entry) === null) out.push(...(await tipPatternGone(root, history, tip, commits, target, path, mapped, { ...base, where }, (what) => markOnTip(path, entry, part, what))));
      patterns.push({ target, path, entry });
      continue;
    }
    if (target.kind !== 'path') continue;
    const file = repoRelative(root, mapped(target.path));
    // A file two entries name is one finding, under the first (as in the work tree's check).
    if (file === null || reported.has(file)) continue;
    reported.add(file);
    if (!inTip(file)) {
      const missing = await missingFromTip(file, path, entry, part);
      if (missing !== null) out.push(missing);
      continue;
    }
    // A complete skill's file changing is the code's life (advice in the work tree), never a block.
    if (cp.status === 'complete') continue;
    // The session's own commits (which also touch its checkpoint) are not drift.
    const madeAfter = seen.madeAfter(rel, null, after);
    const by = commits.filter((c) => madeAfter(c) && !c.changes.some((ch) => ch.path === rel) && c.changes.some((ch) => ch.path === file));
    if (by.length) edited.push({ at: out.length, file, path, by });
  }
  // Changed back since (a revert, in other line endings too): the tip holds what the save saw, no
  // drift. The save's tree is listed, and the texts read, once for all such files.
  const vouched = back === null ? [] : edited.map((e) => e.file).filter((f) => !back.unsure.has(f));
  const changedBack = vouched.length ? await sameInTexts(root, history, (await filesAt(root, history, [back!.saved], dirs))[0]!, tree, vouched) : () => false;
  const live = edited.filter((e) => !(vouched.includes(e.file) && changedBack(e.file)));
  // The newest pushed commit that changed the file for real: an edit of only its line endings or trailing whitespace is none.
  const asks = live.flatMap(({ file, by }) => by.filter((c) => c.changes.some((ch) => ch.path === file && editsInPlace(ch))).slice(0, MAX_ASKED_PER_FILE).map((commit) => ({ commit, path: file })));
  const cosmetic = asks.length ? await cosmeticChanges(root, history, asks) : () => false;
  for (const { at, file, path, by } of live.reverse()) {
    const change = by.find((c) => !c.changes.some((ch) => ch.path === file && editsInPlace(ch) && cosmetic(c.sha, file)));
    if (change === undefined) continue;
    const unzoned = mayPrecedeUnzonedSave(seen.unzoned, cp.updated_at, change, seen.afterSave(rel));
    out.splice(at, 0, {
      ...base, level: unzoned ? 'advice' : 'warning', path,
      message: `${file} changed after the checkpoint was written (${short(change.sha)} ${quoted(change.subject)}); re-read it${unzoned ? unzonedSave(seen.unzoned!) : ''}${where}`,
      evidence: { file, sha: change.sha },
    });
  }
  // A file a literal entry names is that entry's (as in the work tree's check), whichever part of the tip holds it.
  const literal = new Set(parts.flatMap(({ part }) => {
    const parsed = parseEntry(part, inTip);
    const file = parsed.kind === 'path' ? repoRelative(root, mapped(parsed.path)) : null;
    return file === null ? [] : [file];
  }));
  for (const { target, path, entry } of patterns) {
    const found = await tipPatternChanged(root, history, tip, cp, rel, target, path, mapped, literal, seen, back, { ...base, where });
    out.push(...found);
    // A brace's literal alternatives are named files: one the tip lacks that the pattern's own
    // findings do not name (removed before the save, or beside a newer removal) is missing as a listed path is.
    for (const alternative of target.alternatives) {
      const file = hasGlob(alternative) ? null : repoRelative(root, mapped(alternative));
      if (file === null || reported.has(file) || inTip(file)) continue;
      reported.add(file);
      if (found.some((f) => f.evidence?.file === file)) continue;
      const missing = await missingFromTip(file, path, entry, null);
      if (missing !== null) out.push(missing);
    }
  }
  return out;
}

/**
 * A file a glob entry matches at the tip that a pushed commit made after the save changed, or one
 * it matched that such a commit deleted or renamed away while the entry still matches another (the
 * session's own commits, which touch its checkpoint, are not drift): blocks, in the literal entry's
 * words, unless the file is new to the entry: gained after the save (gained.ts, as the work tree's
 * check decides it), or for a removal added since, by the pushed commits or by those HEAD's walk
 * shows since the save. A brace's literal alternatives ("src/{a,b}.ts") are named files, never new.
 * A complete skill's files change with the code (advice in the work tree): never a block.
 */
async function tipPatternChanged(root: string, history: GitHistory, tip: string, cp: Checkpoint, rel: string, target: { alternatives: readonly string[] }, path: string, mapped: (p: string) => string, literal: ReadonlySet<string>, seen: Seen, back: { saved: string; unsure: ReadonlySet<string> } | null, base: { check: 'generated_files'; skill: string; blocks: true; where: string }): Promise<Finding[]> {
  if (cp.status === 'complete') return [];
  const rels = target.alternatives.flatMap((a) => {
    const r = repoRelative(root, mapped(a));
    return r === null || r.split('/').includes('..') ? [] : [r];
  });
  if (!rels.length) return [];
  const res = rels.map((r) => globMatcher(r));
  const test = (p: string) => res.some((re) => re.test(p));
  const after = toSeconds(cp.updated_at);
  const own = (c: CommitInfo) => c.changes.some((ch) => ch.path === rel);
  const pushedAfter = seen.madeAfter(rel, null, after);
  const since = seen.commits.filter((c) => pushedAfter(c) && !own(c));
  // What the pushed commits did to a file the entry matches, newest first: an edit (not a rename it
  // covers at both ends: "src/*.ts", a.ts to c.ts, changes nothing it names), or a removal
  // (deleted, or renamed away from what it matches).
  const changes = since.flatMap((commit) => commit.changes.flatMap((ch) => {
    const from = ch.from !== undefined && test(ch.from) ? ch.from : null;
    if (ch.status !== 'D' && test(ch.path) && from === null && !literal.has(ch.path)) return [{ commit, file: ch.path, gone: false, to: null }];
    const gone = ch.status === 'D' ? (test(ch.path) ? ch.path : null) : from !== null && !test(ch.path) ? from : null;
    return gone !== null && !literal.has(gone) ? [{ commit, file: gone, gone: true, to: ch.status === 'D' ? null : ch.path }] : [];
  }));
  if (!changes.length) return [];
  const pushed = new Set(seen.commits.map((c) => c.sha));
  const headAfter = seen.headMadeAfter(rel, null, after);
  const before = seen.atHead.filter((c) => !pushed.has(c.sha) && headAfter(c) && !own(c));
  const named = new Set(rels.filter((r) => !hasGlob(r)));
  const wild = (p: string) => test(p) && !named.has(p);
  const gained = gainedFiles(newestByGraph([...since, ...before]).map((c) => [c, c] as const), wild);
  // A removed file any of those commits added (or renamed in) was not one the save knew, even if
  // gainedFiles no longer lists it for having been removed since.
  const added = new Set([...since, ...before].flatMap((c) => c.changes.flatMap((ch) => ((ch.status === 'A' || ch.status === 'R') && wild(ch.path) && !(ch.from !== undefined && test(ch.from)) ? [ch.path] : []))));
  let left = changes.filter((c) => !(c.gone ? added.has(c.file) : gained.has(c.file)));
  if (!left.length) return [];
  // An edited file is matched at the tip (a later pushed commit did not take it away); a removed one
  // is not there, while the entry still matches another (matching none: tipPatternGone says so).
  const dirs = [...new Set(rels.map((r) => (hasGlob(r) ? globBase(r) : posix.dirname(r) === '.' ? '' : posix.dirname(r))))];
  const inTip = await history.filesIn(tip, dirs, { recursive: true });
  const matchesInTip = [...inTip.keys()].some(test);
  left = left.filter((c) => (c.gone ? matchesInTip && !inTip.has(c.file) : inTip.has(c.file)));
  // A file changed back since (a revert) holds the blob the save saw: no drift (net-change.ts).
  if (left.length && back !== null && left.some((c) => !back.unsure.has(c.file))) {
    const same = await sameInTexts(root, history, (await filesAt(root, history, [back.saved], dirs, { recursive: true }))[0]!, inTip, [...new Set(left.flatMap((c) => (back.unsure.has(c.file) ? [] : [c.file])))]);
    left = left.filter((c) => back.unsure.has(c.file) || !same(c.file));
  }
  // History since the save HEAD's walk does not show (a tip other than HEAD, a walk cut after the
  // save) may have added the file: one the tree that recorded the tip's checkpoint lacks is not
  // one it knew, so never a block on that history's account.
  if (left.length && !seen.walkSince(after)) {
    const recorded = (await history.fileRevisions([rel], tip)).find((r) => r.path === rel && r.blob !== null);
    const then = recorded === undefined ? new Map<string, string>() : await history.filesIn(recorded.sha, dirs, { recursive: true });
    left = left.filter((c) => then.has(c.file));
  }
  // An edit of only line endings or trailing whitespace changes nothing to re-read (cosmetic.ts): the newest real change is named.
  const edits = left.filter((c) => !c.gone && c.commit.changes.some((ch) => ch.path === c.file && editsInPlace(ch)));
  const cosmetic = edits.length ? await cosmeticChanges(root, history, edits.slice(0, MAX_ASKED_PER_FILE * 4).map((c) => ({ commit: c.commit, path: c.file }))) : () => false;
  // The newest removal and the newest edit, each: an edit of one match hides no removal of another.
  const newest = [left.find((c) => c.gone), left.find((c) => !c.gone && !cosmetic(c.commit.sha, c.file))];
  const { where, ...finding } = base;
  return newest.flatMap((change): Finding[] => {
    if (change === undefined) return [];
    const by = `${short(change.commit.sha)} ${quoted(change.commit.subject)}`;
    const unzoned = !change.gone && mayPrecedeUnzonedSave(seen.unzoned, cp.updated_at, change.commit, seen.afterSave(rel));
    return [{
      ...finding, level: unzoned ? 'advice' : 'warning', path,
      message: change.gone
        ? `${shown(change.file)} is missing${change.to === null ? '' : `: renamed to ${shown(change.to)}`} in ${by}; update the checkpoint${where}`
        : `${shown(change.file)} changed after the checkpoint was written (${by}); re-read it${unzoned ? unzonedSave(seen.unzoned!) : ''}${where}`,
      evidence: { file: change.file, sha: change.commit.sha, ...(change.gone ? { missing: true } : {}) },
    }];
  });
}

/**
 * A glob entry the push left matching nothing, by deleting or renaming away its last match: said
 * as the work tree's check says it (checks.ts), naming the pushed commit that removed it.
 */
async function tipPatternGone(root: string, history: GitHistory, tip: string, commits: readonly CommitInfo[], target: { text: string; alternatives: readonly string[] }, path: string, mapped: (p: string) => string, base: { check: 'generated_files'; skill: string; blocks: true; where: string }, mark: (what: string) => string | null): Promise<Finding[]> {
  const rels = target.alternatives.flatMap((a) => {
    const rel = repoRelative(root, mapped(a));
    return rel === null || rel.split('/').includes('..') ? [] : [rel];
  });
  const res = rels.map((rel) => globMatcher(rel));
  const test = (p: string) => res.some((re) => re.test(p));
  let removed: { commit: CommitInfo; change: CommitInfo['changes'][number] } | undefined;
  for (const commit of commits) {
    const change = commit.changes.find((c) => (c.status === 'D' && test(c.path)) || (c.from !== undefined && test(c.from) && !test(c.path)));
    if (change) {
      removed = { commit, change };
      break;
    }
  }
  if (removed === undefined) return [];
  const dirs = [...new Set(rels.map((rel) => (hasGlob(rel) ? globBase(rel) : posix.dirname(rel) === '.' ? '' : posix.dirname(rel))))];
  if ([...(await history.filesIn(tip, dirs, { recursive: true })).keys()].some(test)) return [];
  const { commit, change } = removed;
  const { where, ...finding } = base;
  const how = `its last match ${shown(change.from ?? change.path)} was ${change.status === 'D' ? 'deleted' : `renamed to ${shown(change.path)}`} in ${short(commit.sha)} ${quoted(commit.subject)}`;
  const update = updateOnTip(mark(change.status === 'D' ? 'deleted' : `renamed to ${change.path}`));
  return [{ ...finding, level: 'warning', path, message: `${shown(target.text)} matches no file (${how}); ${update}${where}`, evidence: { file: target.text, missing: true, sha: commit.sha } }];
}

/** "update the checkpoint", naming the update to run on the branch pushed (a tip other than HEAD) when there is one. */
function updateOnTip(fix: string | null): string {
  return fix === null ? 'update the checkpoint' : `update the checkpoint on the branch you pushed (check it out first, then: \`${fix}\`)`;
}

/**
 * For a package's checkpoint kept at the top (inProjectFolder): whether the tip holds a
 * repo-relative path at the top, as the work tree's check asks its own: a file (`tree`, the tip's
 * listing of the candidates' folders), a folder with a file under it (a candidate's own folder: one
 * with a file in it), or a pattern's match.
 */
async function atTipTop(history: GitHistory, tip: string, tree: ReadonlyMap<string, string>, looked: readonly string[]): Promise<(rel: string) => boolean> {
  const deeper = looked.flatMap((r) => (tree.has(r) ? [] : [hasGlob(r) ? globBase(r) : r]));
  const below = deeper.length ? [...(await history.filesIn(tip, deeper, { recursive: true })).keys()] : [];
  const tests = new Map<string, ReturnType<typeof globMatcher>>();
  return (rel) => {
    if (tree.has(rel)) return true;
    const folder = `${withoutTrailingSlashes(rel)}/`;
    if (below.some((p) => p.startsWith(folder)) || [...tree.keys()].some((p) => p.startsWith(folder))) return true;
    if (!hasGlob(rel)) return false;
    let re = tests.get(rel);
    if (re === undefined) tests.set(rel, (re = globMatcher(rel)));
    return below.some((p) => re!.test(p));
  };
}

/**
 * Whether git does not track `file` here (neither the index nor HEAD holds it): 'ignored' (present
 * or not: a build output may not be built here), 'untracked' when the work tree has it; else
 * undefined. 'not-a-file' when the work tree has no file git could track there: a FIFO, or a
 * path through a link out of the repository (told without following it).
 */
async function untrackedHere(root: string, history: GitHistory, trees: TipTrees, head: string | null, file: string): Promise<Untracked | 'not-a-file' | undefined> {
  const here = projectEntry(root, file);
  if (notAFile(file, here) !== null || inNestedRepository(root, file)) return 'not-a-file';
  if (indexNames(root, [file]).has(file)) return undefined;
  const dir = posix.dirname(file);
  // HEAD's folder listed once for all its files; git asked about ignore rules only for what the
  // rules read in-process may ignore (a plainly missing file starts no check-ignore).
  if (head !== null && (await trees.filesIn(head, [dir === '.' ? '' : dir])).has(file)) return undefined;
  if ((await ignoredListed(history, [file], { prefilter: root })).has(file)) return 'ignored';
  return here.kind === 'file' || here.kind === 'folder' ? 'untracked' : undefined;
}

/**
 * Whether `file` is a submodule or another nested repository, or lies inside one ("vendor/lib",
 * "vendor/lib/x.ts"): a folder on the way holds `.git`. Its files are that repository's, never
 * in this one's trees, so no push of this one leaves them out.
 */
function inNestedRepository(root: string, file: string): boolean {
  const segments = withoutTrailingSlashes(file).split('/');
  for (let i = 1; i <= segments.length; i++) {
    if (projectEntry(root, `${segments.slice(0, i).join('/')}/.git`).kind !== 'missing') return true;
  }
  return false;
}

/** Whether the tip's tree holds a submodule at `path` ("vendor/sub") or at a folder on its way ("vendor/sub/lib/s.ts"). */
async function inSubmodule(trees: TipTrees, tip: string, path: string): Promise<boolean> {
  const segments = path.split('/');
  const ways = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  const links = await trees.submodulesIn(tip, [...new Set(ways.map((w) => (w.includes('/') ? w.slice(0, w.lastIndexOf('/')) : '')))]);
  return ways.some((w) => links.has(w));
}

/** The newest of `commits` that deletes or renames away `file`. */
function newestRemoval(commits: readonly CommitInfo[], file: string): CommitInfo | undefined {
  return newestByGraph(commits).find((c) => removes(c, file));
}
