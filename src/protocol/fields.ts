// The one table of field policies. Validation (required fields), the merge driver
// (how each field combines across branches) and rotation (which arrays are logs that
// may move to .checkpoints/history/) all read it; no other module hard-codes a field list.

import schema from './schema.json' with { type: 'json' };
import { isIsoInstant } from './instant.js';
import { quoted } from '../one-line.js';

/** The ten header + progress fields every checkpoint must carry (missing, null or "" all count): the schema's `required`. */
export const REQUIRED_FIELDS: readonly string[] = schema.required;

/** Every top-level field the protocol defines (the schema's properties); anything else is the project's own. */
export const PROTOCOL_FIELDS: readonly string[] = Object.keys(schema.properties);

export type MergePolicy =
  /** Plain 3-way: a scalar changed differently on both sides is a conflict; objects recurse. */
  | { kind: 'value' }
  /** ISO-8601 instants: the later (or earlier) wins, compared as instants, never a conflict. */
  | { kind: 'instant'; pick: 'latest' | 'earliest' }
  /**
   * Append-only log: base + ours' additions + theirs' additions, deduplicated by identity.
   * `timeKey`: the field holding an entry's time (read by logEntryTime, for merge and rotate
   * alike); `rotate`: `checkpoint rotate` may move old entries to history/; `keep`: the most
   * entries the log holds, the overflow moving to history/ on every write that adds one.
   * `editsConflict`: an entry both sides replaced in place with different entries is a conflict
   * (decisions: two rewrites of one decision contradict each other), where a telemetry log keeps both.
   * `sessions`: entries are what a session did (a run, a score, a done action), so one both sides
   * added alike in saves of their own (two `updated_at`s) is two sessions' records, both kept, as
   * a spend counter counts both; a log of facts (decisions, refs, paths) keeps such an entry once.
   */
  | { kind: 'log'; order: 'append' | 'newest-first'; timeKey?: string; rotate: boolean; keep?: number; editsConflict?: true; sessions?: true }
  /** Records with an `id`: merged per id (added, removed, or recursed), order kept. */
  | { kind: 'records' }
  /**
   * The recovery capsule: key by key like a value, but two origins of the same claims are one
   * origin, the earlier saved (merge/capsule-origin.ts says why, from recovery-capsule.md).
   */
  | { kind: 'capsule' }
  /** next_actions: an ordered queue, popped from the front and appended at the back. */
  | { kind: 'queue' }
  /**
   * A spend counter (cost): both sides' increments add up, base + (ours - base) + (theirs - base);
   * a side that is not a non-negative number, or is below the base (a reset), merges as a plain
   * value, and so does an amount in another side's currency (merge/counter.ts).
   */
  | { kind: 'counter' }
  /**
   * Telemetry snapshot (last_run, streak): when both sides changed it, the whole value of
   * the side whose own time is later (its `at`, else that side's top-level `updated_at`).
   */
  | { kind: 'snapshot' };

export interface PolicyRule {
  /** Dotted path; `**` matches any run of segments (zero or more). */
  pattern: string;
  policy: MergePolicy;
}

const LOG_APPEND = (timeKey?: string, rotate = false): MergePolicy => ({ kind: 'log', order: 'append', timeKey, rotate });
/** A log of what sessions did (runs, scores): see `sessions` above. */
const SESSION_LOG: MergePolicy = { kind: 'log', order: 'append', timeKey: 'at', rotate: true, sessions: true };

/** Record arrays under skill_state that are per-session telemetry by convention. */
export const SKILL_STATE_LOG_NAMES = ['run_history', 'merged_prs', 'bypasses', 'carried_debt', 'reconciliations'] as const;

/** Per-run telemetry under skill_state that each run rewrites whole: the latest run wins. */
export const SKILL_STATE_SNAPSHOT_NAMES = ['last_run', 'streak'] as const;

/** Where a checkpoint points at the rotation files holding its older log entries. */
export const ROTATION_POINTER = 'skill_state.rotated_to';

const SNAPSHOT: MergePolicy = { kind: 'snapshot' };
const COUNTER: MergePolicy = { kind: 'counter' };
/** A project's own log (config.json "logs"): entries timed by `at`, rotatable. */
const PROJECT_LOG: MergePolicy = SESSION_LOG;

