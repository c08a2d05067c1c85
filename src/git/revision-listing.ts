// fileRevisions' listing as the native engine asks git for it (`git log --first-parent --raw -z
// --format=%x1e%H%x00%P%x00%ct%x00 -- <files>`), and when to stop reading it: git lists the line
// back to its first commit, while the checkpoints' dating needs each file's current life only.
import { currentLives } from './file-lives.js';
import { malformedOutput, type EnoughOutput } from './git-process.js';
import type { FileRevision } from './types.js';

/** git's arguments for the listing of `paths`' revisions along `tip`'s first-parent line. */
export function revisionListing(tip: string, paths: readonly string[]): string[] {
  return [
    '--literal-pathspecs', 'log', '--first-parent', '--diff-merges=first-parent', '--no-renames', '--raw', '--no-abbrev', '-z',
    '--no-relative', '--no-color', '--format=%x1e%H%x00%P%x00%ct%x00', tip, '--', ...paths,
  ];
}

/**
 * For fileRevisions' listing (newest first, each record "\x1e" sha NUL parents NUL time NUL, then
 * raw entries meta NUL path NUL): its bytes up to the last complete field once every file in
 * `wanted` has a current life that ended there, its newest revision a deletion or the one that
 * added it. Whatever git lists after that is of older lives, which currentLives drops: the
 * answer is the whole listing's. A file never listed (untracked) keeps it reading to the end.
 */
export function lifeEnds(wanted: ReadonlySet<string>): EnoughOutput {
  const ended = new Set<string>();
  let pending: Buffer = Buffer.alloc(0);
  let done = 0;
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    // Whole records first; then the one still coming, up to its last complete field (a raw
    // entry counts once its path is there), when its header is. Read again as it grows: the
    // same entries end the same lives.
    const last = pending.lastIndexOf(0x1e);
    if (last > 0) {
      currentLives(parseRevisions(pending.subarray(0, last).toString('utf8')).filter((r) => wanted.has(r.path)), ended);
      done += last;
      pending = pending.subarray(last);
    }
    const end = pending.lastIndexOf(0);
    let fields = 0;
    for (let at = pending.indexOf(0); at >= 0 && at <= end && fields < 3; at = pending.indexOf(0, at + 1)) fields++;
    if (fields < 3) return -1;
    const upTo = end + 1;
    currentLives(parseRevisions(pending.subarray(0, upTo).toString('utf8')).filter((r) => wanted.has(r.path)), ended);
    return ended.size === wanted.size ? done + upTo : -1;
  };
}

/** `git log -z --raw --format=%x1e%H%x00%P%x00%ct%x00`: every raw entry, newest first, with its commit's sha, parents and time (`added`: status A). */
export function parseRevisions(out: string): (FileRevision & { added: boolean })[] {
  const revisions: (FileRevision & { added: boolean })[] = [];
  for (const record of out.split('\x1e').slice(1)) {
    const fields = record.split('\0');
    const [sha, parentList, time] = fields;
    if (!sha || parentList === undefined || !time) throw malformedOutput('git log record without sha and time');
    const parents = parentList ? parentList.split(' ') : [];
    // After the format's trailing NUL: an optional "\n", then ":meta" NUL path NUL pairs.
    for (let i = 3; i + 1 < fields.length; i++) {
      const meta = fields[i]!.replace(/^\n/, '');
      if (!meta.startsWith(':')) continue;
      const [, , , newOid, status] = meta.split(' ');
      revisions.push({ sha, time: Number(time), path: fields[++i]!, blob: status === 'D' ? null : newOid ?? null, parents, added: status === 'A' });
    }
  }
  return revisions;
}
