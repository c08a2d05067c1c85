// The checkpoint validator: pure, returns every error and warning with its JSON path.
// Errors make a file invalid; warnings are drift and hygiene signals (`--strict` fails on them).
// The shape (types, enums, required fields, formats) is schema.json's, checked by
// shape-check.ts with the messages written there; this file keeps only the rules a JSON
// Schema cannot state (fields compared with each other, the file name, the clock, sizes),
// each with its message and what to do.

import schema from './schema.json' with { type: 'json' };
import { capsuleSizeProblem } from './capsule.js';
import { isIsoInstant } from './instant.js';
import { joinPath, pathKeys } from './path.js';
import { quoted } from '../one-line.js';
import { blockerClosed } from './closed-blocker.js';
import { blockersAsRead } from './blocker-ids.js';
import { ShapeChecker, type Shape } from './shape-check.js';
import { enumSlips, suggestEnum } from './enum-slip.js';
import { memberSlipOf, protocolFieldSlip } from './field-slip.js';
import { FIELD_HOMES, homedField, topLevelMessage } from './field-places.js';
import type { NumberText } from './format.js';
import { notTheVersion, versionSlip } from './wire-version.js';

export { isIsoInstant, joinPath };

/** Thresholds, named once and used by name everywhere (validate, doctor, rotate hints). */
export const MAX_FILE_BYTES = 32 * 1024;
/** The most a checkpoint may hold: past it no command reads the file (a checkpoint is session state, not a data store). */
export const MAX_CHECKPOINT_BYTES = 4 * 1024 * 1024;
export const MAX_SUMMARY_CHARS = 1200;
export const MAX_KEY_DECISIONS = 20;
export const MAX_FUTURE_SKEW_MS = 24 * 60 * 60 * 1000;

/**
 * Whether instant `ms` is further ahead of `now` than the future skew validate tolerates (a clock
 * years ahead, a typo in the year, a hostile clone's 2099): ranked as undated wherever recency
 * decides (next's ranking, the capsule resume --context shows), else it would win in every session to come.
 */
export const aheadOfClock = (ms: number, now: Date): boolean => ms - now.getTime() > MAX_FUTURE_SKEW_MS;

