// doctor = every check over every checkpoint, with one evidence walk shared by all.
import { relative, sep } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import type { CommitInfo, EngineName, GitHistory } from '../git/types.js';
import { judge, type PushRange } from './push.js';
import { checkGeneratedFiles, checkLandedWork, checkOnline, checkProjectDir, checkSchema, checkStaleness, checkVerifiedSha, generatedTargets } from './checks.js';
import { gatherEvidence, mentionsWork } from './evidence.js';
import { loadAll } from '../read/load.js';
import { fetchHealth } from './online.js';
import { checkLeftovers, checkRepoHealth } from './health.js';
import type { Finding } from './types.js';

export interface DoctorOptions {
  root: string;
  now: Date;
  engine?: 'auto' | EngineName;
  /** Health URL to compare with HEAD, when --online was asked for. */
  onlineUrl?: string;
  /** Ranges a push sends (pre-push hook): only findings these commits cause or carry block. */
  pushed?: readonly PushRange[];
}

export interface DoctorReport {
  findings: Finding[];
  checkpoints: number;
  engine: EngineName | null;
  head: string | null;
  /** Under --pushed: how many commits the push sends. */
  pushed: number | null;
}

async function pushedCommits(history: GitHistory | null, ranges: readonly PushRange[]): Promise<CommitInfo[]> {
  if (!history) return [];
  const all = new Map<string, CommitInfo>();
  for (const r of ranges) for (const c of await history.pushedCommits(r.from, r.to)) all.set(c.sha, c);
  return [...all.values()];
}

export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const loaded = loadAll(opts.root, opts.now);
  const checkpoints = loaded.flatMap((l) => (l.checkpoint ? [l.checkpoint] : []));
  const relOf = (skill: string) => {
    const l = loaded.find((x) => x.skill === skill);
    return l ? relative(opts.root, l.path).split(sep).join('/') : null;
  };
  const dateQueued = checkpoints.filter(mentionsWork).map((cp) => ({ rel: relOf(cp.skill)!, cp }));
  const evidence = await gatherEvidence(opts.root, checkpoints, { engine: opts.engine, repoState: true, dateQueued });
  const findings: Finding[] = loaded.flatMap(checkSchema);
  findings.push(...(await checkRepoHealth(opts.root, evidence.history !== null)), ...checkLeftovers(opts.root));

  const generated = checkpoints.flatMap((cp) => generatedTargets(cp, opts.root).map((t) => t.rel));
  const cpRel = (cp: Checkpoint) => relative(opts.root, loaded.find((l) => l.skill === cp.skill)!.path);
  const watched = [...new Set([...generated.filter((f): f is string => f !== null), ...checkpoints.map(cpRel)])];
  const dirty = new Set(evidence.history ? await evidence.history.uncommittedPaths(watched) : []);

  for (const cp of checkpoints) {
    findings.push(...checkProjectDir(cp, opts.root, evidence.history !== null));
    findings.push(...checkStaleness(cp, opts.now));
    findings.push(...checkGeneratedFiles(cp, { root: opts.root, evidence, uncommitted: dirty, checkpointDirty: dirty.has(cpRel(cp)), checkpointRel: cpRel(cp) }));
    findings.push(...checkLandedWork(cp, evidence, relOf(cp.skill)!));
    findings.push(...(await checkVerifiedSha(cp, evidence)));
  }
  if (opts.onlineUrl !== undefined) findings.push(...checkOnline(await fetchHealth(opts.onlineUrl), evidence.head?.sha ?? null));
  const pushed = opts.pushed ? await pushedCommits(evidence.history, opts.pushed) : null;
  return { findings: judge(findings, pushed, relOf), pushed: pushed?.length ?? null, checkpoints: loaded.length, engine: evidence.history?.engine ?? null, head: evidence.head?.sha ?? null };
}
