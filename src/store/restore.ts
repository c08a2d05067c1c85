// `checkpoint restore <archive>`: brings back what reset or rotate moved into history/. An
// archived checkpoint becomes the live one again (never over a live one), validated as every
// write is; a rotation file's entries go back into the live checkpoint's logs, exactly as many
// as rotate took out. The archive itself stays: history is never consumed.
import { basename, join } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { createFileAtomic } from './atomic.js';
import { quoted } from '../one-line.js';
import { ARCHIVE_NAME, ROTATION_NAME } from '../protocol/file-names.js';
import type { FileError } from '../protocol/file-validation.js';
import { copyItemTexts, numberTextIn, rekeyItems } from '../protocol/format.js';
import { JsonNumberRangeError, JsonSyntaxError, JsonUnsafeKeyError, literalPlace, parseJson, type LiteralTexts } from '../protocol/json.js';
import { compileExtraLogs } from '../protocol/fields.js';
import { MERGE_RULE_KEYS, readConfigFor } from './config.js';
import { countEntries, type ExtraLogRules, removePointer, restoreRotatedEntries, rotationFileProblem, rotationPointers, type EntryCounts, type RestoredLog, type RotationFile } from '../protocol/rotation.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { pathKeys } from '../protocol/path.js';
import { validateCheckpoint } from '../protocol/validate.js';
import { checkpointPath, display, instantOf, lockPathFor, MAX_READ_BYTES, mutateCheckpoint, parseCheckpointText, readCheckpointFile, type Clock } from './checkpoints.js';
import { refuseConflicted, refuseOutside } from './index-conflicts.js';
import { archiveTooBig, historyDir, MAX_ROTATION_FILE_BYTES, parseArchiveName, resolveArchive } from './history.js';
import { withLock } from './lock.js';
import { pointerOf } from './history-paths.js';
import { fingerprint } from './rotation-journal.js';
import { listProjectDir, projectPathExists, readProjectBytes, readProjectText, statProjectFile, writablePath } from './safe-fs.js';
import { assertSkillName, SKILL_NAME } from './skill-name.js';

export interface Restored {
  skill: string;
  path: string;
  /** For a rotation file: how many log entries came back. */
  entries?: number;
  /** For a rotation file: how many were left out, as copies the checkpoint already holds. */
  already?: number;
  /**
   * For a rotation file: whether the checkpoint named it in skill_state.rotated_to (its entries
   * were out: all came back, and the name went); false: restored before, or another checkpoint's.
   */
  named?: boolean;
  /** Errors the result holds that the archive (or the live checkpoint) already had: restored, and said. */
  kept: FileError[];
  /** Whether the checkpoint file was written (a rotation file whose entries are all back already writes nothing). */
  written: boolean;
  /** The checkpoint was a link inside the project (to this): the write replaced it with a regular file. */
  replacedLink?: string;
}

/**
 * Why an archived checkpoint cannot come back as the live checkpoint of `skill` (exit 2), else
 * the errors it already has (restored as it is, and said): one naming another skill would be
 * invalid under this name and is refused, with the rename that restores it as its own.
 */
