// Log rotation, pure: which entries of which arrays leave a checkpoint for
// .checkpoints/history/, and how they join a rotation file. The store does the reading
// and writing (src/store/rotate.ts); which arrays are logs comes from fields.ts only.
import { CheckpointError } from '../errors.js';
import { compileExtraLogs, FORBIDDEN_KEYS, logEntryTime, OTHER_TIME_KEYS, policyFor, rotatableLogPaths, ROTATION_POINTER, type LogPolicy } from './fields.js';
import type { JsonObject, JsonValue } from './types.js';

/** Newest entries a log keeps when neither --keep nor config rotate_keep says otherwise. */
export const DEFAULT_ROTATE_KEEP = 5;
/** Where a checkpoint points at the rotation files that hold its older entries (fields.ts ROTATION_POINTER). */
export const ROTATION_POINTER_PATH: readonly string[] = ROTATION_POINTER.split('.');

import { canonicalJson } from './identity.js';
import { instantMs } from './instant.js';
import { quoted } from '../one-line.js';
import { joinPath, pathKeys } from './path.js';

export type ExtraLogRules = ReturnType<typeof compileExtraLogs>;

type Obj = Record<string, JsonValue>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const samePath = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((s, i) => s === b[i]);

/** The rotatable logs present in `doc`, never including the rotation pointer itself. */
export function rotationLogPaths(doc: unknown, extra: ExtraLogRules = []): string[][] {
  return rotatableLogPaths(doc, extra).filter((p) => !samePath(p, ROTATION_POINTER_PATH));
}

/**
 * A log's name in a rotation file: its keys joined by dots, as earlier files wrote it; a path with
 * a key holding a dot (or opening with a quote) is written as messages write paths (joinPath:
 * `skill_state."deploy.prod".run_history`), so it never reads as `skill_state.deploy.prod.run_history`
 * and restore puts each log back in its own.
 */
export function dottedPath(path: readonly string[]): string {
  return path.some((key) => key.includes('.') || key.startsWith('"')) ? path.reduce<string>((base, key) => joinPath(base, key), '') : path.join('.');
}

/**
 * The keys of a log name written with quotes (pathKeys reads what joinPath wrote), or null: a name
 * without them (every file before such keys were quoted) is read against the checkpoint's keys by logPathIn.
 */
function quotedKeys(dotted: string): string[] | null {
  const keys = dotted.includes('"') ? pathKeys(dotted) : null;
  return keys !== null && keys.every((k): k is string => typeof k === 'string') ? (keys as string[]) : null;
}

/**
 * Indices (into `entries`) of the `keep` newest: by logEntryTime when every entry has one,
 * else the last `keep` in array order. Ties keep array order.
 */
export function newestIndices(entries: readonly JsonValue[], keep: number, policy: LogPolicy): Set<number> {
  if (keep <= 0) return new Set();
  const times = entries.map((e) => logEntryTime(e, policy));
  const order = entries.map((_, i) => i);
  if (times.every((t) => t !== undefined)) order.sort((a, b) => times[a]! - times[b]! || a - b);
  return new Set(order.slice(Math.max(0, order.length - keep)));
}

/**
 * A log entry's time as a hand writes it (no zone: UTC; a day alone), under the log's time key
 * or, without one there, under a key another tool dates it by (`completed_at`); else undefined.
 * Read for the log's direction only (red team, 12-06: a log another tool wrote oldest-first with
 * `completed_at` was taken for newest-first, and `done` rotated out its newest entry).
 */
function handWrittenTime(entry: JsonValue, policy: LogPolicy): number | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
  const o = entry as JsonObject;
  const key = policy.timeKey !== undefined && o[policy.timeKey] !== undefined ? policy.timeKey : OTHER_TIME_KEYS.find((k) => typeof o[k] === 'string');
  const raw = key === undefined ? undefined : o[key];
  return typeof raw === 'string' && /^\d{4}-\d{2}-\d{2}/.test(raw) ? instantMs(raw) : undefined;
}

/**
 * Whether a hand-kept log runs oldest-first: read from its entries that have times (rising in
 * array order more often than falling); else newest-first, the protocol's order.
 */
