// Git evidence for drift checks, gathered once per command: one bounded walk back to
// the oldest checkpoint's updated_at, never the whole history.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import { withActionRefs, workTexts } from '../protocol/action-refs.js';
import { readActionText } from '../protocol/repairable.js';
import type { CommitInfo, EngineName, GitHistory, HeadInfo } from '../git/types.js';
import { commitsBefore, type MetCommits } from '../git/fast-forward.js';
import { cachedAtHead, cachedCommitsSince, carriedAtHead, headFiles, isCommitList, objectsStamp, repoKey, storeAtHead, storeCommitsSince, walkedAt } from '../git/commit-cache.js';
import { newestByGraph } from '../git/normalize.js';
import { quoted } from '../one-line.js';
import { walkDays } from '../store/config.js';
import { landingNeedles, mayNameWork, workRefs, type Landing } from './landed.js';
import { actionLandings } from './follow-ups.js';
import { thisRepoOf, type ThisRepo } from './repo-names.js';
import { remoteUrls } from '../git/remotes.js';
import { dateQueuedActions, queuedTexts, recordedInstants, redated, revisionsAtHand, saneSaves, type QueuedDates, type RecordedInstant } from './queued.js';
import { MAX_FUTURE_SKEW_MS } from '../protocol/validate.js';
import { unprovenStops } from '../git/skew-walk.js';
import { inScope } from '../git/normalize.js';
import { byDate, descendantsIn, firstRecorded, lastRecorded, madeAfterIn, queuedAfter, walkGraph } from './after.js';
import { rememberDates, rememberedDates } from './queued-memo.js';
import { queuedAt, toSeconds } from './instants.js';
import { instantMs } from '../protocol/instant.js';

export interface Evidence {
  history: GitHistory | null;
  head: HeadInfo | null;
  /**
   * Commits since the oldest checkpoint's updated_at, newest first. When the walk was cut,
   * also the older commits whose message names a still-queued PR or ticket (without file lists).
   */
  commits: CommitInfo[];
  shallow: boolean;
  /** When each queued text entered its checkpoint (doctor only), by checkpoint path. */
  queued: QueuedDates;
  /** Of GatherOptions.watch, the paths with uncommitted changes: git answers while the checks run. */
  uncommitted: Promise<Set<string>>;
  /** When the walk was cut short by the walk_days bound: the instant (seconds) it stopped at. */
  cutAt: number | null;
  /**
   * The instant (seconds) the walk started from (the oldest save or queued text, or the cut):
   * `commits` holds every commit of HEAD's history dated since; absent when nothing was walked.
   */
  walkedSince?: number;
  /** verified_for_sha answers by commit name (GatherOptions.verify). */
  verified: Map<string, Verified>;
  /** For GatherOptions.missing, when the walk was cut: the newest commits that removed them. */
  removals: CommitInfo[];
  /** What history older than the cut was still searched (null: the walk was not cut). */
  deep: DeepSearch | null;
  /** This repository's names (its remotes): a PR URL of another repository is not its PR. */
  thisRepo: ThisRepo;
  /**
   * Checkpoints (by path) whose recording commit HEAD's first-parent line reaches only through a
   * commit made after it but dated before the walk's bound (`stop`): what lies behind it was not walked.
   */
  hiddenBy: { rel: string; stop: string }[];
  /**
   * Whether the checkpoint at `rel`, edited and not committed, still holds the save a commit
   * recorded (a hand edit that kept updated_at), as far as its revisions were read: the graph then
   * orders that save against a commit in its second.
   */
  keptSave?: (rel: string) => boolean;
  /**
   * Whether a commit counts as made after an instant of the checkpoint at `rel` (`text` null: its
   * save; else when that text was queued), `sec` being that instant: by its date, or by the commit
   * graph where the commit that recorded the instant is known (after.ts). Over `commits` as gathered.
   */
  madeAfter: MadeAfterOf;
  /**
   * The commit that recorded the save `sec` of the checkpoint at `rel`, when known: exactly (its
   * revisions read), or, for a file the work tree holds as HEAD does, the oldest commit on HEAD's
   * walked first-parent line dated `sec` or later that touches it. Its tree is what the save saw
   * (net-change.ts). Absent or null: not known (an uncommitted save), and nothing is compared.
   */
  savedIn?: (rel: string, sec: number) => string | null;
  /**
   * Whether the commit graph alone places a commit after the save `sec` of the checkpoint at `rel`:
   * it descends from the commit that recorded that save (its revisions read: the first to hold it;
   * else, for a file the work tree holds as HEAD does, the newest on HEAD's walked first-parent line
   * that touches it), whatever the dates say. Absent: nothing known.
   */
  afterSaveByGraph?: (rel: string, sec: number) => (c: Pick<CommitInfo, 'sha'>) => boolean;
}

export type MadeAfterOf = (rel: string | undefined, text: string | null, sec: number) => (c: Pick<CommitInfo, 'sha' | 'time'>) => boolean;

/** The date rule alone (no anchor known). */
export const madeAfterByDate: MadeAfterOf = (_rel, _text, sec) => byDate(sec, null);

export interface Verified {
  full: string | null;
  inHead: boolean;
}

export interface DeepSearch {
  /** PR, merge request and ticket ids of queued texts older than the cut, searched back to `since`. */
  tokens: string[];
  /** What a commit landing one of them holds in its message (landingNeedles): what the search asks for. */
  needles: string[];
  since: number;
  /** Missing generated files whose last removal was looked for. */
  files: string[];
}

