// Git evidence for drift checks, gathered once per command: one bounded walk back to
// the oldest checkpoint's updated_at, never the whole history.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { actionText, type Checkpoint } from '../protocol/types.js';
import type { CommitInfo, EngineName, GitHistory, HeadInfo } from '../git/types.js';
import { cachedCommitsSince, storeCommitsSince } from '../git/commit-cache.js';
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
}

export const NO_EVIDENCE: Evidence = { history: null, head: null, commits: [], shallow: false, queued: new Map() };

export function toSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

export interface GatherOptions {
  engine?: 'auto' | EngineName;
  /** Also read HEAD and whether the clone is shallow (doctor needs them; next and status do not). */
  repoState?: boolean;
  /** Date queued actions from these checkpoint files' own history, and walk back far enough to judge them. */
  dateQueued?: readonly { rel: string; cp: Checkpoint }[];
}

/** One walk back to the oldest of `checkpoints`' updated_at; each git question asked only if needed. */
export async function gatherEvidence(root: string, checkpoints: readonly Checkpoint[], opts: GatherOptions = {}): Promise<Evidence> {
  if (!existsSync(join(root, '.git'))) return NO_EVIDENCE;
  const times = checkpoints.map((c) => toSeconds(c.updated_at)).filter((t) => Number.isFinite(t));
  let since = times.length ? Math.min(...times) : null;
  // next and status need only the commits (and action dates): on an unchanged HEAD both come from caches, no git started.
  const remembered = opts.dateQueued && !opts.repoState ? rememberedDates(root, opts.dateQueued) : null;
  const walkFrom = since === null ? null : Math.min(since, oldestDate(remembered));
  const cached = walkFrom !== null && !opts.repoState && (!opts.dateQueued || remembered) && (opts.engine ?? 'auto') === 'auto' ? cachedCommitsSince(root, walkFrom) : null;
  if (cached) return { history: null, head: null, commits: cached, shallow: false, queued: remembered ?? new Map() };
  const { createHistory } = await import('../git/index.js');
  const history = await createHistory({ dir: root, engine: opts.engine ?? 'auto' });
  const queued = remembered ?? (opts.dateQueued ? await dateQueuedActions(root, history, opts.dateQueued) : new Map<string, Map<string, number>>());
  if (opts.dateQueued && !remembered && !opts.repoState) rememberDates(root, opts.dateQueued, queued);
  // An action queued before its checkpoint's last save is judged from when it was queued.
  const oldestQueued = oldestDate(queued);
  if (since !== null && oldestQueued < since) since = oldestQueued;
  const [commits, head, shallow] = await Promise.all([
    // Dating took git, the walk need not: an unchanged HEAD still answers it from the cache.
    since === null ? [] : (!opts.repoState && (opts.engine ?? 'auto') === 'auto' && cachedCommitsSince(root, since)) || history.commitsSince(since),
    opts.repoState ? history.head() : null,
    opts.repoState ? history.isShallow() : false,
  ]);
  if (since !== null) storeCommitsSince(root, since, commits);
  return { history, head, commits, shallow, queued };
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
