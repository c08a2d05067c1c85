// Checkpoints git's index holds unmerged, for the readers (status, next, resume and the MCP
// server) and every write: a merge conflict git leaves without markers in the file
// (modify/delete, a file settled by hand but not yet `git add`ed) or with no file at all
// (removed mid-merge) is still a conflict, named with what ends it, never read as the state to
// continue or passed over, and never written to (refuseConflicted): a write would land on one
// side's text while the other side's change waits unseen in the index, or recreate a file one
// side deleted so the deletion conflict goes unnoticed.
// Read from the index file in place (git/unmerged.ts): no process, the same answer whichever
// history engine is asked for.
import { join } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { BASE, indexUnder, OURS, THEIRS, unmergedUnder, type IndexUnder, type StageMask } from '../git/unmerged.js';
import { MAX_MERGE_BYTES } from '../merge/driver.js';
import { hasConflictMarkers } from '../merge/markers.js';
import { CHECKPOINTS_DIR } from './root.js';
import { pathArg } from './paste-path.js';
import { MAX_CHECKPOINT_BYTES } from '../protocol/validate.js';
import { fileKind } from '../protocol/file-names.js';
import { readProjectText, statProjectFile } from './safe-fs.js';
import { CHECKPOINT_SUFFIX, skillFromFileName } from './skill-name.js';
import { outsideCheckpoints, refuseOutsideCheckout, type OutsideCheckpoints } from './sparse-checkout.js';

/** git status's two letters for an unmerged path, as `git status --short` prints them. */
export type ConflictCode = 'UU' | 'AA' | 'DU' | 'UD' | 'AU' | 'UA' | 'DD';

/** The conflict's code from the stages git holds (:1 base, :2 ours, :3 theirs). */
export function conflictCode(stages: StageMask): ConflictCode {
  const [base, ours, theirs] = [stages & BASE, stages & OURS, stages & THEIRS];
  if (ours && theirs) return base ? 'UU' : 'AA';
  if (base) return ours ? 'UD' : theirs ? 'DU' : 'DD';
  return ours ? 'AU' : 'UA';
}

/**
 * The skills whose `.checkpoints/<skill>.checkpoint.json` git's index holds unmerged, with the
 * conflict's code; empty outside a repository, and when the index cannot be read (git itself
 * then refuses the merge: other commands name the damage).
 */
export function conflictedCheckpoints(root: string, index: IndexUnder | null = checkpointsIndex(root)): Map<string, ConflictCode> {
  return conflictedIn(index?.unmerged ?? null);
}

/**
 * What git's index holds under .checkpoints/ (its unmerged and skip-worktree paths), in one
 * scan of its first entries; null outside a repository (or a broken .git file), or when the
 * index cannot be read.
 */
export function checkpointsIndex(root: string): IndexUnder | null {
  let dirs;
  try {
    dirs = resolveGitDirsSync(root);
  } catch {
    return null;
  }
  return indexUnder(dirs, `${CHECKPOINTS_DIR}/`);
}

/** The checkpoints git holds that this sparse checkout leaves out (sparse-checkout.ts); null when none. */
export function checkpointsOutside(root: string, index: IndexUnder | null = checkpointsIndex(root)): OutsideCheckpoints | null {
  return outsideCheckpoints(root, index?.skipped);
}

/** refuseOutsideCheckout with the index read here: before a write makes .checkpoints/ or anything in it. */
export function refuseOutside(root: string, act: string, skill?: string): void {
  refuseOutsideCheckout(root, act, skill, checkpointsIndex(root)?.skipped);
}

function conflictedIn(found: Map<string, StageMask> | null): Map<string, ConflictCode> {
  // No repository here (or a broken .git file): only markers can tell.
  const skills = new Map<string, ConflictCode>();
  for (const [path, stages] of found ?? []) {
    const name = path.slice(CHECKPOINTS_DIR.length + 1);
    const skill = name.includes('/') ? null : skillFromFileName(name);
    if (skill !== null) skills.set(skill, conflictCode(stages));
  }
  return skills;
}

/** What the conflict is and what ends it, for one line: `problem` names the file. */
export interface ConflictReport {
  problem: string;
  /** The commands that end it, each way named (what `checkpoint resolve` would be asked, or git). */
  repair: string;
}

/**
 * The skill's conflict code of the path `rel` (repo-relative, `/`-separated) that git's index
 * holds unmerged, read in place as conflictedCheckpoints reads it; undefined when it holds none
 * (or the index cannot be read).
 */
export function conflictAt(root: string, rel: string): ConflictCode | undefined {
  const stages = unmergedIn(root, rel.slice(0, rel.lastIndexOf('/') + 1))?.get(rel);
  return stages === undefined ? undefined : conflictCode(stages);
}

