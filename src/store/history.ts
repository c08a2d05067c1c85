// .checkpoints/history/: where reset and rotate move things. Nothing is deleted; `history`
// lists what is there and `restore` (store/restore.ts) brings it back.
import { linkSync, lstatSync, unlinkSync } from 'node:fs';
import { createFileAtomic } from './atomic.js';
import { dirname, join, resolve, sep } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { quoted } from '../one-line.js';
import { linkAt, listProjectDir, ownFolder, projectPathExists, readProjectBytes, statProjectFile } from './safe-fs.js';
import { assertPlainFileInside, checkpointPath, checkpointsDir, display, instantOf, lockPathFor, MAX_READ_BYTES, type Clock } from './checkpoints.js';
import { withLock } from './lock.js';
import { refuseConflicted, refuseOutside } from './index-conflicts.js';
import { isSkillName } from './skill-name.js';
import { ARCHIVE_NAME, ROTATION_NAME } from '../protocol/file-names.js';
import { HISTORY_DIR, historyDir, MAX_ROTATION_FILE_BYTES } from './history-paths.js';

export { HISTORY_DIR, historyDir, MAX_ROTATION_FILE_BYTES } from './history-paths.js';

/**
 * history/ to write into, made if needed: a real folder of .checkpoints/ (of the real one, when
 * the user linked .checkpoints/ to a folder of the project), never a link, not even to another
 * folder of .checkpoints/ (safe-fs ownFolder). A committed `history -> ../src` would put archives
 * among the user's sources, and a restore or the next rotation would read them from there.
 * Returns its real path.
 */
export function ensureHistoryDir(root: string): string {
  return ownFolder(root, checkpointsDir(root), HISTORY_DIR, { create: true, refused: 'write archives there' })!;
}

/** Whether history/ is there to read archives from, refused as ensureHistoryDir refuses it when it is a link. */
function historyReadable(root: string): boolean {
  return ownFolder(root, checkpointsDir(root), HISTORY_DIR, { refused: 'read archives there' }) !== null;
}

/** A colon-free UTC stamp, sortable and valid as a file name everywhere. */
export function fileStamp(now: Date): string {
  return now.toISOString().replace(/:/g, '-');
}

export interface ArchiveEntry {
  file: string;
  path: string;
  skill: string;
  kind: 'checkpoint' | 'rotation';
  bytes: number;
}

/** What an archive in history/ is by its name: reset's `<skill>.<stamp>.checkpoint.json` or rotate's `<skill>.<YYYY-MM-DD>.json`; null for any other file. */
export function parseArchiveName(file: string): { skill: string; kind: ArchiveEntry['kind'] } | null {
  // A valid skill name by every rule (length, "..", Windows devices), as restore will ask of it:
  // history never lists as restorable what restore refuses by its name.
  const a = ARCHIVE_NAME.exec(file);
  if (a && isSkillName(a[1]!)) return { skill: a[1]!, kind: 'checkpoint' };
  const r = ROTATION_NAME.exec(file);
  if (r && isSkillName(r[1]!)) return { skill: r[1]!, kind: 'rotation' };
  return null;
}

/** An archive's name without its "-N" (a second archive of one instant or day), and N (0 without). */
const NUMBERED = /^(.*(?:Z|\d{4}-\d\d-\d\d))-(\d+)(\.checkpoint\.json|\.json)$/;
function orderKey(file: string): [string, number] {
  const m = NUMBERED.exec(file);
  return m ? [m[1]! + m[3]!, Number(m[2])] : [file, 0];
}

/**
 * Oldest first within a skill: by name, a numbered archive right after the one it follows
 * ("x.…Z.checkpoint.json", "x.…Z-1…", "x.…Z-2…", "x.…Z-10…"), as names alone sort "-1" before
 * the first and "-10" before "-2", so the last line listed was not the newest.
 */
function archiveOrder(a: string, b: string): number {
  const [ka, na] = orderKey(a);
  const [kb, nb] = orderKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : na - nb;
}

/**
 * Archives in history/, oldest first per skill (archiveOrder). An entry that is not a plain file inside the project (a
 * dangling link, a loop, a FIFO, a link out) is skipped and reported through `onSkip`.
 */
export function listArchives(root: string, skill?: string, onSkip?: (file: string, why: string) => void): ArchiveEntry[] {
  const dir = historyDir(root);
  if (!historyReadable(root)) return [];
  return listProjectDir(root, dir)
    .sort(archiveOrder)
    .flatMap((file) => {
      const parsed = parseArchiveName(file);
      if (!parsed || (skill && parsed.skill !== skill)) return [];
      const path = join(dir, file);
      try {
        const loc = statProjectFile(root, path);
        if (!loc) return [];
        return [{ file, path, skill: parsed.skill, kind: parsed.kind, bytes: loc.stat!.size }];
      } catch (e) {
        if (!isCheckpointError(e)) throw e;
        onSkip?.(file, e.message);
        return [];
      }
    });
}

/**
 * Puts the checkpoint at `live` into history/ as `target`, never over anything there (EEXIST is
 * thrown for a taken name). A plain file is moved: link + unlink, the same bytes. A committed
 * symlink (to a file inside the project: one out was refused before) is never moved as a link,
 * which would leave a link in history/ (dangling, or still pointing at a file that changes): its
 * content is copied into a new plain file and only the link is removed, so the file it pointed at
 * stays where it was, as it was (the user's data).
 */