export const NO_EVIDENCE: Evidence = { history: null, head: null, commits: [], shallow: false, queued: new Map(), uncommitted: Promise.resolve(new Set()), cutAt: null, verified: new Map(), removals: [], deep: null, thisRepo: [], madeAfter: madeAfterByDate, hiddenBy: [] };

export { toSeconds } from './instants.js';

export interface GatherOptions {
  engine?: 'auto' | EngineName;
  /** Also read HEAD and whether the clone is shallow (doctor needs them; next and status do not). */
  repoState?: boolean;
  /** Date queued actions from these checkpoint files' own history, and walk back far enough to judge them. */
  dateQueued?: readonly { rel: string; cp: Checkpoint }[];
  /**
   * Repo-relative paths whose changes the walk lists (doctor's generated files and the
   * checkpoints); without it, subjects only: next and status never pay for file lists.
   */
  changesUnder?: readonly string[];
  /** Paths to check for uncommitted changes, asked alongside the walk. */
  watch?: readonly string[];
  /** The walk goes back to no earlier than this instant (seconds): the walk_days bound. */
  notBefore?: number;
  /** Commit names (verified_for_sha) to look up alongside the walk. */
  verify?: readonly string[];
  /** Generated files missing from the work tree: when the walk is cut, where they went is asked too. */
  missing?: readonly string[];
  /** This repository's names, when the caller has read them (else read here, from the remotes). */
  thisRepo?: ThisRepo;
  /**
   * Checkpoints whose saves the checks judge file changes from (doctor: every checkpoint), beside
   * dateQueued. When the walk lists changes to a checkpoint's file (changesUnder) and HEAD's
   * first-parent line, walked, does not reach the commit that recorded it while the work tree
   * holds it as committed (watch answers that), a skewed commit sits on that line: the walk is
   * completed past it from the commit that recorded the save (after.ts, skew-walk.ts).
   */
  recorded?: readonly { rel: string; cp: Checkpoint }[];
}

/** Checkpoints often name the same base commit: each is looked up once per history. */
const verifiedMemo = new WeakMap<GitHistory, Map<string, Promise<Verified>>>();

/** The full sha `sha` names (null: none) and whether HEAD's history holds it. */
export function lookupVerified(history: GitHistory, sha: string): Promise<Verified> {
  let memo = verifiedMemo.get(history);
  if (!memo) verifiedMemo.set(history, (memo = new Map()));
  let answer = memo.get(sha);
  if (!answer) {
    answer = history.resolveCommit(sha).then(async (full) => ({ full, inHead: full !== null && (await history.isInHeadHistory(full)) }));
    memo.set(sha, answer);
  }
  return answer;
}

/** The project's walk_days bound (config.json, else the default) as an instant in seconds; undefined for none. */
export function walkBound(root: string, now: Date): number | undefined {
  const days = walkDays(root);
  return days > 0 ? Math.floor(now.getTime() / 1000 - days * 86_400) : undefined;
}

const VERIFIED_FILE = 'verified.json';
const DEEP_TOKENS_FILE = 'deep-tokens.json';
const DEEP_REMOVALS_FILE = 'deep-removals.json';

/**
 * One walk back to the oldest of `checkpoints`' updated_at (bounded by notBefore), and every
 * other question asked alongside it: each only if needed, each answered from a cache at an
 * unchanged HEAD, the rest started at once.
 */
