// Rotation on disk. Order is what makes it crash-safe: under the skill's lock a journal names
// the moved entries, they are written (atomically) into history/<skill>.<YYYY-MM-DD>.json, and
// only then is the checkpoint rewritten. A checkpoint write that fails (a full disk) takes the
// history write back: the rotation file's old bytes stay linked under a second name until
// the checkpoint write lands, so putting them back needs no space. A kill between the two is
// finished by the next run through the rotation journal (store/rotation-journal.ts, which says
// why every point of it is safe). (Kept out of the rotation file: it would make two branches'
// rotation files conflict.)
// A rotation file the checkpoint names in skill_state.rotated_to holds entries that are out of
// it; restore puts such a file's entries back whole and takes the name out. So rotate appends
// only to a file the checkpoint names (or a new one): after a restore, the day's next rotation
// goes to <skill>.<date>-1.json, never into a file whose entries are back in the checkpoint.
import { basename, dirname, join } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { copyItemTexts, DEFAULT_FORMAT, formatJson, rekeyItems, type TextFormat } from '../protocol/format.js';
import { formatKeepingLayout } from '../protocol/layout.js';
import { literalPlace, type ItemKeyCache, type LiteralTexts } from '../protocol/json.js';
import { appendToRotationFile, DEFAULT_ROTATE_KEEP, planRotation, positionRuns, type MovedFrom, rotationFileProblem, STATE_WAS_EMPTY, stateWasEmpty, type ExtraLogRules, type LogRotation, type RotationFile, type RotationPlan } from '../protocol/rotation.js';
import { compileExtraLogs } from '../protocol/fields.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { MAX_FILE_BYTES } from '../protocol/validate.js';
import { writeFileAtomic } from './atomic.js';
import { refuseConflicted } from './index-conflicts.js';
import { checkpointPath, checkpointText, display, MAX_READ_BYTES, mutateCheckpoint, OVERSIZED_READ_BYTES, instantOf, type Clock, type CheckpointFile, parseCheckpointText, readCheckpoint, requireCheckpoint } from './checkpoints.js';
import { readConfig, readConfigFor, type ProjectConfig } from './config.js';
import { ensureHistoryDir, historyDir, MAX_ROTATION_FILE_BYTES } from './history.js';
import { pointerOf } from './history-paths.js';
import { fingerprint, RotationJournal, type LogCopies } from './rotation-journal.js';
import { projectPathExists, readProjectText, removeEmptyDir, statProjectFile, writablePath } from './safe-fs.js';
import { linkSync, renameSync, unlinkSync } from 'node:fs';
import { rotationPointers } from '../protocol/rotation.js';


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
  /** Whether skill_state.rotated_to gained a name (a rotation of a few small entries can then grow the file). */
  pointer_added: boolean;
  changed: boolean;
  dry_run: boolean;
  /** The checkpoint was a link inside the project (to this): the write replaced it with a regular file. */
  replaced_link?: string;
}

/** The day's rotation files: <skill>.<YYYY-MM-DD>.json, then -1, -2, ... (protocol/file-names.ts ROTATION_NAME). */
export function rotationFileName(skill: string, now: Date, n = 0): string {
  return `${skill}.${now.toISOString().slice(0, 10)}${n ? `-${n}` : ''}.json`;
}

export { pointerOf };

/**
 * Where entries moved out of `doc` today go: the first of the day's rotation files that `doc`
 * names in rotated_to (its entries are out of this checkpoint, so appending keeps that true) or
 * that does not exist yet. One it does not name (restored, or a reset checkpoint's) is left as
 * it is. `alsoOurs`: files a killed rotation of this very document wrote to (its journal).
 */
function rotationTarget(root: string, skill: string, doc: JsonObject, now: Date, alsoOurs: readonly string[] = []): string {
  const named = new Set([...rotationPointers(doc), ...alsoOurs]);
  for (let n = 0; ; n++) {
    const target = join(historyDir(root), rotationFileName(skill, now, n));
    if (named.has(pointerOf(root, target)) || !projectPathExists(root, target)) return target;
  }
}

function readRotationFile(root: string, path: string, skill: string): { file: RotationFile; format: TextFormat; text: string } {
  const text = readProjectText(root, path, { maxBytes: MAX_ROTATION_FILE_BYTES });
  if (text === null) throw new CheckpointError('E_NOT_FOUND', `${display(root, path)} vanished while rotating`);
  const { value, format } = parseCheckpointText(text, display(root, path));
  const problem = rotationFileProblem(value, skill);
  if (problem) {
    throw new CheckpointError('E_INVALID', `${display(root, path)} is not a rotation file of "${skill}": ${problem}`, {
      hint: 'move that file out of .checkpoints/history/ (or fix it), then rotate again; nothing was changed',
    });
  }
  return { file: value as unknown as RotationFile, format, text };
}

