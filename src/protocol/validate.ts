// The checkpoint validator: pure, returns every error and warning with its JSON path.
// Errors make a file invalid; warnings are drift and hygiene signals (`--strict` fails on them).

import { REQUIRED_FIELDS } from './fields.js';
import { validateCapsule } from './capsule.js';
import {
  BLOCKER_NEEDS,
  CHECKPOINT_STATUSES,
  PM_ROLES,
  ROW_STATUSES,
  WIRE_VERSIONS,
} from './types.js';

/** Thresholds, named once and used by name everywhere (validate, doctor, rotate hints). */
export const MAX_FILE_BYTES = 32 * 1024;
export const MAX_SUMMARY_CHARS = 1200;
export const MAX_KEY_DECISIONS = 20;
export const MAX_FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;

export interface Issue {
  level: 'error' | 'warning';
  path: string;
  message: string;
}

export interface ValidationResult {
  errors: Issue[];
  warnings: Issue[];
}

export interface ValidateContext {
  /** Base name of the file, checked against `<skill>.checkpoint.json`. */
  fileName?: string;
  /** The clock, passed in so the core stays pure. */
  now?: Date;
  /** Size of the file on disk, for the size warning. */
  sizeBytes?: number;
}

// ISO-8601 date-time with a Z or an explicit offset, every field in range (the same pattern
// is in schema.json). The calendar date must exist too: Date.parse rolls 2026-02-30 over
// into March instead of refusing it.
const ISO_INSTANT = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ISO_INSTANT.exec(value);
  return m !== null && Number(m[3]) <= daysInMonth(Number(m[1]), Number(m[2])) && !Number.isNaN(Date.parse(value));
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isBlank = (v: unknown): boolean => v === undefined || v === null || v === '';
const isNonNegNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const list = (values: readonly string[]): string => values.join('|');