export async function gatherEvidence(root: string, checkpoints: readonly Checkpoint[], opts: GatherOptions = {}): Promise<Evidence> {
  if (!existsSync(join(root, '.git'))) return NO_EVIDENCE;
  const thisRepo = opts.thisRepo ?? readThisRepo(root);
  const times = checkpoints.map((c) => toSeconds(c.updated_at)).filter((t) => Number.isFinite(t));
  let since = times.length ? Math.min(...times) : null;
  let cutAt: number | null = null;
  const bound = (t: number) => {
    if (opts.notBefore === undefined || t >= opts.notBefore) return t;
    cutAt = opts.notBefore;
    return opts.notBefore;
  };
  const scope = opts.changesUnder ?? [];
  const engine = opts.engine ?? 'auto';
  // An engine asked for by name is exercised, not answered from the walk caches.
  const walkCache = engine === 'auto';
  let opened: Promise<GitHistory> | null = null;
  const history = () => (opened ??= import('../git/index.js').then(({ createHistory }) => createHistory({ dir: root, engine })));
  // Doctor always speaks to the repository (the work tree, at least); next and status only on a miss.
  const repo = opts.repoState ? await history() : null;

  // Questions that need no walk start first: the work tree, and the commit names.
  const files = opts.repoState ? headFiles(root) : null;
  const [head, shallow] = repo ? await Promise.all([files?.sha ? { sha: files.sha, branch: files.branch } : repo.head(), files ? files.shallow : repo.isShallow()]) : [null, false];
  const uncommitted = opts.watch?.length ? history().then((h) => h.uncommittedPaths(opts.watch!)).then((paths) => new Set(paths)) : Promise.resolve(new Set<string>());
  uncommitted.catch(() => {}); // awaited by the caller, after the checks that do not need it
  let walkKnown!: (walk: Promise<CommitInfo[]>) => void;
  const walkLater = new Promise<CommitInfo[]>((resolve, reject) => (walkKnown = (w) => w.then(resolve, reject)));
  walkLater.catch(() => {});
  const verified = opts.verify?.length && !shallow ? verifyAll(root, history, opts.verify, walkLater, head?.sha ?? null) : Promise.resolve(new Map<string, Verified>());
  verified.catch(() => {});
  // Walks git made (not read from the cache): the one used is kept, a dropped early one is not.
  const walked = new WeakSet<CommitInfo[]>();
  const walkFrom = (t: number): Promise<CommitInfo[]> => {
    const cached = walkCache ? cachedCommitsSince(root, t, scope) : null;
    if (cached) return Promise.resolve(cached);
    return history().then(async (h) => {
      const commits = await h.commitsSince(t, { changes: scope.length ? scope : 'none' });
      walked.add(commits);
      return commits;
    });
  };
  // Action dates say how far back the walk goes. On an unchanged HEAD they are remembered;
  // else the walk to the checkpoints' own dates starts while they are read, and is redone
  // only if an action turns out older.
  let queued: QueuedDates = (opts.dateQueued && rememberedDates(root, opts.dateQueued)) || new Map();
  let early: { since: number; walk: Promise<CommitInfo[]> } | null = null;
  // The deep questions likewise, when the checkpoints' own dates already cut the walk: asked
  // with what is known before the dates (a text is queued no later than its checkpoint's save),
  // and used only if the dates leave the question unchanged.
  // A guess (asked before the dates, maybe of another question) is neither carried nor kept until
  // used: kept, an unused guess would replace the answer the next run needs (one answer per file).
  const ask = (search: DeepSearch, guess = false) => ({
    search,
    named: search.needles.length ? atHead(walkCache && root, DEEP_TOKENS_FILE, [search.needles, search.since], isCommitList, () => history().then((h) => h.commitsNaming(search.needles, search.since)), guess ? { keep: false } : { carry: { fromHead: (kept: unknown, earlier: string) => namingCarried(root, kept, earlier, search.needles, search.since) } }) : Promise.resolve([]),
    removals: search.files.length ? atHead(walkCache && root, DEEP_REMOVALS_FILE, [search.files, search.since], isCommitList, () => history().then((h) => h.lastRemovals(search.files, search.since)), guess ? { keep: false } : { carry: removalsCarry(root, search.files, search.since) }) : Promise.resolve([]),
  });
  const keepGuess = (answer: Promise<CommitInfo[]>, file: string, key: unknown) => (walkCache ? answer.then((value) => (storeAtHead(root, file, JSON.stringify(key), value), value)) : answer);
  let guessed: ReturnType<typeof ask> | null = null;
  // Not when the dates cost no walk (the files' revisions kept, or carried over new commits): the
  // exact question is then asked at once, and carried over those commits where it can be.
  if (opts.dateQueued?.length && !queued.size && since !== null && opts.notBefore !== undefined && since < opts.notBefore && !revisionsAtHand(root, opts.dateQueued)) {
    guessed = ask(deepQuestions(opts.dateQueued, queued, opts.notBefore, since, opts.missing ?? [], thisRepo), true);
    guessed.named.catch(() => {}); // awaited below, or dropped when the dates change the question
    guessed.removals.catch(() => {});
  }
  if (opts.dateQueued?.length && !queued.size) {
    if (since !== null) {
      const t = bound(since);
      early = { since: t, walk: walkFrom(t) };
      early.walk.catch(() => {}); // awaited below, or dropped when redone
    }
    queued = await dateQueuedActions(root, await history(), opts.dateQueued);
    rememberDates(root, opts.dateQueued, queued);
  }
  // An action queued before its checkpoint's last save is judged from when it was queued.
  const unbounded = since === null ? null : Math.min(since, oldestDate(opts.dateQueued ?? [], queued));
  if (unbounded !== null) since = bound(unbounded);
  const walk: Promise<CommitInfo[]> = since === null ? Promise.resolve([]) : early?.since === since ? early.walk : walkFrom(since);
  // The walk goes on past a commit dated before `since` (a skewed clock) that is not in the
  // history of a commit that recorded an instant it judges from (skew-walk.ts). Only instants
  // inside the walk: a cut walk's older anchors are what walk_days bounds.
  const anchoring = new Anchoring(root, history, opts, scope, uncommitted);
  const bounded = since;
  const full = walk.then((walked) => (bounded === null ? walked : anchoring.complete(walked, bounded)));
  walkKnown(full);
  const deep = cutAt !== null && unbounded !== null ? deepQuestions(opts.dateQueued ?? [], queued, cutAt, unbounded, opts.missing ?? [], thisRepo) : null;
  const sameKey = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const g = guessed?.search;
  const asked = deep === null ? null : {
    named: g && sameKey([g.needles, g.since], [deep.needles, deep.since]) ? keepGuess(guessed!.named, DEEP_TOKENS_FILE, [g.needles, g.since]) : ask({ ...deep, files: [] }).named,
    removals: g && sameKey([g.files, g.since], [deep.files, deep.since]) ? keepGuess(guessed!.removals, DEEP_REMOVALS_FILE, [g.files, g.since]) : ask({ ...deep, tokens: [], needles: [] }).removals,
  };
  const named = asked?.named ?? Promise.resolve([]);
  const removals = asked?.removals ?? Promise.resolve([]);
  const [walkedRecent, recent, verifiedBy, older, removed] = await Promise.all([walk, full, verified, named, removals]);
  // The cache keeps the plain walk: its completion is recomputed from it (no git on an honest history).
  if (since !== null && walked.has(walkedRecent)) storeCommitsSince(root, since, walkedRecent, scope);
  const seen = new Set(recent.map((c) => c.sha));
  const commits = older.length ? newestByGraph([...recent, ...older.filter((c) => !seen.has(c.sha))]) : recent;
  const madeAfter = await anchoring.rule(commits);
  const h = opened ? await opened : null;
  return { history: h, head, commits, shallow, queued, uncommitted, cutAt, ...(since === null ? {} : { walkedSince: since }), verified: verifiedBy, removals: removed, deep: deep && (deep.tokens.length || deep.files.length) ? deep : null, thisRepo, madeAfter, hiddenBy: anchoring.hidden, keptSave: (rel) => anchoring.recordedSave(rel), savedIn: (rel, sec) => anchoring.savedIn(commits, rel, sec), afterSaveByGraph: (rel, sec) => anchoring.afterSave(commits, rel, sec) };
}