/** Whether the rotation file `pointer` names (one of `skill`'s in history/) says skill_state was `{}` before its pointer; an unreadable one says nothing. */
function saysStateWasEmpty(root: string, skill: string, pointer: string): boolean {
  const path = join(historyDir(root), basename(pointer));
  if (pointerOf(root, path) !== pointer) return false;
  try {
    return readRotationFile(root, path, skill).file[STATE_WAS_EMPTY] === true;
  } catch {
    return false;
  }
}

interface Settings {
  keep: number;
  extra: ExtraLogRules;
}

function settings(config: ProjectConfig, keep?: number): Settings {
  return { keep: keep ?? config.rotate_keep ?? DEFAULT_ROTATE_KEEP, extra: compileExtraLogs(config) };
}

/** `journal`: what a killed rotation left in history/ (its copies leave the checkpoint without moving again). */
function plan(root: string, skill: string, doc: JsonObject, now: Date, s: Settings, journal: RotationJournal): { plan: RotationPlan; target: string } {
  const target = rotationTarget(root, skill, doc, now, journal.files());
  const p = planRotation(doc, {
    keep: s.keep,
    extra: s.extra,
    target: pointerOf(root, target),
    inHistory: journal.excuser(),
  });
  return { plan: p, target };
}

/** A history write whose checkpoint write is still to come: taken back if that fails, settled once it landed. */
export interface HistoryWrite {
  /**
   * history/ as it was: the rotation file's old bytes (or no file), a history/ folder this
   * write made removed. Throws (saying what is left) only if that fails.
   */
  undo(cause: unknown): void;
  /** The checkpoint write landed: the old bytes' second name goes (the journal is the write's: mutateCheckpoint). */
  settle(): void;
}

/** The second name of a file's old bytes while a rotation's checkpoint write is pending (a temp name: never listed, never committed). */
function undoPathFor(path: string): string {
  return join(dirname(path), `.${basename(path).replace(/^\./, '')}.undo.tmp`);
}