/** The unmerged paths starting with `prefix` in the index of the repository at `root`; null outside one, or when its index cannot be read. */
function unmergedIn(root: string, prefix: string): Map<string, StageMask> | null {
  let dirs;
  try {
    dirs = resolveGitDirsSync(root);
  } catch {
    return null;
  }
  return unmergedUnder(dirs, prefix);
}

/**
 * The copy git made of `rel` in a distinct-types conflict (a file on one side, a symbolic link or
 * a submodule on the other): it keeps one side at `rel`, unmerged (AU or UA), and records the
 * other as `rel~<branch>` (`~HEAD` for ours), unmerged too. Null when there is none, or no index.
 */
export function typeConflictCopy(root: string, rel: string): string | null {
  for (const name of unmergedIn(root, `${rel}~`)?.keys() ?? []) if (!name.includes('/', rel.length)) return name;
  return null;
}

/** What git's code says happened, for a conflict other than modify/delete: `(AU: added by our side (HEAD) alone, in a rename conflict)`. */
export function conflictHow(code: Exclude<ConflictCode, 'DU' | 'UD'>): string {
  const how = {
    UU: 'both sides changed it',
    AA: 'both sides added it',
    AU: 'added by our side (HEAD) alone, in a rename conflict',
    UA: 'added by their side alone, in a rename conflict',
    DD: 'both sides deleted or renamed it',
  }[code];
  return `(${code}: ${how})`;
}

/**
 * The conflict of `skill`'s checkpoint as the readers name it. `present`: the file is in the
 * work tree; `markers`: it holds conflict markers (then its reader's own message already says
 * so, and `checkpoint resolve` is the repair).
 */
export function conflictReport(root: string, skill: string, code: ConflictCode, present: boolean): ConflictReport {
  const file = `${CHECKPOINTS_DIR}/${skill}${CHECKPOINT_SUFFIX}`;
  const report = conflictReportAt(root, file, code, present, code === 'AU' || code === 'UA' ? typeConflictCopy(root, file) : null);
  // The merge driver leaves a merge over the cap whole and unmarked: resolve --add refuses its
  // size and rotate its unmerged state, so the way out is git's own add first.
  if ((code === 'UU' || code === 'AA') && present && overCap(root, file)) {
    const arg = pathArg(root, file);
    return { ...report, repair: `it is over the 4 MiB a checkpoint may hold: git add ${arg}, then checkpoint rotate ${skill} (it reads up to 16 MiB), then git add ${arg} again` };
  }
  return report;
}

function overCap(root: string, file: string): boolean {
  try {
    return (statProjectFile(root, file)?.stat?.size ?? 0) > MAX_CHECKPOINT_BYTES;
  } catch {
    return false; // a link or a special file: the reader names it
  }
}

/**
 * conflictReport of the file `file` (repo-relative): a checkpoint, or a history file `resolve`
 * names; `copy`: where git put the other side of a distinct-types conflict (typeConflictCopy).
 * The problem names files from the root, as every reader lists them; the repair's commands name
 * them from where the command runs (pathArg), to be pasted there.
 */
export function conflictReportAt(root: string, file: string, code: ConflictCode, present: boolean, copy: string | null = null): ConflictReport {
  const arg = pathArg(root, file);
  const keep = `checkpoint resolve --add ${arg}`;
  const gone = ', and the file is gone from the work tree';
  if (copy !== null && (code === 'AU' || code === 'UA')) return typeConflictReport(file, code, present, copy, arg, pathArg(root, copy));
  switch (code) {
    case 'DU':
    case 'UD': {
      const [deleter, changer, side] = code === 'DU' ? ['our side (HEAD)', 'theirs', 'theirs'] : ['their side', 'ours (HEAD)', 'ours'];
      const what = `${file}: modify/delete conflict (${code}): ${deleter} deleted it, ${changer} changed it`;
      const accept = `accept the deletion, the change archived in history/: checkpoint resolve --accept-deletion ${arg}`;
      if (present) return { problem: `${what}; the file holds ${side === 'ours' ? 'our' : 'their'} version, not merged yet`, repair: `keep it: ${keep}; ${accept}` };
      return { problem: `${what}${gone}`, repair: `${accept}; or bring it back: git checkout --${side} -- ${arg}, then ${keep}` };
    }
    case 'UU':
    case 'AA': {
      if (!present) return { problem: `${file}: missing from the work tree, but git's index still holds its merge ${conflictHow(code)}`, repair: `bring it back: git checkout --merge -- ${arg}, then checkpoint resolve` };
      return { problem: `${file}: merge not marked resolved ${conflictHow(code)}: no conflict markers in the file, but git's index still holds it unmerged`, repair: `if it is the merge you want, ${keep} checks and stages it` };
    }
    case 'AU':
    case 'UA': {
      const what = `${file}: merge not marked resolved ${conflictHow(code)}`;
      // `git mv` renames the file, not the skill it names: resolve --add refuses it until they agree.
      const skill = skillFromFileName(file.slice(file.lastIndexOf('/') + 1));
      const named = skill === null ? '' : `, once its "skill" is "${skill}" (a file renamed with git mv alone still names the old one)`;
      const back = `git checkout --${code === 'AU' ? 'ours' : 'theirs'} -- ${arg}, then ${keep}`;
      // An archive in history/ (two branches' resets of one skill) is one side's state: kept, never dropped.
      if (fileKind(file) !== 'checkpoint') return present ? { problem: what, repair: `keep it: ${keep}` } : { problem: `${what}${gone}`, repair: `bring it back: ${back}` };
      if (present) return { problem: what, repair: `keep it: ${keep}${named}; drop it: git rm ${arg}` };
      return { problem: `${what}${gone}`, repair: `drop it: git rm ${arg}; or bring it back: ${back}` };
    }
    case 'DD':
      if (present) return { problem: `${file}: merge not marked resolved ${conflictHow(code)}, yet a file of that name is in the work tree`, repair: `keep the file: ${keep}; drop it from the index: git rm --cached ${arg}` };
      return { problem: `${file}: merge not marked resolved ${conflictHow(code)}`, repair: `accept the deletion: git rm ${arg}` };
  }
}