export function runsOldestFirst(entries: readonly JsonValue[], policy: LogPolicy): boolean {
  // For the direction alone a time written by hand counts too (Python's zone-less isoformat(), a
  // day): a log of them is as plainly ordered as one of strict instants.
  const times = entries.map((e) => logEntryTime(e, policy) ?? handWrittenTime(e, policy)).filter((t) => t !== undefined && !Number.isNaN(t));
  let rising = 0;
  for (let k = 1; k < times.length; k++) rising += Math.sign(times[k]! - times[k - 1]!);
  return rising > 0;
}

/**
 * A log (recently_done) with a new entry at `newAt` (its front, or its end for a log that runs
 * oldest-first), cut to `keep`: what stays and what moves out, each in array order. The new entry
 * always stays; of the rest the newest stay. A hand-kept list may run either way and mix in
 * entries without a time, so: its direction is read as runsOldestFirst reads it, an entry without
 * a time counts as older than every timed one, and between entries of equal standing (no time,
 * or equal times) the direction says which is newer.
 */
export function cutNewestFirst(entries: readonly JsonValue[], keep: number, policy: LogPolicy, newAt = 0): { kept: JsonValue[]; moved: JsonValue[]; keptAt: number[]; movedAt: number[] } {
  const all = entries.map((_, i) => i);
  const split = (chosen: (i: number) => boolean) => {
    const keptAt = all.filter(chosen);
    const movedAt = all.filter((i) => !chosen(i));
    return { kept: keptAt.map((i) => entries[i]!), moved: movedAt.map((i) => entries[i]!), keptAt, movedAt };
  };
  if (entries.length <= keep) return split(() => true);
  if (keep <= 0) return split(() => false);
  const times = entries.map((e) => logEntryTime(e, policy));
  const rest = all.filter((i) => i !== newAt);
  const oldestFirst = runsOldestFirst(rest.map((i) => entries[i]!), policy);
  // Newest first: timed before untimed, later time first, then the later (oldest-first) or earlier position.
  const rank = (a: number, b: number): number => {
    const ta = times[a];
    const tb = times[b];
    if (ta !== undefined && tb !== undefined && ta !== tb) return tb - ta;
    if ((ta === undefined) !== (tb === undefined)) return ta === undefined ? 1 : -1;
    return oldestFirst ? b - a : a - b;
  };
  const chosen = new Set([newAt, ...[...rest].sort(rank).slice(0, keep - 1)]);
  return split((i) => chosen.has(i));
}

export interface LogRotation {
  path: string[];
  dotted: string;
  /** Entries in the log before rotation. */
  total: number;
  /** Entries that move to the rotation file, in their array order. */
  moved: JsonValue[];
  /** Where each moved entry stood in the log (an index into it before rotation): its literal texts go with it. */
  movedAt: number[];
  /** Where each entry the log keeps stood before rotation, in order. */
  keptAt: number[];
  /** Entries dropped because history already holds them (a re-run after an interrupted rotation). */
  alreadyRotated: number;
  kept: number;
}

export interface RotationPlan {
  logs: LogRotation[];
  /** The checkpoint after rotation (a copy; the input is not modified). */
  doc: JsonObject;
  moved: number;
  dropped: number;
  changed: boolean;
  /** Rotation files newly named in skill_state.rotated_to (what can make a small rotation grow the file). */
  pointersAdded: number;
}

export interface PlanOptions {
  keep: number;
  extra?: ExtraLogRules;
  /** The rotation file that receives moved entries, as the pointer records it. */
  target: string;
  /**
   * Where history already holds exactly this entry of this log (a rotation file, as the
   * pointer records it), or null. Such entries leave the checkpoint without moving again.
   */
  inHistory?: (dotted: string, entry: JsonValue) => string | null;
}

