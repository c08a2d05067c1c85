// The starting document for a skill that has no checkpoint yet. Deliberately invents no
// next action: an in_progress checkpoint must say what to do, so `update` asks for one.
import { CURRENT_WIRE_VERSION, type JsonObject } from './types.js';

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

/** Restamps a write: updated_at now (never moving backwards), wire version current. */
/** Top-level fields every write stamps (stampWrite): a value given for one would be replaced. */
export const STAMPED_FIELDS: ReadonlySet<string> = new Set(['updated_at', 'protocol_version']);

export function stampWrite(doc: JsonObject, now: Date): JsonObject {
  const prev = typeof doc.updated_at === 'string' ? Date.parse(doc.updated_at) : NaN;
  doc.updated_at = Number.isNaN(prev) || prev <= now.getTime() ? now.toISOString() : (doc.updated_at as string);
  doc.protocol_version = CURRENT_WIRE_VERSION;
  return doc;
}