/**
 * `files` with each updated_at more than validate's future skew past `now` (a clock ahead, a typo
 * in the year) replaced by a sane instant to date drift from (queued.ts saneSaves): such a value
 * would put every later change and landing "before" the save, and the checks would go silent.
 * `from` says, by path, what each was dated from (null: nothing sane was found, kept as written).
 * Git is asked only when a checkpoint is that far ahead.
 */
export async function datedSanely<T extends { rel: string; cp: Checkpoint }>(root: string, files: readonly T[], now: Date, engine: 'auto' | EngineName = 'auto', history?: GitHistory): Promise<{ files: T[]; from: Map<string, string | null> }> {
  const limit = now.getTime() + MAX_FUTURE_SKEW_MS;
  const from = new Map<string, string | null>();
  if (!files.some(({ cp }) => instantMs(cp.updated_at) > limit) || !existsSync(join(root, '.git'))) return { files: [...files], from };
  const open = () => (history ? Promise.resolve(history) : import('../git/index.js').then(({ createHistory }) => createHistory({ dir: root, engine })));
  const sane = await saneSaves(root, open, files, limit);
  return {
    files: files.map((f) => {
      if (!(instantMs(f.cp.updated_at) > limit)) return f;
      const s = sane.get(f.rel);
      from.set(f.rel, s?.from ?? null);
      return s ? { ...f, cp: redated(f.cp, s.at) } : f;
    }),
    from,
  };
}

/** The future-skew warning's last words in doctor: what drift was dated from meanwhile. */
export function datedFromWords(from: string | null): string {
  return from === null ? '; no commit or earlier save of it is dated sanely, so drift since it cannot be checked' : `; meanwhile drift checks date from ${from}`;
}

/** This repository's names, from its remotes' URLs (.git/config): the same for both engines. */
export function readThisRepo(root: string): ThisRepo {
  return thisRepoOf(remoteUrls(root));
}

/** A checkpoint's instant, keyed by file and text (null: its save). */
const instantKey = (rel: string, text: string | null) => (text === null ? `${rel}\0` : `${rel}\0+${text}`);

/**
 * The commits that recorded the checkpoints' instants (anchors), found only where they are
 * needed: to complete a walk a skewed commit may have cut short, and to judge commits the date
 * calls "before" when the walk's graph can tell otherwise (after.ts). On an honest history the
 * first needs the checkpoint revisions dateQueued reads anyway, the second nothing.
 *
 * A checkpoint edited in the work tree and not committed keeps every anchor a commit gives it:
 * a text the committed file already queued (the revision that queued it), and its save when a
 * committed revision holds the same updated_at (a hand edit that kept it), both read from the
 * revisions where they are read. A save no commit recorded has no anchor, and is judged by date:
 * nothing cheap says exactly which commits came after it. The file's mtime against the time of
 * HEAD's last reflog entry would order them only when both clocks are honest, and neither is
 * bound to be: the reflog's time is the committer's (GIT_COMMITTER_DATE, the very skew this
 * guards against, sets it), and an mtime is whatever the last tool to touch the file set
 * (touch -d, cp -p, tar, a checkout). So that order is not used.
 */
class Anchoring {
  /** Exact anchors by instant (instantKey), from the checkpoint files' revisions. */
  private readonly exact = new Map<string, RecordedInstant>();
  private datedRead = false;
  /** Checkpoints whose revisions were read: their anchors are exact (or there are none). */
  private readonly readFor = new Set<string>();
  /** Checkpoints whose saves a commit dated before the walk's bound hides (noteHidden). */
  readonly hidden: { rel: string; stop: string }[] = [];
  /** Checkpoints rule() found held as HEAD holds them, their revisions unread, and the HEAD it read them at. */
  private readonly asked = new Set<string>();
  private ruleHead: string | null = null;
  private proxies: Map<string, CommitInfo> | null = null;
  /** Descendants through the walk rule() was given (after.ts descendantsIn), made on first asking. */
  private later: ((sha: string) => ReadonlySet<string>) | null = null;
  /** HEAD's commit as the walk started from it: read once (headFiles reads the files again after each git process). */
  private headSha: Promise<string | null> | null = null;

  constructor(
    private readonly root: string,
    private readonly history: () => Promise<GitHistory>,
    private readonly opts: GatherOptions,
    private readonly scope: readonly string[],
    private readonly uncommitted: Promise<Set<string>>,
  ) {}

  private head(): Promise<string | null> {
    return (this.headSha ??= (async () => headFiles(this.root)?.sha ?? (await (await this.history()).head())?.sha ?? null)());
  }

  /** HEAD from the files now, before a git process makes headFiles read them again; the engine is asked only when needed. */
  private pinHead(): void {
    const sha = this.headSha === null ? headFiles(this.root)?.sha : undefined;
    if (sha) this.headSha = Promise.resolve(sha);
  }