export const POLICY_RULES: readonly PolicyRule[] = [
  { pattern: 'updated_at', policy: { kind: 'instant', pick: 'latest' } },
  { pattern: 'created_at', policy: { kind: 'instant', pick: 'earliest' } },
  // Each clone's own absolute path, written by the machine that saved (two machines starting one
  // skill write two): the later save's, as a snapshot; doctor notes a path of another checkout (red team, 12-06).
  { pattern: 'project_dir', policy: SNAPSHOT },
  { pattern: 'cost.updated_at', policy: { kind: 'instant', pick: 'latest' } },
  // Spend each branch's sessions recorded; budget_usd and currency stay plain values. tokens is
  // free-form: a count at any depth under it (`cost.tokens.cache.read`) is spend (red team 62a 06).
  ...['cost.total_usd', 'cost.by_phase.*', 'cost.by_model.*', 'cost.tokens.*.**'].map((pattern) => ({ pattern, policy: COUNTER })),
  { pattern: 'capsule', policy: { kind: 'capsule' } },
  // The machine-written repository snapshot (`pause --auto` on every compaction): one value, never mixed field by field.
  { pattern: 'capsule.mechanical', policy: SNAPSHOT },
  { pattern: 'next_actions', policy: { kind: 'queue' } },
  { pattern: 'recently_done', policy: { kind: 'log', order: 'newest-first', timeKey: 'at', rotate: false, keep: 10, sessions: true } },
  { pattern: 'eval_scores', policy: { ...SESSION_LOG, rotate: false } },
  { pattern: 'pm_refs', policy: LOG_APPEND('first_seen_at') },
  // Decisions, not telemetry: one rewritten two ways is a conflict, as progress_summary's would be (red team rtA 03).
  { pattern: 'context_primer.key_decisions', policy: { kind: 'log', order: 'append', rotate: false, editsConflict: true } },
  { pattern: 'context_primer.generated_files', policy: LOG_APPEND() },
  { pattern: 'context_primer.user_preferences', policy: LOG_APPEND() },
  { pattern: 'blockers', policy: { kind: 'records' } },
  // Pointers to history files written by rotate: a set both branches may add to, never rotated.
  { pattern: ROTATION_POINTER, policy: LOG_APPEND() },
  { pattern: 'progress_table', policy: { kind: 'records' } },
  ...SKILL_STATE_LOG_NAMES.map((name) => ({ pattern: `skill_state.**.${name}`, policy: SESSION_LOG })),
  ...SKILL_STATE_SNAPSHOT_NAMES.map((name) => ({ pattern: `skill_state.**.${name}`, policy: SNAPSHOT })),
  // A skill's own part stamped as the file is (`skill_state.lint.updated_at`): the later save wins.
  { pattern: 'skill_state.**.updated_at', policy: { kind: 'instant', pick: 'latest' } },
  // A row or blocker stamped on its own, as many agents write them: the later stamp, the edits merged (red team, 12-06).
  { pattern: 'progress_table.updated_at', policy: { kind: 'instant', pick: 'latest' } },
  { pattern: 'blockers.updated_at', policy: { kind: 'instant', pick: 'latest' } },
];

/**
 * Rotation files (history/<skill>.<date>.json, `{skill, rotated_at, entries: {<log path>: [...]}}`):
 * every entries list is a log, so two branches rotating on the same day merge cleanly.
 */
export const ROTATION_FILE_RULES: readonly PolicyRule[] = [
  { pattern: 'entries.*', policy: LOG_APPEND('at') },
  // Where each batch stood (rotation.ts MovedFrom): two branches' batches are both kept.
  { pattern: 'moved_from.*', policy: LOG_APPEND() },
  { pattern: 'rotated_at', policy: { kind: 'instant', pick: 'latest' } },
];

const VALUE: MergePolicy = { kind: 'value' };

/**
 * Does the dotted `pattern` (`*` = one segment, `**` = any run, zero or more) match `path`?
 * A set-of-positions simulation, O(pattern x path) whatever the number of `**`: a project's
 * config may hold any pattern, and backtracking would be exponential on `**.**.**`.
 * `steps`, when given, counts the work done (a test bounds it).
 */