function archiveErrors(name: string, skill: string, value: JsonValue, now: Date, bytes: number, texts?: LiteralTexts): FileError[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CheckpointError('E_INVALID', `${name} is not a checkpoint (its JSON is ${Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`}, not an object)`, {
      hint: 'it stays in history/: open it by hand and copy back what you need; nothing was changed',
    });
  }
  const own = (value as JsonObject).skill;
  if (typeof own === 'string' && own !== skill) {
    const stamp = ARCHIVE_NAME.exec(name)?.[2];
    const rename = SKILL_NAME.test(own) && stamp !== undefined ? `to restore it as ${quoted(own)}, rename it to .checkpoints/history/${own}.${stamp}.checkpoint.json and restore that` : `set its "skill" to "${skill}" by hand to restore it as ${skill}`;
    throw new CheckpointError('E_INVALID', `${name} holds the checkpoint of skill ${quoted(own)}, not "${skill}": restored as .checkpoints/${skill}.checkpoint.json it would be invalid`, {
      hint: `nothing was changed; ${rename}`,
    });
  }
  return validateCheckpoint(value, { fileName: `${skill}.checkpoint.json`, now, sizeBytes: bytes, numberText: numberTextIn(value, () => texts) }).errors;
}

/**
 * An archived checkpoint's content to restore, and the errors it already has. One that does not
 * parse (reset is how a corrupt checkpoint is set aside) comes back as the same bytes, its parse
 * error said as one it already had: what reset moved is what restore gives back.
 */
function archivedCheckpoint(root: string, archive: string, skill: string, now: Date): { content: string | Uint8Array; kept: FileError[] } {
  const name = basename(archive);
  try {
    const file = readCheckpointFile(root, archive);
    return { content: file.text, kept: archiveErrors(name, skill, file.value, now, Buffer.byteLength(file.text), file.format.texts) };
  } catch (e) {
    if (!isCheckpointError(e) || e.code !== 'E_JSON') throw e;
    const bytes = readProjectBytes(root, archive, { maxBytes: MAX_READ_BYTES });
    if (bytes === null) throw e;
    return { content: bytes, kept: [whyUnparsed(bytes)] };
  }
}

/** Where and why the bytes of a checkpoint do not parse, as an error it already had (read from the parser, not from a message). */
function whyUnparsed(bytes: Uint8Array): FileError {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { path: 'the file', message: 'not valid UTF-8' };
  }
  try {
    parseJson(text, { texts: false });
  } catch (e) {
    if (e instanceof JsonSyntaxError) return { path: `line ${e.line}, column ${e.column}`, message: e instanceof JsonNumberRangeError || e instanceof JsonUnsafeKeyError ? e.reason : `invalid JSON: ${e.reason}` };
  }
  return { path: 'the file', message: 'does not parse' };
}

/** Brings back what reset or rotate moved (see the top of this file). `base`: where a path argument is relative to. */
export async function restoreArchive(root: string, arg: string, now: Clock, base = root): Promise<Restored> {
  // Left out by a sparse checkout, history/ and the checkpoint are in git, not here: nothing is brought back over them.
  refuseOutside(root, `restore ${basename(arg)}`);
  const archive = resolveArchive(root, arg, base);
  const name = basename(archive);
  const parsed = parseArchiveName(name);
  // Named as reset or rotate names an archive, but for a skill name no command takes: said so.
  const named = ARCHIVE_NAME.exec(name) ?? ROTATION_NAME.exec(name);
  if (!parsed && named) assertSkillName(named[1]);
  if (!parsed) {
    throw new CheckpointError('E_USAGE', `${name} is neither an archived checkpoint nor a rotation file`, {
      hint: 'restore takes <skill>.<stamp>.checkpoint.json or <skill>.<YYYY-MM-DD>.json (`checkpoint history` lists them); this file stays in history/: copy back what you need by hand; nothing was changed',
    });
  }
  // Refused with advice that fits an archive (the reader's own hint is about a live checkpoint).
  const stat = statProjectFile(root, archive)?.stat;
  const tooBig = archiveTooBig(stat?.size, parsed.kind);
  if (tooBig) throw new CheckpointError('E_INVALID', `${name} ${tooBig}`, { hint: 'it stays in history/: open it by hand and copy back what you need; nothing was changed' });
  if (parsed.kind === 'rotation') {
    const file = readCheckpointFile(root, archive, MAX_ROTATION_FILE_BYTES); // its entries must parse
    return restoreRotation(root, parsed.skill, archive, file.value, now, file.format.texts);
  }
  const { content, kept } = archivedCheckpoint(root, archive, parsed.skill, instantOf(now));
  const live = checkpointPath(root, parsed.skill);
  return withLock(lockPathFor(root, parsed.skill), () => {
    const present = projectPathExists(root, live);
    // Mid-merge the way out is resolve, not reset (which refuses a conflicted file too); and a
    // checkpoint git's index holds unmerged is not brought back while it is gone (one side deleted it).
    refuseConflicted(root, parsed.skill, present ? `restore ${name} over it` : `restore ${name}`, { markers: present });
    if (present) {
      throw new CheckpointError('E_EXISTS', `a live checkpoint for "${parsed.skill}" exists; restoring would overwrite it`, {
        hint: `archive it first with \`checkpoint reset ${parsed.skill}\`, then restore`,
      });
    }
    // Created new, never over anything (a link included), and never torn: a failed write leaves no
    // live file. The bytes are the archive's, as read safely (strict UTF-8 decode: same bytes).
    createFileAtomic(writablePath(root, live), content, stat?.mode); // as private as the archive (reset kept its mode)
    return { skill: parsed.skill, path: live, kept, written: true };
  });
}

/**
 * The copies of entries the checkpoint `doc` accounts for in the other rotation files it names
 * (their entries are out of it, each in one place): a file it does not name gives back only
 * what is in neither the checkpoint nor those. A named file that cannot be read counts for nothing.
 */
function namedElsewhere(root: string, skill: string, doc: JsonObject, pointer: string): EntryCounts {
  return entriesOf(root, skill, [...new Set(rotationPointers(doc))].filter((other) => other !== pointer));
}

/**
 * The entries of this skill's rotation files in history/ the checkpoint no longer names (restored
 * before), but `pointer`'s: what a live copy of a timed record may have come back from.
 */
function restoredBefore(root: string, skill: string, doc: JsonObject, pointer: string): EntryCounts {
  const named = new Set([...rotationPointers(doc), pointer]);
  let names: string[];
  try {
    names = listProjectDir(root, historyDir(root));
  } catch {
    return new Map(); // history/ a link out of the project, or no folder: nothing came back from it
  }
  const others = names.map((name) => pointerOf(root, join(historyDir(root), name))).filter((other) => !named.has(other));
  return entriesOf(root, skill, others);
}