function removeIfThere(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/**
 * Replaces `path` (a real path, checked by writablePath) with `text`, its old bytes (if any)
 * linked under undoPathFor first: `back` puts them back (or removes a file that was not there),
 * `drop` forgets them. A link and a rename take no space, so a full disk can still undo.
 */
function replaceUndoably(path: string, text: string): { back(): void; drop(): void } {
  const saved = undoPathFor(path);
  removeIfThere(saved); // a killed run's (the skill's lock is held: no other writer of this name)
  let had = true;
  try {
    linkSync(path, saved);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    had = false;
  }
  try {
    writeFileAtomic(path, text);
  } catch (e) {
    if (had) removeIfThere(saved);
    throw e;
  }
  return {
    back: () => (had ? renameSync(saved, path) : removeIfThere(path)),
    drop: () => {
      try {
        if (had) removeIfThere(saved);
      } catch {
        // left behind: a temp name nothing reads, removed by the next write of this file
      }
    },
  };
}

/** What a history write moves out of one log: which entries, from where in it; `keptAt`, rotate's: where those it keeps stood. */
type MovedLog = Pick<LogRotation, 'path' | 'dotted' | 'moved' | 'movedAt'> & Partial<Pick<LogRotation, 'keptAt'>>;

/**
 * Where rotate's moved entries stood among the log's entries (those it keeps and those it moves),
 * and the log it leaves in `final`: restore puts them back there while the log is still that one.
 */
function movedFrom(log: MovedLog & Pick<LogRotation, 'keptAt'>, final: JsonValue): MovedFrom {
  const moved = new Set(log.movedAt);
  const stood = [...log.keptAt, ...log.movedAt].sort((a, b) => a - b);
  return { left: fingerprint(logAt(final as JsonObject, log.path)), at: positionRuns(stood.flatMap((i, rank) => (moved.has(i) ? [rank] : []))) };
}

/** The log at `path` in `doc` (an array: a log a plan moved entries out of). */
function logAt(doc: JsonObject, path: readonly string[]): JsonValue[] {
  return path.reduce<JsonValue>((at, seg) => (at as JsonObject)[seg]!, doc) as JsonValue[];
}

/**
 * The checkpoint's literal texts after `p` took entries out of its logs: each entry the log keeps
 * takes its texts to its new place (its position, and its order among equal entries), the moved
 * ones' texts leave. `from`: the checkpoint before, which `texts` name. Mutates `texts`.
 */
function rekeyKeptEntries(texts: LiteralTexts, from: JsonObject, p: RotationPlan, cache?: ItemKeyCache): void {
  if (!texts.size) return;
  for (const log of p.logs) rekeyItems(texts, literalPlace(from, log.path), logAt(from, log.path), logAt(p.doc, log.path), log.keptAt, cache);
}

/**
 * Writes the moved entries into the day's rotation file (appending), and has `journal` name them
 * (store/rotation-journal.ts) for the write of `final`, the checkpoint without them.
 * `texts`, the literal texts of `from` (the checkpoint before): each moved entry keeps them in the file, as
 * the file's own entries keep theirs. Returns the write, to be settled after the checkpoint write or
 * undone when it fails (null: nothing moved).
 */
function writeHistory(root: string, skill: string, target: string, p: { moved: number; logs: readonly MovedLog[] }, now: Date, from: JsonObject, journal: RotationJournal, final: JsonValue, texts?: LiteralTexts, cache?: ItemKeyCache): HistoryWrite | null {
  if (!p.moved) return null;
  const dir = historyDir(root);
  const madeDir = !projectPathExists(root, dir);
  ensureHistoryDir(root);
  const existing = statProjectFile(root, target) ? readRotationFile(root, target, skill) : null;
  const logs = p.logs.map((l) => (l.keptAt === undefined ? l : { ...l, movedFrom: movedFrom({ ...l, keptAt: l.keptAt }, final) }));
  const file = appendToRotationFile(existing?.file ?? null, skill, logs, now.toISOString(), stateWasEmpty(from, (named) => saysStateWasEmpty(root, skill, named)));
  const kept: LiteralTexts = new Map(existing?.format.texts ?? []);
  if (texts?.size) {
    for (const log of p.logs) {
      if (!log.moved.length) continue;
      // Appended after the file's own entries of that log: each takes its own text there, a repeat its own too.
      const into = file.entries[log.dotted]!;
      const start = into.length - log.moved.length;
      copyItemTexts(texts, literalPlace(from, log.path), logAt(from, log.path), log.movedAt, kept, literalPlace(file as unknown as JsonValue, ['entries', log.dotted]), into, log.movedAt.map((_, m) => start + m), cache);
    }
  }
  const where = pointerOf(root, target);
  // Each log's copies, from where they start in the file.
  const copies: Record<string, LogCopies> = Object.fromEntries(p.logs.filter((l) => l.moved.length).map((l) => [l.dotted, { from: existing?.file.entries[l.dotted]?.length ?? 0, entries: l.moved }]));
  let fileStep: { back(): void; drop(): void } | undefined;
  const failed = (cause: unknown, e: unknown): CheckpointError =>
    new CheckpointError('E_UNSAFE', `${cause instanceof Error ? cause.message : String(cause)}; the checkpoint was not changed, but ${where} could not be put back as it was (${e instanceof Error ? e.message : String(e)}): it holds ${p.moved} entr${p.moved === 1 ? 'y' : 'ies'} the checkpoint still holds too`, {
      hint: `run \`checkpoint rotate ${skill}\` again once the disk takes it: it moves each of them once (a journal names them)`,
      cause,
    });
  // The file not taken back, the journal stays as written: it says what the file holds.
  const undo = (cause: unknown): void => {
    try {
      fileStep?.back();
    } catch (e) {
      throw failed(cause, e);
    }
    if (madeDir) removeEmptyDir(root, dir);
  };
  try {
    // The journal first: killed after the file's write, the next run finds them named; killed
    // before it, the journal names copies the file does not hold past `from`, which excuse nothing.
    journal.prepare(final, { where, logs: copies });
    // Appended to a day's file in that file's own layout (a hand-kept one keeps its CRLF, its
    // indent, its inline arrays), as every checkpoint write keeps the checkpoint's.
    const format: TextFormat = { ...(existing?.format ?? DEFAULT_FORMAT), texts: kept };
    const text = existing ? formatKeepingLayout(existing.text, existing.file as unknown as JsonValue, file as unknown as JsonValue, format, existing.format.texts) : formatJson(file, format);
    fileStep = replaceUndoably(writablePath(root, target, { atomic: true }), text);
  } catch (e) {
    undo(e);
    journal.undo();
    throw e;
  }
  if (process.env[CRASH_AFTER_HISTORY_ENV] === '1') process.kill(process.pid, 'SIGKILL');
  return { undo, settle: () => fileStep?.drop() };
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
    pointer_added: p.pointersAdded > 0,
    changed: p.changed,
    dry_run: dryRun,
  };
}

