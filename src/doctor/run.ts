// doctor = every check over every checkpoint, with one evidence walk shared by all.
import { relative, sep } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';
import type { EngineName } from '../git/types.js';
import { judge, type PushRange } from './push.js';
import { judgePushedTips } from './pushed-tips.js';
import { checkGeneratedFiles, checkLandedWork, checkOnline, checkProjectDir, checkSchema, checkStaleness, checkVerifiedSha, generatedTargets } from './checks.js';
import { gatherEvidence, mentionsWork } from './evidence.js';
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
  if (opts.pushed) {
    // A push is judged as pushed: the work tree's findings are printed and never block.
    const tips = evidence.history ? await judgePushedTips(opts.root, opts.now, evidence, opts.pushed) : { findings: [], commits: [] };
    return { findings: mergePushed(findings, tips.findings), pushed: tips.commits.length, checkpoints: loaded.length, engine: evidence.history?.engine ?? null, head: evidence.head?.sha ?? null };
  }
  return { findings: judge(findings, null, relOf), pushed: null, checkpoints: loaded.length, engine: evidence.history?.engine ?? null, head: evidence.head?.sha ?? null };
}

/**
 * Work-tree findings (never blocking) plus the pushed tips' findings; a tip finding that says
 * what a work-tree one already says (the tip is the checked-out state) is shown once.
 */
function mergePushed(workTree: readonly Finding[], tips: readonly Finding[]): Finding[] {
  const strip = (m: string) => m.replace(/ \(as pushed in [0-9a-f]+\)$/, '');
  const key = (f: Finding) => `${f.skill}\0${f.check}\0${f.path}\0${strip(f.message)}`;
  const tipByKey = new Map(tips.map((f) => [key(f), f]));
  const shown = new Set<string>();
  const out: Finding[] = workTree.map((f) => {
    const tip = tipByKey.get(key(f));
    if (!tip) return { ...f, blocks: false };
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
