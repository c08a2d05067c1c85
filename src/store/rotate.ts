// Rotation on disk. Order is what makes it crash-safe: under the skill's lock the moved
// entries are first written (atomically) into history/<skill>.<YYYY-MM-DD>.json, and only
// then is the checkpoint rewritten. Between the two, a local journal (.checkpoints/.<skill>.rotation.tmp,
// never committed) names the checkpoint (by content hash) and the entries just archived. A
// crash before the checkpoint write leaves exactly that checkpoint behind, so the next run
// drops from it exactly those entries and nothing else: an entry merely equal to an archived
// one is a new event and moves again. (Kept out of the rotation file: it would make two
// branches' rotation files conflict.) A crash before the journal is written doubles, never loses.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { DEFAULT_FORMAT, formatJson, rebaseSiblings, type TextFormat } from '../protocol/format.js';
import { literalKey, type LiteralTexts } from '../protocol/json.js';
import { canonicalJson } from '../protocol/identity.js';
import { appendToRotationFile, DEFAULT_ROTATE_KEEP, planRotation, rotatedLogKeys, rotationFileProblem, type ExtraLogRules, type RotationFile, type RotationPlan } from '../protocol/rotation.js';
import { compileExtraLogs } from '../protocol/fields.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { MAX_FILE_BYTES } from '../protocol/validate.js';
import { writeFileAtomic } from './atomic.js';
import { refuseConflicted } from './conflicts.js';
import { checkpointPath, checkpointText, display, MAX_READ_BYTES, mutateCheckpoint, OVERSIZED_READ_BYTES, type CheckpointFile, parseCheckpointText, readCheckpoint, requireCheckpoint } from './checkpoints.js';
import { readConfig, type ProjectConfig } from './config.js';
import { historyDir, MAX_ROTATION_FILE_BYTES } from './history.js';
import { ensureProjectDir, readProjectText, statProjectFile, writablePath } from './safe-fs.js';
import { checkpointsDir } from './checkpoints.js';
import { unlinkSync } from 'node:fs';


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

function readRotationFile(root: string, path: string, skill: string): { file: RotationFile; format: TextFormat } {
  const text = readProjectText(root, path, { maxBytes: MAX_ROTATION_FILE_BYTES });
  if (text === null) throw new CheckpointError('E_NOT_FOUND', `${display(root, path)} vanished while rotating`);
  const { value, format } = parseCheckpointText(text, display(root, path));
  const problem = rotationFileProblem(value, skill);
  if (problem) {
    throw new CheckpointError('E_INVALID', `${display(root, path)} is not a rotation file of "${skill}": ${problem}`, {
      hint: 'move that file out of .checkpoints/history/ (or fix it), then rotate again; nothing was changed',
    });
  }
  return { file: value as unknown as RotationFile, format };
}

/** Fingerprint of a checkpoint document, as a rotation file's last_rotation records it. */
export function docFingerprint(doc: JsonValue): string {
  return createHash('sha256').update(canonicalJson(doc)).digest('hex');
}

/** dotted log path -> canonical entry JSON -> how many copies a crashed rotation already wrote, and where. */
type CrashIndex = Map<string, Map<string, { n: number; where: string }>>;

interface Journal {
  doc: string;
  where: string;
  logs: Record<string, JsonValue[]>;
}

function journalPath(root: string, skill: string): string {
  return join(checkpointsDir(root), `.${skill}.rotation.tmp`);
}

/** Forgets the journal once the checkpoint write it guarded is done. */
export function clearRotationJournal(root: string, skill: string): void {
  try {
    unlinkSync(writablePath(root, journalPath(root, skill)));
  } catch {
    // none, or not ours to remove: a stale journal never matches another checkpoint
  }
}