export interface RotateOptions {
  /** What the rotation stamps (the history file's date and moved_at): read under the lock when a clock. */
  now: Clock;
  /** Newest entries kept per log; default config rotate_keep, else DEFAULT_ROTATE_KEEP. */
  keep?: number;
  dryRun?: boolean;
  /** The project config (read from .checkpoints/config.json when not given). */
  config?: ProjectConfig;
}

/** Rotates one skill's logs (or, with dryRun, reports what would move and writes nothing). */
export async function rotateSkill(root: string, skill: string, opts: RotateOptions): Promise<RotateReport> {
  const s = settings(opts.config ?? readConfig(root), opts.keep);
  const current = requireCheckpoint(root, skill, OVERSIZED_READ_BYTES, `rotate ${skill}`);
  // A first look (what --dry-run reports); the write plans again under the lock, with the instant it writes.
  const first = plan(root, skill, asObject(skill, current.value), instantOf(opts.now), s, RotationJournal.open(root, skill, current.value));
  // Read past the readers' cap only to shrink it: with no telemetry to move, say so, never exit 0 on it.
  if (current.sizeBytes > MAX_READ_BYTES && !first.plan.changed) {
    throw new CheckpointError('E_INVALID', `${display(root, current.path)} is ${current.sizeBytes} bytes, over the ${MAX_READ_BYTES}-byte limit for a checkpoint, and holds no old telemetry to rotate out`, {
      hint: `set it aside with \`checkpoint reset ${skill}\` (kept in history/) or cut bulk data out by hand`,
    });
  }
  if (opts.dryRun || !first.plan.changed) return report(root, skill, current, current.path, first.target, first.plan, current.sizeBytes, current.format, Boolean(opts.dryRun));
  // A side of a stopped merge (the file settled by hand, git still calling it unmerged) is not archived from.
  refuseConflicted(root, skill, `rotate ${skill}`, { markers: true });

  // Plan again under the lock: the file (or history) may have changed since the look above.
  let pending: { plan: RotationPlan; target: string; from: JsonObject; now: Date } | undefined;
  // The checkpoint's texts as read, for the entries that move out (the write's own are re-keyed).
  let moving: LiteralTexts | undefined;
  // The logs' item keys, named once for the re-keying and the history write (`from` does not change).
  const keys: ItemKeyCache = new WeakMap();
  let done: RotateReport | undefined;
  let written: HistoryWrite | null = null;
  const result = await mutateCheckpoint(root, skill, {
    now: opts.now,
    act: `rotate ${skill}`,
    readLimit: OVERSIZED_READ_BYTES,
    change: (value, texts, now, journal) => {
      moving = new Map(texts);
      const live = readCheckpoint(root, skill, OVERSIZED_READ_BYTES);
      if (!live) throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" (it was removed while rotating)`);
      const from = asObject(skill, value);
      pending = { ...plan(root, skill, from, now, s, journal), from, now };
      if (pending.plan.changed) rekeyKeptEntries(texts, from, pending.plan, keys);
      // The size after: the text written, with the texts it is written with.
      done = report(root, skill, live, live.path, pending.target, pending.plan, live.sizeBytes, { ...live.format, texts }, false);
      return pending.plan.changed ? pending.plan.doc : (value as JsonValue);
    },
    // Validation passed: history first; mutateCheckpoint then replaces the checkpoint (or, failing, has history taken back).
    beforeWrite: (next, _text, _texts, _now, journal) => {
      if (pending) written = writeHistory(root, skill, pending.target, pending.plan, pending.now, pending.from, journal, next, moving, keys);
      return next;
    },
    undoBeforeWrite: (cause) => written?.undo(cause),
  });
  (written as HistoryWrite | null)?.settle();
  return result.replacedLink === undefined ? done! : { ...done!, replaced_link: result.replacedLink };
}

/**
 * For a capped log that pushes entries out (done's recently_done): writes `entries` (which stood
 * at `movedAt` in the log of `from`, the checkpoint before, whose literal texts are `texts`) into the
 * day's rotation file, so nothing is deleted, and returns its pointer for skill_state.rotated_to.
 * Called under the skill's lock, before the checkpoint write of `final` (history first, as rotate
 * does); `journal`, the write's.
 */