export function planRotation(input: JsonObject, opts: PlanOptions): RotationPlan {
  if (!Number.isInteger(opts.keep) || opts.keep < 0) throw new CheckpointError('E_USAGE', `keep must be a whole number >= 0 (got ${opts.keep})`);
  const doc = structuredClone(input);
  const logs: LogRotation[] = [];
  const pointers: string[] = [];
  for (const path of rotationLogPaths(doc, opts.extra)) {
    const parent = path.slice(0, -1).reduce<Obj>((o, k) => o[k] as Obj, doc);
    const key = path[path.length - 1]!;
    const entries = parent[key] as JsonValue[];
    const dotted = dottedPath(path);
    let alreadyRotated = 0;
    // Indices into `entries` of the ones not already in history.
    const remaining = entries.flatMap((entry, i) => {
      const where = opts.inHistory?.(dotted, entry) ?? null;
      if (where === null) return [i];
      alreadyRotated++;
      pointers.push(where);
      return [];
    });
    const keepSet = newestIndices(remaining.map((i) => entries[i]!), opts.keep, policyFor(path, opts.extra) as LogPolicy);
    const movedAt = remaining.filter((_, k) => !keepSet.has(k));
    if (!movedAt.length && !alreadyRotated) continue;
    if (movedAt.length) pointers.push(opts.target);
    const keptAt = remaining.filter((_, k) => keepSet.has(k));
    parent[key] = keptAt.map((i) => entries[i]!);
    logs.push({ path, dotted, total: entries.length, moved: movedAt.map((i) => entries[i]!), movedAt, keptAt, alreadyRotated, kept: keepSet.size });
  }
  const named = rotationPointers(doc).length;
  if (logs.length) addPointers(doc, pointers);
  const moved = logs.reduce((n, l) => n + l.moved.length, 0);
  const dropped = logs.reduce((n, l) => n + l.alreadyRotated, 0);
  return { logs, doc, moved, dropped, changed: logs.length > 0, pointersAdded: rotationPointers(doc).length - named };
}

/**
 * The rotation files a rotated_to value names: a list of paths as it is, one path written as a
 * string (a hand-written slip, repairable.ts) as a list of it, none when absent; null for anything
 * else (a number, a list holding other values), which names no file rotation can trust.
 */
export function pointerList(value: JsonValue | undefined): string[] | null {
  if (value === undefined) return [];
  if (typeof value === 'string') return /\S/.test(value) ? [value] : null;
  return Array.isArray(value) && value.every((p) => typeof p === 'string') ? (value as string[]) : null;
}

/**
 * Records rotation files in skill_state.rotated_to (kept unique, in order), always as a list: one
 * path written as a string is kept as the list's first. Mutates `doc`.
 */
export function addPointers(doc: JsonObject, files: readonly string[]): void {
  const [stateKey, pointerKey] = ROTATION_POINTER_PATH as [string, string];
  const state = doc[stateKey] ?? {};
  if (!isObj(state)) throw new CheckpointError('E_INVALID', `${stateKey} is not an object, so rotation cannot record ${ROTATION_POINTER_PATH.join('.')}`, { hint: 'fix the checkpoint, then rotate again' });
  const current = pointerList(state[pointerKey]);
  if (current === null) {
    throw new CheckpointError('E_INVALID', `${ROTATION_POINTER_PATH.join('.')} must be a list of rotation file paths`, { hint: 'fix or remove it, then rotate again' });
  }
  const list = [...current];
  for (const f of files) if (!list.includes(f)) list.push(f);
  state[pointerKey] = list;
  doc[stateKey] = state;
}

// --- rotation files: { skill, rotated_at, entries: { "<dotted path>": [...] } } ---

export interface RotationFile {
  skill: string;
  rotated_at: string;
  entries: Record<string, JsonValue[]>;
  /**
   * Set when the checkpoint's skill_state held nothing of its own when the pointer to this file
   * went in (a hand-written `{}`): restore then keeps the `{}` it takes the last pointer out of.
   * Absent (every other case, and files of earlier versions): an emptied skill_state is the one
   * the pointer made, and goes with it.
   */
  skill_state_was_empty?: true;
  /** Per log, where each batch rotate appended stood (MovedFrom), in the order of the batches. */
  moved_from?: Record<string, MovedFrom[]>;
}

/**
 * Where the entries of one batch rotate moved out of a log stood among the log's entries then, as
 * runs of [first position, how many]; `left`: the fingerprint of the log rotate left. Restore
 * puts a batch back exactly there while the log is still what rotate left (nothing added since).
 */
export interface MovedFrom {
  left: string;
  at: Array<[number, number]>;
}

/** `positions` (ascending) as runs of [first, how many]. */
export function positionRuns(positions: readonly number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const p of positions) {
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === p) last[1]++;
    else runs.push([p, 1]);
  }
  return runs;
}

/** The rotation file's member saying the checkpoint's skill_state was `{}` before its pointer (RotationFile). */
export const STATE_WAS_EMPTY = 'skill_state_was_empty';

