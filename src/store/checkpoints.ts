// .checkpoints/ on disk: locate, list, read and write. Every write is validate -> atomic
// replace under the skill's lock, through mutateCheckpoint (read -> change a value) or, for
// `resolve`'s merge result, replaceCheckpointText (a whole text, possibly with markers);
// a refused write leaves the file byte-identical. mutateCheckpoint refuses a checkpoint git's
// index holds unmerged (index-conflicts.ts): only `resolve` writes one mid-merge; and one a
// sparse checkout leaves out (sparse-checkout.ts): a file written there would replace git's.
import { basename, join, relative, resolve, sep } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { CONFLICT_REASON, JsonNumberRangeError, JsonSyntaxError, JsonUnsafeKeyError, MAX_JSON_DEPTH, parseJson, tooDeepAt, type LiteralTexts } from '../protocol/json.js';
import { joinPath } from '../protocol/path.js';
import { spelledHint } from '../protocol/op-spelling.js';
import { shown } from '../one-line.js';
import { DEFAULT_FORMAT, detectFormat, escapeNonAscii, formatJson, nonAsciiEscapes, numberTextIn, type TextFormat } from '../protocol/format.js';
import { formatKeepingLayout } from '../protocol/layout.js';
import { MAX_CHECKPOINT_BYTES, validateCheckpoint, type Issue } from '../protocol/validate.js';
import { changedAt, introducedErrors, notAlreadyIn, type FileContent, type FileError } from '../protocol/file-validation.js';
import { splitConflictMarkers } from '../merge/markers.js';
import { MAX_MERGE_BYTES } from '../merge/driver.js';
import type { JsonValue } from '../protocol/types.js';
import { CHECKPOINTS_DIR } from './root.js';
import { assertSkillName, CHECKPOINT_SUFFIX, isMisnamedCheckpoint, skillFromFileName } from './skill-name.js';
import { writeFileAtomic } from './atomic.js';
import { checkpointsOutside, refuseConflicted, refuseOutside } from './index-conflicts.js';
import { outsideLine } from './sparse-checkout.js';
import { withLock } from './lock.js';
import { pathArg } from './paste-path.js';
import type { BigIntStats } from 'node:fs';
import { parseKnownJson } from './trusted-json.js';
import { RotationJournal } from './rotation-journal.js';
import { ensureProjectDir, isNormalAbsolute, linkAt, listProjectDir, projectPathExists, readProjectFile, readProjectText, removeEmptyDir, statProjectFile, writablePath } from './safe-fs.js';

/** Larger than this is not session state; refuse to parse it rather than stall. */
export const MAX_READ_BYTES = MAX_CHECKPOINT_BYTES;

export interface CheckpointFile {
  skill: string;
  path: string;
  text: string;
  value: JsonValue;
  format: TextFormat;
  sizeBytes: number;
}

export function checkpointsDir(root: string): string {
  return join(root, CHECKPOINTS_DIR);
}

/** Path of a skill's checkpoint; the name is checked and the result provably inside .checkpoints/. */
export function checkpointPath(root: string, skill: string): string {
  assertSkillName(skill);
  const dir = checkpointsDir(root);
  // The name is one plain component (no separator, no leading dot): joined as text when that is what resolve gives.
  const p = isNormalAbsolute(dir) ? `${dir}${sep}${skill}${CHECKPOINT_SUFFIX}` : resolve(dir, `${skill}${CHECKPOINT_SUFFIX}`);
  if (!p.startsWith(dir + sep)) throw new CheckpointError('E_PATH', `skill "${skill}" resolves outside ${CHECKPOINTS_DIR}/`);
  return p;
}

export function display(root: string, path: string): string {
  return relative(root, path) || path;
}

/**
 * What to do about the oversized checkpoint at `path` of `size` bytes (when known): its skill named
 * in the commands (skill names need no quoting), a quoted placeholder for any other file. Rotate is
 * named only for a file it reads: one past that would send the user to a command that refuses it too.
 */
