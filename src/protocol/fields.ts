// The one table of field policies. Validation (required fields), the merge driver
// (how each field combines across branches) and rotation (which arrays are logs that
// may move to .checkpoints/history/) all read it; no other module hard-codes a field list.

/** The ten header + progress fields every checkpoint must carry (missing, null or "" all count). */
export const REQUIRED_FIELDS = [
  'protocol_version',
  'skill',
  'project',
  'project_dir',
  'created_at',
  'updated_at',
  'phase',
  'step',
  'status',
  'progress_summary',
] as const;

export type MergePolicy =
  /** Plain 3-way: a scalar changed differently on both sides is a conflict; objects recurse. */
  | { kind: 'value' }
  /** ISO-8601 instants: the later (or earlier) wins, compared as instants, never a conflict. */
  | { kind: 'instant'; pick: 'latest' | 'earliest' }
  /** Append-only log: base + ours' additions + theirs' additions, deduplicated by identity. */
  | { kind: 'log'; order: 'append' | 'newest-first'; timeKey?: string; rotate: boolean }
  /** Records with an `id`: merged per id (added, removed, or recursed), order kept. */
  | { kind: 'records' }
  /** next_actions: an ordered queue, popped from the front and appended at the back. */
  | { kind: 'queue' };

export interface PolicyRule {
  /** Dotted path; `**` matches any run of segments (zero or more). */
  pattern: string;
  policy: MergePolicy;
}

const LOG_APPEND = (timeKey?: string, rotate = false): MergePolicy => ({ kind: 'log', order: 'append', timeKey, rotate });

/** Record arrays under skill_state that are per-session telemetry by convention. */
export const SKILL_STATE_LOG_NAMES = ['run_history', 'merged_prs', 'bypasses', 'carried_debt', 'reconciliations'] as const;

export const POLICY_RULES: readonly PolicyRule[] = [
  { pattern: 'updated_at', policy: { kind: 'instant', pick: 'latest' } },
  { pattern: 'created_at', policy: { kind: 'instant', pick: 'earliest' } },
  { pattern: 'cost.updated_at', policy: { kind: 'instant', pick: 'latest' } },
  { pattern: 'capsule.mechanical.at', policy: { kind: 'instant', pick: 'latest' } },
  { pattern: 'next_actions', policy: { kind: 'queue' } },
  { pattern: 'recently_done', policy: { kind: 'log', order: 'newest-first', timeKey: 'at', rotate: false } },
  { pattern: 'eval_scores', policy: LOG_APPEND('at') },
  { pattern: 'pm_refs', policy: LOG_APPEND('first_seen_at') },
  { pattern: 'context_primer.key_decisions', policy: LOG_APPEND() },
  { pattern: 'context_primer.generated_files', policy: LOG_APPEND() },
  { pattern: 'context_primer.user_preferences', policy: LOG_APPEND() },
  { pattern: 'blockers', policy: { kind: 'records' } },
  // Pointers to history files written by rotate: a set both branches may add to, never rotated.
  { pattern: 'skill_state.rotated_to', policy: LOG_APPEND() },
  { pattern: 'progress_table', policy: { kind: 'records' } },
  ...SKILL_STATE_LOG_NAMES.map((name) => ({ pattern: `skill_state.**.${name}`, policy: LOG_APPEND('at', true) })),
];

/**
 * Rotation files (history/<skill>.<date>.json, `{skill, rotated_at, entries: {<log path>: [...]}}`):
 * every entries list is a log, so two branches rotating on the same day merge cleanly.
 */
export const ROTATION_FILE_RULES: readonly PolicyRule[] = [
  { pattern: 'entries.*', policy: LOG_APPEND('at') },
  { pattern: 'rotated_at', policy: { kind: 'instant', pick: 'latest' } },
];

const VALUE: MergePolicy = { kind: 'value' };

function matches(pattern: string[], path: readonly string[], pi = 0, si = 0): boolean {
  if (pi === pattern.length) return si === path.length;
  const seg = pattern[pi];
  if (seg === '**') {
    for (let k = si; k <= path.length; k++) if (matches(pattern, path, pi + 1, k)) return true;
    return false;
  }
  return si < path.length && (seg === '*' || seg === path[si]) && matches(pattern, path, pi + 1, si + 1);
}

/** Extra log paths a project declares in `.checkpoints/config.json` (`"logs": ["skill_state.audits"]`). */
export interface PolicyConfig {
  logs?: readonly string[];
}

export function compileExtraLogs(config: PolicyConfig | undefined): PolicyRule[] {
  return (config?.logs ?? []).map((pattern) => ({ pattern, policy: LOG_APPEND('at', true) }));
}

/** The policy for the value at `path` (object keys only; array indices are never part of a path here). */
export function policyFor(path: readonly string[], extra: readonly PolicyRule[] = []): MergePolicy {
  for (const rule of extra) if (matches(rule.pattern.split('.'), path)) return rule.policy;
  for (const rule of POLICY_RULES) if (matches(rule.pattern.split('.'), path)) return rule.policy;
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