  /** The dateQueued files' instants (their revisions are read for the dates: kept per HEAD). */
  private async dated(): Promise<void> {
    if (this.datedRead || !this.opts.dateQueued?.length) return;
    this.datedRead = true;
    for (const f of this.opts.dateQueued) this.readFor.add(f.rel);
    this.keep(await recordedInstants(this.root, this.history, this.opts.dateQueued));
  }

  private keep(instants: readonly RecordedInstant[]): void {
    for (const i of instants) this.exact.set(instantKey(i.rel, i.text), i);
  }

  /** Whether the work tree holds `rel` as HEAD does (false when git was not asked about it). */
  private async committed(rel: string): Promise<boolean> {
    if (!this.opts.watch?.includes(rel)) return false;
    return !(await this.uncommitted.catch(() => new Set([rel]))).has(rel);
  }

  /** Checkpoints whose file changes the walk lists, saved within the walk (since on). */
  private listed(since: number): { rel: string; cp: Checkpoint }[] {
    const all = [...(this.opts.dateQueued ?? []), ...(this.opts.recorded ?? [])];
    const seen = new Set<string>();
    return all.filter(({ rel, cp }) => {
      if (seen.has(rel) || !inScope(rel, this.scope)) return false;
      seen.add(rel);
      const saved = toSeconds(cp.updated_at);
      return Number.isFinite(saved) && saved >= since;
    });
  }

  /**
   * `walked` (back to `since`) completed past skew, from each anchor that leaves it open: the
   * oldest instant inside the walk that a commit recorded (dateQueued's revisions), and the save
   * of any checkpoint whose recording commit HEAD's walked first-parent line does not reach though
   * the work tree holds it as committed (a skewed commit on that line: its revisions are read then).
   * Each completion is of the walk as git gave it (after.ts relies on that); their commits are merged.
   */
  async complete(walked: CommitInfo[], since: number): Promise<CommitInfo[]> {
    this.pinHead();
    await this.dated();
    const anchors = new Set<string>();
    const oldest = [...this.exact.values()].filter((i) => i.at >= since).sort((a, b) => a.at - b.at)[0];
    if (oldest) anchors.add(oldest.anchor);
    this.aheadAnchors(anchors);
    // Held as HEAD holds them (an uncommitted save has no recording commit), then those whose
    // recording commit the walked first-parent line does not reach.
    const listed = (await Promise.all(this.listed(since).map(async (f) => ((await this.committed(f.rel)) ? [f] : [])))).flat();
    const head = anchors.size || listed.length ? await this.head() : null;
    if (!head) return walked;
    const recorded = lastRecorded(head, walked, listed.map((f) => f.rel));
    const cut = listed.filter(({ rel }) => !recorded.has(rel));
    // A merge that recorded the save on the line may only have brought it in from a side branch,
    // whose commit recorded it (queued.ts recordedBy). On an honest clock that side's tip is dated
    // at or after the save, so inside the walk; one the walk left out, or dated before the save,
    // is a side line whose commits the date cannot order against it: the file's revisions are read.
    let bySha: Map<string, CommitInfo> | null = null; // only where a merge recorded a save
    const merged = listed.filter(({ rel, cp }) => {
      const by = recorded.get(rel);
      if (by === undefined || by.parents.length < 2) return false;
      bySha ??= new Map(walked.map((c) => [c.sha, c]));
      const saved = Math.floor(toSeconds(cp.updated_at));
      return by.parents.slice(1).some((p) => !((bySha!.get(p)?.time ?? -Infinity) >= saved));
    });
    if (cut.length || merged.length) {
      const unread = [...cut, ...merged].filter((f) => !this.exact.has(instantKey(f.rel, null)));
      if (unread.length) {
        for (const f of unread) this.readFor.add(f.rel);
        this.keep(await recordedInstants(this.root, this.history, unread));
      }
      for (const f of cut) {
        const save = this.exact.get(instantKey(f.rel, null));
        if (save) anchors.add(save.anchor);
      }
      // A merge's save completes the walk only where the merge brought it in from the branch
      // (via) or it was stamped ahead: otherwise the merge or main's own save recorded it, and the
      // branch's commits keep their dates (a walk completed from main's save would count every
      // branch commit it missed as after it).
      for (const f of merged) {
        const save = this.exact.get(instantKey(f.rel, null));
        if (save && (save.via !== undefined || save.ahead)) anchors.add(save.anchor);
      }
      this.aheadAnchors(anchors);
    }
    const open = [...anchors].filter((a) => unprovenStops(head, walked, a).length > 0);
    const h = open.length ? await this.history() : null;
    const changes = this.scope.length ? this.scope : 'none';
    const byAnchor = h === null ? [] : await Promise.all(open.map((a) => h.commitsPast(walked, since, a, { changes, floor: this.opts.notBefore })));
    const out = byAnchor.length ? mergeCompletions(walked, byAnchor) : walked;
    if (cut.length) this.noteHidden(head, out, cut);
    return out;
  }

  /**
   * Anchors dated before the instants they recorded (a clock ahead of the committer's): the walk,
   * bounded by the instant, stops above commits made after such an anchor yet dated before the
   * instant, so it is completed from each of them too (those it already reaches leave it closed).
   */
  /** Evidence.savedIn over the walk `rule` was given (null before it ran). */
  savedIn(commits: readonly CommitInfo[], rel: string, sec: number): string | null {
    const exact = this.exact.get(instantKey(rel, null));
    if (exact) return exact.at === sec ? exact.anchor : null;
    if (this.ruleHead === null || !this.asked.has(rel)) return null;
    return firstRecorded(this.ruleHead, commits, rel, sec)?.sha ?? null;
  }