const sizeHint =
  (path: string) =>
  (size: number | undefined): string => {
    const skill = skillFromFileName(basename(path)) ?? "'<skill>'";
    if (size !== undefined && size > OVERSIZED_READ_BYTES) {
      return `checkpoints are session state, and this one is past the ${OVERSIZED_READ_BYTES} bytes rotate can read: set it aside with \`checkpoint reset ${skill}\` (kept in history/), or cut bulk data out by hand`;
    }
    return `checkpoints are session state: move old telemetry out with \`checkpoint rotate ${skill}\` (it reads a file up to 16 MiB), set it aside with \`checkpoint reset ${skill}\` (kept in history/), or cut bulk data out by hand`;
  };

/**
 * What `checkpoint rotate` reads: a merge of two files under MAX_READ_BYTES can land over it,
 * and rotate, which only makes a file smaller, is the way back. The merge driver's own cap.
 */
export const OVERSIZED_READ_BYTES = MAX_MERGE_BYTES;

/** Refuses what is not a plain file inside the project (links out, loops, folders, FIFOs, devices) and, unless told, an oversized one. */
export function assertPlainFileInside(root: string, path: string, opts: { limitSize?: boolean } = {}): void {
  const loc = statProjectFile(root, path);
  if (!loc) throw new CheckpointError('E_NOT_FOUND', `${display(root, path)} does not exist`);
  if (opts.limitSize !== false && loc.stat!.size > MAX_READ_BYTES) {
    throw new CheckpointError('E_INVALID', `${display(root, path)} is ${loc.stat!.size} bytes, over the ${MAX_READ_BYTES}-byte limit for a checkpoint`, { hint: sizeHint(path)(loc.stat!.size) });
  }
}

// Made on first use: a run whose checkpoints were all judged before decodes none, and making
// one starts node's TextDecoder machinery.
let decoder: TextDecoder | undefined;
const utf8 = () => (decoder ??= new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }));

/** What to do about a file that does not parse, as a read says it (a write adds that it left the file as it was). */
export const UNPARSED_HINT = 'fix the file by hand (or `checkpoint resolve` if it holds merge conflict markers)';
const NOT_CHANGED = 'it was not changed';

/**
 * `e` as a command that only reads says it: a write's "it was not changed" dropped from the
 * hint of a file that does not parse (nothing was asked to change it).
 */
export function asReadError(e: unknown): unknown {
  if (!isCheckpointError(e) || e.hint !== `${UNPARSED_HINT}; ${NOT_CHANGED}`) return e;
  return new CheckpointError(e.code, e.message, { hint: UNPARSED_HINT });
}

/**
 * `where` names the file in an error message (a function: worked out only when there is one).
 * `advice`, for a file that holds no checkpoint (config.json): `tooBig`, what to do about a number
 * past a double's range, where "write it as a string" would not fit (its settings are numbers);
 * `conflict`, what to do about its merge conflict markers, where `checkpoint resolve` (which
 * merges checkpoints) would not: the whole line after the place.
 */
export function parseCheckpointText(text: string, where: string | (() => string), advice: { tooBig?: string; conflict?: () => string } = {}): { value: JsonValue; format: TextFormat } {
  try {
    return { value: parseJson(text, { texts: false }).value, format: formatOf(text) };
  } catch (e) {
    if (e instanceof JsonSyntaxError) {
      const at = `${typeof where === 'string' ? where : where()}:${e.line}:${e.column}`;
      if (e.reason === CONFLICT_REASON && advice.conflict) throw new CheckpointError('E_JSON', `${at}: ${advice.conflict()}`);
      // A number past a double's range is valid JSON: say what it is, not "invalid".
      const what = e instanceof JsonNumberRangeError ? (advice.tooBig ? `${e.what}; ${advice.tooBig}` : e.reason) : e instanceof JsonUnsafeKeyError ? e.reason : `invalid JSON: ${e.reason}`;
      throw new CheckpointError('E_JSON', `${at}: ${what}`, {
        hint: `${UNPARSED_HINT}; ${NOT_CHANGED}`,
      });
    }
    throw e;
  }
}