/**
 * Whether `doc`'s skill_state is the user's own `{}`, as far as rotation files are concerned: empty,
 * or holding only the pointer to files of which one says so (`says`: a named file's STATE_WAS_EMPTY).
 * Recorded in the file the pointer goes to, so the restore that empties it again leaves that `{}`.
 */
export function stateWasEmpty(doc: JsonObject, says: (pointer: string) => boolean): boolean {
  const [stateKey, pointerKey] = ROTATION_POINTER_PATH as [string, string];
  const state = doc[stateKey];
  if (!isObj(state)) return false;
  const own = Object.keys(state).filter((k) => k !== pointerKey);
  if (own.length) return false;
  const named = rotationPointers(doc);
  return named.length === 0 ? state[pointerKey] === undefined : named.some(says);
}

/**
 * Checks the shape of a parsed rotation file; the reason, or null when it is one. The one
 * check: rotate and restore use it before reading one, the merge driver on a merged one.
 * `skill`, when known (from the file's name), must be the file's own.
 */
export function rotationFileProblem(value: unknown, skill?: string): string | null {
  if (!isObj(value)) return 'not a JSON object';
  if (typeof value.skill !== 'string' || (skill !== undefined && value.skill !== skill)) return `its "skill" is ${typeof value.skill === 'string' ? quoted(value.skill) : JSON.stringify(value.skill)}, not ${skill === undefined ? 'a skill name' : `"${skill}"`}`;
  if (typeof value.rotated_at !== 'string') return '"rotated_at" is missing';
  if (!isObj(value.entries)) return '"entries" must map dotted log paths to arrays';
  for (const [k, v] of Object.entries(value.entries)) if (!Array.isArray(v)) return `entries[${JSON.stringify(k)}] is not an array`;
  return null;
}

/**
 * Appends moved entries to a rotation file (null: a new one). Every moved entry is appended:
 * an entry equal to one already archived is a repeated event, and one sharing only an `id`
 * is a different record (identity is the whole record, as in the merge). The entries a
 * crashed earlier rotate already wrote are skipped by the caller's journal, not here.
 */
export function appendToRotationFile(existing: RotationFile | null, skill: string, logs: ReadonlyArray<Pick<LogRotation, 'path' | 'dotted' | 'moved'> & { movedFrom?: MovedFrom }>, rotatedAt: string, emptyState = false): RotationFile {
  const file: RotationFile = existing ? structuredClone(existing) : { skill, rotated_at: rotatedAt, entries: {} };
  file.rotated_at = rotatedAt;
  if (emptyState) file[STATE_WAS_EMPTY] = true;
  for (const log of logs) {
    if (!log.moved.length) continue;
    (file.entries[log.dotted] ??= []).push(...log.moved);
    if (log.movedFrom) ((file.moved_from ??= {})[log.dotted] ??= []).push(log.movedFrom);
  }
  return file;
}

/** Copies of log entries, by dotted log path, then by canonical JSON: how many of each. */
export type EntryCounts = Map<string, Map<string, number>>;

/** Adds `entries` of the log `dotted` to `counts`. Mutates `counts`. */
export function countEntries(counts: EntryCounts, dotted: string, entries: readonly JsonValue[]): EntryCounts {
  let byEntry = counts.get(dotted);
  if (!byEntry) counts.set(dotted, (byEntry = new Map()));
  for (const e of entries) {
    const k = canonicalJson(e);
    byEntry.set(k, (byEntry.get(k) ?? 0) + 1);
  }
  return counts;
}

/** The rotation files `doc`'s rotated_to names (one written as a string included); none when it is absent or names none. */
export function rotationPointers(doc: JsonObject): string[] {
  const [stateKey, pointerKey] = ROTATION_POINTER_PATH as [string, string];
  const state = doc[stateKey];
  const list = isObj(state) ? state[pointerKey] : undefined;
  if (typeof list === 'string') return pointerList(list) ?? [];
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
}

/**
 * Takes `file` out of rotated_to (every copy a merge may have left), and the key with it when
 * nothing is left: its entries are back in the checkpoint. A skill_state left empty goes too,
 * as the one addPointers made (restore gives the file back without a `"skill_state": {}` it never
 * had), unless `stateWasEmpty`: the rotation file says the user's own `{}` held the pointer. Mutates `doc`.
 */