export function patternMatches(pattern: readonly string[], path: readonly string[], steps?: { count: number }): boolean {
  const n = pattern.length;
  if (!pattern.includes('**')) {
    // The common case, and the one the merge asks about at every object: no search at all.
    if (n !== path.length) return false;
    for (let p = 0; p < n; p++) if (pattern[p] !== '*' && pattern[p] !== path[p]) return false;
    return true;
  }
  let live = new Uint8Array(n + 1);
  // Positions reachable without consuming a segment: a `**` may match nothing.
  const close = (set: Uint8Array): void => {
    for (let p = 0; p < n; p++) if (set[p] && pattern[p] === '**') set[p + 1] = 1;
  };
  live[0] = 1;
  close(live);
  for (const seg of path) {
    const next = new Uint8Array(n + 1);
    let any = false;
    for (let p = 0; p < n; p++) {
      if (steps) steps.count++;
      if (!live[p]) continue;
      const want = pattern[p];
      if (want === '**') next[p] = 1;
      else if (want === '*' || want === seg) next[p + 1] = 1;
      else continue;
      any = true;
    }
    if (!any) return false;
    close(next);
    live = next;
  }
  return live[n] === 1;
}

/** Project policies from `.checkpoints/config.json`: extra logs, telemetry snapshots and counters. */
export interface PolicyConfig {
  logs?: readonly string[];
  telemetry?: readonly string[];
  counters?: readonly string[];
}

/** A config pattern is dotted segments, each a key, `*` or `**`; no empty segment. */
export function patternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'is empty';
  if (pattern.split('.').some((seg) => seg === '')) return 'has an empty segment (two dots, or a dot at an end)';
  if (pattern.split('.').some((seg) => seg !== '*' && seg !== '**' && seg.includes('*'))) return 'uses * inside a segment (only whole-segment * and ** are supported)';
  return undefined;
}

/**
 * Why a project rule at `pattern` would reclassify a field the protocol already classifies,
 * or undefined. A project may add rules for its own data (skill_state.<name>, or a top-level
 * field the protocol does not define) but never change how a protocol field merges, rotates
 * or is kept: `"logs": ["next_actions"]` would let rotate move queued actions to history.
 * Patterns are compared both ways with the other's wildcards read as plain names, which finds
 * every built-in path the pattern can reach.
 */
function reclassifies(pattern: string, policy: MergePolicy): string | undefined {
  const segs = pattern.split('.');
  const head = segs[0]!;
  if (head === '*' || head === '**') return 'would also match protocol fields (start the path with skill_state or your own field name)';
  if (PROTOCOL_FIELDS.includes(head) && (head !== 'skill_state' || segs.length === 1)) {
    return `is the protocol field "${head}"${segs.length > 1 ? ' (or inside it)' : ''}, whose policy the protocol fixes`;
  }
  for (const rule of POLICY_RULES) {
    const ruleSegs = segments(rule.pattern);
    if (!patternMatches(ruleSegs, segs) && !patternMatches(segs, ruleSegs)) continue;
    if (JSON.stringify(rule.policy) === JSON.stringify(policy)) continue; // restating a built-in rule changes nothing
    return `would reclassify the protocol's "${rule.pattern}" (${described(rule.policy)}, not ${described(policy)}): list your own fields, not a pattern that covers it`;
  }
  return undefined;
}

/** A policy in words, told apart from the others a config may collide with (two logs differ in rotation, order, time or cap). */
function described(policy: MergePolicy): string {
  if (policy.kind !== 'log') return policy.kind === 'snapshot' ? 'a telemetry snapshot' : `a ${policy.kind}`;
  const parts = [policy.rotate ? 'rotated to history/' : 'never rotated'];
  if (policy.order === 'newest-first') parts.push('newest first');
  if (policy.timeKey !== undefined) parts.push(`timed by "${policy.timeKey}"`);
  if (policy.keep !== undefined) parts.push(`${policy.keep} kept`);
  return `a log ${parts.join(', ')}`;
}

/**
 * What is wrong with the `logs` / `telemetry` / `counters` lists of a parsed config, naming the key
 * (`"telemetry"[1] "a..b" has an empty segment`), or undefined. Pure: the driver and the
 * store both check a config with it.
 */
export function policyConfigProblem(config: { [key: string]: unknown }): string | undefined {
  return checkPolicyConfig(config).problems[0];
}

/**
 * The valid `logs` / `telemetry` / `counters` entries of a config, and one line per bad one: the merge
 * driver, which has no one to ask, keeps the valid entries and names what it ignored.
 */