export interface Issue {
  level: 'error' | 'warning';
  path: string;
  message: string;
  /** A warning reported as advice whatever its path (see warningLevel). */
  advice?: true;
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
  /**
   * Documents whose errors the caller discounts (a merge's sides, see file-validation.ts): the
   * shape check skips what `doc` shares with them, so only errors they do not have are certain
   * to be reported. Never for a caller that reports every error.
   */
  known?: readonly unknown[];
  /**
   * The text the file writes the number at a path with (format.ts numberTextIn), so a message
   * quotes it as written (`1.10`, `8.0`); without it, as the double prints.
   */
  numberText?: NumberText;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNonNegNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

const shape = new ShapeChecker(schema as unknown as Shape);

export function validateCheckpoint(doc: unknown, ctx: ValidateContext = {}): ValidationResult {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const err = (path: string, message: string) => errors.push({ level: 'error', path, message });
  const warn = (path: string, message: string) => warnings.push({ level: 'warning', path, message });

  shape.check(doc, err, ctx.known, ctx.numberText);
  if (!isObj(doc)) return { errors, warnings };
  // protocol_version 1.10 (a number) parses to 1.1: the message says the text is what is read.
  const version = doc.protocol_version;
  const differs = typeof version === 'number' && ctx.numberText ? notTheVersion(ctx.numberText(version, ['protocol_version']), version) : null;
  const versionError = differs === null ? undefined : errors.find((e) => e.path === 'protocol_version');
  if (versionError) versionError.message += ` (${differs})`;
  // 1, 1.0 or 1.1 as a number, "1" as a string: a slip of a version this reads, not a file to repair.
  // Advice (no push gate fails on it); a write by checkpoint stamps the string anew.
  const slip = versionSlip(version, ctx.numberText);
  if (slip !== null) {
    errors.splice(errors.findIndex((e) => e.path === 'protocol_version'), 1);
    warnings.push({ level: 'warning', path: 'protocol_version', message: slip, advice: true });
  }
  // A hand-written "Done" or "in-progress": the message names the value it most likely means.
  if (errors.length) {
    const meant = new Map(enumSlips(doc).flatMap((s) => (s.meant ? [[s.path, s.meant] as const] : [])));
    for (const e of errors) {
      const m = meant.get(e.path);
      if (m) e.message += ` (did you mean ${m}?)`;
    }
  }

  // A required member missing beside a slip of its name (a row's "stauts": "done"): the message names it.
  for (const e of errors) {
    const slip = slipInPlaceOf(doc, e.path);
    if (slip !== null) e.message += ` (${quoted(slip.given)} is there: did you mean ${slip.meant}?)`;
  }

  // A top-level name one or two letters off a protocol field, holding what that field would, is
  // most likely a typo whose change was lost ("stauts": "blocked"; not "state": "draft").
  for (const key of Object.keys(doc)) {
    const near = protocolFieldSlip(key);
    const meant = near !== null && fitsProtocolField(near, doc[key]) ? near : null;
    // Advice: a project may keep a field of its own by that name (update --allow-new-field), and no push gate fails on it.
    if (meant !== null) warnings.push({ level: 'warning', path: joinPath('', key), message: `unknown top-level field ${quoted(key)}; did you mean ${meant}?`, advice: true });
  }

  // generated_files or verified_for_sha written at the top level (field-places.ts): doctor checks
  // it there too, but the protocol's readers look in its home. Advice for a field the protocol
  // itself does not name there.
  for (const key of Object.keys(doc)) {
    const field = homedField(key);
    if (field !== null) warnings.push({ level: 'warning', path: key, message: topLevelMessage(field), ...(FIELD_HOMES[field].protocol ? {} : { advice: true as const }) });
  }

  // Cross-field rules: what a schema cannot compare or count.
  if (isIsoInstant(doc.created_at) && isIsoInstant(doc.updated_at) && Date.parse(doc.updated_at) < Date.parse(doc.created_at)) {
    err('updated_at', `updated_at (${doc.updated_at}) is before created_at (${doc.created_at})`);
  }
  // The only rule that reads the clock: verdicts.ts keeps the others' answer per file and runs this one live.
  const skew = ctx.now ? futureSkew(doc.updated_at, ctx.now, typeof doc.skill === 'string' ? doc.skill : undefined) : null;
  if (skew) warnings.push(skew);
  if (ctx.fileName !== undefined && typeof doc.skill === 'string' && doc.skill) {
    const expected = `${doc.skill}.checkpoint.json`;
    // The skill comes from the file: quoted and bounded, so a newline in it cannot break a report line.
    if (ctx.fileName !== expected) err('skill', `file name ${quoted(ctx.fileName)} must be ${quoted(expected)} for skill ${quoted(doc.skill)}`);
  }
  if (typeof doc.progress_summary === 'string' && doc.progress_summary.length > MAX_SUMMARY_CHARS) {
    warn('progress_summary', `progress_summary is ${doc.progress_summary.length} characters (over ${MAX_SUMMARY_CHARS}); keep it to a few sentences and move detail into progress_table`);
  }
  const primer = doc.context_primer;
  if (isObj(primer) && Array.isArray(primer.key_decisions) && primer.key_decisions.length > MAX_KEY_DECISIONS) {
    warn('context_primer.key_decisions', `${primer.key_decisions.length} key_decisions (over ${MAX_KEY_DECISIONS}); consolidate older ones into a summary`);
  }
  // Advice: a hazard for a later merge, not drift; a hand-kept table may have had it for months,
  // and a push that touches the file must not be refused for it.
  const adviseRepeat = (path: string, message: string) => warnings.push({ level: 'warning', path, message, advice: true });
  checkBlockers(doc, warn, adviseRepeat);
  for (const field of ['progress_table', 'blockers'] as const) checkRepeatedIds(doc[field], field, adviseRepeat);
  const cost = doc.cost;
  if (isObj(cost) && isNonNegNumber(cost.total_usd) && isNonNegNumber(cost.budget_usd) && cost.budget_usd > 0 && cost.total_usd > cost.budget_usd) {
    warn('cost.total_usd', `budget gate tripped: total_usd ${cost.total_usd} > budget_usd ${cost.budget_usd}`);
  }
  if (Array.isArray(doc.eval_scores)) {
    doc.eval_scores.forEach((s, i) => {
      if (isObj(s) && typeof s.score === 'number' && typeof s.max === 'number' && Number.isFinite(s.max) && s.max > 0 && s.score > s.max) {
        err(joinPath(joinPath('eval_scores', i), 'score'), `score ${s.score} exceeds max ${s.max}`);
      }
    });
  }
  if (doc.status === 'in_progress') {
    if (doc.progress_table === undefined) warn('progress_table', 'no progress_table while in_progress; add one so resume can show X/Y phases');
    if (doc.context_primer === undefined) warn('context_primer', 'no context_primer while in_progress; without it the next session must re-read everything');
  }
  if (doc.capsule !== undefined) {
    const size = capsuleSizeProblem(doc.capsule);
    if (size !== null) err('capsule', size);
  }
  if (ctx.sizeBytes !== undefined && ctx.sizeBytes > MAX_CHECKPOINT_BYTES) {
    // An error, so the merge driver refuses a merge that makes a file no command then reads.
    // No byte count in it: the same error on a side that was already over excuses the merge (notAlreadyIn).
    err('(file)', `is over the 4 MiB (${MAX_CHECKPOINT_BYTES} bytes) a checkpoint may hold; move old telemetry out with \`checkpoint rotate\``);
  } else if (ctx.sizeBytes !== undefined && ctx.sizeBytes > MAX_FILE_BYTES) {
    warn('(file)', `file is ${ctx.sizeBytes} bytes (over ${MAX_FILE_BYTES}); move old telemetry out with \`checkpoint rotate\``);
  }
  return { errors, warnings };
}

/**
 * The warning for an `updated_at` more than a day past `now`, else null; with the way out (any
 * write from a correct clock stamps it now: scaffold.ts stampWrite), for `skill` when known.
 */
/**
 * The member, beside the one `path` names and missing, that is a slip for it ("stauts" where a
 * row's "status" is missing); null when that member is there, or nothing beside it nearly names it.
 */
function slipInPlaceOf(doc: Obj, path: string): { given: string; meant: string } | null {
  const keys = pathKeys(path);
  const meant = keys?.at(-1);
  if (typeof meant !== 'string' || keys!.length < 2) return null;
  let parent: unknown = doc;
  for (const k of keys!.slice(0, -1)) parent = isObj(parent) || Array.isArray(parent) ? (parent as Record<string | number, unknown>)[k] : undefined;
  if (!isObj(parent) || Object.hasOwn(parent, meant)) return null;
  const given = Object.keys(parent).find((k) => memberSlipOf(k, [meant], true) === meant);
  return given === undefined ? null : { given, meant };
}

export function futureSkew(updatedAt: unknown, now: Date, skill?: string): Issue | null {
  if (!isIsoInstant(updatedAt) || Date.parse(updatedAt) - now.getTime() <= MAX_FUTURE_SKEW_MS) return null;
  const update = `checkpoint update ${skill && /^[\w.-]+$/.test(skill) ? skill : '<skill>'} --step=<its step>`;
  return { level: 'warning', path: 'updated_at', message: `updated_at (${updatedAt}) is more than a day in the future (a clock ahead, or a typo in the year); the next save from a correct clock stamps it now (\`${update}\`, \`checkpoint done\` or \`checkpoint pause --context\`)` };
}

type Report = (path: string, message: string) => void;

function checkBlockers(doc: Obj, warn: Report, advise: Report): void {
  const blockers = doc.blockers;
  if ((blockers === undefined || (Array.isArray(blockers) && blockers.length === 0)) && doc.status === 'blocked') warn('blockers', 'status is blocked but no blockers say why');
  if (!Array.isArray(blockers)) return;
  // A row as people name it: its id or its label, in any case and spacing ("Sprint 2", "sprint_2"
  // for id "sprint-2"), or the checkpoint's own phase or step.
  const key = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase().replace(/[\s_-]+/g, '-') : '');
  const rows = Array.isArray(doc.progress_table) ? doc.progress_table.flatMap((r) => (isObj(r) ? [r.id, r.label] : [])) : [];
  const rowKeys = new Set([...rows, doc.phase, doc.step].map(key).filter(Boolean));
  const asRead = blockersAsRead(blockers);
  blockers.forEach((b, i) => {
    if (!isObj(b)) return;
    const p = joinPath('blockers', i);
    if (typeof b.blocking === 'string' && doc.progress_table !== undefined && !rowKeys.has(key(b.blocking))) {
      warn(joinPath(p, 'blocking'), `blocking ${quoted(b.blocking)} matches no progress_table id`);
    }
    // One without an id by the id status, next and resume show it under (b2), and its place.
    const named = b.id !== undefined ? `blocker ${quoted(String(b.id))}` : asRead[i]?.id !== undefined ? `blocker ${String(asRead[i]!.id)} (blockers[${i}], no id)` : `blocker blockers[${i}] (no id)`;
    if (blockerClosed(b)) {
      advise(p, `${named} is marked resolved but still listed; status, next and resume treat it as closed; remove it from blockers`);
      return;
    }
    if (b.needs === 'user_decision' && doc.status === 'complete') {
      warn(p, `status is complete while user_decision ${named} is still open`);
    }
  });
}