/** What a rotation killed before its checkpoint write left in history: only when `doc` is that very checkpoint. */
function crashedRotation(root: string, skill: string, doc: JsonObject): CrashIndex {
  const index: CrashIndex = new Map();
  let journal: Journal;
  try {
    const text = readProjectText(root, journalPath(root, skill), { maxBytes: MAX_ROTATION_FILE_BYTES });
    if (text === null) return index;
    journal = JSON.parse(text) as Journal;
  } catch {
    return index; // unreadable: skip nothing (at worst an entry is archived twice, never lost)
  }
  if (!journal || journal.doc !== docFingerprint(doc) || typeof journal.logs !== 'object' || journal.logs === null) return index;
  for (const [dotted, entries] of Object.entries(journal.logs)) {
    if (!Array.isArray(entries)) continue;
    const byEntry = new Map<string, { n: number; where: string }>();
    index.set(dotted, byEntry);
    for (const e of entries) {
      const k = canonicalJson(e);
      const seen = byEntry.get(k);
      if (seen) seen.n++;
      else byEntry.set(k, { n: 1, where: String(journal.where) });
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
  const index = crashedRotation(root, skill, doc);
  const p = planRotation(doc, {
    keep: s.keep,
    extra: s.extra,
    target: pointerOf(root, target),
    // Each copy the crashed run wrote excuses one equal entry of the checkpoint, no more.
    inHistory: (dotted, entry) => {
      const hit = index.get(dotted)?.get(canonicalJson(entry));
      if (!hit || hit.n === 0) return null;
      hit.n--;
      return hit.where;
    },
  });
  return { plan: p, target };
}

/**
 * Writes the moved entries into the day's rotation file (appending), recording which checkpoint they left.
 * `texts`, the checkpoint's literal texts: each moved entry keeps them in the file, as the file's own entries keep theirs.
 */
function writeHistory(root: string, skill: string, target: string, p: Pick<RotationPlan, 'moved' | 'logs'>, now: Date, from: JsonObject, texts?: LiteralTexts): void {
  if (!p.moved) return;
  ensureProjectDir(root, historyDir(root));
  const existing = statProjectFile(root, target) ? readRotationFile(root, target, skill) : null;
  const file = appendToRotationFile(existing?.file ?? null, skill, p.logs, now.toISOString());
  const kept: LiteralTexts = new Map(existing?.format.texts ?? []);
  if (texts?.size) {
    for (const log of p.logs) {
      const at = rotatedLogKeys(log.path);
      // Entries are keyed by content, so an entry's key names it in both files.
      rebaseSiblings(texts, log.moved.map((entry) => [literalKey(at.checkpoint, true, entry), literalKey(at.file, true, entry)] as const), kept);
    }
  }
  writeFileAtomic(writablePath(root, target, { atomic: true }), formatJson(file, { ...DEFAULT_FORMAT, texts: kept }));
  const journal: Journal = { doc: docFingerprint(from), where: pointerOf(root, target), logs: Object.fromEntries(p.logs.filter((l) => l.moved.length).map((l) => [l.dotted, l.moved])) };
  writeFileAtomic(writablePath(root, journalPath(root, skill), { atomic: true }), JSON.stringify(journal));
  if (process.env[CRASH_AFTER_HISTORY_ENV] === '1') process.kill(process.pid, 'SIGKILL');
}

function asObject(skill: string, value: JsonValue | null): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CheckpointError('E_INVALID', `.checkpoints/${skill}.checkpoint.json is not a JSON object`, { hint: 'fix it (checkpoint validate), then rotate' });
  }
  return value;
}

