// doctor = every check over every checkpoint, with one evidence walk shared by all.
import { relative } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import type { EngineName } from '../git/types.js';
import { checkGeneratedFiles, checkLandedWork, checkOnline, checkProjectDir, checkSchema, checkStaleness, checkVerifiedSha, repoRelative } from './checks.js';
import { gatherEvidence } from './evidence.js';
import { loadAll } from './load.js';
import { fetchHealth } from './online.js';
import { checkLeftovers, checkRepoHealth } from './health.js';
import type { Finding } from './types.js';

export interface DoctorOptions {
  root: string;
  now: Date;
  engine?: 'auto' | EngineName;
  /** Health URL to compare with HEAD, when --online was asked for. */
  onlineUrl?: string;
}

export interface DoctorReport {
  findings: Finding[];
  checkpoints: number;
  engine: EngineName | null;
  head: string | null;
}

export async function runDoctor(opts: DoctorOptions): Promise<DoctorReport> {
  const loaded = loadAll(opts.root, opts.now);
  const checkpoints = loaded.flatMap((l) => (l.checkpoint ? [l.checkpoint] : []));
  const evidence = await gatherEvidence(opts.root, checkpoints, { engine: opts.engine, repoState: true });
  const findings: Finding[] = loaded.flatMap(checkSchema);
  findings.push(...(await checkRepoHealth(opts.root, evidence.history !== null)), ...checkLeftovers(opts.root));

  const generated = checkpoints.flatMap((cp) => (cp.context_primer?.generated_files ?? []).flatMap((f) => (typeof f === 'string' ? [repoRelative(opts.root, f)] : [])));
  const cpRel = (cp: Checkpoint) => relative(opts.root, loaded.find((l) => l.skill === cp.skill)!.path);
  const watched = [...new Set([...generated.filter((f): f is string => f !== null), ...checkpoints.map(cpRel)])];
  const dirty = new Set(evidence.history ? await evidence.history.uncommittedPaths(watched) : []);

  for (const cp of checkpoints) {
    findings.push(...checkProjectDir(cp, opts.root, evidence.history !== null));
    findings.push(...checkStaleness(cp, opts.now));
    findings.push(...checkGeneratedFiles(cp, { root: opts.root, evidence, uncommitted: dirty, checkpointDirty: dirty.has(cpRel(cp)), checkpointRel: cpRel(cp) }));
    findings.push(...checkLandedWork(cp, evidence));
    findings.push(...(await checkVerifiedSha(cp, evidence)));
  }
  if (opts.onlineUrl !== undefined) findings.push(...checkOnline(await fetchHealth(opts.onlineUrl), evidence.head?.sha ?? null));
  return { findings, checkpoints: loaded.length, engine: evidence.history?.engine ?? null, head: evidence.head?.sha ?? null };
}