/** The format of the parsed `text`. */
function formatOf(text: string): TextFormat {
  // Literal texts ride with the format, so every rewrite of this file keeps them. They are
  // found only when a write asks for them: reading (validate, status, next, doctor) never pays
  // the character-level scan a file with an `8.0` or a `\u00e9` in it needs.
  const format: TextFormat = detectFormat(text);
  let found: { texts: TextFormat['texts'] } | null = null;
  Object.defineProperty(format, 'texts', {
    enumerable: true,
    configurable: true,
    get: () => (found ??= { texts: parseJson(text).texts }).texts,
    set: (texts: TextFormat['texts']) => void (found = { texts }),
  });
  return format;
}

/**
 * A file read on trust (verdicts.ts): this exact file passed parseJson's checks before, so
 * JSON.parse gives its value (from its bytes, trusted-json.ts, when told where its non-ASCII
 * bytes are); its text and format, which the read-only commands seldom need, on first use.
 */
class TrustedFile implements CheckpointFile {
  #text: string | undefined;
  #format: TextFormat | undefined;
  constructor(
    readonly skill: string,
    readonly path: string,
    readonly value: JsonValue,
    private readonly bytes: Buffer,
    text?: string,
  ) {
    this.#text = text;
  }
  get sizeBytes(): number {
    return this.bytes.length;
  }
  get text(): string {
    // The same bytes decoded cleanly when the verdict was given.
    return (this.#text ??= utf8().decode(this.bytes));
  }
  get format(): TextFormat {
    return (this.#format ??= formatOf(this.text));
  }
}

/** Reads any checkpoint-shaped file by path (validate takes arbitrary files). */
export function readCheckpointFile(root: string, path: string, maxBytes?: number): CheckpointFile {
  const file = readCheckpointAt(root, path, maxBytes);
  if (file === null) throw new CheckpointError('E_NOT_FOUND', `${display(root, path)} does not exist`);
  return file;
}

/** The checkpoint file at `path`, or null when there is none: one read, no separate existence check. */
function readCheckpointAt(root: string, path: string, maxBytes?: number): CheckpointFile | null {
  return readCheckpointKnown(root, path, undefined, maxBytes)?.file ?? null;
}

/**
 * What a reader already knows of the file it opened, by its fstat (verdicts.ts): `skip`, do not
 * read it; a Trusted, it passed parseJson's checks unchanged, so JSON.parse alone gives its value.
 */
export type Known = (st: BigIntStats) => 'skip' | Trusted | undefined;

/** A file known good, with where its non-ASCII bytes are (trusted-json.ts nonAsciiRuns), so no decode is needed. */
export interface Trusted {
  nonAscii: readonly number[];
}

/** The checkpoint file at `path` (null when `known` said skip) with the fstat of what was read; null when there is none. */
export function readCheckpointKnown(root: string, path: string, known?: Known, maxBytes = MAX_READ_BYTES): { file: CheckpointFile | null; stat: BigIntStats } | null {
  let seen: ReturnType<Known>;
  const read = readProjectFile(root, path, {
    maxBytes,
    sizeHint: sizeHint(path),
    ...(known && { unless: (st: BigIntStats) => (seen = known(st)) === 'skip' }),
  });
  if (read === null) return null;
  const buf = read.bytes;
  if (buf === null) return { file: null, stat: read.stat };
  const name = basename(path);
  const skill = skillFromFileName(name) ?? name;
  const value = typeof seen === 'object' ? parseKnownJson(buf, seen.nonAscii) : undefined;
  if (value !== undefined) return { file: new TrustedFile(skill, path, value, buf), stat: read.stat };
  let text: string;
  try {
    // ignoreBOM keeps a BOM in the text, so the parser accepts it and a rewrite keeps it.
    text = utf8().decode(buf);
  } catch {
    // A file cut short inside a character is cut short, not saved in another encoding.
    const cut = endsMidCharacter(buf);
    throw new CheckpointError('E_JSON', `${display(root, path)}: not valid UTF-8${cut ? ': the text ends inside a character (cut short?)' : ''}`, { hint: cut ? 'restore the rest (git diff shows what is missing), or fix it by hand' : 'checkpoints are UTF-8 JSON; re-save the file as UTF-8' });
  }
  if (seen !== undefined) return { file: new TrustedFile(skill, path, JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as JsonValue, buf, text), stat: read.stat };
  const parsed = parseCheckpointText(text, () => display(root, path));
  return { file: { skill, path, text, value: parsed.value, format: parsed.format, sizeBytes: buf.length }, stat: read.stat };
}

/** `maxBytes`: a larger read cap, for the one command that only shrinks a file (rotate: OVERSIZED_READ_BYTES). */
export function readCheckpoint(root: string, skill: string, maxBytes?: number): CheckpointFile | null {
  return readCheckpointAt(root, checkpointPath(root, skill), maxBytes);
}

/** Skill names with a checkpoint file, sorted. Temp files and history are never listed. */
export function listSkills(root: string): string[] {
  return listCheckpointFiles(root).skills;
}

/**
 * One listing of .checkpoints/: the skills with a checkpoint file, and the files named
 * `*.checkpoint.json` that are no skill's (skill-name.ts isMisnamedCheckpoint), each sorted.
 */
export function listCheckpointFiles(root: string): { skills: string[]; misnamed: string[] } {
  const skills: string[] = [];
  const misnamed: string[] = [];
  for (const f of listProjectDir(root, checkpointsDir(root))) {
    const skill = skillFromFileName(f);
    if (skill !== null) skills.push(skill);
    else if (isMisnamedCheckpoint(f)) misnamed.push(f);
  }
  return { skills: skills.sort(), misnamed: misnamed.sort() };
}

/**
 * readCheckpoint for a command about to `act` on it: a file that does not parse because it holds
 * merge conflict markers (a merge left unfinished, or its markers staged by mistake) is refused as
 * that (E_CONFLICT, what ends it), never as a JSON error. Looked at only when the parse fails, so
 * a readable file costs nothing more.
 */
export function readCheckpointFor(root: string, skill: string, act: string, maxBytes?: number): CheckpointFile | null {
  try {
    return readCheckpoint(root, skill, maxBytes);
  } catch (e) {
    if (isCheckpointError(e) && e.code === 'E_JSON') refuseConflicted(root, skill, act, { markers: true });
    throw e;
  }
}

/**
 * The refusal for a checkpoint file that holds JSON but not an object (`[]`, a string): the same
 * line from every command, with the two ways out that work (no `update` of a field: it refuses too).
 */
export function notAnObject(skill: string): CheckpointError {
  return new CheckpointError('E_INVALID', `${CHECKPOINTS_DIR}/${skill}.checkpoint.json is not a JSON object`, {
    hint: `fix it by hand (checkpoint validate), or set it aside with checkpoint reset ${skill} (kept in ${CHECKPOINTS_DIR}/history/) and start again with checkpoint update ${skill} ...`,
  });
}

/** `act`: what a write would do (MutateOptions.act): a checkpoint gone or conflicted mid-merge is then refused as such, not as "no checkpoint" or a JSON error. */
export function requireCheckpoint(root: string, skill: string, maxBytes?: number, act?: string): CheckpointFile {
  const file = act === undefined ? readCheckpoint(root, skill, maxBytes) : readCheckpointFor(root, skill, act, maxBytes);
  if (!file) {
    if (act !== undefined) refuseConflicted(root, skill, act);
    const known = listSkills(root);
    // Left out by a sparse checkout: in git, not here; never "create one" over it.
    const outside = known.length ? null : checkpointsOutside(root);
    throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" in ${CHECKPOINTS_DIR}/`, {
      hint: known.length ? `known skills: ${known.join(', ')}` : outside ? outsideLine(outside) : "create one with `checkpoint update '<skill>' ...`",
    });
  }
  return file;
}

