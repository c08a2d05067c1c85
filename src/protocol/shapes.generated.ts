// Generated from schema.json by scripts/gen-shapes.mjs: do not edit; edit the schema and run `npm run build`.
import type { JsonObject } from './json-types.js';

/** On-disk wire version (not the skill release). */
export type WireVersion = "1.0" | "1.1";
export const WIRE_VERSIONS = ["1.0","1.1"] as const;

export type CheckpointStatus = "in_progress" | "blocked" | "complete" | "failed";
export const CHECKPOINT_STATUSES = ["in_progress","blocked","complete","failed"] as const;

export interface ProgressRow {
  id: string;
  label: string;
  status: RowStatus;
  [extra: string]: unknown;
}

export type RowStatus = "complete" | "in_progress" | "not_started" | "blocked" | "failed";
export const ROW_STATUSES = ["complete","in_progress","not_started","blocked","failed"] as const;

export interface ContextPrimer {
  key_decisions?: string[];
  generated_files?: string[];
  user_preferences?: string[];
  [extra: string]: unknown;
}

export interface Blocker {
  id: unknown;
  description: string;
  blocking?: string;
  needs?: BlockerNeeds;
  proposed_resolution?: string;
  [extra: string]: unknown;
}

export type BlockerNeeds = "user_decision" | "code_fix" | "external_dep";
export const BLOCKER_NEEDS = ["user_decision","code_fix","external_dep"] as const;

export type NextAction = string | {
  text: string;
  done_when?: string;
  [extra: string]: unknown;
};

export type RecentlyDone = string | {
  at?: string;
  action?: string;
  [extra: string]: unknown;
};

export interface PmRef {
  provider: string;
  id: unknown;
  url?: string;
  role?: PmRole;
  created_by_skill?: string;
  first_seen_at?: string;
  [extra: string]: unknown;
}

export type PmRole = "source" | "child" | "deploy" | "incident" | "linked";
export const PM_ROLES = ["source","child","deploy","incident","linked"] as const;

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

export type TelemetryHandle = string | {
  enabled?: boolean;
  id?: string;
  sink?: string;
  since?: string;
  [extra: string]: unknown;
};

/** The recovery capsule (recovery-capsule.md): seven fields, bounded. Its serialized size (at most 16384 bytes) is checked by capsule.ts. */
export interface Capsule {
  /** The seven fields, in the protocol's order. */
  context: CapsuleContext;
  /** Where the capsule was saved: frozen until the next explicit pause --context. */
  origin: {
    root: string;
    head: string | null;
    saved_at: string;
    [extra: string]: unknown;
  };
  /** Refreshed by `pause --auto`; never part of the claims. */
  mechanical?: JsonObject;
}

/** The seven fields, in the protocol's order. */
export interface CapsuleContext {
  goal: string;
  acceptance: string;
  constraints: string[];
  decisions: string[];
  evidence: string[];
  pending: string[];
  next: string;
}
export const CAPSULE_FIELDS = ["goal","acceptance","constraints","decisions","evidence","pending","next"] as const;

/** Session state of one skill: .checkpoints/<skill>.checkpoint.json. Cross-field rules a schema cannot state (updated_at >= created_at, file name = skill, score <= max, the calendar date exists) are checked by `checkpoint validate`. */
export interface Checkpoint {
  $schema?: string;
  /** On-disk wire version (not the skill release). */
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
  /** The recovery capsule (recovery-capsule.md): seven fields, bounded. Its serialized size (at most 16384 bytes) is checked by capsule.ts. */
  capsule?: Capsule;
  [extra: string]: unknown;
}