export function archiveOverflow(root: string, skill: string, path: string[], entries: JsonValue[], movedAt: number[], now: Date, from: JsonObject, journal: RotationJournal, final: JsonValue, texts?: LiteralTexts): { to: string; write: HistoryWrite | null } {
  const target = rotationTarget(root, skill, from, now, journal.files());
  const dotted = path.join('.');
  // Copies a killed run already wrote there (its journal) leave the checkpoint without a second copy.
  const inHistory = journal.excuser();
  const keep = entries.map((e) => inHistory(dotted, e) === null);
  if (!keep.some(Boolean)) return { to: pointerOf(root, target), write: null };
  entries = entries.filter((_, i) => keep[i]);
  movedAt = movedAt.filter((_, i) => keep[i]);
  const log: MovedLog = { path, dotted, moved: entries, movedAt };
  const write = writeHistory(root, skill, target, { moved: entries.length, logs: [log] }, now, from, journal, final, texts);
  return { to: pointerOf(root, target), write };
}

/** Where archiveOverflow would put entries of `from` (the checkpoint before the write) today, as skill_state.rotated_to records it. */
export function overflowPointer(root: string, skill: string, from: JsonObject, now: Date, journal: RotationJournal): string {
  return pointerOf(root, rotationTarget(root, skill, from, now, journal.files()));
}

export interface AutoRotation {
  doc: JsonValue;
  report: RotateReport | null;
  /** The history write, to settle after the checkpoint write or undo when it fails. */
  write?: HistoryWrite | null;
  /** Why a file over the size cap was not auto-rotated: config.json's rotation entries could not be read. */
  skipped?: string;
}

/** The config entries auto-rotation reads. */
const ROTATION_KEYS = ['auto_rotate', 'rotate_keep', 'logs'];

/**
 * For `update --auto-rotate` / config auto_rotate: called from mutateCheckpoint's beforeWrite
 * (so under the skill's lock, after validation). When the document about to be written would
 * pass MAX_FILE_BYTES, its logs are rotated (history written first) and the smaller document
 * is returned for the write; otherwise `next` comes back unchanged. `text`: what the write would write for `next`. `force` is the flag;
 * without it only config auto_rotate turns this on, and an unreadable config turns it off.
 */
export function autoRotate(root: string, skill: string, next: JsonValue, opts: { now: Date; force: boolean; text: string; texts?: LiteralTexts; journal: RotationJournal }): AutoRotation {
  if (next === null || typeof next !== 'object' || Array.isArray(next)) return { doc: next, report: null };
  const bytes = Buffer.byteLength(opts.text);
  if (bytes <= MAX_FILE_BYTES) return { doc: next, report: null };
  const live = readCheckpoint(root, skill);
  const format = live?.format ?? DEFAULT_FORMAT;
  let config: ProjectConfig;
  try {
    // Only what rotation reads: a bad walk_days must not turn auto_rotate off.
    config = readConfigFor(root, ROTATION_KEYS);
  } catch (e) {
    if (opts.force || !isCheckpointError(e)) throw e;
    return { doc: next, report: null, skipped: e.message };
  }
  if (!opts.force && config.auto_rotate !== true) return { doc: next, report: null };
  const p = plan(root, skill, next, opts.now, settings(config), opts.journal);
  if (!p.plan.changed) return { doc: next, report: null };
  const path = live?.path ?? checkpointPath(root, skill);
  // The texts `next` is written with (the write's: the file's and what the update typed), and
  // those of what the rotation leaves, each entry kept re-keyed to its new place.
  const texts = opts.texts ?? live?.format.texts ?? new Map<string, string[]>();
  const left: LiteralTexts = new Map(texts);
  const keys: ItemKeyCache = new WeakMap();
  rekeyKeptEntries(left, next, p.plan, keys);
  const done = report(root, skill, live, path, p.target, p.plan, bytes, { ...format, texts: left }, false);
  // Still over the cap after rotating: the write is refused, so nothing goes to history either.
  if (done.bytes_after > MAX_READ_BYTES) {
    opts.journal.excuseNone();
    return { doc: next, report: null };
  }
  const write = writeHistory(root, skill, p.target, p.plan, opts.now, next, opts.journal, p.plan.doc, texts, keys);
  if (opts.texts) {
    opts.texts.clear();
    for (const [key, known] of left) opts.texts.set(key, known);
  }
  return { doc: p.plan.doc, report: done, write };
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
  const live = readCheckpoint(root, skill, OVERSIZED_READ_BYTES);
  const p = plan(root, skill, next, now, settings(config), RotationJournal.open(root, skill, live?.value ?? null)).plan;
  if (!p.changed) return undefined;
  const bytes = Buffer.byteLength(checkpointText(live, p.doc, live?.format ?? DEFAULT_FORMAT));
  if (bytes > MAX_READ_BYTES) return undefined;
  return `rotation makes room: \`checkpoint rotate ${skill}\` moves ${p.moved} old log entr${p.moved === 1 ? 'y' : 'ies'} to history/ (about ${bytes} bytes then), and run this again${also}`;
}