/**
 * The instant a write stamps (updated_at, recently_done[].at, history names and entries): a
 * clock, read once under the skill's lock just before the write (after any wait for the lock
 * and any check the command ran), so stamps follow the order writes happen in; or a fixed
 * Date (tests, and reads that judge a write without making it).
 */
export type Clock = Date | (() => Date);

/** The instant `clock` gives now (a fixed Date gives itself). */
export function instantOf(clock: Clock): Date {
  return typeof clock === 'function' ? clock() : clock;
}

export interface MutateOptions {
  /** Read once under the lock: the `now` every callback below is given, and validation judges with. */
  now: Clock;
  /**
   * What the write does, as its refusals name it (`update api`, `mark the first action of api
   * done`): a checkpoint git's index holds unmerged is refused as `refused to <act>: ...`.
   * Default `write <skill>`.
   */
  act?: string;
  /**
   * Transform the current document (null when there is none yet) into the next one. `texts`, a
   * copy of the file's literal texts, is what the write keeps: a change may update it (update-ops does).
   * `now`: the instant of this write, to stamp it with. `journal`: the rotation journal as it bears
   * on the current document (a change that takes logged entries out, or brings them back, says so to it).
   */
  change: (current: JsonValue | null, texts: LiteralTexts, now: Date, journal: RotationJournal) => JsonValue;
  /**
   * Extra work inside the lock, after validation and before the write (rotation writes history here).
   * `text`: what would be written for `next` (return `next` itself to have it written); `texts`: the
   * literal texts it is written with, which a beforeWrite that returns another document updates in
   * place for it (update --auto-rotate: what the log keeps, re-keyed to its new places).
   */
  beforeWrite?: (next: JsonValue, text: string, texts: LiteralTexts, now: Date, journal: RotationJournal) => JsonValue;
  /**
   * Takes beforeWrite's own writes back (rotation's history write) when the checkpoint write
   * after it is refused or fails, before the error goes on: so "nothing was changed" stays true.
   * It may throw an error of its own that says what it could not take back.
   */
  undoBeforeWrite?: (cause: unknown) => void;
  /**
   * beforeWrite may shrink the document (update --auto-rotate): the size cap then judges what
   * is finally written, not `next`, so rotation makes room before the cap refuses. Such a
   * beforeWrite must write history/ only for a result that fits (store/rotate.ts autoRotate).
   */
  shrinks?: boolean;
  /** Read cap for the current file (default MAX_READ_BYTES); the write is still refused over MAX_READ_BYTES. */
  readLimit?: number;
  /**
   * What to do when the result would pass MAX_READ_BYTES, when the general advice does not fit
   * (restore; done and update name rotate when it would make room). Undefined: the general advice.
   */
  refused?: string | ((next: JsonValue, now: Date) => string | undefined);
  /**
   * Errors the write brings back rather than makes (restore puts archived records back as they
   * were, a date-only `at` included): kept and said, as the file's own, not refused.
   */
  broughtBack?: (error: FileError) => boolean;
}

