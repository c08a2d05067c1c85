// What git left behind for a conflicted file: its index stages (:1 base, :2 ours, :3 theirs)
// or, once those are gone, the conflict markers in the file itself. Reads only: `resolve`
// writes its result through the store (checkpoints.ts replaceCheckpointText).
import { join, relative, sep } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { MAX_SHOWN_PATH_CHARS, quoted, shownList, shownPath } from '../one-line.js';
import { ARCHIVE_NAME, HAND_MERGED_HISTORY_NOTE, ROTATION_NAME } from '../protocol/file-names.js';
import { MAX_MERGE_BYTES } from '../merge/driver.js';
import { hasConflictMarkers } from '../merge/markers.js';
import { gitFailed, gitOutputSync as git, runGitSync } from '../git/git-process.js';
import { indexRefusal } from '../git/index-damage.js';
import { gitdirOrNull } from '../git/locate.js';
import { checkpointsDir } from './checkpoints.js';
import { pathArg } from './paste-path.js';
import { CONFIG_REL, configConflict, configHoldsMarkers } from './config.js';
import { listProjectDir, locate, readProjectText, statProjectFile } from './safe-fs.js';
import { conflictAt, conflictHow, conflictReportAt, typeConflictCopy } from './index-conflicts.js';
import { isMisnamedCheckpoint, misnamedReason, SKILL_NAME_RULE, skillFromFileName } from './skill-name.js';

/** Larger JSON under .checkpoints/ is not a checkpoint or history file: neither scanned nor resolved (the driver's limit too). */
export const MAX_RESOLVE_BYTES = MAX_MERGE_BYTES;

export interface Stages {
  base: string | null;
  ours: string;
  theirs: string;
}

/** A modify/delete conflict: one side deleted the file, the other changed it (git left that side's text in the work tree). */
export interface OneSideDeleted {
  deleted: 'ours' | 'theirs';
  /** The changed side's text, as git staged it. */
  changed: string;
}

/** The blob of each unmerged index stage of `rel` ('1' base, '2' ours, '3' theirs). */
function stageShas(root: string, rel: string): Record<string, string> {
  const shas: Record<string, string> = {};
  for (const entry of (git(root, ['ls-files', '-u', '-z', '--', rel]) ?? '').split('\0')) {
    const m = /^\d+ ([0-9a-f]+) ([123])\t/.exec(entry);
    if (m) shas[m[2]!] = m[1]!;
  }
  return shas;
}

/** The unmerged index stages of `rel`: both sides, or which side deleted it; null when git holds none for it. */
export function readStages(root: string, rel: string): Stages | OneSideDeleted | null {
  const shas = stageShas(root, rel);
  const blob = (sha: string) => git(root, ['cat-file', 'blob', sha]) ?? '';
  if (shas['2'] && shas['3']) return { base: shas['1'] ? blob(shas['1']) : null, ours: blob(shas['2']), theirs: blob(shas['3']) };
  // A base and one side only: the other side deleted the file.
  if (shas['1'] && (shas['2'] || shas['3'])) return { deleted: shas['2'] ? 'theirs' : 'ours', changed: blob((shas['2'] ?? shas['3'])!) };
  return null;
}

/** The text git holds for `rel` when one side alone added it (AU, UA: a rename conflict), else null. */
export function addedStage(root: string, rel: string): string | null {
  const shas = stageShas(root, rel);
  const only = shas['1'] || (shas['2'] && shas['3']) ? undefined : (shas['2'] ?? shas['3']);
  return only === undefined ? null : (git(root, ['cat-file', 'blob', only]) ?? null);
}

/** Repo-relative paths git reports as unmerged, below .checkpoints/. */
export function unmergedCheckpointPaths(root: string): string[] {
  // The index's unmerged entries, read by plumbing: `git diff` refreshes and rewrites the index
  // (--no-optional-locks or not), and resolve --check must write nothing.
  const args = ['ls-files', '--unmerged', '-z'];
  const r = runGitSync(root, args);
  // A failure is no "nothing unmerged": the index git could not read, named with its repair, or git's own words.
  if (r.code !== 0) throw indexRefusalAt(root) ?? gitFailed(root, args, r);
  const out = r.stdout;
  const paths = new Set(out.split('\0').map((entry) => entry.slice(entry.indexOf('\t') + 1)));
  return [...paths].filter((p) => p.startsWith('.checkpoints/') && p.endsWith('.json'));
}

