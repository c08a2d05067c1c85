// The starting document for a skill that has no checkpoint yet. Deliberately invents no
// next action: an in_progress checkpoint must say what to do, so `update` asks for one.
import { CURRENT_WIRE_VERSION, type JsonObject } from './types.js';
import { MAX_FUTURE_SKEW_MS } from './validate.js';

export function scaffoldCheckpoint(opts: { skill: string; project: string; projectDir: string; now: Date; schema?: string }): JsonObject {
  const at = opts.now.toISOString();
  return {
    // Editors validate and complete the file as it is typed when the schema sits beside it.
    ...(opts.schema ? { $schema: opts.schema } : {}),
    protocol_version: CURRENT_WIRE_VERSION,
    skill: opts.skill,
    project: opts.project,
    project_dir: opts.projectDir,
    created_at: at,
    updated_at: at,
    phase: 'start',
    step: 'start',
    status: 'in_progress',
    progress_summary: `Started ${opts.skill}.`,
    next_actions: [],
  };
}

/** Top-level fields every write stamps (stampWrite): a value given for one would be replaced. */
export const STAMPED_FIELDS: ReadonlySet<string> = new Set(['updated_at', 'protocol_version']);

/**
 * Restamps a write: updated_at now, wire version current. Never backwards within the future skew
 * validate tolerates (MAX_FUTURE_SKEW_MS: two writers whose clocks differ a little keep their
 * order): one millisecond past the value ahead, so each write is still a save of its own, which
 * the commit recording it dates (doctor reads a save from the first commit holding its updated_at:
 * a write that kept it would count as no save at all). An updated_at further ahead is a clock that ran ahead or a typo'd year, which no later
 * write would ever pass: stamped now instead, and `notes` (when given) gets one line saying so
 * with the value it replaced. A created_at that far ahead is brought back with it (updated_at
 * may not be before it); one ahead within the tolerance bounds updated_at from below.
 */
export function stampWrite(doc: JsonObject, now: Date, notes?: string[]): JsonObject {
  const t = now.getTime();
  const prev = typeof doc.updated_at === 'string' ? Date.parse(doc.updated_at) : NaN;
  if (Number.isNaN(prev) || prev <= t) doc.updated_at = now.toISOString();
  else if (prev - t <= MAX_FUTURE_SKEW_MS) doc.updated_at = new Date(Math.min(prev + 1, t + MAX_FUTURE_SKEW_MS)).toISOString();
  else {
    const was = doc.updated_at as string;
    doc.updated_at = now.toISOString();
    const created = typeof doc.created_at === 'string' ? Date.parse(doc.created_at) : NaN;
    let also = '';
    if (created - t > MAX_FUTURE_SKEW_MS) {
      also = `, and created_at (${doc.created_at as string}) too`;
      doc.created_at = doc.updated_at;
    } else if (created > t) doc.updated_at = doc.created_at as string;
    notes?.push(`updated_at (${was}) was more than a day in the future (a clock ahead, or a typo in the year); this write stamped it ${doc.updated_at as string}${also}`);
  }
  doc.protocol_version = CURRENT_WIRE_VERSION;
  return doc;
}