function moveIntoHistory(root: string, live: string, target: string): void {
  if (linkAt(live) === null) {
    linkSync(live, target); // link(2) never follows a link at `live`: checked below
    if (!lstatSync(target).isSymbolicLink()) {
      unlinkSync(live);
      return;
    }
    unlinkSync(target); // `live` became a link meanwhile: copied as one is, below
  }
  const bytes = readProjectBytes(root, live, {
    maxBytes: MAX_ROTATION_FILE_BYTES,
    sizeHint: `${display(root, live)} is a link: its content is copied into history/, up to this size; replace the link with the file itself, then run the command again`,
  });
  if (bytes === null) throw new CheckpointError('E_NOT_FOUND', `${display(root, live)} is gone`, { hint: 'run the command again' });
  // Created new, never written through a link or over a file planted at that name, never torn.
  createFileAtomic(target, bytes);
  unlinkSync(live); // removes the link alone, never what it points at
}

/**
 * Moves the live checkpoint into history/ under the skill's lock (moveIntoHistory: a link is
 * copied, its target left alone). Never rename, so an existing archive of the same name is never
 * overwritten.
 */
export async function archiveCheckpoint(root: string, skill: string, now: Clock): Promise<string> {
  const live = checkpointPath(root, skill);
  const missing = () => new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" to reset`, { hint: 'see `checkpoint list` for the checkpoints here' });
  // Checked before locking too: without .checkpoints/ the lock file cannot even be created.
  if (!projectPathExists(root, live)) {
    refuseOutside(root, `reset ${skill}`, skill); // left out by a sparse checkout: not "no checkpoint"
    throw missing();
  }
  return withLock(lockPathFor(root, skill), () => {
    if (!projectPathExists(root, live)) throw missing();
    // Refuses links out of the project and directories, but not a broken file: resetting
    // is how a corrupt checkpoint is set aside (it stays readable in history/).
    assertPlainFileInside(root, live, { limitSize: false });
    refuseConflicted(root, skill, `reset ${skill}`, { markers: true });
    const dir = ensureHistoryDir(root);
    const stamp = fileStamp(instantOf(now)); // the archive is named when it is made, under the lock
    for (let n = 0; ; n++) {
      const target = join(dir, `${skill}.${stamp}${n ? `-${n}` : ''}.checkpoint.json`);
      try {
        moveIntoHistory(root, live, target);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
      return target;
    }
  });
}

/**
 * For `resolve --accept-deletion`: keeps the changed side of a modify/delete merge conflict in
 * history/ (as reset keeps a checkpoint it sets aside), under the skill's lock. The file in the
 * work tree is moved there, as reset moves it; when it is gone from the work tree, `staged()`
 * (the side git staged, as bytes) is written instead. Never over an existing archive.
 */
export async function archiveDeletedInMerge(root: string, skill: string, now: Clock, staged: () => Buffer): Promise<string> {
  const live = checkpointPath(root, skill);
  if (projectPathExists(root, live)) assertPlainFileInside(root, live, { limitSize: false });
  const dir = ensureHistoryDir(root);
  return withLock(lockPathFor(root, skill), () => {
    const present = projectPathExists(root, live);
    if (present) assertPlainFileInside(root, live, { limitSize: false });
    const text = present ? null : staged();
    const stamp = fileStamp(instantOf(now)); // the archive is named when it is made, under the lock
    for (let n = 0; ; n++) {
      const target = join(dir, `${skill}.${stamp}${n ? `-${n}` : ''}.checkpoint.json`);
      try {
        // Exclusive: an archive (or a link planted) of that name is never written through.
        if (text === null) moveIntoHistory(root, live, target);
        else createFileAtomic(target, text);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
      return target;
    }
  });
}

/**
 * Resolves an archive argument safely: a bare name is looked up in history/; anything with a
 * separator is a path (relative to `base`), taken whole and accepted only when it names a file
 * directly in this project's history/. Never reduced to its last part, which would bring back
 * this project's file of that name for a path into another repository or through `..`.
 */
export function resolveArchive(root: string, arg: string, base = root): string {
  const dir = historyDir(root);
  const candidate = arg.includes('/') || arg.includes(sep) ? resolve(base, arg) : join(dir, arg);
  const where = `${display(root, dir)}/`;
  if (dirname(candidate) !== dir) {
    throw new CheckpointError('E_USAGE', `no archive ${quoted(arg)}: that path is not in this project's ${where}`, {
      hint: `name an archive that \`checkpoint history\` lists, or give its path inside ${where}`,
    });
  }
  if (!historyReadable(root) || !projectPathExists(root, candidate)) {
    throw new CheckpointError('E_NOT_FOUND', `no archive ${quoted(arg)} in ${where}`, { hint: 'list them with `checkpoint history`' });
  }
  return candidate;
}

/**
 * Why restore would refuse an archive of `bytes` for its size, else null. An archived checkpoint
 * becomes the live file as it is, so it must be one a checkpoint may be; a rotation file only
 * gives its entries back (the write then refuses a live file that would pass the cap).
 */
export function archiveTooBig(bytes: number | undefined, kind: ArchiveEntry['kind']): string | null {
  if (bytes === undefined) return null;
  if (kind === 'rotation') return bytes > MAX_ROTATION_FILE_BYTES ? `is ${bytes} bytes, over the ${MAX_ROTATION_FILE_BYTES}-byte limit restore reads` : null;
  return bytes > MAX_READ_BYTES ? `is ${bytes} bytes: restored, it would be a live checkpoint over the ${MAX_READ_BYTES}-byte limit` : null;
}
