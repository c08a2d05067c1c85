// The Checkpoint Protocol schema (wire "1.0" and "1.1"), as TypeScript types.
// The validator treats input as `unknown`; these types describe what it accepts.

export type WireVersion = '1.0' | '1.1';
export const WIRE_VERSIONS: readonly WireVersion[] = ['1.0', '1.1'];
export const CURRENT_WIRE_VERSION: WireVersion = '1.1';

export type CheckpointStatus = 'in_progress' | 'blocked' | 'complete' | 'failed';
export const CHECKPOINT_STATUSES: readonly CheckpointStatus[] = ['in_progress', 'blocked', 'complete', 'failed'];

export type RowStatus = 'complete' | 'in_progress' | 'not_started' | 'blocked' | 'failed';
export const ROW_STATUSES: readonly RowStatus[] = ['complete', 'in_progress', 'not_started', 'blocked', 'failed'];

export type BlockerNeeds = 'user_decision' | 'code_fix' | 'external_dep';
export const BLOCKER_NEEDS: readonly BlockerNeeds[] = ['user_decision', 'code_fix', 'external_dep'];

export type PmRole = 'source' | 'child' | 'deploy' | 'incident' | 'linked';
export const PM_ROLES: readonly PmRole[] = ['source', 'child', 'deploy', 'incident', 'linked'];

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ProgressRow {
  id: string;
  label: string;
  status: RowStatus;
  [extra: string]: unknown;
}

export interface ContextPrimer {
  key_decisions?: string[];
  generated_files?: string[];
  user_preferences?: string[];
  [extra: string]: unknown;
}

export interface Blocker {
  id: string;
  description: string;
  blocking?: string;
  needs?: BlockerNeeds;
  proposed_resolution?: string;
  [extra: string]: unknown;
}

export type NextAction = string | { text: string; done_when?: string; [extra: string]: unknown };

export interface RecentlyDone {
  at: string;
  action: string;
  [extra: string]: unknown;
}

export interface PmRef {
  provider: string;
  id: string;
  url?: string;
  role?: PmRole;
  created_by_skill?: string;
  first_seen_at?: string;
  [extra: string]: unknown;
}

export interface Cost {
  currency?: string;
  total_usd?: number;
  budget_usd?: number;
  by_phase?: Record<string, number>;
  by_model?: Record<string, number>;
  tokens?: JsonObject;
  updated_at?: string;
  [extra: string]: unknown;
}

export interface EvalScore {
  rubric: string;
  score: number;
  max?: number;
  at?: string;
  ref?: string;
  dimensions?: Record<string, number>;
  [extra: string]: unknown;
}

export type TelemetryHandle = string | { enabled?: boolean; id?: string; sink?: string; since?: string; [extra: string]: unknown };

/** The recovery capsule (recovery-capsule.md): seven fields, bounded. */
export interface CapsuleContext {
  goal: string;
  acceptance: string;
  constraints: string[];
  decisions: string[];
  evidence: string[];
  pending: string[];
  next: string;
}

export interface Capsule {
  context: CapsuleContext;
  /** Where the capsule was saved: frozen until the next explicit pause --context. */
  origin: { root: string; head: string | null; saved_at: string };
  /** Refreshed by `pause --auto`; never part of the claims. */
  mechanical?: { head: string | null; branch: string | null; uncommitted: string[]; at: string };
}

export interface Checkpoint {
  $schema?: string;
  protocol_version: WireVersion;
  skill: string;
  project: string;
  project_dir: string;
  created_at: string;
  updated_at: string;
  phase: string;
  step: string;
  status: CheckpointStatus;
  progress_summary: string;
  progress_table?: ProgressRow[];
  context_primer?: ContextPrimer;
  blockers?: Blocker[];
  next_actions?: NextAction[];
  skill_state?: JsonObject;
  recently_done?: RecentlyDone[];
  pm_refs?: PmRef[];
  cost?: Cost;
  eval_scores?: EvalScore[];
  telemetry_handle?: TelemetryHandle;
  depends_on?: string | string[];
  capsule?: Capsule;
  [extra: string]: unknown;
}

export function actionText(action: NextAction): string {
  return typeof action === 'string' ? action : action.text;
}