function indexRefusalAt(root: string): CheckpointError | null {
  const gitdir = gitdirOrNull(root);
  return gitdir === null ? null : indexRefusal(gitdir); // no repository here: git's own words say so
}

export interface MarkerScan {
  /** Files holding conflict markers. */
  markers: string[];
  /** Plain files over MAX_RESOLVE_BYTES: not read, so whether they hold markers is unknown. */
  tooLarge: { path: string; bytes: number }[];
  /** Files that could not be read safely (a link out, a FIFO): whether they hold markers is unknown too. */
  unreadable: { path: string; why: string }[];
}

/**
 * Every JSON file under .checkpoints/ (history included) that holds conflict markers, and the
 * plain files too large to read for them. What cannot be read safely (links out, loops, FIFOs)
 * is skipped and reported through `onSkip`; links are never followed into folders, so a loop
 * cannot recurse.
 */
export function scanForMarkers(root: string, onSkip?: (rel: string, why: string) => void): MarkerScan {
  const scan: MarkerScan = { markers: [], tooLarge: [], unreadable: [] };
  const walk = (dir: string) => {
    for (const name of listProjectDir(root, dir)) {
      const p = join(dir, name);
      try {
        const loc = locate(root, p);
        if (!loc.stat) continue;
        if (loc.stat.isDirectory()) {
          if (loc.real === join(locate(root, dir).real, name)) walk(p); // a real folder, not a link to one
          continue;
        }
        if (!name.endsWith('.json')) continue;
        // Not read (a hostile clone's blob could be any size), so never called free of markers.
        if (loc.stat.isFile() && loc.stat.size > MAX_RESOLVE_BYTES) {
          scan.tooLarge.push({ path: relative(root, p), bytes: loc.stat.size });
          continue;
        }
        const text = readProjectText(root, p, { maxBytes: MAX_RESOLVE_BYTES });
        if (text !== null && hasConflictMarkers(text)) scan.markers.push(relative(root, p));
      } catch (e) {
        if (!isCheckpointError(e)) throw e;
        scan.unreadable.push({ path: relative(root, p), why: e.message });
        onSkip?.(relative(root, p), e.message);
      }
    }
  };
  walk(checkpointsDir(root));
  scan.markers.sort();
  scan.tooLarge.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scan;
}

/** The files scanForMarkers finds markers in; a file too large to read is reported through `onSkip`. */
export function filesWithMarkers(root: string, onSkip?: (rel: string, why: string) => void): string[] {
  const scan = scanForMarkers(root, onSkip);
  for (const big of scan.tooLarge) onSkip?.(big.path, tooLargeMessage(big.bytes));
  return scan.markers;
}

/** What to do with a file over MAX_RESOLVE_BYTES, from resolve and --check alike. */
export const TOO_LARGE_ADVICE = 'a checkpoint is kilobytes: check it by hand and cut the bulk out';
export const tooLargeMessage = (bytes: number) => `${bytes} bytes, over the ${MAX_RESOLVE_BYTES}-byte limit: too large to check for conflict markers`;

/** By name alone: the skill of a checkpoint or history file under .checkpoints/, else undefined. */
export function resolvableSkill(rel: string): string | undefined {
  const parts = rel.split(sep).join('/').split('/');
  const name = parts[parts.length - 1]!;
  if (parts[0] !== '.checkpoints') return undefined;
  if (parts.length === 2) return skillFromFileName(name) ?? undefined;
  if (parts.length === 3 && parts[1] === 'history') return (ARCHIVE_NAME.exec(name) ?? ROTATION_NAME.exec(name))?.[1];
  return undefined;
}

/**
 * By name alone: a JSON file in .checkpoints/history/ named as neither an archive nor a rotation.
 * The driver leaves it to git's line merge, so a person settles it: resolve and --check say so.
 */