function report(root: string, skill: string, file: CheckpointFile | null, path: string, target: string, p: RotationPlan, before: number, format: TextFormat, dryRun: boolean): RotateReport {
  return {
    skill,
    file: display(root, path),
    history: p.moved ? pointerOf(root, target) : null,
    logs: p.logs.map((l) => ({ path: l.dotted, total: l.total, kept: l.kept, moved: l.moved.length, already_in_history: l.alreadyRotated })),
    moved: p.moved,
    already_in_history: p.dropped,
    bytes_before: before,
    bytes_after: p.changed ? Buffer.byteLength(checkpointText(file, p.doc, format)) : before,
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
  const current = requireCheckpoint(root, skill, OVERSIZED_READ_BYTES);
  const first = plan(root, skill, asObject(skill, current.value), opts.now, s);
  // Read past the readers' cap only to shrink it: with no telemetry to move, say so, never exit 0 on it.
  if (current.sizeBytes > MAX_READ_BYTES && !first.plan.changed) {
    throw new CheckpointError('E_INVALID', `${display(root, current.path)} is ${current.sizeBytes} bytes, over the ${MAX_READ_BYTES}-byte limit for a checkpoint, and holds no old telemetry to rotate out`, {
      hint: `set it aside with \`checkpoint reset ${skill}\` (kept in history/) or cut bulk data out by hand`,
    });
  }
  if (opts.dryRun || !first.plan.changed) return report(root, skill, current, current.path, first.target, first.plan, current.sizeBytes, current.format, Boolean(opts.dryRun));
  // A side of a stopped merge (the file settled by hand, git still calling it unmerged) is not archived from.
  refuseConflicted(root, current.path, `rotate ${skill}`);

  // Plan again under the lock: the file (or history) may have changed since the look above.
  let pending: { plan: RotationPlan; target: string; from: JsonObject } | undefined;
  let moving: LiteralTexts | undefined;
  let done: RotateReport | undefined;
  await mutateCheckpoint(root, skill, {
    now: opts.now,
    readLimit: OVERSIZED_READ_BYTES,
    change: (value, texts) => {
      moving = texts;
      const live = readCheckpoint(root, skill, OVERSIZED_READ_BYTES);
      if (!live) throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" (it was removed while rotating)`);
      const from = asObject(skill, value);
      pending = { ...plan(root, skill, from, opts.now, s), from };
      done = report(root, skill, live, live.path, pending.target, pending.plan, live.sizeBytes, live.format, false);
      return pending.plan.changed ? pending.plan.doc : (value as JsonValue);
    },
    // Validation passed: history first; mutateCheckpoint then replaces the checkpoint.
    beforeWrite: (next) => {
      if (pending) writeHistory(root, skill, pending.target, pending.plan, opts.now, pending.from, moving);
      return next;
    },
  });
  clearRotationJournal(root, skill);
  return done!;
}

/**
 * For a capped log that pushes entries out (done's recently_done): writes `entries` into the
 * day's rotation file, so nothing is deleted, and returns its pointer for skill_state.rotated_to.
 * Called under the skill's lock, before the checkpoint write (history first, as rotate does).
 */
export function archiveOverflow(root: string, skill: string, path: string[], entries: JsonValue[], now: Date, from: JsonObject, texts?: LiteralTexts): string {
  const target = join(historyDir(root), rotationFileName(skill, now));
  const log = { path, dotted: path.join('.'), total: entries.length, moved: entries, alreadyRotated: 0, kept: 0 };
  writeHistory(root, skill, target, { moved: entries.length, logs: [log] }, now, from, texts);
  return pointerOf(root, target);
}

/** Where archiveOverflow would put entries today, as skill_state.rotated_to records it. */
export function overflowPointer(root: string, skill: string, now: Date): string {
  return pointerOf(root, join(historyDir(root), rotationFileName(skill, now)));
}

export interface AutoRotation {
  doc: JsonValue;
  report: RotateReport | null;
}

/**
 * For `update --auto-rotate` / config auto_rotate: called from mutateCheckpoint's beforeWrite
 * (so under the skill's lock, after validation). When the document about to be written would
 * pass MAX_FILE_BYTES, its logs are rotated (history written first) and the smaller document
 * is returned for the write; otherwise `next` comes back unchanged. `text`: what the write would write for `next`. `force` is the flag;
 * without it only config auto_rotate turns this on, and an unreadable config turns it off.
 */
export function autoRotate(root: string, skill: string, next: JsonValue, opts: { now: Date; force: boolean; text: string }): AutoRotation {
  if (next === null || typeof next !== 'object' || Array.isArray(next)) return { doc: next, report: null };
  const bytes = Buffer.byteLength(opts.text);
  if (bytes <= MAX_FILE_BYTES) return { doc: next, report: null };
  const live = readCheckpoint(root, skill);
  const format = live?.format ?? DEFAULT_FORMAT;
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
  const path = live?.path ?? checkpointPath(root, skill);
  const done = report(root, skill, live, path, p.target, p.plan, bytes, format, false);
  // Still over the cap after rotating: the write is refused, so nothing goes to history either.
  if (done.bytes_after > MAX_READ_BYTES) return { doc: next, report: null };
  writeHistory(root, skill, p.target, p.plan, opts.now, next, live?.format.texts);
  return { doc: p.plan.doc, report: done };
}

/**
 * Advice for a write refused over the 4 MiB cap (done, update): when rotating the old telemetry
 * of `next` (what would have been written) out to history/ brings it back under, name
 * `checkpoint rotate`; else undefined, for the general advice. `also`: another way the command has.
 */
export function rotationAdvice(root: string, skill: string, next: JsonValue, now: Date, also = ''): string | undefined {
  if (next === null || typeof next !== 'object' || Array.isArray(next)) return undefined;
  let config: ProjectConfig;
  try {
    config = readConfig(root);
  } catch {
    return undefined; // rotate would refuse the same config
  }
  const p = plan(root, skill, next, now, settings(config)).plan;
  if (!p.changed) return undefined;
  const live = readCheckpoint(root, skill, OVERSIZED_READ_BYTES);
  const bytes = Buffer.byteLength(checkpointText(live, p.doc, live?.format ?? DEFAULT_FORMAT));
  if (bytes > MAX_READ_BYTES) return undefined;
  return `rotation makes room: \`checkpoint rotate ${skill}\` moves ${p.moved} old log entr${p.moved === 1 ? 'y' : 'ies'} to history/ (about ${bytes} bytes then), and run this again${also}`;
}