/** An error the file had before a write and still has; `rewritten`: at a value the write changed, so not "left as it was". */
export interface KeptError extends FileError {
  rewritten?: true;
}

export interface MutateResult {
  path: string;
  before: JsonValue | null;
  after: JsonValue;
  warnings: Issue[];
  /** Errors the file already had and still has, so the write was not refused for them: the command says so. */
  kept: KeptError[];
  changed: boolean;
  /** The checkpoint was a link inside the project (to this target): the atomic write replaced it with a regular file, the target untouched. */
  replacedLink?: string;
}

export function lockPathFor(root: string, skill: string): string {
  return join(checkpointsDir(root), `.${skill}.lock`);
}

/** The one refusal of an invalid write: the first error, how many more, what fixes it where that is one flag, and that nothing changed (or was created). */
function refuseInvalid(root: string, path: string, errors: readonly FileError[], created = false): never {
  const first = errors[0]!;
  // The first write of a checkpoint most often lacks its first action: `update api --phase=build --step=auth`.
  const queue = first.path === 'next_actions' && /must not be empty while in_progress/.test(first.message);
  throw new CheckpointError('E_INVALID', `refused: the result would be invalid at ${first.path}: ${first.message}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`, spelledHint((s) => {
    const add = s.caller === 'cli'
      ? "add --next_actions+='<first action>' to the same command (or --status=complete if the work is done); "
      : `add the op ${s.op('next_actions', 'append', '<first action>', 'text')} to the same call (or ${s.op('status', 'set', 'complete', 'text')} if the work is done); `;
    return `${queue ? add : ''}${display(root, path)} was not ${created ? 'created' : 'changed'}`;
  }));
}