export function removePointer(doc: JsonObject, file: string, stateWasEmpty = false): void {
  const [stateKey, pointerKey] = ROTATION_POINTER_PATH as [string, string];
  const state = doc[stateKey];
  const named = isObj(state) ? state[pointerKey] : undefined;
  // One path written as a string is a list of it (pointerList).
  if (!isObj(state) || !(Array.isArray(named) || typeof named === 'string')) return;
  const rest = (typeof named === 'string' ? [named] : (named as JsonValue[])).filter((p) => p !== file);
  if (rest.length) state[pointerKey] = rest;
  else delete state[pointerKey];
  if (!Object.keys(state).length && !stateWasEmpty) delete doc[stateKey];
}

export interface RestoreOptions {
  /**
   * 'all': the checkpoint names this file in rotated_to, so every entry in it is out of the
   * checkpoint and comes back, count included, whatever equal entries the log holds (those are
   * other events: copies rotate kept, or ones added since). 'missing': it does not (its entries
   * were restored before, or it is an earlier checkpoint's): an entry comes back only past the
   * copies of it the log already holds, so nothing is ever doubled.
   */
  mode: 'all' | 'missing';
  /** Copies held elsewhere (a killed rotation's journal, files the checkpoint names), left out as well. */
  elsewhere?: EntryCounts;
  /** Entries of the skill's rotation files restored before (no longer named): a live timed record one held came back from it. */
  restoredBefore?: EntryCounts;
  /** Filled with each log restored into and where its entries came from. */
  placed?: RestoredLog[];
  /** The checkpoint file, as a refusal names it. */
  where?: string;
  /** The project's own logs (config.json), which rotate moves entries out of too. */
  extra?: ExtraLogRules;
  /** A log's fingerprint, as MovedFrom.left records it (the store's hash: this module reads no clock, fs or crypto). */
  fingerprint?: (log: JsonValue[]) => string;
}

export interface RestoreCount {
  /** Entries put back. */
  restored: number;
  /** Entries of the file left out, as copies already in the checkpoint (or elsewhere). */
  left: number;
}

/**
 * A log restore put entries into: its path, its entries before (absent: the log was made) and
 * after, and where each entry after came from: `{ live: i }` the log's own entry i, `{ file: i }`
 * the file's entry i of that log (so each keeps its literal texts).
 */
export interface RestoredLog {
  path: string[];
  dotted: string;
  before: JsonValue[] | undefined;
  after: JsonValue[];
  from: Array<{ live: number } | { file: number }>;
}

/**
 * The path in `doc` of the log a rotation file names by its dotted path: the keys it quotes as
 * written. A name without quotes may still hold a key with a dot (files rotated before such keys
 * were quoted wrote skill_state["api.example.com"].run_history as
 * "skill_state.api.example.com.run_history"), so it is read against the keys `doc` has: the path
 * to a list it holds, else the one that goes deepest through its objects (the rest split on dots:
 * a log that is gone is made there).
 */
export function logPathIn(doc: JsonObject, dotted: string): string[] {
  const exact = quotedKeys(dotted);
  if (exact) return exact;
  let best: { path: string[]; list: boolean; depth: number } | null = null;
  const consider = (path: string[], list: boolean, depth: number) => {
    if (!best || (list && !best.list) || (list === best.list && depth > best.depth)) best = { path, list, depth };
  };
  const walk = (obj: Obj, rest: string, path: string[]): void => {
    consider([...path, ...rest.split('.')], false, path.length);
    for (const [key, value] of Object.entries(obj)) {
      if (rest === key) consider([...path, key], Array.isArray(value), path.length + 1);
      else if (rest.startsWith(`${key}.`) && isObj(value)) walk(value, rest.slice(key.length + 1), [...path, key]);
    }
  };
  walk(doc, dotted, []);
  return best!.path;
}

/**
 * The inverse of a rotation, for `checkpoint restore <skill>.<date>.json`: puts the file's
 * entries back into the checkpoint's logs (creating a log that is gone), in the place rotate took
 * them from: before the log's entries (the oldest, in an appended log), after them in a
 * newest-first one (recently_done), newest first. Mutates `doc`.
 */
/**
 * The live log and the records put back merged by time, or null when a record does not say when
 * or the live log is not in time order. Equal times: a record put back goes before a live one in
 * a log running oldest first (it was logged earlier), after it in one running newest first.
 */