  /** Evidence.afterSaveByGraph over the walk `rule` was given: its anchor for the save, the graph below it read on first asking. */
  afterSave(commits: readonly CommitInfo[], rel: string, sec: number): (c: Pick<CommitInfo, 'sha'>) => boolean {
    const exact = this.exact.get(instantKey(rel, null));
    const anchor = exact ? (exact.at === sec ? exact.anchor : undefined) : this.proxy(commits, rel)?.sha;
    if (anchor === undefined) return () => false;
    this.later ??= descendantsIn(commits);
    return (c) => this.later!(anchor).has(c.sha);
  }

  /**
   * For a checkpoint rule() found held as HEAD holds it, its revisions unread: the newest commit of
   * HEAD's walked first-parent line that touches its file, which recorded its save (or a later
   * edit keeping it), so was made after it. Found for all of them in one pass, on first asking.
   */
  private proxy(commits: readonly CommitInfo[], rel: string): CommitInfo | undefined {
    if (this.ruleHead === null || !this.asked.has(rel)) return undefined;
    return (this.proxies ??= lastRecorded(this.ruleHead, commits, [...this.asked])).get(rel);
  }

  /** Whether a commit recorded the save `rel` holds (its revisions read: dateQueued's, or a tie's). */
  recordedSave(rel: string): boolean {
    return this.exact.has(instantKey(rel, null));
  }

  private aheadAnchors(anchors: Set<string>): void {
    for (const i of this.exact.values()) if (i.ahead) anchors.add(i.anchor);
  }

  /**
   * Of `cut` (checkpoints held as committed whose recording commit the walked first-parent line
   * did not reach), those it still does not reach once completed: a commit on that line made after
   * the commit that recorded the save (it descends from it) is dated before the walk's bound, the
   * walk_days one (skew-walk.ts's floor) or a skewed save's own. Exact: noted, with that commit.
   */
  private noteHidden(head: string, commits: readonly CommitInfo[], cut: readonly { rel: string }[]): void {
    const reached = lastRecorded(head, commits, cut.map((f) => f.rel));
    const bySha = new Map(commits.map((c) => [c.sha, c]));
    // The line's first commit the walk did not list: HEAD itself, or the first parent of its last listed one.
    let stop: string | undefined = head;
    for (let c = bySha.get(head); c !== undefined; c = c.parents.length ? bySha.get(c.parents[0]!) : undefined) stop = c.parents[0];
    for (const { rel } of cut) {
      const save = this.exact.get(instantKey(rel, null));
      if (reached.has(rel) || !save || stop === undefined || stop === save.anchor) continue;
      this.hidden.push({ rel, stop });
    }
  }

  /** madeAfter over the gathered commits: the date alone unless their graph can tell more (after.ts). */
  async rule(commits: readonly CommitInfo[]): Promise<MadeAfterOf> {
    if (!commits.length) return madeAfterByDate;
    await this.dated();
    // A recorded checkpoint whose revisions were not read, held as HEAD holds it: the newest commit
    // of HEAD's walked first-parent line that touches its file recorded its save.
    const head = await this.head();
    const unread = head === null ? [] : (this.opts.recorded ?? []).filter(({ rel }) => !this.readFor.has(rel) && inScope(rel, this.scope));
    const asked = (await Promise.all(unread.map(async (f) => ((await this.committed(f.rel)) ? [f] : [])))).flat();
    this.ruleHead = head;
    for (const f of asked) this.asked.add(f.rel);
    // Edited and not committed: a hand edit that kept updated_at keeps its committed save's commit
    // (docs/doctor.md). That commit matters only for a commit in the save's own second (the tie
    // rule), so its revisions are read only when the walk holds one.
    const open = unread.filter((f) => !asked.includes(f));
    const seconds = open.length ? new Set(commits.map((c) => c.time)) : null;
    // A commit a rewrite re-made across a save (committed after it, authored at or before it: a
    // rebase) counts as before it only by the commit that first recorded that save (after.ts
    // recordedBefore), which the newest commit touching the file (a later save's) may not be: the
    // revisions are read then too, only when the walk holds such a commit.
    const rewritten = (f: { cp: Checkpoint }) => {
      const sec = Math.floor(toSeconds(f.cp.updated_at));
      return commits.some((c) => c.time > sec && c.authorTime <= sec);
    };
    const toRead = [...open.filter((f) => seconds!.has(Math.floor(toSeconds(f.cp.updated_at))) || rewritten(f)), ...asked.filter(rewritten)];
    if (toRead.length) {
      for (const f of toRead) this.readFor.add(f.rel);
      this.keep(await recordedInstants(this.root, this.history, toRead));
    }
    // No anchor anywhere (untracked or uncommitted checkpoints): the date alone, the graph unread.
    if (!this.exact.size && !asked.length) return madeAfterByDate;
    const rule = madeAfterIn(commits);
    const graph = walkGraph(commits);
    return (rel, text, sec) => {
      if (rel === undefined) return byDate(sec, null);
      const exact = this.exact.get(instantKey(rel, text));
      if (exact) return exact.at === sec ? queuedAfter(rule(sec, exact.anchor, undefined, exact.ahead, exact.via), sec, exact.queuedIn, graph) : rule(sec, null);
      if (text !== null || !asked.some((f) => f.rel === rel)) return rule(sec, null);
      // Worked out on first use: an honest walk without a tie never asks.
      const by = this.proxy(commits, rel);
      // It holds the save, so it was made after it, even dated before it (a clock ahead where the
      // save was stamped, or behind where it was committed). Its ancestors on a tie: those of the
      // oldest commit on the line that may have recorded the save.
      return rule(sec, by ? by.sha : null, () => firstRecorded(head!, commits, rel, sec)?.sha ?? null, by !== undefined && by.time < Math.floor(sec));
    };
  }
}