/** The entries of the rotation files at `pointers` that are this skill's, counted; unreadable ones left out. */
function entriesOf(root: string, skill: string, pointers: readonly string[]): EntryCounts {
  const counts: EntryCounts = new Map();
  for (const other of pointers) {
    const path = join(root, other);
    const parsed = parseArchiveName(basename(path));
    if (parsed?.kind !== 'rotation' || parsed.skill !== skill || pointerOf(root, join(historyDir(root), basename(path))) !== other) continue;
    try {
      const text = readProjectText(root, path, { maxBytes: MAX_ROTATION_FILE_BYTES });
      if (text === null) continue;
      const { value } = parseCheckpointText(text, other);
      if (rotationFileProblem(value, skill)) continue;
      for (const [dotted, entries] of Object.entries((value as unknown as RotationFile).entries)) countEntries(counts, dotted, entries);
    } catch {
      // unreadable: its entries cannot come back from it either
    }
  }
  return counts;
}

/** The project's own log rules (config.json), as rotate reads them; none when the config cannot be read. */
function projectLogs(root: string): ExtraLogRules {
  try {
    return compileExtraLogs(readConfigFor(root, MERGE_RULE_KEYS));
  } catch {
    return [];
  }
}

async function restoreRotation(root: string, skill: string, archive: string, value: JsonValue, now: Clock, fileTexts?: LiteralTexts): Promise<Restored> {
  const name = basename(archive);
  const problem = rotationFileProblem(value, skill);
  if (problem) throw new CheckpointError('E_INVALID', `${name} is not a rotation file: ${problem}`, { hint: 'it stays in history/: open it by hand and copy back what you need; nothing was changed' });
  if (!projectPathExists(root, checkpointPath(root, skill))) {
    refuseConflicted(root, skill, `restore ${name}`); // gone mid-merge: what ends the merge, not "restore an archive first"
    throw new CheckpointError('E_NOT_FOUND', `no live checkpoint for "${skill}" to put the entries of ${name} back into`, {
      hint: 'restore an archived checkpoint of that skill first (checkpoint history)',
    });
  }
  const pointer = pointerOf(root, archive);
  const where = display(root, checkpointPath(root, skill));
  const extra = projectLogs(root);
  let count = { restored: 0, left: 0 };
  let named = false;
  // Where the records put back stand in the result: their errors were the file's before they moved out.
  let putBack: RestoredLog[] = [];
  const result = await mutateCheckpoint(root, skill, {
    act: `restore ${name} into it`,
    broughtBack: (e) => {
      const keys = pathKeys(e.path);
      return keys !== null && putBack.some((log) => log.path.every((k, i) => keys[i] === k) && typeof keys[log.path.length] === 'number' && 'file' in (log.from[keys[log.path.length] as number] ?? {}));
    },
    refused: `the entries stay in history/${name}: copy back the ones you need by hand`,
    now,
    change: (current, texts, _now, journal) => {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) {
        throw new CheckpointError('E_INVALID', `.checkpoints/${skill}.checkpoint.json is not a JSON object`, { hint: 'fix it (checkpoint validate), then restore' });
      }
      const doc = current as JsonObject;
      const file = value as unknown as RotationFile;
      named = rotationPointers(doc).includes(pointer);
      const placed: RestoredLog[] = [];
      putBack = placed;
      if (named) {
        // Every entry is out of the checkpoint, but for what a rotation killed before its checkpoint
        // write left in both places (its journal, which this write settles: the file's entries are all back).
        const elsewhere = journal.settleFile(pointer);
        count = restoreRotatedEntries(doc, file, { mode: 'all', elsewhere, restoredBefore: restoredBefore(root, skill, doc, pointer), placed, where, extra, fingerprint });
        removePointer(doc, pointer, file.skill_state_was_empty === true);
      } else {
        count = restoreRotatedEntries(doc, file, { mode: 'missing', elsewhere: namedElsewhere(root, skill, doc, pointer), placed, where, extra, fingerprint });
      }
      // The log's own entries keep their texts at their new places (after the ones put back before
      // them); the entries put back keep the texts they had in the rotation file (as rotate kept them
      // there), each copy of a repeated entry its own.
      for (const log of placed) {
        const at = literalPlace(doc, log.path);
        if (log.before) rekeyItems(texts, at, log.before, log.after, log.from.map((f) => ('live' in f ? f.live : undefined)));
        const back = log.from.flatMap((f, j) => ('file' in f ? [[f.file, j] as const] : []));
        if (fileTexts?.size && back.length) {
          copyItemTexts(fileTexts, literalPlace(value, ['entries', log.dotted]), file.entries[log.dotted]!, back.map(([i]) => i), texts, at, log.after, back.map(([, j]) => j));
        }
      }
      return doc;
    },
  });
  return { skill, path: result.path, entries: count.restored, already: count.left, named, kept: result.kept, written: result.changed, ...(result.replacedLink !== undefined ? { replacedLink: result.replacedLink } : {}) };
}
