// What next, status and resume take from history, remembered: which queued actions git shows as
// landed, and the evidence line for each. Asked again on an unchanged HEAD about unchanged
// checkpoints (an agent asks at every step), it is one small file read instead of the walk, the
// action dates and their caches. Exact, not a guess: the answer is a function of
//  - HEAD's commit and the shallow boundary (history below a commit never changes);
//  - each asking checkpoint's path, updated_at, queued actions and blocker resolutions (what the
//    walk's start, the action dates and the landing rules read);
//  - this repository's names (its remotes: which PR URLs are its own), which HEAD does not fix;
//  - the walk_days bound, only when it cuts the walk: an answer is kept only from an uncut walk,
//    and used only while the bound still leaves that walk uncut;
//  - this build's rules (CHECKPOINT_BUILD, as for verdicts.ts): an unbundled run keeps nothing.
// The key holds all of it written out whole; a file that is not exactly ours is a miss.
// Kept per work tree in its git dir (<gitdir>/checkpoint/landed.json), beside verdicts.json.
import { join } from 'node:path';
import { cacheDir, readCacheJson, writeCacheJson } from '../git/cache-files.js';
import type { HeadFiles } from '../git/head-files.js';
import { actionText, type Checkpoint } from '../protocol/types.js';
import type { ThisRepo } from '../doctor/repo-names.js';
import { BUILD } from '../store/verdicts.js';


const FILE = 'landed.json';
/** Distinct questions kept: status/next over all checkpoints, resume per skill, a branch switch. */
const MAX_ENTRIES = 8;
/** Far more than MAX_ENTRIES answers take: a larger file is not ours and is a miss. */
const MAX_FILE_BYTES = 1 << 20;

/** Per asking checkpoint (by repo-relative path): the evidence of each next_actions text git shows landed. */
export type LandedAnswer = Map<string, Map<string, string>>;

export interface Asking {
  rel: string;
  cp: Checkpoint;
}

interface Entry {
  key: string;
  /** The oldest instant (seconds) the walk went back to: the answer holds while walk_days does not cut above it. */
  since: number;
  landed: [string, [string, string][]][];
}

/** The question, written out whole; null when this run keeps no answers. */
export function landedKey(head: HeadFiles, asking: readonly Asking[], thisRepo: ThisRepo): string | null {
  if (BUILD === null || head.sha === null) return null;
  return JSON.stringify([BUILD, head.sha, head.shallowKey, thisRepo, asking.map(({ rel, cp }) => [rel, cp.updated_at, texts(cp.next_actions, actionText), texts(cp.blockers, resolution)])]);
}

function texts<T>(list: T[] | undefined, text: (item: T) => unknown): unknown[] {
  return Array.isArray(list) ? list.map(text) : [];
}

const resolution = (b: { proposed_resolution?: unknown } | null) => (b && typeof b === 'object' ? (b.proposed_resolution ?? null) : null);

const isPairs = (v: unknown): v is [string, string][] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string');

function isEntry(v: unknown): v is Entry {
  const e = v as Partial<Entry> | null;
  return typeof e === 'object' && e !== null && typeof e.key === 'string' && typeof e.since === 'number' && Number.isFinite(e.since) &&
    Array.isArray(e.landed) && e.landed.every((r) => Array.isArray(r) && r.length === 2 && typeof r[0] === 'string' && isPairs(r[1]));
}

function entries(gitdir: string): Entry[] {
  const dir = cacheDir(gitdir);
  const file = dir && (readCacheJson(join(dir, FILE), MAX_FILE_BYTES) as { entries?: unknown } | undefined);
  return file && Array.isArray(file.entries) ? file.entries.filter(isEntry) : [];
}

/** The remembered answer to `key`, unless the walk_days bound (notBefore, seconds) would now cut its walk. */
export function rememberedLanded(head: HeadFiles, key: string, notBefore: number | undefined): LandedAnswer | null {
  const hit = entries(head.gitdir).find((e) => e.key === key);
  if (!hit || (notBefore !== undefined && hit.since < notBefore)) return null;
  return new Map(hit.landed.map(([rel, pairs]) => [rel, new Map(pairs)]));
}

/** Best effort, like the other caches: a read-only git dir only costs the next run the walk. */
export function rememberLanded(head: HeadFiles, key: string, since: number, landed: LandedAnswer): void {
  const dir = cacheDir(head.gitdir, '', true);
  if (!dir) return;
  const entry: Entry = { key, since, landed: [...landed].map(([rel, byText]) => [rel, [...byText]]) };
  writeCacheJson(dir, FILE, { entries: [entry, ...entries(head.gitdir).filter((e) => e.key !== key)].slice(0, MAX_ENTRIES) });
}
