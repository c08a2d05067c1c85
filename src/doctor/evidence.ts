// Git evidence for drift checks, gathered once per command: one bounded walk back to
// the oldest checkpoint's updated_at, never the whole history.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { actionText, type Checkpoint } from '../protocol/types.js';
import type { CommitInfo, EngineName, GitHistory, HeadInfo } from '../git/types.js';
import { cachedCommitsSince, storeCommitsSince } from '../git/commit-cache.js';
import { walkDays } from '../store/config.js';
import { findLandings, workRefs } from './landed.js';
import { dateQueuedActions, type QueuedDates } from './queued.js';
import { rememberDates, rememberedDates } from './queued-memo.js';

export interface Evidence {
  history: GitHistory | null;
  head: HeadInfo | null;
  /** Commits since the oldest checkpoint's updated_at, newest first. */
  commits: CommitInfo[];
  shallow: boolean;
  /** When each queued text entered its checkpoint (doctor only), by checkpoint path. */
  queued: QueuedDates;
  /** Of GatherOptions.watch, the paths with uncommitted changes. */
  uncommitted: Set<string>;
  /** When the walk was cut short by the walk_days bound: the instant (seconds) it stopped at. */
  cutAt: number | null;
}

export const NO_EVIDENCE: Evidence = { history: null, head: null, commits: [], shallow: false, queued: new Map(), uncommitted: new Set(), cutAt: null };

export function toSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

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
}

/** Checkpoints often name the same base commit: each is looked up once per history. */
const verifiedMemo = new WeakMap<GitHistory, Map<string, Promise<{ full: string | null; inHead: boolean }>>>();

/** The full sha `sha` names (null: none) and whether HEAD's history holds it. */
export function lookupVerified(history: GitHistory, sha: string): Promise<{ full: string | null; inHead: boolean }> {
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

/** One walk back to the oldest of `checkpoints`' updated_at; each git question asked only if needed. */
export async function gatherEvidence(root: string, checkpoints: readonly Checkpoint[], opts: GatherOptions = {}): Promise<Evidence> {
  if (!existsSync(join(root, '.git'))) return NO_EVIDENCE;
  const times = checkpoints.map((c) => toSeconds(c.updated_at)).filter((t) => Number.isFinite(t));
  let since = times.length ? Math.min(...times) : null;
  let cutAt: number | null = null;
  const bound = (t: number) => {
    if (opts.notBefore === undefined || t >= opts.notBefore) return t;
    cutAt = opts.notBefore;
    return opts.notBefore;
  };
  if (since !== null) since = bound(since);
  const scope = opts.changesUnder ?? [];
  // next and status need only the commits (and action dates): on an unchanged HEAD both come from caches, no git started.
  const remembered = opts.dateQueued && !opts.repoState ? rememberedDates(root, opts.dateQueued) : null;
  const walkFrom = since === null ? null : bound(Math.min(since, oldestDate(remembered)));
  const cached = walkFrom !== null && !opts.repoState && (!opts.dateQueued || remembered) && (opts.engine ?? 'auto') === 'auto' ? cachedCommitsSince(root, walkFrom, scope) : null;
  if (cached) return { ...NO_EVIDENCE, commits: cached, cutAt, queued: remembered ?? new Map() };
  const { createHistory } = await import('../git/index.js');
  const history = await createHistory({ dir: root, engine: opts.engine ?? 'auto' });
  // Started now, awaited by the check: a failure surfaces there, not here.
  for (const sha of new Set(opts.verify)) lookupVerified(history, sha).catch(() => {});
  // Working-tree state does not depend on the walk: ask for it alongside.
  const uncommitted = opts.watch?.length ? history.uncommittedPaths(opts.watch) : Promise.resolve([]);
  const queued = remembered ?? (opts.dateQueued ? await dateQueuedActions(root, history, opts.dateQueued) : new Map<string, Map<string, number>>());
  if (opts.dateQueued && !remembered && !opts.repoState) rememberDates(root, opts.dateQueued, queued);
  // An action queued before its checkpoint's last save is judged from when it was queued.
  const oldestQueued = oldestDate(queued);
  if (since !== null && oldestQueued < since) since = bound(oldestQueued);
  // Dating took git, the walk need not: an unchanged HEAD still answers it from the cache.
  const fromCache = since === null ? null : (opts.engine ?? 'auto') === 'auto' ? cachedCommitsSince(root, since, scope) : null;
  const [commits, head, shallow, dirty] = await Promise.all([
    since === null ? [] : fromCache ?? history.commitsSince(since, { changes: scope.length ? scope : 'none' }),
    opts.repoState ? history.head() : null,
    opts.repoState ? history.isShallow() : false,
    uncommitted,
  ]);
  if (since !== null && !fromCache) storeCommitsSince(root, since, commits, scope);
  return { history, head, commits, shallow, queued, uncommitted: new Set(dirty), cutAt };
}

function oldestDate(dates: QueuedDates | null): number {
  return dates ? Math.min(...[...dates.values()].flatMap((m) => [...m.values()])) : Infinity;
}

/** Whether any queued action or blocker resolution names a PR or ticket (else no walk can change `next`). */
export function mentionsWork(cp: Checkpoint): boolean {
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions : [];
  const blockers = Array.isArray(cp.blockers) ? cp.blockers : [];
  return [...actions.map(actionText), ...blockers.map((b) => (typeof b?.proposed_resolution === 'string' ? b.proposed_resolution : ''))].some((t) => workRefs(t).length > 0);
}

/** For `next`: describes how ALL the work `text` names has landed, or null if any is still open. */
export function landedEvidence(cp: Checkpoint, evidence: Evidence, checkpointRel?: string): (text: string) => string | null {
  const saved = toSeconds(cp.updated_at);
  const dates = checkpointRel === undefined ? undefined : evidence.queued.get(checkpointRel);
  return (text) => {
    // Dated by when the text was queued, as doctor does: a re-save that kept it does not hide a landing.
    const landings = findLandings(text, evidence.commits, Math.min(saved, dates?.get(text) ?? saved));
    if (!landings.length || landings.length < workRefs(text).length) return null;
    return landings.map((l) => `${l.ref.token} landed in ${l.commit.sha.slice(0, 7)} "${l.commit.subject}"`).join('; ');
  };
}
