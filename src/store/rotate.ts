// Rotation on disk. Order is what makes it crash-safe: under the skill's lock the moved
// entries are first written (atomically) into history/<skill>.<YYYY-MM-DD>.json, and only
// then is the checkpoint rewritten. A crash between the two leaves every entry in the
// checkpoint and some also in history; the next run drops from the checkpoint whatever
// history already holds, and the history append deduplicates, so nothing is lost or doubled.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { DEFAULT_FORMAT, formatJson, type TextFormat } from '../protocol/format.js';
import { canonicalJson } from '../protocol/identity.js';
import { appendToRotationFile, DEFAULT_ROTATE_KEEP, planRotation, rotationFileProblem, type ExtraLogRules, type RotationFile, type RotationPlan } from '../protocol/rotation.js';
import { compileExtraLogs } from '../protocol/fields.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { MAX_FILE_BYTES } from '../protocol/validate.js';
import { writeFileAtomic } from './atomic.js';
import { checkpointPath, display, mutateCheckpoint, parseCheckpointText, readCheckpoint, requireCheckpoint } from './checkpoints.js';
import { readConfig, type ProjectConfig } from './config.js';
import { historyDir, listArchives } from './history.js';

/** Test-only: SIGKILL this process right after the history write, before the checkpoint write. */
export const CRASH_AFTER_HISTORY_ENV = 'CHECKPOINT_TEST_CRASH_AFTER_HISTORY';

export interface LogReport {
  path: string;
  total: number;
  kept: number;
  moved: number;
  already_in_history: number;
}

export interface RotateReport {
  skill: string;
  file: string;
  /** The rotation file written (or that would be), relative to the root; null when nothing moves. */
  history: string | null;
  logs: LogReport[];
  moved: number;
  already_in_history: number;
  bytes_before: number;
  bytes_after: number;
  changed: boolean;
  dry_run: boolean;
}

export function rotationFileName(skill: string, now: Date): string {
  return `${skill}.${now.toISOString().slice(0, 10)}.json`;
}

/** The pointer form of a history path: relative to the root, with forward slashes. */
function pointerOf(root: string, path: string): string {
  return display(root, path).split('\\').join('/');
}

function readRotationFile(root: string, path: string, skill: string): RotationFile {
  const { value } = parseCheckpointText(readFileSync(path, 'utf8'), display(root, path));
  const problem = rotationFileProblem(value, skill);
  if (problem) {
    throw new CheckpointError('E_INVALID', `${display(root, path)} is not a rotation file of "${skill}": ${problem}`, {
      hint: 'move that file out of .checkpoints/history/ (or fix it), then rotate again; nothing was changed',
    });
  }
  return value as unknown as RotationFile;
}

/** dotted log path -> canonical entry JSON -> pointer of the rotation file holding it. */
type HistoryIndex = Map<string, Map<string, string>>;

function indexHistory(root: string, skill: string): HistoryIndex {
  const index: HistoryIndex = new Map();
  for (const a of listArchives(root, skill)) {
    if (a.kind !== 'rotation') continue;
    const file = readRotationFile(root, a.path, skill);
    const where = pointerOf(root, a.path);
    for (const [dotted, entries] of Object.entries(file.entries)) {
      let byEntry = index.get(dotted);
      if (!byEntry) index.set(dotted, (byEntry = new Map()));
      for (const e of entries) if (!byEntry.has(canonicalJson(e))) byEntry.set(canonicalJson(e), where);
    }
  }
  return index;
}

interface Settings {
  keep: number;
  extra: ExtraLogRules;
}

function settings(config: ProjectConfig, keep?: number): Settings {
  return { keep: keep ?? config.rotate_keep ?? DEFAULT_ROTATE_KEEP, extra: compileExtraLogs(config) };
}

function plan(root: string, skill: string, doc: JsonObject, now: Date, s: Settings): { plan: RotationPlan; target: string } {
  const target = join(historyDir(root), rotationFileName(skill, now));
  const index = indexHistory(root, skill);
  const p = planRotation(doc, {
    keep: s.keep,
    extra: s.extra,
    target: pointerOf(root, target),
    inHistory: (dotted, entry) => index.get(dotted)?.get(canonicalJson(entry)) ?? null,
  });
  return { plan: p, target };
}

/** Writes the moved entries into the day's rotation file (appending, deduplicated). */
function writeHistory(root: string, skill: string, target: string, p: RotationPlan, now: Date): void {
  if (!p.moved) return;
  mkdirSync(historyDir(root), { recursive: true });
  const existing = existsSync(target) ? readRotationFile(root, target, skill) : null;
  const file = appendToRotationFile(existing, skill, p.logs, now.toISOString());
  writeFileAtomic(target, formatJson(file, DEFAULT_FORMAT));
  if (process.env[CRASH_AFTER_HISTORY_ENV] === '1') process.kill(process.pid, 'SIGKILL');
}