/** The walk and its completions from several anchors, each commit once (marked when any completion marked it). */
function mergeCompletions(walked: readonly CommitInfo[], completions: readonly CommitInfo[][]): CommitInfo[] {
  if (completions.length === 1) return completions[0]!;
  const out = new Map(walked.map((c) => [c.sha, c]));
  for (const list of completions) {
    for (const c of list) {
      const known = out.get(c.sha);
      if (!known || (c.pastAnchor && !known.pastAnchor)) out.set(c.sha, c);
    }
  }
  return newestByGraph([...out.values()]);
}

/**
 * What history older than the cut can still change: the PR and ticket ids of texts queued
 * before the cut and the missing files, searched back to the oldest checkpoint date or queued text.
 */
function deepQuestions(files: readonly { rel: string; cp: Checkpoint }[], queued: QueuedDates, cutAt: number, oldest: number, missing: readonly string[], thisRepo: ThisRepo): DeepSearch {
  const tokens = new Set<string>();
  const needles = new Set<string>();
  for (const { rel, cp } of files) {
    const at = queuedAt(cp, queued.get(rel));
    const work = workTexts(cp, readActionText);
    for (const text of queuedTexts(cp)) {
      const after = at(text);
      const refs = workRefs(work(text), thisRepo);
      if (!refs.length || !(after < cutAt)) continue;
      for (const r of refs) {
        tokens.add(r.token);
        for (const n of landingNeedles(r)) needles.add(n);
      }
    }
  }
  // One search back to the oldest of them: one pass, and the same question (cache key) each run.
  return { tokens: [...tokens].sort(), needles: [...needles].sort(), since: oldest, files: [...new Set(missing)].sort() };
}

/**
 * The newest commits that removed `files`, back to `since`: HEAD fully determines the answer, so
 * it is kept by HEAD in cache file `file` (root false: an engine asked for by name is asked).
 */
export function lastRemovalsAtHead(root: string | false, file: string, history: GitHistory, files: readonly string[], since: number): Promise<CommitInfo[]> {
  const sorted = [...new Set(files)].sort();
  // Over new commits that changed none of the files, the last removal of each is what it was.
  return atHead(root, file, [sorted, since], isCommitList, () => history.lastRemovals(sorted, since), { carry: root === false ? undefined : removalsCarry(root, sorted, since) });
}

/**
 * The last removals of `files` kept at an earlier HEAD hold at HEAD when none of the commits a walk
 * from HEAD meets before the earlier HEAD's history (metSince) holds another file at one of those
 * paths than one of its parents does: none of them removed one.
 */
function removalsCarry(root: string, files: readonly string[], since: number): Carry {
  return { fromHead: (kept: unknown, earlier: string) => {
    const met = isCommitList(kept) ? metSince(root, earlier, since) : null;
    return met && met.touchAny(files) === false ? kept : null;
  } };
}

/**
 * The commits new to HEAD since `earlier` (commitsBefore), for an answer kept at `earlier` about the
 * commits a walk back to `since` reaches. The walk stops at `earlier` and at any commit of a walk
 * kept there that started no earlier than `since`: everything reached from those was reached from
 * `earlier` too, so is in that answer as it would be in a new one. Passing a commit dated before
 * `since` without going on, as the walks do, it must still reach `earlier` (whose answer then holds
 * at HEAD): else null, and the question is asked again. A plain line of new commits is the simplest
 * case; a pull that brought merges, the usual one.
 */
function metSince(root: string, earlier: string, since: number): MetCommits | null {
  const repo = repoKey(root);
  return repo && commitsBefore(repo.commonDir, repo.head, earlier, walkedAt(root, earlier, since) ?? new Set(), since);
}

/** commitsNaming's answer kept at an earlier HEAD, at HEAD: the commits met since (metSince) that name a token, then the kept answer. */
function namingCarried(root: string, kept: unknown, earlier: string, needles: readonly string[], since: number): CommitInfo[] | null {
  const met = isCommitList(kept) ? metSince(root, earlier, since) : null;
  if (!met) return null;
  const seen = new Set((kept as CommitInfo[]).map((c) => c.sha));
  const found = met.naming(needles).filter((c) => !seen.has(c.sha));
  return found.length ? newestByGraph([...found, ...(kept as CommitInfo[])]) : (kept as CommitInfo[]);
}

type Carry = Parameters<typeof carriedAtHead<unknown>>[3];

/**
 * An answer HEAD fully determines: read back while HEAD is unchanged, else asked and kept (root
 * false: asked). `carry`: over new commits on top, as carriedAtHead says; `keep` false: not kept.
 */
async function atHead<T>(root: string | false, file: string, key: unknown, valid: (v: unknown) => v is T, ask: () => Promise<T>, opts: { carry?: Carry; keep?: boolean } = {}): Promise<T> {
  if (root === false) return ask();
  const k = JSON.stringify(key);
  const cached = cachedAtHead<unknown>(root, file, k);
  if (valid(cached)) return cached;
  const carried = opts.carry ? carriedAtHead<unknown>(root, file, k, opts.carry) : null;
  if (valid(carried)) return carried;
  const value = await ask();
  if (opts.keep !== false) storeAtHead(root, file, k, value);
  return value;
}