/**
 * One note per id that repeats in a record array (hand-written tables do it): merges pair
 * rows by id, so rows sharing one can only be told apart by position and may conflict.
 */
function checkRepeatedIds(rows: unknown, field: string, warn: Report): void {
  if (!Array.isArray(rows)) return;
  const first = new Map<string, number>();
  const reported = new Set<string>();
  rows.forEach((row, i) => {
    const id = isObj(row) ? row.id : undefined;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const key = `${typeof id}:${id}`;
    const at = first.get(key);
    if (at === undefined) first.set(key, i);
    else if (!reported.has(key)) {
      reported.add(key);
      const shown = typeof id === 'string' ? quoted(id) : String(id);
      warn(joinPath(joinPath(field, i), 'id'), `id ${shown} repeats ${joinPath(field, at)}; merges match ${field} entries by id, so give each its own id`);
    }
  });
}

/**
 * Whether `value` could be what the protocol's top-level `field` holds: a scalar as the schema
 * checks it (an enum's members, a date's pattern), an object or array by its kind alone (a first
 * item may still lack fields). update's did-you-mean: `--stauts=blocked` fits status, while
 * `--state=draft` or `--host=db1` is a field of the project's own.
 */
export function fitsProtocolField(field: string, value: unknown): boolean {
  return fitsSchemaAt(`#/properties/${field}`, value);
}