/** The one write: an atomic replace of a plain file inside the project (never through a link out). */
function replaceText(root: string, path: string, text: string): void {
  writeFileAtomic(writablePath(root, path, { atomic: true }), text);
}

/** The only way a checkpoint's value is changed. */
export async function mutateCheckpoint(root: string, skill: string, opts: MutateOptions): Promise<MutateResult> {
  const path = checkpointPath(root, skill);
  // Before the folder and its lock are made: a sparse checkout that leaves .checkpoints/ out gets nothing.
  refuseOutside(root, opts.act ?? `write ${skill}`, skill);
  // The folder holds the lock, so it is made first; a refused first write leaves no folder behind.
  const made = !projectPathExists(root, checkpointsDir(root));
  ensureProjectDir(root, checkpointsDir(root));
  try {
    return await mutateLocked(root, skill, path, opts);
  } catch (e) {
    if (made) removeEmptyDir(root, checkpointsDir(root));
    throw e;
  }
}

/**
 * Refuses a text the readers would refuse (readCheckpointKnown's MAX_READ_BYTES): a write never
 * leaves a file that `show`, `update` and the rest then cannot open.
 */
function refuseOversized(root: string, path: string, text: string, next?: JsonValue, refused?: MutateOptions['refused'], now?: Date): void {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_READ_BYTES) {
    const advice = (typeof refused === 'function' ? refused(next!, now!) : refused) ?? 'keep bulk data in a file of its own and reference it from the checkpoint';
    throw new CheckpointError('E_INVALID', `refused: the result would be ${bytes} bytes, over the ${MAX_READ_BYTES}-byte limit for a checkpoint`, {
      hint: `${display(root, path)} was not changed; ${advice}`,
    });
  }
}

/** Refuses a value nested deeper than parseJson reads (MAX_JSON_DEPTH), before it is serialized. */
function refuseTooDeep(root: string, path: string, value: JsonValue): void {
  const at = tooDeepAt(value);
  if (at === null) return;
  const where = at.reduce<string>((base, key) => joinPath(base, key), '') || '(root)';
  throw new CheckpointError('E_INVALID', `refused: the result would nest deeper than ${MAX_JSON_DEPTH} levels at ${shown(where)}, more than a checkpoint is read with`, {
    hint: `${display(root, path)} was not changed; flatten the value (or store it as a string)`,
  });
}

interface Prepared {
  current: CheckpointFile | null;
  journal: RotationJournal;
  next: JsonValue;
  /** The text of `next`, as it would be written. */
  text: string;
  format: TextFormat;
  warnings: Issue[];
  kept: KeptError[];
  /** The instant the write stamps. */
  now: Date;
}

/**
 * The text a write gives `next`: written into the current file keeping its layout (an inline
 * array stays inline, a hand-written `"k":1` stays so: only what changed is written anew,
 * protocol/layout.ts); a new file laid out in `format`. `format.texts`: the texts the write keeps.
 */
export function checkpointText(current: CheckpointFile | null, next: JsonValue, format: TextFormat): string {
  if (!current) return formatJson(next, format);
  const text = formatKeepingLayout(current.text, current.value, next, format, current.format.texts);
  // A file that escapes every character past ASCII gets what this write adds escaped too.
  const hex = nonAsciiEscapes(current.text);
  return hex === null ? text : escapeNonAscii(text, hex);
}

/**
 * A new checkpoint whose file name another file in .checkpoints/ already has in another case
 * (`Deploy-Ops.checkpoint.json` beside a new `deploy-ops`): git would track both, and a macOS or
 * Windows clone checks out one of them. Refused, naming the rename that makes it this skill's.
 */