export function handMergedHistoryRel(rel: string): boolean {
  const parts = rel.split(sep).join('/').split('/');
  return parts.length === 3 && parts[0] === '.checkpoints' && parts[1] === 'history' && parts[2]!.endsWith('.json') && resolvableSkill(rel) === undefined;
}

/** What to do with such a file, holding git's markers or unmerged: `arg` as the user types it. */
export const handMergedFix = (arg: string): string => `${HAND_MERGED_HISTORY_NOTE}: settle it by hand, then \`git add ${arg}\``;

/** By name alone: a file `resolve` refuses rather than passes over (a misnamed `*.checkpoint.json` directly in .checkpoints/). */
export function misnamedCheckpointRel(rel: string): boolean {
  const parts = rel.split(sep).join('/').split('/');
  return parts.length === 2 && parts[0] === '.checkpoints' && isMisnamedCheckpoint(parts[1]!);
}

/** How many misnamed files resolve's refusal names before "and N more": `resolve --check` lists them all. */
const MISNAMED_SHOWN = 3;

/**
 * Refuses, in one line, the misnamed checkpoint files among `rels` (repo-relative): the first
 * MISNAMED_SHOWN, each quoted (a name may hold a space or a comma), then how many more, and
 * `resolve --check` named for the full list. Resolve never writes one, and says so before any write.
 */
export function refuseMisnamed(rels: readonly string[]): void {
  const misnamed = rels.map((rel) => rel.split(sep).join('/')).filter((rel) => resolvableSkill(rel) === undefined && misnamedCheckpointRel(rel));
  if (misnamed.length === 0) return;
  if (misnamed.length === 1) throw misnamedRefusal(misnamed[0]!);
  const what = `${misnamed.length} checkpoint files whose names are not valid skill names, so resolve will not write them`;
  throw new CheckpointError('E_PATH', `${shownList(misnamed, MISNAMED_SHOWN, quotedPath)}: ${what}: rename each to <skill>.checkpoint.json, the skill in ${SKILL_NAME_RULE}`, {
    hint: `\`checkpoint resolve --check\` lists every one; ${misnamedAdvice(misnamed.length)}, then rerun \`checkpoint resolve\``,
  });
}

/**
 * What to do with `n` misnamed conflicted files, which resolve refuses: the two ways that work.
 * A conflicted file cannot be renamed with git mv, so the rename is spelled out.
 */
export function misnamedAdvice(n: number): string {
  const [it, its, them] = n === 1 ? ['it', 'its', 'it'] : ['each', 'their', 'them'];
  return `settle ${its} markers by hand and git add ${them}, or rename ${it} to <skill>.checkpoint.json with mv, then git rm --cached the old name (git mv refuses a conflicted file)`;
}

/** A path in resolve's refusals: quoted, with a path's room (twice a value's) before it is cut. */
const quotedPath = (rel: string) => quoted(rel, MAX_SHOWN_PATH_CHARS);

/** Resolve's refusal of one misnamed checkpoint file (`rel` with forward slashes): why its name is none, and what to do. */
function misnamedRefusal(rel: string): CheckpointError {
  return new CheckpointError('E_PATH', `${quotedPath(rel)}: ${misnamedReason(rel.slice(rel.lastIndexOf('/') + 1), 'resolve will not write it')}`, {
    hint: `${misnamedAdvice(1)}, then rerun \`checkpoint resolve\``,
  });
}

/**
 * What an unmerged file missing from the work tree is, and what to do: bring it back (the merge
 * again, or in a modify/delete conflict the changed side, or accept the deletion, the changed side
 * archived); deleted or renamed on both sides (DD), accept the deletion; added by one side alone
 * in a rename conflict (AU, UA), drop it or take that side back. No merge to redo in those three:
 * `git checkout --merge` refuses them.
 */
