// What next, status and resume take from history, remembered: which queued actions git shows as
// landed, and which blockers' awaited work, with the evidence line for each. Asked again on an unchanged HEAD about unchanged
// checkpoints (an agent asks at every step), it is one small file read instead of the walk, the
// action dates and their caches. Exact, not a guess: the answer is a function of
//  - HEAD's commit and the shallow boundary (history below a commit never changes);
//  - each asking checkpoint's path, updated_at, queued actions, blocker resolutions and blocker
//    descriptions (what the walk's start, the action dates and the landing rules read);
//  - this repository's names (its remotes: which PR URLs are its own), which HEAD does not fix;
//  - the walk_days bound, only when it cuts the walk: an answer is kept only from an uncut walk,
//    and used only while the bound still leaves that walk uncut;
//  - this build's rules (CHECKPOINT_BUILD, as for verdicts.ts): an unbundled run keeps nothing.
// The key holds all of it written out whole; a file that is not exactly ours is a miss.
// Kept per work tree in its git dir (<gitdir>/checkpoint/landed.json), beside verdicts.json.
// After new commits (an agent's every commit) the answer kept at the earlier HEAD is carried
// over them when they cannot change it (carriedAnswer).
import { join } from 'node:path';
import { cacheDir, readCacheJson, writeCacheJson } from '../git/cache-files.js';
import { fastForward } from '../git/fast-forward.js';
import type { HeadFiles } from '../git/head-files.js';
import { actionText, type Checkpoint } from '../protocol/types.js';
import { withActionRefs } from '../protocol/action-refs.js';
import type { ThisRepo } from '../doctor/repo-names.js';
import { commitLands, isRevert, workRefs } from '../doctor/landed.js';
import { awaitedWork } from '../doctor/blocker-waits.js';
import { BUILD } from '../store/verdicts.js';


const FILE = 'landed.json';
/** Distinct questions kept: status/next over all checkpoints, resume per skill, a branch switch. */
const MAX_ENTRIES = 8;
/** Far more than MAX_ENTRIES answers take: a larger file is not ours and is a miss. */
const MAX_FILE_BYTES = 1 << 20;

/** Per asking checkpoint (by repo-relative path): evidence lines by text. */
export interface LandedAnswer {
  /** Of each next_actions text git shows landed. */
  actions: Map<string, Map<string, string>>;
  /** Of each blocker description whose awaited work all landed (blocker-waits.ts). */
  waits: Map<string, Map<string, string>>;
}

type Pairs = [string, [string, string][]][];

export interface Asking {
  rel: string;
  cp: Checkpoint;
}

interface Entry {
  key: string;
  /** The oldest instant (seconds) the walk went back to: the answer holds while walk_days does not cut above it. */
  since: number;
  landed: Pairs;
  waits: Pairs;
}

/** The question, written out whole; null when this run keeps no answers. */
export function landedKey(head: HeadFiles, asking: readonly Asking[], thisRepo: ThisRepo): string | null {
  if (BUILD === null || head.sha === null) return null;
  return JSON.stringify([BUILD, head.sha, head.shallowKey, thisRepo, asking.map(({ rel, cp }) => [rel, cp.updated_at, texts(cp.next_actions, workOf), texts(cp.blockers, blockerWork)])]);
}

function texts<T>(list: T[] | undefined, text: (item: T) => unknown): unknown[] {
  return Array.isArray(list) ? list.map(text) : [];
}

/** An action as its work is read (its words and its own reference keys): what the answer depends on. */
const workOf = (a: Parameters<typeof actionText>[0]) => withActionRefs(actionText(a), a);

const resolution = (b: { proposed_resolution?: unknown } | null) => (b && typeof b === 'object' ? (b.proposed_resolution ?? null) : null);

/** A blocker as its work is read: its resolution (a queued text) and its description (what it may wait on). */
const blockerWork = (b: { proposed_resolution?: unknown; description?: unknown } | null) => [resolution(b), b && typeof b === 'object' ? (b.description ?? null) : null];

const isPairs = (v: unknown): v is [string, string][] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string');
const isByRel = (v: unknown): v is Pairs => Array.isArray(v) && v.every((r) => Array.isArray(r) && r.length === 2 && typeof r[0] === 'string' && isPairs(r[1]));