function refuseCaseTwin(root: string, skill: string): void {
  const name = `${skill}${CHECKPOINT_SUFFIX}`;
  const twin = listProjectDir(root, checkpointsDir(root)).find((f) => f !== name && f.toLowerCase() === name.toLowerCase());
  if (twin === undefined) return;
  const from = `${CHECKPOINTS_DIR}/${twin}`;
  throw new CheckpointError('E_SKILL_NAME', `${shown(from)} already holds a checkpoint named like "${skill}" in another case; a second file would collide in a macOS or Windows checkout; nothing was created`, {
    hint: `make it this skill's: git mv ${pathArg(root, from)} ${pathArg(root, `${CHECKPOINTS_DIR}/${name}`)} (plain mv while git does not track it), or name the new skill otherwise`,
  });
}

/** read -> change -> the checks every write passes: what a write would write, or a refusal. */
function prepareWrite(root: string, skill: string, path: string, opts: MutateOptions): Prepared {
  const now = instantOf(opts.now);
  // Mid-merge only `resolve` writes it: a write would land on one side while the other waits in
  // the index, or bring back a file one side deleted. Its markers need no look here: they do not parse.
  refuseConflicted(root, skill, opts.act ?? `write ${skill}`);
  const current = readCheckpoint(root, skill, opts.readLimit);
  if (current === null) refuseCaseTwin(root, skill);
  const texts: LiteralTexts = new Map([...(current?.format.texts ?? [])].map(([key, known]) => [key, [...known]]));
  const journal = RotationJournal.open(root, skill, current?.value ?? null);
  const next = opts.change(current ? structuredClone(current.value) : null, texts, now, journal);
  refuseTooDeep(root, path, next);
  const format: TextFormat = { ...(current?.format ?? DEFAULT_FORMAT), texts };
  const text = checkpointText(current, next, format);
  // Before beforeWrite, which may write history/: a refusal then leaves nothing behind. One that
  // shrinks the document is judged on what it leaves (mutateLocked), so rotation makes room first.
  const bytes = Buffer.byteLength(text);
  if (!opts.shrinks) refuseOversized(root, path, text, next, opts.refused, now);
  const sizeBytes = opts.shrinks ? Math.min(bytes, MAX_READ_BYTES) : bytes;
  const { errors, warnings } = validateCheckpoint(next, { fileName: basename(path), now, sizeBytes, numberText: numberTextIn(next, () => texts) });
  // The merge driver's rule: refused are only the errors this write brings in. One the file
  // already had (a hand-written status outside the enum) does not block a write that leaves it.
  const introduced = (current === null ? errors : notAlreadyIn(basename(path), errors, [{ value: current.value, text: current.text, texts: current.format.texts }], next)).filter((e) => !opts.broughtBack?.(e));
  if (introduced.length) refuseInvalid(root, path, introduced, current === null);
  const kept = errors.filter((e) => !introduced.includes(e)).map((e): KeptError => (current !== null && changedAt(current.value, next, e.path) ? { ...e, rewritten: true } : e));
  return { current, journal, next, text, format, warnings, kept, now };
}

/**
 * What mutateCheckpoint would do, without the lock and without writing (`migrate --dry-run`,
 * and `done --verify` before it runs a check): the same refusals, thrown the same way.
 */
export function previewMutation(root: string, skill: string, opts: Pick<MutateOptions, 'now' | 'change' | 'act'>): MutateResult {
  const path = checkpointPath(root, skill);
  const { current, next, text, warnings, kept } = prepareWrite(root, skill, path, opts);
  return { path, before: current?.value ?? null, after: next, warnings, kept, changed: text !== current?.text };
}