export function missingConflict(root: string, rel: string): { what: string; advice: string } {
  const gone = "missing from the work tree, but git's index still holds its merge";
  const stages = readStages(root, rel);
  const arg = pathArg(root, rel);
  if (stages && 'deleted' in stages) {
    return { what: gone, advice: `bring the changed side back with \`git checkout --${stages.deleted === 'ours' ? 'theirs' : 'ours'} -- ${arg}\`, then rerun \`checkpoint resolve\`; or accept the deletion with \`checkpoint resolve --accept-deletion ${arg}\` (the changed side is archived in history/)` };
  }
  const code = stages === null ? conflictAt(root, rel) : undefined;
  if (code === 'DD') return { what: `deleted or renamed on both sides (DD), and still unmerged in git's index`, advice: `${conflictReportAt(root, rel, code, false).repair}, then rerun \`checkpoint resolve\`` };
  if (code === 'AU' || code === 'UA') return { what: `missing from the work tree, but git's index still holds it unmerged ${conflictHow(code)}`, advice: conflictReportAt(root, rel, code, false, typeConflictCopy(root, rel)).repair };
  return { what: gone, advice: `bring it back with \`git checkout --merge -- ${arg}\`, then rerun \`checkpoint resolve\`` };
}

function isModifyDelete(root: string, rel: string): boolean {
  const stages = readStages(root, rel);
  return stages !== null && 'deleted' in stages;
}

export interface ResolvableFile {
  /** Repo-relative, with forward slashes. */
  rel: string;
  abs: string;
  /** The skill whose lock guards a write. */
  skill: string;
}

/**
 * The file `resolve` may read and rewrite, or a one-line E_PATH: only
 * .checkpoints/<skill>.checkpoint.json and history/ archive or rotation files, reached the
 * way safe-fs reaches every project file (no link out of the project, no loop), a plain file
 * of sane size (never a FIFO or a device).
 */
export function resolvableFile(root: string, rel: string, unmerged?: ReadonlySet<string>, opts: { acceptDeletion?: boolean } = {}): ResolvableFile {
  const parts = rel.split(sep).join('/').split('/');
  const refuse = (what: string, hint = 'resolve works on .checkpoints/<skill>.checkpoint.json and .checkpoints/history/ files only'): never => {
    throw new CheckpointError('E_PATH', `${shownPath(rel)}: ${what}`, { hint });
  };
  if (parts[0] !== '.checkpoints' || parts.includes('..')) refuse('not a file under .checkpoints/');
  // Settings, not a checkpoint: merged by hand, as every command that meets its markers says.
  if (parts.join('/') === CONFIG_REL && configHoldsMarkers(root)) refuse(configConflict(root), 'resolve merges checkpoints only; no command merges settings');
  const skill = resolvableSkill(rel);
  // Never written: its name is no skill to lock by, and may hold a newline or ESC.
  if (!skill && misnamedCheckpointRel(rel)) throw misnamedRefusal(parts.join('/'));
  if (!skill && handMergedHistoryRel(rel)) refuse(HAND_MERGED_HISTORY_NOTE, `settle it by hand, then \`git add ${pathArg(root, parts.join('/'))}\``);
  if (!skill) refuse('not a checkpoint or history file');
  const abs = join(root, ...parts);
  const loc = statProjectFile(root, abs);
  // Removed from the work tree mid-merge (git rm, an archive): git's stages still hold both sides.
  // A deletion accepted needs no file: the changed side is archived from git's stage.
  if (!loc && unmerged?.has(parts.join('/')) && opts.acceptDeletion && isModifyDelete(root, parts.join('/'))) return { rel: parts.join('/'), abs, skill: skill! };
  if (!loc && unmerged?.has(parts.join('/'))) {
    const missing = missingConflict(root, parts.join('/'));
    refuse(missing.what, missing.advice);
  }
  if (!loc) refuse('no such file in this repository', 'check the path (it is taken relative to the current directory)');
  // The advice --check gives for it, not the one for a path resolve never takes (red team 64 r2).
  if (loc!.stat!.size > MAX_RESOLVE_BYTES) refuse(`${loc!.stat!.size} bytes, over the ${MAX_RESOLVE_BYTES}-byte limit`, TOO_LARGE_ADVICE);
  return { rel: parts.join('/'), abs, skill: skill! };
}