/**
 * A distinct-types conflict: one side made `file` a symbolic link (or a submodule), the other
 * changed it as a file, which git recorded as `copy`. That copy is the checkpoint to keep (a
 * write never goes through a link): moved back into place, then staged as resolve stages it.
 * `fileArg`, `copyArg`: the two as words of the repair's commands (pathArg).
 */
function typeConflictReport(file: string, code: 'AU' | 'UA', present: boolean, copy: string, fileArg: string, copyArg: string): ConflictReport {
  const side = copy.endsWith('~HEAD') ? 'ours (HEAD)' : 'theirs';
  const problem = `${file}: distinct-types conflict (${code}): one side replaced the file with a link or submodule, and git moved ${side} to ${copy}${present ? '' : '; the path itself is gone from the work tree'}`;
  const back = `${present ? `rm ${fileArg} && ` : ''}mv ${copyArg} ${fileArg} && git rm -q --cached ${copyArg} && checkpoint resolve --add ${fileArg}`;
  return { problem, repair: `keep the file: ${back}; keep the other side instead: git rm -q ${copyArg} && git add ${fileArg}` };
}

/**
 * The one refusal of a write to a checkpoint a merge left unfinished (E_CONFLICT, exit 2, one
 * line): `act` (`update api`, `reset api`) is refused while git's index holds `skill`'s
 * checkpoint unmerged, named as the readers name it, with the same ways out (conflictReport);
 * with `markers`, also while its file holds conflict markers (archiving such a file would leave
 * `resolve` nothing to work from). Every write through the store asks it (mutateCheckpoint),
 * the archiving ones (reset, rotate, restore) with `markers`. Outside a repository, or with an
 * index that cannot be read, only the markers count. The same read refuses a checkpoint a sparse
 * checkout leaves out (sparse-checkout.ts). Costs one read of the index's first entries.
 */
export function refuseConflicted(root: string, skill: string, act: string, opts: { markers?: boolean } = {}): void {
  const index = checkpointsIndex(root);
  // A checkpoint a sparse checkout leaves out: a file written here would stand in for the committed one.
  refuseOutsideCheckout(root, act, skill, index?.skipped);
  const code = conflictedIn(index?.unmerged ?? null).get(skill);
  if (code === undefined && !opts.markers) return;
  const file = `${CHECKPOINTS_DIR}/${skill}${CHECKPOINT_SUFFIX}`;
  const loc = statProjectFile(root, join(root, CHECKPOINTS_DIR, `${skill}${CHECKPOINT_SUFFIX}`));
  // A file too large for the resolver is not read for markers here either (reset is how it is set aside).
  const text = loc && loc.stat!.size <= MAX_MERGE_BYTES ? readLenient(root, loc.path) : null;
  if (text !== null && hasConflictMarkers(text)) {
    throw new CheckpointError('E_CONFLICT', `refused to ${act}: ${file} holds merge conflict markers; the file was not changed`, {
      hint: 'finish the merge first with `checkpoint resolve` (`checkpoint resolve --check` lists what is left)',
    });
  }
  if (code === undefined) return;
  const report = conflictReport(root, skill, code, loc !== null);
  throw new CheckpointError('E_CONFLICT', `refused to ${act}: ${report.problem}; ${loc !== null ? 'the file was not changed' : 'nothing was written'}`, {
    hint: `finish the merge first: ${report.repair}`,
  });
}

/** The file's text, or null when it cannot be read as UTF-8 (then it holds no markers a resolver could read either). */
function readLenient(root: string, abs: string): string | null {
  try {
    return readProjectText(root, abs, { maxBytes: MAX_MERGE_BYTES });
  } catch (e) {
    if (isCheckpointError(e)) return null;
    throw e;
  }
}