function mutateLocked(root: string, skill: string, path: string, opts: MutateOptions): Promise<MutateResult> {
  return withLock(lockPathFor(root, skill), () => {
    // The clock is read here, under the lock: a write waiting for it stamps when it writes.
    const { current, journal, format, warnings, kept, now, ...prepared } = prepareWrite(root, skill, path, opts);
    let next = prepared.next;
    if (opts.beforeWrite) next = opts.beforeWrite(next, prepared.text, format.texts!, now, journal);
    try {
      refuseTooDeep(root, path, next);
      // The same value (beforeWrite changes a document only by returning another): its text is known.
      const finalText = next === prepared.next ? prepared.text : checkpointText(current, next, format);
      refuseOversized(root, path, finalText, next, opts.refused, now);
      const changed = finalText !== current?.text;
      // safe-fs followed the link to read (its target is inside the project); the rename replaces it.
      const link = changed ? linkAt(path) : null;
      if (changed) {
        // A rotation a killed run left half done stays true of the file written (rotation-journal.ts).
        journal.prepare(next);
        replaceText(root, path, finalText);
        journal.settle();
      }
      return { path, before: current?.value ?? null, after: next, warnings, kept, changed, ...(link !== null ? { replacedLink: link } : {}) };
    } catch (e) {
      // replaceText is an atomic rename: a throw means the checkpoint is as it was. History
      // first: a journal put back while history/ is not would no longer say what history/ holds.
      opts.undoBeforeWrite?.(e);
      journal.undo();
      throw e;
    }
  });
}

export interface ReplaceTextOptions {
  /** The whole new text, written byte for byte (a merge keeps each side's layout and literal texts). */
  text: string;
  /**
   * The texts it was merged from. A clean text must parse and validate as the file its name
   * says (protocol/file-validation.ts), except for errors one of these already had: the
   * merge driver's rule, so `resolve` writes what the driver would have. A text with
   * conflict markers must split back into its sides, so `resolve` can take it up again.
   */
  mergedFrom: readonly string[];
  /** The text the caller worked from: if the file no longer holds it (someone edited it meanwhile), nothing is written. */
  from?: string;
}

/**
 * The only way a checkpoint file's whole text is replaced: `resolve`'s merge result, which is
 * a text and may hold conflict markers, so it cannot go through mutateCheckpoint's value. The
 * same lock (the skill's), the same checks of the file inside it (a plain file in the project,
 * reached through no link out), validation, and the same atomic replace. `path` is the skill's
 * checkpoint or one of its history files.
 */
export async function replaceCheckpointText(root: string, skill: string, path: string, opts: ReplaceTextOptions): Promise<{ path: string }> {
  const dir = checkpointsDir(root);
  if (!resolve(path).startsWith(dir + sep)) throw new CheckpointError('E_PATH', `${display(root, path)} is not a file under ${CHECKPOINTS_DIR}/`);
  return withLock(lockPathFor(root, skill), () => {
    // Re-checked under the lock: the file may have changed hands (a link put in its place).
    assertPlainFileInside(root, path, { limitSize: false });
    if (opts.from !== undefined && readProjectText(root, path, { maxBytes: MAX_MERGE_BYTES }) !== opts.from) {
      throw new CheckpointError('E_LOCKED', `${display(root, path)} changed while it was being resolved; nothing was written`, { hint: 'run the command again' });
    }
    if (splitConflictMarkers(opts.text) === null) {
      const merged = parseCheckpointText(opts.text, display(root, path));
      const sides = opts.mergedFrom.flatMap((text): FileContent[] => {
        try {
          return [{ value: parseJson(text, { texts: false }).value, text }];
        } catch {
          return []; // an unreadable side excuses nothing
        }
      });
      const errors = introducedErrors(display(root, path), { value: merged.value, text: opts.text }, sides);
      if (errors.length) refuseInvalid(root, path, errors);
    }
    refuseOversized(root, path, opts.text);
    replaceText(root, path, opts.text);
    return { path };
  });
}

/** Whether `buf` is valid UTF-8 but for a character its last bytes only begin (a write cut short). */
function endsMidCharacter(buf: Buffer): boolean {
  let lead = buf.length - 1;
  while (lead >= 0 && buf.length - lead <= 3 && (buf[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return false;
  const b = buf[lead]!;
  const needs = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 0;
  if (needs === 0 || buf.length - lead >= needs) return false;
  try {
    utf8().decode(buf.subarray(0, lead));
    return true;
  } catch {
    return false;
  }
}