type Stamped = Verified & { objects: string };

/** Verified answers kept at an earlier HEAD, for one that gained `added`: a name that resolved to one of them is now in HEAD's history. */
function carriedVerified(kept: Record<string, Stamped>, added: readonly CommitInfo[]): Record<string, Stamped> {
  if (!kept || typeof kept !== 'object' || Array.isArray(kept)) return {};
  const shas = new Set(added.map((c) => c.sha));
  const out: Record<string, Stamped> = {};
  for (const [name, hit] of Object.entries(kept)) out[name] = hit && typeof hit === 'object' && typeof hit.full === 'string' && shas.has(hit.full) ? { ...hit, inHead: true } : hit;
  return out;
}

/**
 * verified_for_sha answers: every name resolved by one question, ancestry asked only for
 * commits the walk did not reach. Kept at HEAD: ancestry is fixed by HEAD, and what a name
 * resolves to only changes when objects with its first two hex digits arrive (objectsStamp).
 */
async function verifyAll(root: string, history: () => Promise<GitHistory>, tokens: readonly string[], walk: Promise<CommitInfo[]>, head: string | null): Promise<Map<string, Verified>> {
  const names = [...new Set(tokens)];
  const stamps = new Map(names.map((n) => [n, objectsStamp(root, n)]));
  // Over new commits on top, a name's commit is still what it was while no object with its first
  // two hex digits arrived (the stamp says), and in HEAD's history if it was or is one of them.
  const cached = cachedAtHead<Record<string, Stamped>>(root, VERIFIED_FILE, 'v1')
    ?? carriedAtHead<Record<string, Stamped>>(root, VERIFIED_FILE, 'v1', { adjust: (kept, gained) => carriedVerified(kept, gained.commits) });
  const kept: Record<string, Stamped> = cached && typeof cached === 'object' && !Array.isArray(cached) ? { ...cached } : {};
  const out = new Map<string, Verified>();
  const ask: string[] = [];
  for (const name of names) {
    const hit = Object.hasOwn(kept, name) ? kept[name] : undefined;
    const stamp = stamps.get(name);
    if (stamp && hit && hit.objects === stamp && (hit.full === null || (typeof hit.full === 'string' && /^[0-9a-f]{40}$/.test(hit.full))) && typeof hit.inHead === 'boolean') out.set(name, { full: hit.full, inHead: hit.inHead && hit.full !== null });
    else ask.push(name);
  }
  if (!ask.length) return out;
  const h = await history();
  const [fulls, walked] = await Promise.all([h.resolveCommits(ask), walk]);
  const reached = new Set(walked.map((c) => c.sha));
  const answers = await Promise.all(fulls.map(async (full) => ({ full, inHead: full !== null && (full === head || reached.has(full) || (await h.isInHeadHistory(full))) })));
  ask.forEach((name, i) => {
    out.set(name, answers[i]!);
    const stamp = stamps.get(name);
    if (stamp) kept[name] = { ...answers[i]!, objects: stamp };
    else delete kept[name];
  });
  storeAtHead(root, VERIFIED_FILE, 'v1', Object.fromEntries(Object.entries(kept).slice(-50)));
  return out;
}

/**
 * The oldest date of a queued text that names work: only a landing of such work is judged from
 * when it was queued, so an older action naming none (kept beside a blocker waiting on a PR) costs no longer walk.
 */
function oldestDate(files: readonly { rel: string; cp: Checkpoint }[], dates: QueuedDates): number {
  let oldest = Infinity;
  for (const { rel, cp } of files) {
    const byText = dates.get(rel);
    if (!byText) continue;
    const work = workTexts(cp, readActionText);
    for (const [text, at] of byText) if (at < oldest && mayNameWork(work(text))) oldest = at;
  }
  return oldest;
}

/** Whether any queued action or blocker resolution names a PR or ticket (else no walk can change `next`). */
export function mentionsWork(cp: Checkpoint): boolean {
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions : [];
  const blockers = Array.isArray(cp.blockers) ? cp.blockers : [];
  return [...actions.map((a) => withActionRefs(readActionText(a), a)), ...blockers.map((b) => (typeof b?.proposed_resolution === 'string' ? b.proposed_resolution : ''))].some(mayNameWork);
}

/** For `next`: describes how ALL the work `text` names has landed, or null if any is still open. */
export function landedEvidence(cp: Checkpoint, evidence: Evidence, checkpointRel?: string): (text: string) => string | null {
  const at = queuedAt(cp, checkpointRel === undefined ? undefined : evidence.queued.get(checkpointRel));
  const work = workTexts(cp, readActionText);
  return (text) => {
    // Dated by when the text was queued, as doctor does: a re-save that kept it does not hide a landing.
    const { landings, open } = actionLandings(work(text), evidence.commits, evidence.madeAfter(checkpointRel, text, at(text)), evidence.thisRepo);
    if (!landings.length || open.length) return null;
    return landingsLine(landings);
  };
}

/** How the read side words landings: `#20 landed in 1b5f3ba "New schema (#20)"`, joined by "; ". */
export function landingsLine(landings: readonly Landing[]): string {
  return landings.map((l) => `${l.ref.token} landed in ${l.commit.sha.slice(0, 7)} ${quoted(l.commit.subject)}`).join('; ');
}