function isEntry(v: unknown): v is Entry {
  const e = v as Partial<Entry> | null;
  return typeof e === 'object' && e !== null && typeof e.key === 'string' && typeof e.since === 'number' && Number.isFinite(e.since) &&
    isByRel(e.landed) && isByRel(e.waits);
}

function entries(gitdir: string): Entry[] {
  const dir = cacheDir(gitdir);
  const file = dir && (readCacheJson(join(dir, FILE), MAX_FILE_BYTES) as { entries?: unknown } | undefined);
  return file && Array.isArray(file.entries) ? file.entries.filter(isEntry) : [];
}

/**
 * The remembered answer to `key` (landedKey of `asking` at HEAD), or the answer kept at an earlier
 * HEAD carried over the commits since (carriedAnswer, then kept under HEAD); in either case unless
 * the walk_days bound (notBefore, seconds) would now cut its walk.
 */
export function rememberedLanded(head: HeadFiles, key: string, notBefore: number | undefined, asking: readonly Asking[], thisRepo: ThisRepo): LandedAnswer | null {
  const all = entries(head.gitdir);
  const kept = all.filter((e) => notBefore === undefined || e.since >= notBefore);
  const hit = kept.find((e) => e.key === key) ?? carriedAnswer(head, key, kept, asking, thisRepo);
  if (!hit) return null;
  if (hit.key !== key) keep(head, { ...hit, key }, all);
  const byRel = (pairs: Pairs) => new Map(pairs.map(([rel, byText]) => [rel, new Map(byText)]));
  return { actions: byRel(hit.landed), waits: byRel(hit.waits) };
}

/**
 * The entry kept for the same question at an earlier HEAD, when HEAD has since gained a plain line
 * of commits (fast-forward.ts; none dated before that walk's start, where a walk would stop) of
 * which none lands a reference the asked texts or the blockers' awaited work name, nor is a revert
 * (which may undo a landing without naming it in a landing form): a walk from HEAD finds the same
 * landings, dated as before.
 */
function carriedAnswer(head: HeadFiles, key: string, kept: readonly Entry[], asking: readonly Asking[], thisRepo: ThisRepo): Entry | undefined {
  if (head.sha === null) return undefined;
  const question = withoutHead(key);
  for (const entry of kept) {
    const earlier = headOf(entry.key);
    if (earlier === null || earlier === head.sha || withoutHead(entry.key) !== question) continue;
    const gained = fastForward(head.commonDir, head.sha, earlier, entry.since);
    if (!gained) continue;
    const refs = asking.flatMap(({ cp }) => [...texts(cp.next_actions, workOf), ...texts(cp.blockers, resolution), ...texts(cp.blockers, (b) => awaitedWork(b?.description, thisRepo))]).flatMap((text) => (typeof text === 'string' ? workRefs(text, thisRepo) : []));
    return gained.commits.some((c) => isRevert(c) || refs.some((ref) => commitLands(c, ref))) ? undefined : entry;
  }
  return undefined;
}

/** A landedKey's HEAD (its second member), or null when the key is not one. */
function headOf(key: string): string | null {
  try {
    const parts = JSON.parse(key) as unknown;
    return Array.isArray(parts) && typeof parts[1] === 'string' && /^[0-9a-f]{40}$/.test(parts[1]) ? parts[1] : null;
  } catch {
    return null;
  }
}

/** A landedKey with its HEAD left out: the question itself. */
function withoutHead(key: string): string {
  const parts = JSON.parse(key) as unknown[];
  return JSON.stringify([parts[0], ...parts.slice(2)]);
}

/** Best effort, like the other caches: a read-only git dir only costs the next run the walk. */
export function rememberLanded(head: HeadFiles, key: string, since: number, landed: LandedAnswer): void {
  const pairs = (byRel: Map<string, Map<string, string>>): Pairs => [...byRel].map(([rel, byText]) => [rel, [...byText]]);
  keep(head, { key, since, landed: pairs(landed.actions), waits: pairs(landed.waits) }, entries(head.gitdir));
}

/** Writes `entry` first, before the other `known` entries (newest first, at most MAX_ENTRIES). */
function keep(head: HeadFiles, entry: Entry, known: readonly Entry[]): void {
  const dir = cacheDir(head.gitdir, '', true);
  if (!dir) return;
  writeCacheJson(dir, FILE, { entries: [entry, ...known.filter((e) => e.key !== entry.key)].slice(0, MAX_ENTRIES) });
}