/**
 * Whether `value` could be meant where the schema node at `pointer` stands: valid there (an
 * object or list: of that kind, its members aside), or text outside an enum that every reader
 * takes as one of its members ("Blocked", "In Progress", "done": enum-slip.ts). A did-you-mean's
 * test: `--stauts=Done` means status as surely as `--stauts=complete` does.
 */
export function fitsSchemaAt(pointer: string, value: unknown): boolean {
  const node = shape.node(pointer);
  if (value !== null && typeof value === 'object') {
    const kinds = Array.isArray(node.type) ? node.type : [node.type];
    return kinds.includes(Array.isArray(value) ? 'array' : 'object');
  }
  let fits = true;
  shape.checkAt(pointer, value, () => {
    fits = false;
  });
  if (!fits && typeof value === 'string' && Array.isArray(node.enum) && node.enum.every((e) => typeof e === 'string')) return suggestEnum(value, node.enum as string[]) !== null;
  return fits;
}

/**
 * Whether the protocol keeps a list at `path` (`blockers`, `context_primer.key_decisions`): the
 * schema walked through object members only, so a project's own keys (skill_state) never are.
 */
export function protocolListAt(path: readonly string[]): boolean {
  let node = schema as unknown as Shape;
  let pointer = '#';
  for (const seg of path) {
    const members = node.properties as Record<string, unknown> | undefined;
    if (!members || !Object.hasOwn(members, seg)) return false;
    node = shape.node((pointer += `/properties/${seg}`));
  }
  return path.length > 0 && node.type === 'array';
}

/**
 * Whether `doc` with `value` put at `path` holds no error there or under it: a fix a hint names
 * (a map or a single value made the list it stands for) is one the write would take.
 */
export function validAt(doc: Obj, path: readonly string[], value: unknown): boolean {
  const trial = structuredClone(doc);
  let parent: Obj = trial;
  for (const seg of path.slice(0, -1)) parent = parent[seg] as Obj;
  parent[path[path.length - 1]!] = value;
  const where = path.reduce<string>(joinPath, '');
  return !validateCheckpoint(trial).errors.some((e) => e.path === where || e.path.startsWith(`${where}.`) || e.path.startsWith(`${where}[`));
}

/**
 * Validator warnings that are advice about a checkpoint's shape or size (missing recommended
 * fields, long summaries, big files), not a problem with what it says: validate and doctor
 * label them `advice`, and neither `validate --strict` nor a push gate fails on them.
 */
export const ADVICE_PATHS: ReadonlySet<string> = new Set(['progress_table', 'context_primer', 'progress_summary', 'context_primer.key_decisions', '(file)']);

/** The level validate and doctor report a validator warning at. */
export const warningLevel = (w: Issue): 'warning' | 'advice' => (w.advice || ADVICE_PATHS.has(w.path) ? 'advice' : 'warning');

/** A validator warning reported as advice: shown, never failing (`--strict` included). */
export interface Advice {
  level: 'advice';
  path: string;
  message: string;
}

/** Validator warnings as every command reports them (validate, update, the MCP tools): warnings, and the advice apart. */
export function splitAdvice(issues: Issue[]): { warnings: Issue[]; advice: Advice[] } {
  const warnings = issues.filter((w) => warningLevel(w) === 'warning');
  const advice = issues.filter((w) => warningLevel(w) === 'advice').map((w): Advice => ({ level: 'advice', path: w.path, message: w.message }));
  return { warnings, advice };
}