/** `a.b[2].c`-style display path; keys that are not identifiers are quoted. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const seg = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return base ? `${base}.${seg}` : seg;
}

export function validateCheckpoint(doc: unknown, ctx: ValidateContext = {}): ValidationResult {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const err = (path: string, message: string) => errors.push({ level: 'error', path, message });
  const warn = (path: string, message: string) => warnings.push({ level: 'warning', path, message });

  if (!isObj(doc)) {
    err('(root)', 'a checkpoint must be a JSON object');
    return { errors, warnings };
  }

  for (const field of REQUIRED_FIELDS) {
    if (isBlank(doc[field])) err(field, `required field "${field}" is ${doc[field] === undefined ? 'missing' : 'empty'}`);
    else if (field === 'protocol_version' && typeof doc[field] !== 'string') err(field, `protocol_version must be the string ${WIRE_VERSIONS.map((v) => `"${v}"`).join(' or ')}: the on-disk wire version (the file schema version, not the skill release)`);
    else if (typeof doc[field] !== 'string') err(field, `"${field}" must be a string`);
  }

  const version = doc.protocol_version;
  if (typeof version === 'string' && version && !(WIRE_VERSIONS as readonly string[]).includes(version)) {
    err('protocol_version', `protocol_version "${version}" is not a known on-disk wire version (${list(WIRE_VERSIONS)}); it is the file schema version, not the skill release`);
  }

  const status = doc.status;
  if (typeof status === 'string' && status && !(CHECKPOINT_STATUSES as readonly string[]).includes(status)) {
    err('status', `status "${status}" must be one of ${list(CHECKPOINT_STATUSES)}`);
  }

  for (const field of ['created_at', 'updated_at'] as const) {
    const v = doc[field];
    if (typeof v === 'string' && v && !isIsoInstant(v)) err(field, `${field} "${v}" is not an ISO-8601 instant with Z or an offset`);
  }
  if (isIsoInstant(doc.created_at) && isIsoInstant(doc.updated_at) && Date.parse(doc.updated_at) < Date.parse(doc.created_at)) {
    err('updated_at', `updated_at (${doc.updated_at}) is before created_at (${doc.created_at})`);
  }
  if (ctx.now && isIsoInstant(doc.updated_at) && Date.parse(doc.updated_at) - ctx.now.getTime() > MAX_FUTURE_SKEW_MS) {
    warn('updated_at', `updated_at (${doc.updated_at}) is more than a day in the future; check the writer's clock`);
  }

  if (ctx.fileName !== undefined && typeof doc.skill === 'string' && doc.skill) {
    const expected = `${doc.skill}.checkpoint.json`;
    if (ctx.fileName !== expected) err('skill', `file name "${ctx.fileName}" must be "${expected}" for skill "${doc.skill}"`);
  }

  if (typeof doc.progress_summary === 'string' && doc.progress_summary.length > MAX_SUMMARY_CHARS) {
    warn('progress_summary', `progress_summary is ${doc.progress_summary.length} characters (over ${MAX_SUMMARY_CHARS}); keep it to a few sentences and move detail into progress_table`);
  }

  const rowIds = checkProgressTable(doc, err);
  checkContextPrimer(doc, err, warn);
  checkNextActions(doc, err);
  checkBlockers(doc, rowIds, err, warn);
  checkPmRefs(doc, err);
  checkCost(doc, err, warn);
  checkEvalScores(doc, err);
  checkTelemetry(doc, err);
  checkRecentlyDone(doc, err);
  if (doc.capsule !== undefined) for (const e of validateCapsule(doc.capsule)) err(e.path ? `capsule.${e.path}` : 'capsule', e.message);
  // Optional fields whose shape schema.json states; the two must agree.
  if (doc.$schema !== undefined && typeof doc.$schema !== 'string') err('$schema', '$schema must be a string (a path or URL of the JSON Schema)');
  if (doc.skill_state !== undefined && !isObj(doc.skill_state)) err('skill_state', 'skill_state must be an object');
  if (doc.depends_on !== undefined && typeof doc.depends_on !== 'string') {
    if (Array.isArray(doc.depends_on)) checkStringList(doc.depends_on, 'depends_on', err);
    else err('depends_on', 'depends_on must be a string or an array of strings');
  }

  if (status === 'in_progress') {
    if (doc.progress_table === undefined) warn('progress_table', 'no progress_table while in_progress; add one so resume can show X/Y phases');
    if (doc.context_primer === undefined) warn('context_primer', 'no context_primer while in_progress; without it the next session must re-read everything');
  }
  if (ctx.sizeBytes !== undefined && ctx.sizeBytes > MAX_FILE_BYTES) {
    warn('(file)', `file is ${ctx.sizeBytes} bytes (over ${MAX_FILE_BYTES}); move old telemetry out with \`checkpoint rotate\``);
  }
  return { errors, warnings };
}

type Report = (path: string, message: string) => void;

function checkProgressTable(doc: Obj, err: Report): Set<string> {
  const ids = new Set<string>();
  const table = doc.progress_table;
  if (table === undefined) return ids;
  if (!Array.isArray(table)) {
    err('progress_table', 'progress_table must be an array of {id, label, status} rows');
    return ids;
  }
  table.forEach((row, i) => {
    const p = joinPath('progress_table', i);
    if (!isObj(row)) return err(p, 'each progress_table row must be an object');
    if (isBlank(row.id) || typeof row.id !== 'string') err(joinPath(p, 'id'), 'row needs a string id');
    else ids.add(row.id);
    if (isBlank(row.label) || typeof row.label !== 'string') err(joinPath(p, 'label'), 'row needs a string label');
    if (!(ROW_STATUSES as readonly unknown[]).includes(row.status)) err(joinPath(p, 'status'), `row status must be one of ${list(ROW_STATUSES)}`);
  });
  return ids;
}

function optionalString(obj: Obj, key: string, base: string, err: Report, what?: string): void {
  if (obj[key] !== undefined && typeof obj[key] !== 'string') err(joinPath(base, key), `${key} must be a string${what ? ` (${what})` : ''}`);
}

function checkStringList(value: unknown, path: string, err: Report): value is unknown[] {
  if (!Array.isArray(value)) {
    err(path, `${path} must be an array of strings`);
    return false;
  }
  value.forEach((v, i) => typeof v !== 'string' && err(joinPath(path, i), 'must be a string'));
  return true;
}

function checkContextPrimer(doc: Obj, err: Report, warn: Report): void {
  const primer = doc.context_primer;
  if (primer === undefined) return;
  if (!isObj(primer)) return err('context_primer', 'context_primer must be an object');
  for (const key of ['key_decisions', 'generated_files', 'user_preferences']) {
    if (primer[key] !== undefined) checkStringList(primer[key], `context_primer.${key}`, err);
  }
  const decisions = primer.key_decisions;
  if (Array.isArray(decisions) && decisions.length > MAX_KEY_DECISIONS) {
    warn('context_primer.key_decisions', `${decisions.length} key_decisions (over ${MAX_KEY_DECISIONS}); consolidate older ones into a summary`);
  }
}

function checkNextActions(doc: Obj, err: Report): void {
  const actions = doc.next_actions;
  if (actions === undefined) {
    if (doc.status === 'in_progress') err('next_actions', 'next_actions is required while in_progress');
    return;
  }
  if (!Array.isArray(actions)) return err('next_actions', 'next_actions must be an array');
  if (actions.length === 0 && doc.status === 'in_progress') err('next_actions', 'next_actions must not be empty while in_progress');
  actions.forEach((a, i) => {
    const p = joinPath('next_actions', i);
    if (typeof a === 'string') {
      if (!a.trim()) err(p, 'an action must not be empty');
      return;
    }
    if (!isObj(a)) return err(p, 'an action is a string or {text, done_when?}');
    if (typeof a.text !== 'string' || !a.text.trim()) err(joinPath(p, 'text'), 'action object needs a non-empty string text');
    if (a.done_when !== undefined && typeof a.done_when !== 'string') err(joinPath(p, 'done_when'), 'done_when must be a shell command string');
  });
}

function checkBlockers(doc: Obj, rowIds: Set<string>, err: Report, warn: Report): void {
  const blockers = doc.blockers;
  if (blockers === undefined) {
    if (doc.status === 'blocked') warn('blockers', 'status is blocked but no blockers say why');
    return;
  }
  if (!Array.isArray(blockers)) return err('blockers', 'blockers must be an array');
  if (blockers.length === 0 && doc.status === 'blocked') warn('blockers', 'status is blocked but no blockers say why');
  blockers.forEach((b, i) => {
    const p = joinPath('blockers', i);
    if (!isObj(b)) return err(p, 'each blocker must be an object');
    if (isBlank(b.id)) err(joinPath(p, 'id'), 'blocker needs an id');
    if (isBlank(b.description) || typeof b.description !== 'string') err(joinPath(p, 'description'), 'blocker needs a description');
    if (b.needs !== undefined && !(BLOCKER_NEEDS as readonly unknown[]).includes(b.needs)) {
      err(joinPath(p, 'needs'), `needs must be one of ${list(BLOCKER_NEEDS)}`);
    }
    optionalString(b, 'blocking', p, err, 'the id of the progress_table row it blocks');
    optionalString(b, 'proposed_resolution', p, err);
    if (typeof b.blocking === 'string' && doc.progress_table !== undefined && !rowIds.has(b.blocking)) {
      warn(joinPath(p, 'blocking'), `blocking "${b.blocking}" matches no progress_table id`);
    }
    if (b.needs === 'user_decision' && doc.status === 'complete') {
      warn(p, `status is complete while user_decision blocker "${String(b.id)}" is still open`);
    }
  });
}

function checkPmRefs(doc: Obj, err: Report): void {
  const refs = doc.pm_refs;
  if (refs === undefined) return;
  if (!Array.isArray(refs)) return err('pm_refs', 'pm_refs must be an array');
  refs.forEach((r, i) => {
    const p = joinPath('pm_refs', i);
    if (!isObj(r)) return err(p, 'each pm_ref must be an object');
    if (isBlank(r.provider) || typeof r.provider !== 'string') err(joinPath(p, 'provider'), 'pm_ref needs a provider');
    if (isBlank(r.id)) err(joinPath(p, 'id'), 'pm_ref needs an id');
    if (r.role !== undefined && !(PM_ROLES as readonly unknown[]).includes(r.role)) err(joinPath(p, 'role'), `role must be one of ${list(PM_ROLES)}`);
    if (r.first_seen_at !== undefined && !isIsoInstant(r.first_seen_at)) err(joinPath(p, 'first_seen_at'), 'first_seen_at must be an ISO-8601 instant');
    optionalString(r, 'url', p, err);
    optionalString(r, 'created_by_skill', p, err);
  });
}

function checkNumberMap(value: unknown, path: string, err: Report): void {
  if (!isObj(value)) return err(path, `${path} must map names to non-negative numbers`);
  for (const [k, v] of Object.entries(value)) if (!isNonNegNumber(v)) err(joinPath(path, k), 'must be a non-negative number');
}

function checkCost(doc: Obj, err: Report, warn: Report): void {
  const cost = doc.cost;
  if (cost === undefined) return;
  if (!isObj(cost)) return err('cost', 'cost must be an object');
  for (const k of ['total_usd', 'budget_usd']) {
    if (cost[k] !== undefined && !isNonNegNumber(cost[k])) err(`cost.${k}`, `${k} must be a non-negative number`);
  }
  for (const k of ['by_phase', 'by_model']) if (cost[k] !== undefined) checkNumberMap(cost[k], `cost.${k}`, err);
  if (cost.updated_at !== undefined && !isIsoInstant(cost.updated_at)) err('cost.updated_at', 'cost.updated_at must be an ISO-8601 instant');
  optionalString(cost, 'currency', 'cost', err, 'e.g. "USD"');
  if (cost.tokens !== undefined && !isObj(cost.tokens)) err('cost.tokens', 'cost.tokens must be an object');
  if (isNonNegNumber(cost.total_usd) && isNonNegNumber(cost.budget_usd) && (cost.budget_usd as number) > 0 && (cost.total_usd as number) > (cost.budget_usd as number)) {
    warn('cost.total_usd', `budget gate tripped: total_usd ${cost.total_usd} > budget_usd ${cost.budget_usd}`);
  }
}

function checkEvalScores(doc: Obj, err: Report): void {
  const scores = doc.eval_scores;
  if (scores === undefined) return;
  if (!Array.isArray(scores)) return err('eval_scores', 'eval_scores must be an array');
  scores.forEach((s, i) => {
    const p = joinPath('eval_scores', i);
    if (!isObj(s)) return err(p, 'each eval score must be an object');
    if (typeof s.rubric !== 'string' || !s.rubric) err(joinPath(p, 'rubric'), 'needs a string rubric');
    if (typeof s.score !== 'number' || !Number.isFinite(s.score)) err(joinPath(p, 'score'), 'needs a finite numeric score');
    if (s.max !== undefined) {
      if (typeof s.max !== 'number' || !Number.isFinite(s.max) || s.max <= 0) err(joinPath(p, 'max'), 'max must be a positive number');
      else if (typeof s.score === 'number' && s.score > s.max) err(joinPath(p, 'score'), `score ${s.score} exceeds max ${s.max}`);
    }
    if (s.at !== undefined && !isIsoInstant(s.at)) err(joinPath(p, 'at'), 'at must be an ISO-8601 instant');
    optionalString(s, 'ref', p, err, 'a path or URL of the evaluation');
    if (s.dimensions !== undefined) {
      if (!isObj(s.dimensions)) err(joinPath(p, 'dimensions'), 'dimensions must map names to numbers');
      else for (const [k, v] of Object.entries(s.dimensions)) {
        if (typeof v !== 'number' || !Number.isFinite(v)) err(joinPath(joinPath(p, 'dimensions'), k), 'must be a number');
      }
    }
  });
}

function checkTelemetry(doc: Obj, err: Report): void {
  const t = doc.telemetry_handle;
  if (t === undefined) return;
  if (typeof t === 'string') {
    if (!t) err('telemetry_handle', 'telemetry_handle must be a non-empty string or an object');
    return;
  }
  if (!isObj(t)) return err('telemetry_handle', 'telemetry_handle must be a non-empty string or an object');
  if (t.enabled !== undefined && typeof t.enabled !== 'boolean') err('telemetry_handle.enabled', 'enabled must be a boolean');
  for (const k of ['id', 'sink']) if (t[k] !== undefined && typeof t[k] !== 'string') err(`telemetry_handle.${k}`, `${k} must be a string`);
  if (t.since !== undefined && !isIsoInstant(t.since)) err('telemetry_handle.since', 'since must be an ISO-8601 instant');
}

function checkRecentlyDone(doc: Obj, err: Report): void {
  const done = doc.recently_done;
  if (done === undefined) return;
  if (!Array.isArray(done)) return err('recently_done', 'recently_done must be an array');
  done.forEach((d, i) => {
    const p = joinPath('recently_done', i);
    if (typeof d === 'string') return;
    if (!isObj(d)) return err(p, 'each entry must be {at, action} or a string');
    if (d.at !== undefined && !isIsoInstant(d.at)) err(joinPath(p, 'at'), 'at must be an ISO-8601 instant');
    optionalString(d, 'action', p, err);
  });
}

/**
 * Validator warnings that are advice about a checkpoint's shape or size (missing recommended
 * fields, long summaries, big files), not a problem with what it says: validate and doctor
 * label them `advice`, and neither `validate --strict` nor a push gate fails on them.
 */
export const ADVICE_PATHS: ReadonlySet<string> = new Set(['progress_table', 'context_primer', 'progress_summary', 'context_primer.key_decisions', '(file)']);

/** The level validate and doctor report a validator warning at. */
export const warningLevel = (w: Issue): 'warning' | 'advice' => (ADVICE_PATHS.has(w.path) ? 'advice' : 'warning');
