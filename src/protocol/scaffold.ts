// The starting document for a skill that has no checkpoint yet. Deliberately invents no
// next action: an in_progress checkpoint must say what to do, so `update` asks for one.
import { CheckpointError } from '../errors.js';
import { shown } from '../one-line.js';
import { WIRE_VERSIONS } from './shapes.generated.js';
import { CURRENT_WIRE_VERSION, type JsonObject } from './types.js';
import { MAX_FUTURE_SKEW_MS } from './validate.js';
import { instantMs, isIsoInstant } from './instant.js';
import { numberTextIn } from './format.js';
import type { LiteralTexts } from './json.js';
import { notTheVersion, unquotedWireVersion, versionText } from './wire-version.js';

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
 * may not be before it); one ahead within the tolerance bounds updated_at from below. `texts`:
 * the file's literal texts, so a protocol_version written as a number is read as written (1.10).
 */
export function stampWrite(doc: JsonObject, now: Date, notes?: string[], texts?: LiteralTexts): JsonObject {
  const t = now.getTime();
  // A time written without its zone reads as UTC here as everywhere (instantMs), so no machine's zone decides.
  const prev = typeof doc.updated_at === 'string' ? instantMs(doc.updated_at) : NaN;
  if (Number.isNaN(prev) || prev <= t) doc.updated_at = now.toISOString();
  else if (prev - t <= MAX_FUTURE_SKEW_MS) doc.updated_at = new Date(Math.min(prev + 1, t + MAX_FUTURE_SKEW_MS)).toISOString();
  else {
    const was = doc.updated_at as string;
    doc.updated_at = now.toISOString();
    const created = typeof doc.created_at === 'string' ? instantMs(doc.created_at) : NaN;
    let also = '';
    if (created - t > MAX_FUTURE_SKEW_MS) {
      also = `, and created_at (${shown(doc.created_at as string)}) too`;
      doc.created_at = doc.updated_at;
    } else if (created > t) doc.updated_at = isIsoInstant(doc.created_at) ? doc.created_at : new Date(created).toISOString();
    notes?.push(`updated_at (${shown(was)}) was more than a day in the future (a clock ahead, or a typo in the year); this write stamped it ${doc.updated_at as string}${also}`);
  }
  stampWireVersion(doc, notes, texts);
  return doc;
}

/**
 * The wire version a write stamps: the current one. A file that says it is a newer version was
 * written by a newer tool, whose fields this one cannot judge: relabelling it would hide that, so
 * the write is refused. Any other value that is no version this tool knows is replaced, and said.
 * A number is read by its text in the file, as everywhere (wire-version.ts): 1.10 is newer than 1.1.
 */
function stampWireVersion(doc: JsonObject, notes?: string[], texts?: LiteralTexts): void {
  const was = doc.protocol_version;
  if (was === CURRENT_WIRE_VERSION) return;
  const text = versionText(was, (v) => numberTextIn(doc, () => texts)(v, ['protocol_version']));
  // As the file writes it: a string in quotes, a number bare (and, for 1.10, that it is not 1.1).
  const value = typeof was === 'number' ? text : shown(String(JSON.stringify(was)));
  const differs = typeof was === 'number' ? notTheVersion(text!, was) : null;
  const v = text === undefined ? null : versionNumbers(text);
  if (v !== null && (v[0] > CURRENT_MAJOR || (v[0] === CURRENT_MAJOR && (v[1] > CURRENT_MINOR || (v[1] === CURRENT_MINOR && v[2] > 0))))) {
    throw new CheckpointError('E_INVALID', `refused: the checkpoint says protocol_version ${value}${differs === null ? '' : ` (${differs})`}, newer than the ${CURRENT_WIRE_VERSION} this checkpoint writes; a write would relabel it ${CURRENT_WIRE_VERSION}`, {
      hint: `nothing was changed; write it with a checkpoint that knows that version, or, if the file holds ${CURRENT_WIRE_VERSION} content, set "protocol_version": "${CURRENT_WIRE_VERSION}" by hand`,
    });
  }
  if (was !== undefined && !(WIRE_VERSIONS as readonly unknown[]).includes(was)) {
    const read = text === undefined ? undefined : unquotedWireVersion(text);
    notes?.push(typeof was === 'number' && read === text
      ? `protocol_version was the number ${text}, where the protocol writes the string "${text}"; this write stamped "${CURRENT_WIRE_VERSION}"`
      : read !== undefined
      ? `protocol_version was ${typeof was === 'number' ? `the number ${text}` : `"${text}"`}, read as "${read}", where the protocol writes the string; this write stamped "${CURRENT_WIRE_VERSION}"`
      : `protocol_version (${value}${differs === null ? '' : `; ${differs}`}) was not a version checkpoint knows (${WIRE_VERSIONS.join(', ')}); this write stamped ${CURRENT_WIRE_VERSION}`);
  }
  doc.protocol_version = CURRENT_WIRE_VERSION;
}

const [CURRENT_MAJOR, CURRENT_MINOR] = CURRENT_WIRE_VERSION.split('.').map(Number) as [number, number];

/**
 * [major, minor, patch] of a text written as a version ("2.0", "v1.2", "1.10.3", "2"), a
 * pre-release or build of one too ("1.2-beta", "1.1.1+build.5": one of a version after 1.1 is
 * newer than it, as semver orders them), else null.
 */
function versionNumbers(text: string): [number, number, number] | null {
  const m = /^\s*v?(\d{1,6})(?:\.(\d{1,6}))?(?:\.(\d{1,6}))?(?:[-+][0-9A-Za-z.-]{0,64})?\s*$/i.exec(text);
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : null;
}
