// An index git cannot read: both engines refuse it the same way, in one line with the repair.
// git refuses, whatever else it is asked, an index too short for a header and checksum, with a
// wrong signature or an unknown version (read-cache.c). Past the header it checks nothing (the
// checksum only in fsck) and reads entries as far as the bytes go, then past them: a truncated
// index gives it garbage, a fatal error or a plausible wrong answer depending on where the cut
// fell. Such an index (entries or extensions running past the end, a split index's shared file
// missing) is refused too, so the two engines agree; an index whose bytes parse whole is read
// (a stale checksum alone does not stop git either).
import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { shownPath } from '../one-line.js';
import { blockingKind } from './blocking-files.js';
import { readIndex } from './index-status.js';
import { entriesOutside } from './skip-worktree.js';
import { commonDirOf, usesSha256 } from './object-format.js';

/** A header and the trailing checksum: git refuses a shorter index ("index file smaller than expected"). */
const MIN_INDEX_BYTES = 12 + 20;

/** What is wrong with the index in `gitdir` for git, or null when git reads it (or there is none). */
export function indexDamage(gitdir: string): string | null {
  const file = join(gitdir, 'index');
  let fd: number;
  try {
    // Non-blocking: a FIFO planted there must not hang the read.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    // A socket cannot be opened at all: named by what it is, as a FIFO is.
    let st: Stats | undefined;
    try {
      st = statSync(file);
    } catch {
      // a link loop or no permission: the open's error code says it
    }
    return st && !st.isFile() ? notAFile(st) : `could not open it (${code ?? 'error'})`;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return notAFile(st);
    if (st.size < MIN_INDEX_BYTES) return `index file smaller than expected (${st.size} bytes)`;
    const head = Buffer.alloc(12);
    if (readSync(fd, head, 0, 12, 0) !== 12) return 'could not read it';
    if (head.toString('latin1', 0, 4) !== 'DIRC') return `index file corrupt (bad signature 0x${head.toString('hex', 0, 4)})`;
    const version = head.readUInt32BE(4);
    if (version < 2 || version > 4) return `index file corrupt (bad index version ${version})`;
  } catch {
    return 'could not read it';
  } finally {
    closeSync(fd);
  }
  // Entries of SHA-256 object names are not read here (object-format.ts): git's to judge.
  if (usesSha256(commonDirOf(gitdir))) return null;
  // Too large for the reader's cap (or gone meanwhile): git's to judge.
  const index = readIndex(file);
  if (index === null) return null;
  const parsed = entriesOutside(index.buf);
  if (parsed === null) return `index file corrupt (its ${index.buf.readUInt32BE(8)} entries and extensions do not fit its ${index.buf.length} bytes: truncated or overwritten)`;
  if (parsed.link !== null && !/^0+$/.test(parsed.link) && !statSync(join(gitdir, `sharedindex.${parsed.link}`), { throwIfNoEntry: false })?.isFile()) {
    return `its shared index sharedindex.${parsed.link} is missing`;
  }
  return null;
}

/** An index that is no file (through a link, as git follows one); git never leaves one there. */
function notAFile(st: Stats): string {
  const kind = blockingKind(st);
  if (kind !== null) return `it is ${kind}, not a file (git never writes one there, and would wait on it forever)`;
  return st.isDirectory() ? 'it is a directory, not a file' : 'not a plain file';
}

/** indexDamage's answer as the refusal both engines give, with the repair; null when git reads the index. */
export function indexRefusal(gitdir: string): CheckpointError | null {
  const damage = indexDamage(gitdir);
  if (damage === null) return null;
  const file = shownPath(join(gitdir, 'index'));
  return new CheckpointError('E_GIT', `git cannot read the index ${file}: ${damage}`, {
    hint: `rebuild it from HEAD: \`rm ${file} && git reset\` (the work tree is left as it is; stage again what was staged)`,
  });
}