function asObject(skill: string, value: JsonValue | null): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CheckpointError('E_INVALID', `.checkpoints/${skill}.checkpoint.json is not a JSON object`, { hint: 'fix it (checkpoint validate), then rotate' });
  }
  return value;
}

function report(root: string, skill: string, path: string, target: string, p: RotationPlan, before: number, format: TextFormat, dryRun: boolean): RotateReport {
  return {
    skill,
    file: display(root, path),
    history: p.moved ? pointerOf(root, target) : null,
    logs: p.logs.map((l) => ({ path: l.dotted, total: l.total, kept: l.kept, moved: l.moved.length, already_in_history: l.alreadyRotated })),
    moved: p.moved,
    already_in_history: p.dropped,
    bytes_before: before,
    bytes_after: p.changed ? Buffer.byteLength(formatJson(p.doc, format)) : before,
    changed: p.changed,
    dry_run: dryRun,
  };
}

export interface RotateOptions {
  now: Date;
  /** Newest entries kept per log; default config rotate_keep, else DEFAULT_ROTATE_KEEP. */
  keep?: number;
  dryRun?: boolean;
  /** The project config (read from .checkpoints/config.json when not given). */
  config?: ProjectConfig;
}

/** Rotates one skill's logs (or, with dryRun, reports what would move and writes nothing). */
export async function rotateSkill(root: string, skill: string, opts: RotateOptions): Promise<RotateReport> {
  const s = settings(opts.config ?? readConfig(root), opts.keep);
  const current = requireCheckpoint(root, skill);
  const first = plan(root, skill, asObject(skill, current.value), opts.now, s);
  if (opts.dryRun || !first.plan.changed) return report(root, skill, current.path, first.target, first.plan, current.sizeBytes, current.format, Boolean(opts.dryRun));

  // Plan again under the lock: the file (or history) may have changed since the look above.
  let pending: { plan: RotationPlan; target: string } | undefined;
  let done: RotateReport | undefined;
  await mutateCheckpoint(root, skill, {
    now: opts.now,
    change: (value) => {
      const live = readCheckpoint(root, skill);
      if (!live) throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" (it was removed while rotating)`);
      pending = plan(root, skill, asObject(skill, value), opts.now, s);
      done = report(root, skill, live.path, pending.target, pending.plan, live.sizeBytes, live.format, false);
      return pending.plan.changed ? pending.plan.doc : (value as JsonValue);
    },
    // Validation passed: history first; mutateCheckpoint then replaces the checkpoint.
    beforeWrite: (next) => {
      if (pending) writeHistory(root, skill, pending.target, pending.plan, opts.now);
      return next;
    },
  });
  return done!;
}

export interface AutoRotation {
  doc: JsonValue;
  report: RotateReport | null;
}

/**
 * For `update --auto-rotate` / config auto_rotate: called from mutateCheckpoint's beforeWrite
 * (so under the skill's lock, after validation). When the document about to be written would
 * pass MAX_FILE_BYTES, its logs are rotated (history written first) and the smaller document
 * is returned for the write; otherwise `next` comes back unchanged. `force` is the flag;
 * without it only config auto_rotate turns this on, and an unreadable config turns it off.
 */
export function autoRotate(root: string, skill: string, next: JsonValue, opts: { now: Date; force: boolean }): AutoRotation {
  if (next === null || typeof next !== 'object' || Array.isArray(next)) return { doc: next, report: null };
  const live = readCheckpoint(root, skill);
  const format = live?.format ?? DEFAULT_FORMAT;
  const bytes = Buffer.byteLength(formatJson(next, format));
  if (bytes <= MAX_FILE_BYTES) return { doc: next, report: null };
  let config: ProjectConfig;
  try {
    config = readConfig(root);
  } catch (e) {
    if (opts.force) throw e;
    return { doc: next, report: null };
  }
  if (!opts.force && config.auto_rotate !== true) return { doc: next, report: null };
  const p = plan(root, skill, next, opts.now, settings(config));
  if (!p.plan.changed) return { doc: next, report: null };
  writeHistory(root, skill, p.target, p.plan, opts.now);
  const path = live?.path ?? checkpointPath(root, skill);
  return { doc: p.plan.doc, report: report(root, skill, path, p.target, p.plan, bytes, format, false) };
}