function inTimeOrder(live: readonly JsonValue[], back: ReadonlyArray<{ i: number; entry: JsonValue }>, policy: LogPolicy): RestoredLog['from'] | null {
  const liveTimes = live.map((e) => logEntryTime(e, policy));
  const backTimes = back.map(({ entry }) => logEntryTime(entry, policy));
  if (!back.length || liveTimes.some((t) => t === undefined) || backTimes.some((t) => t === undefined)) return null;
  let direction = 0;
  for (let k = 1; k < liveTimes.length; k++) {
    const step = Math.sign(liveTimes[k]! - liveTimes[k - 1]!);
    if (step === 0) continue;
    if (direction !== 0 && step !== direction) return null;
    direction = step;
  }
  if (direction === 0) direction = policy.order === 'newest-first' ? -1 : 1;
  const restored = back.map((b, k) => ({ file: b.i, t: backTimes[k]!, k })).sort((x, y) => direction * (x.t - y.t) || x.k - y.k);
  const out: RestoredLog['from'] = [];
  let j = 0;
  for (let i = 0; i < live.length; i++) {
    while (j < restored.length && (direction * (restored[j]!.t - liveTimes[i]!) < 0 || (restored[j]!.t === liveTimes[i] && direction === 1))) out.push({ file: restored[j++]!.file });
    out.push({ live: i });
  }
  while (j < restored.length) out.push({ file: restored[j++]!.file });
  return out;
}

/**
 * Each of `entries` (the file's, for one log) put back where it stood before rotate moved it: the
 * batches the file records for the log undone, the last first, each while the log is what its
 * rotation left (MovedFrom.left). Null unless that places all of them (entries added since, a file
 * of an earlier version, one merged from two branches' batches): then the placement below.
 */
function whereEachStood(live: readonly JsonValue[], entries: readonly JsonValue[], batches: unknown, fingerprint: RestoreOptions['fingerprint']): RestoredLog['from'] | null {
  if (!fingerprint || !Array.isArray(batches)) return null;
  let from: RestoredLog['from'] = live.map((_, i) => ({ live: i }));
  let end = entries.length;
  for (let b = batches.length - 1; b >= 0 && end > 0; b--) {
    const batch: unknown = batches[b];
    if (!isObj(batch) || !Array.isArray(batch.at) || !batch.at.every((r) => Array.isArray(r) && r.length === 2 && r.every((n) => Number.isSafeInteger(n) && (n as number) >= 0))) return null;
    const runs = batch.at as Array<[number, number]>;
    if (runs.reduce((n, [, count]) => n + count, 0) > end) return null;
    if (batch.left !== fingerprint(from.map((f) => ('live' in f ? live[f.live]! : entries[f.file]!)))) return null;
    const at = new Set(runs.flatMap(([first, n]) => Array.from({ length: n }, (_, k) => first + k)));
    const start = end - at.size;
    const total = from.length + at.size;
    if (start < 0 || [...at].some((p) => p >= total)) return null;
    const stood = from;
    let [moved, kept] = [0, 0];
    from = Array.from({ length: total }, (_, p) => (at.has(p) ? { file: start + moved++ } : stood[kept++]!));
    end = start;
  }
  return end === 0 ? from : null;
}

