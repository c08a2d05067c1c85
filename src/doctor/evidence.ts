// Git evidence for drift checks, gathered once per command: one bounded walk back to
// the oldest checkpoint's updated_at, never the whole history.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import type { CommitInfo, EngineName, GitHistory, HeadInfo } from '../git/types.js';
import { findLandings, workRefs } from './landed.js';

export interface Evidence {
  history: GitHistory | null;
  head: HeadInfo | null;
  /** Commits since the oldest checkpoint's updated_at, newest first. */
  commits: CommitInfo[];
  shallow: boolean;
}

export const NO_EVIDENCE: Evidence = { history: null, head: null, commits: [], shallow: false };

export function toSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

export async function gatherEvidence(root: string, checkpoints: readonly Checkpoint[], engine: 'auto' | EngineName = 'auto'): Promise<Evidence> {
  if (!existsSync(join(root, '.git'))) return NO_EVIDENCE;
  const { createHistory } = await import('../git/index.js');
  const history = await createHistory({ dir: root, engine });
  const head = await history.head();
  if (!head) return { ...NO_EVIDENCE, history };
  const times = checkpoints.map((c) => toSeconds(c.updated_at)).filter((t) => Number.isFinite(t));
  const commits = times.length ? await history.commitsSince(Math.min(...times)) : [];
  return { history, head, commits, shallow: await history.isShallow() };
}

/** For `next`: describes how ALL the work `text` names has landed, or null if any is still open. */
export function landedEvidence(cp: Checkpoint, evidence: Evidence): (text: string) => string | null {
  const after = toSeconds(cp.updated_at);
  return (text) => {
    const landings = findLandings(text, evidence.commits, after);
    if (!landings.length || landings.length < workRefs(text).length) return null;
    return landings.map((l) => `${l.ref.token} landed in ${l.commit.sha.slice(0, 7)} "${l.commit.subject}"`).join('; ');
  };
}