export function checkPolicyConfig(config: { [key: string]: unknown }): { kept: PolicyConfig; problems: string[] } {
  const kept: { logs?: string[]; telemetry?: string[]; counters?: string[] } = {};
  const problems: string[] = [];
  for (const key of ['logs', 'telemetry', 'counters'] as const) {
    const list = config[key];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      problems.push(`"${key}" must be an array of dotted paths, like "skill_state.audits"`);
      continue;
    }
    const good: string[] = [];
    for (let i = 0; i < list.length; i++) {
      const pattern: unknown = list[i];
      const problem = typeof pattern !== 'string' ? 'must be a dotted path string' : patternProblem(pattern) ?? reclassifies(pattern, CONFIG_POLICY[key]);
      if (problem) problems.push(`"${key}"[${i}]${typeof pattern === 'string' ? ` ${quoted(pattern)}` : ''} ${problem}`);
      else good.push(pattern as string);
    }
    kept[key] = good;
  }
  return { kept, problems };
}

/** The policy each list of a project's config gives its paths. */
const CONFIG_POLICY = { logs: PROJECT_LOG, telemetry: SNAPSHOT, counters: COUNTER } as const;

/**
 * Project rules, ahead of the built-in table (telemetry first: a snapshot is the stronger claim;
 * then counters, which add each branch's increase, as the protocol's spend counters do).
 */
export function compileExtraLogs(config: PolicyConfig | undefined): PolicyRule[] {
  return [
    ...(config?.telemetry ?? []).map((pattern) => ({ pattern, policy: SNAPSHOT })),
    ...(config?.counters ?? []).map((pattern) => ({ pattern, policy: COUNTER })),
    ...(config?.logs ?? []).map((pattern) => ({ pattern, policy: PROJECT_LOG })),
  ];
}

const splitCache = new Map<string, string[]>();
function segments(pattern: string): string[] {
  let split = splitCache.get(pattern);
  if (!split) splitCache.set(pattern, (split = pattern.split('.')));
  return split;
}

/** The policy for the value at `path` (object keys only; array indices are never part of a path here). */
export function policyFor(path: readonly string[], extra: readonly PolicyRule[] = []): MergePolicy {
  for (const rule of extra) if (patternMatches(segments(rule.pattern), path)) return rule.policy;
  for (const rule of POLICY_RULES) if (patternMatches(segments(rule.pattern), path)) return rule.policy;
  return VALUE;
}

/** Paths of rotatable logs (telemetry under skill_state, plus the project's own) present in `doc`. */
export function rotatableLogPaths(doc: unknown, extra: readonly PolicyRule[] = []): string[][] {
  const found: string[][] = [];
  const walk = (value: unknown, path: string[]): void => {
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      const p = policyFor(path, extra);
      if (p.kind === 'log' && p.rotate) found.push(path);
      return;
    }
    for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  walk(doc, []);
  return found;
}

/** Keys that must never be written through a path or merged into an object. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);

export type LogPolicy = Extract<MergePolicy, { kind: 'log' }>;

/** Keys another tool or an agent dates a log entry by where the log's own (`at`) is left out, as the schema allows. */
export const OTHER_TIME_KEYS = ['completed_at', 'done_at', 'finished_at', 'timestamp', 'date', 'time', 'when'] as const;

/**
 * The time of a log entry, in ms, or undefined when it has none: its policy's time key holding a
 * strict ISO instant (see instant.ts), or, where the entry has no such key, the first of
 * OTHER_TIME_KEYS it has (`{"action": ..., "completed_at": ...}`, as agents write it). Merge
 * orders added entries by it and rotate keeps the newest by it, so the two never disagree on a
 * log's order.
 */
export function logEntryTime(entry: unknown, policy: LogPolicy): number | undefined {
  if (policy.timeKey === undefined || typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const key = Object.hasOwn(entry, policy.timeKey) ? policy.timeKey : OTHER_TIME_KEYS.find((k) => Object.hasOwn(entry, k));
  if (key === undefined) return undefined;
  const raw = (entry as Record<string, unknown>)[key];
  return isIsoInstant(raw) ? Date.parse(raw) : undefined;
}

/** The retention cap of the log at `path` (a built-in rule's `keep`), or undefined when it has none. */
export function logRetention(path: readonly string[]): number | undefined {
  const policy = policyFor(path);
  return policy.kind === 'log' ? policy.keep : undefined;
}