export function restoreRotatedEntries(doc: JsonObject, file: RotationFile, opts: RestoreOptions): RestoreCount {
  let restored = 0;
  let left = 0;
  // Rotate and done only ever move entries out of logs: a file naming anything else (next_actions,
  // status: a file planted in a clone) is not put back, where it would lead the queue.
  for (const dotted of Object.keys(file.entries)) {
    if (policyFor(logPathIn(doc, dotted), opts.extra).kind !== 'log') {
      throw new CheckpointError('E_INVALID', `the rotation file names ${quoted(dotted)}, which is not a log rotate or done moves entries out of, so its entries are not put into ${opts.where ?? 'the checkpoint'}`, {
        hint: 'it stays in history/: copy back what you need by hand (a log of your own belongs in .checkpoints/config.json "logs"); nothing was changed',
      });
    }
  }
  for (const [dotted, entries] of Object.entries(file.entries)) {
    const path = logPathIn(doc, dotted);
    const notThere = (why: string, fix: string) =>
      new CheckpointError('E_INVALID', `cannot restore ${dotted} into ${opts.where ?? 'the checkpoint'}: ${why} there`, { hint: `${fix}, then restore again; nothing was changed` });
    let parent: JsonObject = doc;
    for (const [depth, seg] of path.slice(0, -1).entries()) {
      if (FORBIDDEN_KEYS.has(seg)) throw new CheckpointError('E_INVALID', `rotation file names a forbidden path "${dotted}"`);
      const next = parent[seg];
      if (next === undefined) parent[seg] = {};
      else if (!isObj(next)) throw notThere(`${path.slice(0, depth + 1).join('.')} is not an object`, 'make it an object by hand (or move its value aside)');
      parent = parent[seg] as JsonObject;
    }
    const key = path[path.length - 1]!;
    if (FORBIDDEN_KEYS.has(key)) throw new CheckpointError('E_INVALID', `rotation file names a forbidden path "${dotted}"`);
    const had = parent[key];
    const current = had ?? [];
    if (!Array.isArray(current)) throw notThere('it is not a list', 'make it a list by hand (its value as the first item)');
    // Counted as a multiset of whole records: each copy accounted for leaves out one equal entry, no more.
    const have = new Map<string, number>();
    const add = (k: string, n: number) => have.set(k, (have.get(k) ?? 0) + n);
    const policy = policyFor(path);
    if (opts.mode === 'missing') for (const e of current) add(canonicalJson(e), 1);
    // A record that says when it happened is one record (a merge keeps it once): two branches that
    // archived the same records into two files, then merged, name both files, and the second one
    // restored gives back only what the first did not, i.e. a live copy counts as this file's
    // own where a file restored before held it. Records without a time may repeat in a log, and
    // so may a timed one rotate left in the log beside its twin it moved: every copy the file
    // holds comes back (rotate then restore gives the log back whole).
    const timedLive = new Map<string, number>();
    const rule = policyFor(path, opts.extra);
    const before = opts.restoredBefore?.get(dotted);
    if (opts.mode === 'all' && rule.kind === 'log' && before !== undefined) {
      for (const e of current) {
        if (logEntryTime(e, rule) === undefined) continue;
        const k = canonicalJson(e);
        if ((timedLive.get(k) ?? 0) < (before.get(k) ?? 0)) timedLive.set(k, (timedLive.get(k) ?? 0) + 1);
      }
    }
    for (const [k, n] of opts.elsewhere?.get(dotted) ?? []) add(k, n);
    // A live copy a crashed rotation left (elsewhere) is the same copy: counted once.
    for (const [k, n] of timedLive) have.set(k, Math.max(have.get(k) ?? 0, n));
    // Indices into the file's entries of the ones that come back.
    let back = entries.flatMap((e, i) => {
      const k = canonicalJson(e);
      const n = have.get(k) ?? 0;
      if (n > 0) have.set(k, n - 1);
      return n === 0 ? [i] : [];
    });
    const live = current.map((_, i) => ({ live: i }));
    let from: RestoredLog['from'];
    if (policy.kind === 'log' && policy.order === 'newest-first') {
      // Appended batch after batch, oldest batch first: in the live log's direction again when
      // every entry says when (a hand-kept log may run oldest-first: done and cut read it so too).
      const oldestFirst = runsOldestFirst(current, policy);
      const times = back.map((i) => logEntryTime(entries[i]!, policy));
      if (times.every((t) => t !== undefined)) back = back.map((i, k) => ({ i, t: times[k]!, k })).sort((a, b) => (oldestFirst ? a.t - b.t : b.t - a.t) || a.k - b.k).map((x) => x.i);
      const restoredPart = back.map((i) => ({ file: i }));
      from = oldestFirst ? [...restoredPart, ...live] : [...live, ...restoredPart];
    } else {
      from = [...back.map((i) => ({ file: i })), ...live];
    }
    // Every record says when and the live log runs in time order: each record put back goes where
    // its time falls (two files that overlapped restore in order, whichever is restored first).
    if (rule.kind === 'log') from = inTimeOrder(current, back.map((i) => ({ i, entry: entries[i]! })), rule) ?? from;
    // The log as rotate left it, all of the file's entries coming back: each where it stood.
    if (back.length === entries.length) from = whereEachStood(current, entries, file.moved_from?.[dotted], opts.fingerprint) ?? from;
    const after = from.map((f) => ('live' in f ? current[f.live]! : entries[f.file]!));
    parent[key] = after;
    opts.placed?.push({ path, dotted, before: had === undefined ? undefined : current, after, from });
    restored += back.length;
    left += entries.length - back.length;
  }
  return { restored, left };
}
