// Doctor's checks: each a small function from one checkpoint (or the repo) and the git
// evidence to findings. None of them runs anything a checkpoint says (done_when included).
import { lstatSync } from 'node:fs';
import { projectEntry, realRoot, type ProjectEntry } from '../store/safe-fs.js';
import { quoted, shown, shownPath } from '../one-line.js';
import { basename, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { isSkillName, skillFromFileName } from '../store/skill-name.js';
import { ageDays, isStale, STALE_DAYS } from '../protocol/priority.js';
import type { Checkpoint } from '../protocol/types.js';
import { readable, type Loaded } from '../read/load.js';
import { repairReason } from '../read/repair.js';
import { readActionText, repairPlan } from '../protocol/repairable.js';
import { fieldPlaces, listEntries } from '../protocol/field-places.js';
import { pathArg } from '../store/paste-path.js';
import type { Finding } from './types.js';
import { fixFields, markAllDeletedCommand, markGoneCommand, resaveCommand, splitGoneCommand, updateIt } from './fix-commands.js';
import { lookupVerified, type Evidence } from './evidence.js';
import { mayPrecedeUnzonedSave, queuedAt, toSeconds, unzonedSave, type Unzoned } from './instants.js';
import { broughtInBy, descendsFrom } from './after.js';
import { actionLandings } from './follow-ups.js';
import { waitLandings } from './blocker-waits.js';
import { withActionRefs, workTexts } from '../protocol/action-refs.js';
import { bracketsOnly, commitToken, entryNote, entryParts, globBase, goneNote, hasGlob, HOME_PATH, isGuessedCommitToken, madeLater, parseEntry, plannedNote, proseParts, underProjectName, WINDOWS_ABSOLUTE, type EntryTarget } from './entries.js';
import { globMatcher } from '../glob.js';
import { matchGlob, type OddMatch } from './match-files.js';
import { gainedFiles } from './gained.js';
import { removes } from '../git/renames.js';
import { isOutside, NOTHING_OUTSIDE, type OutsideCheckout } from '../git/skip-worktree.js';
import { resolveGitDirsSync, type GitDirs } from '../git/locate.js';
import type { CommitInfo, GitHistory } from '../git/types.js';
import { NEVER_SAME, type SameAsSaved } from './net-change.js';
import { editsInPlace, NOTHING_COSMETIC, type Cosmetic } from './cosmetic.js';
// Which validator warnings are advice is decided once, beside the validator: validate shares it.
import { warningLevel } from '../protocol/validate.js';
import { withoutTrailingSeparators, withoutTrailingSlashes } from '../text-ends.js';

const iso = (sec: number) => new Date(sec * 1000).toISOString();
/** Said of a tie only while the checkpoint's save is not committed (checkGeneratedFiles drops it otherwise): a commit of it would let the graph decide. */
const UNTIL_COMMITTED = ' (nor can it while the save is not committed)';
/**
 * A commit's date as a finding quotes it; for one the commit graph places after an instant its
 * date is before (after.ts: a clock behind, a rebase that kept it), said so.
 */
const dated = (commit: Pick<CommitInfo, 'time'>, after: number) =>
  `${iso(commit.time)}${commit.time === Math.floor(after) ? `, in the save's own second: commit times are whole seconds, and git's graph does not place it before the save${UNTIL_COMMITTED}` : commit.time < after ? ', dated before it but made after its commit' : ''}`;
const short = (sha: string) => sha.slice(0, 7);

export function checkSchema(l: Loaded): Finding[] {
  if (l.problem) {
    // A misnamed file by its real name too (`skill` its stem): a script can act on it.
    const file = l.misnamed ? { evidence: { file: `${CHECKPOINTS_DIR}/${basename(l.path)}` } } : {};
    // One git's index holds unmerged: with each way out of the merge, as status names it.
    return [{ level: 'error', check: l.misnamed ? 'file-name' : 'schema', skill: l.skill, path: '', message: l.conflict ? repairReason(l) : l.problem, ...file }];
  }
  const v = l.validation!;
  // Errors that are all hand-written slips: the file is checked for drift as status, next and resume read it.
  const notes = v.errors.length ? readable(l)?.notes ?? [] : [];
  // Every slip: each is listed above, and the line promises the update that fixes them all.
  const plan = notes.length ? repairPlan(l.skill, notes, Infinity) : null;
  const how = plan && [...(plan.command === null ? [] : [`fix: ${plan.command}`]), ...(plan.byHand.length ? [`by hand: ${plan.byHand.join('; ')}`] : [])].join('; ');
  return [
    ...v.errors.map((e): Finding => ({ level: 'error', check: 'schema', skill: l.skill, path: e.path, message: e.message })),
    ...(plan === null ? [] : [{ level: 'info', check: 'schema', skill: l.skill, path: '', message: `the errors above are hand-written slips: drift is checked on the file as written; ${how}`, ...fixFields(plan.command) } satisfies Finding]),
    // The validator's other warnings are bookkeeping (a blocker naming no row, blocked with no
    // blocker, a tripped budget gate: the protocol's signal, its policy the owner's): advice here,
    // as git contradicts none of it. An updated_at in the future skews every dating: drift's business.
    ...v.warnings.map((w): Finding => ({ level: w.path === 'updated_at' ? warningLevel(w) : 'advice', check: 'schema', skill: l.skill, path: w.path, message: w.message })),
  ];
}

/**
 * Where project_dir lies, from the checkout's own path: this checkout, a folder in it, or
 * elsewhere. Judged by its text alone: a path outside the repository is never looked up, as
 * generated_files outside it are not. The clone chooses it: opening a share
 * (\\host\share, //host/share) on Windows connects to that host with the user's
 * credentials, and even a local look-up would tell a clone (in a CI log) what exists.
 */
export type ProjectDirPlace = { kind: 'here' } | { kind: 'inside'; rel: string } | { kind: 'elsewhere'; network: boolean };

/** A UNC share or device path, either slash (`\\host\share`, `//host/share`, `\\?\UNC\…`). */
const NETWORK_PATH = /^[\\/]{2}/;

export function projectDirPlace(written: string, root: string): ProjectDirPlace {
  const elsewhere = { kind: 'elsewhere', network: NETWORK_PATH.test(written) } as const;
  // A Windows path read on POSIX, another machine's home, a NUL no path holds: none of this checkout.
  if (written.includes('\0') || HOME_PATH.test(written) || (sep === '/' && WINDOWS_ABSOLUTE.test(written))) return elsewhere;
  // Text only: resolve and relative touch no file (a relative project_dir is read from the top).
  const abs = resolve(root, written);
  for (const top of new Set([root, realRoot(root)])) {
    const rel = relative(top, abs);
    if (rel === '') return { kind: 'here' };
    if (!rel.startsWith('..') && !isAbsolute(rel)) return { kind: 'inside', rel: sep === '/' ? rel : rel.split(sep).join('/') };
  }
  return elsewhere;
}

/** A project_dir other than this checkout is normal for a checkout made on another machine. */
export function checkProjectDir(cp: Checkpoint, root: string, inGitRepo: boolean, exists: Exists = existsIn(root)): Finding[] {
  // A blank or missing project_dir is already an error with its fix: nothing to look for.
  if (typeof cp.project_dir !== 'string' || !cp.project_dir.trim()) return [];
  const place = projectDirPlace(cp.project_dir, root);
  // A folder of this repository (a monorepo's package) is looked for in it, never through a link out.
  if (place.kind === 'here' || (place.kind === 'inside' && exists(place.rel))) return [];
  const dir = shownPath(cp.project_dir);
  const base = { level: inGitRepo ? 'info' : 'warning', check: 'project_dir', skill: cp.skill, path: 'project_dir' } as const;
  if (place.kind === 'inside') return [{ ...base, message: `project_dir ${dir} is a folder this checkout does not have (${shown(place.rel)})` }];
  const network = place.network ? '; a network path, never opened' : '';
  return [{
    ...base,
    message: inGitRepo
      ? `project_dir ${dir} is not this checkout (written in another checkout; this one is ${shownPath(root)})${network}`
      : `project_dir ${dir} is not this folder (${shownPath(root)}), and this checkpoint is not in a git repository${network}`,
  }];
}

export function checkStaleness(cp: Checkpoint, now: Date): Finding[] {
  if (!isStale(cp, now)) return [];
  const days = Math.floor(ageDays(cp, now));
  return [{
    // A finished skill left alone is expected; open work left alone is a question to answer.
    level: cp.status === 'complete' ? 'advice' : 'warning',
    check: 'stale',
    skill: cp.skill,
    path: 'updated_at',
    message: `${cp.status} and not updated for ${days} days (stale after ${STALE_DAYS[cp.status]}); confirm it still reflects the work`,
  }];
}

export interface FileContext {
  root: string;
  evidence: Evidence;
  checkpointRel: string;
  /** What the index keeps out of the work tree (a sparse checkout), read when first asked. */
  outside?: () => OutsideCheckout;
  /** Whether a repo-relative path exists (existsIn: one answer per path per run). */
  exists?: Exists;
  /** Whether the index holds a path (asked only about listed files and bare names the work tree lacks). */
  inIndex?: (path: string) => boolean;
  /** HEAD's files under the folders a sparse index folds where a pattern matching nothing here may look (foldedPatternDirs). */
  headFolded?: ReadonlySet<string>;
  /** How far back (seconds; 0: all of HEAD's history) a missing file the walk does not explain was searched for its removal; undefined: not searched. */
  removalsSince?: number;
  /** The file writes updated_at without its zone (savedWithoutZone). */
  unzoned?: Unzoned;
  /** Whether a file holds now the blob it held at the save (net-change.ts): commits that changed it back are no drift. */
  sameAsSaved?: SameAsSaved;
  /** Whether a commit's edit of a file only touched line endings or trailing whitespace (cosmetic.ts): no drift. */
  cosmetic?: Cosmetic;
}

/**
 * Whether something is at a repo-relative path under the root (a file or folder, a FIFO, a link
 * out of the repository: the checks tell those apart with `at`). What lies beyond a link out is never looked at.
 */
export interface Exists {
  (rel: string): boolean;
  /** What is at the path, told without reading through a link out of the repository (safe-fs projectEntry). */
  at?: (rel: string) => ProjectEntry;
}

/**
 * What is at each path, asked once per path in a run: the checkpoints of one run list the same
 * files, and each check asks again (a fresh one per run, as files come and go between runs).
 */
export function existsIn(root: string): Exists {
  const memo = new Map<string, ProjectEntry>();
  const at = (rel: string) => {
    let found = memo.get(rel);
    if (found === undefined) memo.set(rel, (found = projectEntry(root, rel)));
    return found;
  };
  // Beyond a link out nothing is known to be there (the same answer whatever lies outside); a link itself is there.
  const there = (entry: ProjectEntry, rel: string) => entry.kind !== 'missing' && !(entry.kind === 'link-out' && entry.link !== rel);
  return Object.assign((rel: string) => there(at(rel), rel), { at });
}

/** A plain file or folder at the path (not a FIFO, not reached through a link out): what the checks can read. */
export function plainAt(exists: Exists, root: string, rel: string): boolean {
  const kind = (exists.at ?? ((r: string) => projectEntry(root, r)))(rel).kind;
  return kind === 'file' || kind === 'folder';
}

/**
 * What a listed path is when doctor cannot check it, or null: "is a FIFO, not a plain file", "is a
 * symlink out of the repository (to /etc/passwd)", "is reached through docs/out, a symlink out of
 * the repository (to /tmp/out)". Git tracks none of them as a file (a link as a link, nothing
 * beyond one, no FIFO at all), so it is a note, the same whatever lies outside.
 */
export function notAFile(rel: string, entry: ProjectEntry): string | null {
  if (entry.kind === 'special') return `is ${entry.what}, not a plain file`;
  if (entry.kind !== 'link-out') return null;
  const out = `${linkOut(entry)} (to ${shownPath(entry.to)})`;
  return entry.link === rel ? `is ${out}` : `is reached through ${shownPath(entry.link)}, ${out}`;
}

/** A link out in a reader's words: validate's own for one into the git folder, which is inside the root but no project file. */
function linkOut(entry: { gitFolder?: true }): string {
  return entry.gitFolder ? 'a symlink into the git folder' : 'a symlink out of the repository';
}

/** Where a path no file of the repository lies, in a reader's words: "in the git folder" (.git/config), else "outside the repository". */
export function whereOutside(root: string, file: string): string {
  return intoGitFolder(root, file) ? 'in the git folder' : 'outside the repository';
}

/** Why an entry names nothing a session may read in the repository (outOfRepo). */
export interface OutOfRepo {
  /** The path judged: as written for one outside, repo-relative for a link out (or what lies through one) or a FIFO. */
  file: string;
  kind: 'outside' | 'symlink-out' | 'not-a-file';
  /** In a reader's words: "outside the repository", "in the git folder", "a symlink out of the repository", "a FIFO, not a plain file". */
  note: string;
  /** For "/src/a.ts": the same path from the repository's top, a file after all when git knows it (doctor finds it gone). */
  fromTop?: string;
}

/**
 * What an entry's target is when it leads out of the repository or to no plain file, as the
 * generated_files check notes it ("names a path outside the repository", notAFile), or null: a
 * file in the repository, missing or not, the repository itself, or a note. A pattern is one
 * when every alternative lies outside, or it matches only such things. From the work tree alone
 * (lstat, no read through a link out, no history).
 */
export function outOfRepo(t: GeneratedTarget, root: string, exists: Exists): OutOfRepo | null {
  const outside = (file: string): OutOfRepo => ({ file, kind: 'outside', note: whereOutside(root, file) });
  const odd = (rel: string, entry: ProjectEntry): OutOfRepo | null => {
    if (entry.kind === 'special') return { file: rel, kind: 'not-a-file', note: `${entry.what}, not a plain file` };
    if (entry.kind !== 'link-out') return null;
    return { file: rel, kind: 'symlink-out', note: entry.link === rel ? linkOut(entry) : `reached through ${entry.link}, ${linkOut(entry)}` };
  };
  const { target } = t;
  // A file:// URL is a path as written another way ("file:///home/me/.ssh/id_rsa"): outside when its path is.
  if (target.kind === 'note') return target.outside !== undefined ? { ...outside(target.outside), fromTop: target.name! } : target.url !== undefined && fileUrlOutside(target.url, root) ? outside(target.url) : null;
  if (target.kind === 'pattern') {
    if (!target.alternatives.some((a) => repoRelative(root, a) !== null)) return outside(target.text);
    const found = resolvePattern(root, target.alternatives, exists);
    if (found.matches.length || found.odd === null) return null;
    // The link is the pattern's fixed folder ("docs/etc" of "docs/etc/*.conf"): what it names lies through it.
    const { path: at, entry } = found.odd;
    if (entry.kind === 'link-out' && !found.test(at)) return { file: target.text, kind: 'symlink-out', note: `reached through ${entry.link}, ${linkOut(entry)}` };
    return odd(at, entry);
  }
  if (t.rel === null) return resolve(root, target.path) === resolve(root) ? null : outside(target.path);
  return odd(t.rel, (exists.at ?? ((r: string) => projectEntry(root, r)))(t.rel));
}

/**
 * Whether a URL is a file:// one naming no file of this checkout: a path outside it, another
 * host's (file://server/share/x), or one that does not parse. Text only, nothing looked up.
 */
export function fileUrlOutside(url: string, root: string): boolean {
  if (!/^file:/i.test(url)) return false;
  try {
    const parsed = new URL(url);
    if (parsed.host !== '' && parsed.host !== 'localhost') return true;
    const path = decodeURIComponent(parsed.pathname);
    // "/C:/Users/me/x" is a Windows drive path.
    return repoRelative(root, /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path) === null;
  } catch {
    return true;
  }
}

const GIT_FOLDER = /^\.git(?:[\\/]|$)/i;
const DOT_SEGMENT = /(?:^|[\\/])\.\.?(?:[\\/]|$)|[\\/]{2}/;

/** Repo-relative form of a generated_files entry, or null when it points outside the repo. */
export function repoRelative(root: string, file: string): string | null {
  const rel = writtenRelative(root, file);
  return rel === null || GIT_FOLDER.test(rel) ? null : rel;
}

/** Whether an entry names a path in the git folder (".git/config", "./.git/hooks/x", "<root>/.git/HEAD"). */
function intoGitFolder(root: string, file: string): boolean {
  const rel = writtenRelative(root, file);
  return rel !== null && GIT_FOLDER.test(rel);
}

/** repoRelative without its rule on the git folder: the path as git is asked for it, null when it lies outside the root. */
function writtenRelative(root: string, file: string): string | null {
  // On POSIX an absolute path is one starting with a slash (path.isAbsolute's own rule), asked
  // here without it: doctor asks for every entry of every checkpoint, and each path call counts
  // towards V8 optimizing node's path code, which costs more than the calls themselves.
  // A Windows drive or share path read on POSIX, or a home path ("~/x": whose home?): none in this checkout.
  if ((sep === '/' && WINDOWS_ABSOLUTE.test(file)) || HOME_PATH.test(file)) return null;
  const absolute = sep === '/' ? file.startsWith('/') : isAbsolute(file);
  const written = absolute ? relative(root, file) : file.replace(/^\.\//, '');
  // "src/../../x" climbs out through a folder, "src/./x.ts" is src/x.ts: judged as git is asked, normalized.
  const rel = DOT_SEGMENT.test(written) ? normalize(written) : written;
  // The repository itself ("."), or a NUL no path holds: no file in it. Nor is the git folder
  // (.git/config holds remote URLs, maybe tokens): git tracks nothing there, and git refuses the name in any case.
  if (!rel || rel === '.' || rel.includes('\0') || rel.startsWith('..') || (sep === '/' ? rel.startsWith('/') : isAbsolute(rel))) return null;
  return sep === '/' ? rel : rel.split(sep).join('/');
}

/**
 * An absolute path under the checkpoint's own project_dir, written in another checkout
 * ("/home/claude/demo/src/c.ts", project_dir "/home/claude/demo"), as the same path in this one;
 * any other path as written. A Windows project_dir ("C:\\Users\\me\\proj") maps as Windows
 * reads paths: either slash, any case; a home one ("~/proj") maps the paths written under it.
 * Null when project_dir maps nothing (relative, "/", this checkout).
 */
export function fromProjectDir(cp: Checkpoint, root: string): ((path: string) => string) | null {
  const written = typeof cp.project_dir === 'string' ? cp.project_dir : '';
  if (sep !== '/' || DOT_SEGMENT.test(written) || written.includes('\0')) return null;
  if (WINDOWS_ABSOLUTE.test(written)) {
    const dir = withoutTrailingSlashes(written.replace(/\\/g, '/'));
    // A drive's root ("C:\\") maps nothing, as "/" does not.
    if (/^[A-Za-z]:$/.test(dir)) return null;
    // Compared lowercased, cut at the length written (lowercasing may change a length).
    const [cut, prefix] = [dir.length + 1, `${dir}/`.toLowerCase()];
    return (path) => {
      if (!WINDOWS_ABSOLUTE.test(path)) return path;
      const slashed = path.replace(/\\/g, '/');
      return slashed.slice(0, cut).toLowerCase() === prefix ? `${root}/${slashed.slice(cut)}` : path;
    };
  }
  const dir = withoutTrailingSlashes(written);
  if (!(dir.startsWith('/') || dir.startsWith('~/')) || dir === root) return null;
  const prefix = `${dir}/`;
  return (path) => (path.startsWith(prefix) && repoRelative(root, path) === null ? `${root}/${path.slice(prefix.length)}` : path);
}

/** Text compared as a Windows path would be (either slash, any case): whether an entry names project_dir. */
const comparable = (text: string) => text.replace(/\\/g, '/').toLowerCase();

/** One generated_files entry resolved against the work tree. */
export interface GeneratedTarget {
  /** The entry's JSON path (`context_primer.generated_files[2]`, or a top-level `generated_files[0]`). */
  path: string;
  entry: string;
  target: EntryTarget;
  /** For a literal path: its repo-relative form (null when it points outside the repo). */
  rel: string | null;
  /** A file the entry's prose names ("see docs/auth.md for details"), not the entry's own path. */
  prose?: true;
  /** The part of the entry this target is read from, as written ("src/b.ts" of "src/a.ts, src/b.ts"; the entry itself when it is one). */
  part: string;
}

/** Per loaded checkpoint (a fresh object each run): doctor asks for its targets twice. */
const targetsOf = new WeakMap<Checkpoint, { root: string; targets: GeneratedTarget[] }>();

/**
 * `entries`: what each entry text resolved to in this run, shared by the checkpoints of one
 * run (they often list the same files); never kept across runs, as files come and go.
 */
export function generatedTargets(cp: Checkpoint, root: string, entries: Map<string, Omit<GeneratedTarget, 'path' | 'entry' | 'part'>> = new Map(), exists: Exists = existsIn(root)): GeneratedTarget[] {
  const known = targetsOf.get(cp);
  if (known?.root === root) return known.targets;
  const targets = readTargets(cp, root, entries, exists);
  targetsOf.set(cp, { root, targets });
  return targets;
}

/**
 * How `cp`'s entries read in the work tree: each path as inProjectFolder maps it, and whether it
 * is there, which decides how an entry splits into parts (entryParts).
 */
function entryReading(cp: Checkpoint, root: string, existsRel: Exists): { mapped: (p: string) => string; exists: (p: string) => boolean } {
  // The top has it: a file or folder there, or a pattern's match (a path with brackets may be either).
  const atTop = (rel: string) => existsRel(rel) || (hasGlob(rel) && matchGlob(root, rel, 1).files.length > 0);
  const mapped = inProjectFolder(cp, root, atTop);
  const exists = (p: string) => {
    const rel = repoRelative(root, mapped(p));
    return rel !== null && existsRel(rel);
  };
  return { mapped, exists };
}

function readTargets(cp: Checkpoint, root: string, entries: Map<string, Omit<GeneratedTarget, 'path' | 'entry' | 'part'>>, existsRel: Exists): GeneratedTarget[] {
  // context_primer's list, then one written at the top level: each entry checked alike, under its own path.
  const files = listEntries(cp, 'generated_files');
  if (!files.length) return [];
  const fromDir = fromProjectDir(cp, root);
  const sub = projectSubfolder(cp, root);
  const { mapped, exists } = entryReading(cp, root, existsRel);
  const dir = fromDir ? comparable(cp.project_dir) : '';
  const [ownName] = projectNames(cp, root);
  return files.flatMap(({ path, entry }) => {
    if (typeof entry !== 'string') return [];
    // "src/a.ts, src/b.ts": each part is checked, under the entry's path and text; so is each file prose names.
    const parts = entryParts(entry, exists);
    const prose = parts.length === 1 ? proseParts(entry, exists) : null;
    return (prose ?? parts).map((part) => {
      // An entry naming project_dir or its folder's name, or read from a package's folder, reads differently per checkpoint: kept apart by it.
      const key = (fromDir && comparable(part).includes(dir)) || sub !== null || (ownName !== undefined && part.includes(ownName)) ? `${cp.project_dir}\0${part}` : part;
      let resolved = entries.get(key);
      if (!resolved) {
        const parsed = parseEntry(part, exists);
        const target = fromRepoTop(inCheckout(parsed, mapped), root, existsRel);
        entries.set(key, (resolved = { target, rel: target.kind === 'path' ? repoRelative(root, target.path) : null }));
      }
      return { path, entry, part: part.trim(), ...resolved, ...(prose ? { prose: true as const } : {}) };
    });
  });
}

/**
 * How a checkpoint's entry reads in this checkout: fromProjectDir's mapping, then, for a package's
 * checkpoint kept at the repository's top (a monorepo: project_dir `<repo>/packages/app`), which
 * lists its files from its own folder ("src/index.ts", "gen/*.ts"), a relative path or pattern read
 * from that folder unless the top has it (`atTop`, repo-relative: a file or folder there, a
 * pattern's match). A path gone from both is the package's too, so its deletion is looked for
 * there; one already written from the top ("packages/app/src/x.ts") stays as written. Last, a
 * path written from the folder above the project ("demo/src/a.ts", projectNames) reads without
 * that name when only the rest is there: a real folder named so, holding the path or its folder
 * (a file deleted from it), is taken as written. The work tree's check and a pushed tip's read
 * entries alike, each `atTop` asking its own tree.
 */
export function inProjectFolder(cp: Checkpoint, root: string, atTop: (rel: string) => boolean): (path: string) => string {
  const fromDir = fromProjectDir(cp, root);
  const sub = projectSubfolder(cp, root);
  const names = projectNames(cp, root);
  const inSub = (p: string) => {
    if (sub === null || isAbsolute(p)) return p;
    const rel = repoRelative(root, p);
    return rel === null || rel.startsWith(`${sub}/`) || atTop(rel) ? p : `${sub}/${rel}`;
  };
  const read = (p: string) => inSub(fromDir ? fromDir(p) : p);
  const there = (p: string) => {
    const rel = repoRelative(root, p);
    return rel !== null && atTop(rel);
  };
  return (p) => {
    const asWritten = read(p);
    const rest = underProjectName(p, names);
    if (rest === null || there(asWritten) || there(folderOf(asWritten))) return asWritten;
    const inner = read(rest);
    return there(inner) ? inner : asWritten;
  };
}

/** The folder a path or pattern lies in ("demo/src" of "demo/src/a.ts", "demo/src/*.ts", "demo/src/gen/"). */
function folderOf(path: string): string {
  if (hasGlob(path)) return globBase(path);
  const trimmed = withoutTrailingSlashes(path);
  return trimmed.slice(0, Math.max(trimmed.lastIndexOf('/'), 0));
}

/**
 * The names of the project's folder an entry may start with when written from the folder above
 * it (underProjectName): project_dir's last name (either slash) and this checkout's folder's.
 */
export function projectNames(cp: Checkpoint, root: string): string[] {
  const written = typeof cp.project_dir === 'string' ? withoutTrailingSeparators(cp.project_dir) : '';
  const own = written.slice(Math.max(written.lastIndexOf('/'), written.lastIndexOf('\\')) + 1);
  // A drive ("C:"), a home ("~") or a dot folder names no project folder.
  return [...new Set([own, basename(root)])].filter((n) => n && !/^(?:\.\.?|~|[A-Za-z]:)$/.test(n) && !n.includes('\0'));
}

/** project_dir when it names a folder inside this repository below its top (a monorepo's package), repo-relative; else null. */
export function projectSubfolder(cp: Checkpoint, root: string): string | null {
  const written = typeof cp.project_dir === 'string' ? cp.project_dir : '';
  if (!isAbsolute(written) || written.includes('\0')) return null;
  const rel = repoRelative(root, withoutTrailingSlashes(written));
  return rel ? rel : null;
}

/** A target's paths as fromProjectDir maps them (a pattern keeps its text as written, for messages). */
function inCheckout(target: EntryTarget, mapped: (path: string) => string): EntryTarget {
  if (target.kind === 'path') return { kind: 'path', path: mapped(target.path) };
  if (target.kind === 'pattern') return { ...target, alternatives: target.alternatives.map(mapped) };
  return target;
}

/**
 * A path written from the repository's top with a leading slash ("/src/a.ts"), naming no file of
 * this checkout (red team 64: its deletion was never reported): read from the top when the work
 * tree has it there, else a name git is asked about, as a bare name is ("src/a.ts", a note saying
 * it lies outside the repository when git knows no such file). A path into this checkout, the
 * checkout itself, or one into the git folder is left as it is; nothing outside is looked at.
 */
export function fromRepoTop(target: EntryTarget, root: string, exists: (rel: string) => boolean): EntryTarget {
  if (target.kind !== 'path') return target;
  const rel = repoTopPath(root, target.path);
  if (rel === null) return target;
  return exists(rel) ? { kind: 'path', path: rel } : { kind: 'note', name: rel, outside: target.path };
}

/** "/src/a.ts" outside this checkout read from the repository's top (`src/a.ts`); null for any other path. */
export function repoTopPath(root: string, path: string): string | null {
  if (sep !== '/' || !path.startsWith('/') || path.startsWith('//')) return null;
  const asWritten = resolve(path);
  if (asWritten === root || asWritten.startsWith(`${root}/`)) return null;
  return repoRelative(root, path.slice(1));
}

/**
 * The directory a pattern alternative's matches lie under ('' for the whole repo; none outside
 * it). A literal alternative ("lib/client.ts" of "lib/{client,server}.ts") by its folder, as a
 * missing file is: a rename within it then pairs up and names the new path.
 */
export function patternBase(root: string, alternative: string): string[] {
  const rel = repoRelative(root, alternative);
  if (rel === null) return [];
  // One at the top stays itself: the whole repository's file lists would cost every walk.
  return [hasGlob(rel) ? globBase(rel) : rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : rel];
}

type ResolvedPattern = { matches: string[]; test: (path: string) => boolean; odd: OddMatch | null };

/** A brace's literal alternatives ("lib/a.ts" and "lib/b.ts" of "lib/{a,b}.ts"), repo-relative: named files, checked as such. */
export function namedAlternatives(root: string, target: Extract<EntryTarget, { kind: 'pattern' }>): string[] {
  return target.alternatives.flatMap((a) => {
    const rel = hasGlob(a) ? null : repoRelative(root, a);
    return rel === null ? [] : [rel];
  });
}

/** Per run (its evidence object): checkpoints often list the same patterns, each globbed once. */
const patternsOf = new WeakMap<Evidence, Map<string, ResolvedPattern>>();

function resolvePatternOnce(evidence: Evidence, root: string, alternatives: readonly string[], exists: Exists): ResolvedPattern {
  let memo = patternsOf.get(evidence);
  if (!memo) patternsOf.set(evidence, (memo = new Map()));
  const key = `${root}\0${alternatives.join('\0')}`;
  let resolved = memo.get(key);
  if (!resolved) memo.set(key, (resolved = resolvePattern(root, alternatives, exists)));
  return resolved;
}

/** The folded folders (sparse index) a pattern matching nothing here may name files in, each as the folder to list ('' the top). */
function foldedDirs(root: string, alternatives: readonly string[], outside: OutsideCheckout): string[] {
  const bases = alternatives.flatMap((a) => patternBase(root, a));
  return outside.folders.flatMap((f) => bases.flatMap((b) => {
    const base = b === '' ? '' : `${b}/`;
    // The narrower of the two: the folder under the pattern's base, or the base inside the folder.
    return f.startsWith(base) ? [f.slice(0, -1)] : base.startsWith(f) ? [b] : [];
  }));
}

/**
 * For patterns that match nothing in the work tree: the folded folders of a sparse index they may
 * name files in, to list in HEAD's tree (none, and `outside` not read, when every pattern matches).
 */
export function foldedPatternDirs(targets: readonly GeneratedTarget[], root: string, evidence: Evidence, exists: Exists, outside: () => OutsideCheckout): string[] {
  const dirs = new Set<string>();
  for (const { target } of targets) {
    if (target.kind !== 'pattern' || resolvePatternOnce(evidence, root, target.alternatives, exists).matches.length) continue;
    const { folders } = outside();
    if (!folders.length) return [];
    for (const d of foldedDirs(root, target.alternatives, outside())) dirs.add(d);
  }
  return [...dirs];
}

/**
 * Tests for the paths each pattern entry would match that it does not match here (no plain file
 * there; a pattern with something odd in its place is left out), to look for where a deleted match went.
 */
export function lostFromPatterns(targets: readonly GeneratedTarget[], root: string, evidence: Evidence, exists: Exists): ((path: string) => boolean)[] {
  return targets.flatMap(({ target }) => {
    if (target.kind !== 'pattern') return [];
    const { matches, odd, test } = resolvePatternOnce(evidence, root, target.alternatives, exists);
    if (odd !== null) return [];
    const here = new Set(matches);
    return [(path: string) => test(path) && !here.has(path)];
  });
}

/** Files a pattern entry matches now, and a test for paths it would match. */
function resolvePattern(root: string, alternatives: readonly string[], exists: Exists): ResolvedPattern {
  const rels = alternatives.flatMap((a) => {
    const rel = repoRelative(root, a);
    return rel === null ? [] : [rel];
  });
  const res = rels.map((rel) => globMatcher(rel));
  // What a pattern names that is no plain file (a FIFO, a link out of the repository): the first one, for the note.
  let odd: OddMatch | null = null;
  const matches = rels.flatMap((rel) => {
    if (hasGlob(rel)) {
      const found = matchGlob(root, rel, 1);
      odd ??= found.odd;
      return found.files;
    }
    if (plainAt(exists, root, rel)) return [rel];
    const entry = (exists.at ?? ((r: string) => projectEntry(root, r)))(rel);
    if (entry.kind === 'special' || entry.kind === 'link-out') odd ??= { path: rel, entry };
    return [];
  });
  return { matches, test: (path) => res.some((re) => re.test(path)), odd };
}

/**
 * Two steps, so the history is judged while git still reports the work tree: the returned
 * function takes the paths with uncommitted edits (the generated files and the checkpoint)
 * and gives the findings, in entry order.
 */
interface Touching {
  /** Commit indices (newest first) with a change at each path. */
  byPath: Map<string, number[]>;
  /** Commit indices (newest first) whose changes name a path (or a rename's old path) that is `path`, or passes a test. */
  matching: (path: string | ((path: string) => boolean)) => readonly number[];
}

/** Per walk (every checkpoint and entry asks about the same commits): which commits touch which paths. */
const touchingOf = new WeakMap<readonly CommitInfo[], Touching>();

function commitsTouching(commits: readonly CommitInfo[]): Touching {
  const known = touchingOf.get(commits);
  if (known) return known;
  const byPath = new Map<string, number[]>();
  const byName = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, path: string, i: number) => {
    const list = map.get(path);
    if (!list) map.set(path, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  commits.forEach((c, i) => {
    for (const ch of c.changes) {
      add(byPath, ch.path, i);
      add(byName, ch.path, i);
      if (ch.from !== undefined) add(byName, ch.from, i);
    }
  });
  const byTest = new Map<(path: string) => boolean, number[]>();
  const matching = (path: string | ((path: string) => boolean)): readonly number[] => {
    if (typeof path === 'string') return byName.get(path) ?? [];
    let found = byTest.get(path);
    if (!found) {
      const hits = new Set<number>();
      for (const [name, list] of byName) if (path(name)) for (const i of list) hits.add(i);
      byTest.set(path, (found = [...hits].sort((a, b) => a - b)));
    }
    return found;
  };
  const touching = { byPath, matching };
  touchingOf.set(commits, touching);
  return touching;
}

/**
 * Of `rels` (listed paths git does not track), those git ignores. A folder ("build/") is asked by a
 * name inside it: git reads a folder-only pattern ("build/") only for a path it knows is a folder,
 * and what is in an ignored folder is ignored.
 */
export async function ignoredListed(history: GitHistory, rels: readonly string[], opts: { prefilter?: string } = {}): Promise<Set<string>> {
  if (!rels.length) return new Set();
  let asked = new Map(rels.map((rel) => [rel.endsWith('/') ? `${withoutTrailingSlashes(rel)}/x` : rel, rel]));
  // `prefilter` (the work tree's root): git is asked only about what the ignore files read here
  // in-process (as the embedded engine reads them) ignore, so a plainly missing file costs no git process.
  if (opts.prefilter !== undefined) {
    const { ignoredIn } = await import('../git/ignore-rules.js');
    let dirs: GitDirs | null = null;
    try {
      dirs = resolveGitDirsSync(opts.prefilter);
    } catch {
      return new Set();
    }
    const maybe = ignoredIn(opts.prefilter, dirs, [...asked.keys()]);
    asked = new Map([...asked].filter(([path]) => maybe.has(path)));
    if (!asked.size) return new Set();
  }
  const ignored = await history.ignoredPaths([...asked.keys()]);
  return new Set([...asked].filter(([path]) => ignored.has(path)).map(([, rel]) => rel));
}

/** Whether `commit` changed `path` (or renamed it away). */
function sideChanged(commit: CommitInfo, path: string): boolean {
  return commit.changes.some((c) => c.path === path || c.from === path);
}

/** A file git does not track (neither the index nor HEAD holds it): ignored (a build output), or never added. */
export type Untracked = 'ignored' | 'untracked';

/**
 * `untracked`: of the uncommitted paths, those git does not track, which no commit ever changes.
 */
export function checkGeneratedFiles(cp: Checkpoint, ctx: FileContext): (uncommitted: ReadonlySet<string>, unsure?: ReadonlyMap<string, string>, untracked?: ReadonlyMap<string, Untracked>, ignored?: ReadonlySet<string>) => Finding[] {
  const after = toSeconds(cp.updated_at);
  // A literal file without committed changes since: a finding only if it has uncommitted edits.
  const findings: (Finding | { dirty: string; path: string; prose?: true } | Absent)[] = [];
  const base = { check: 'generated_files', skill: cp.skill } as const;
  // A complete skill's files go on changing with the code: worth a re-read before reuse, not
  // drift; so does a rename (the file lives on under its new name). A deletion stays drift.
  const changed = cp.status === 'complete' ? 'advice' : 'warning';
  const commits = ctx.evidence.commits;
  // By date, or by the commit graph where the commit that recorded the save is known (after.ts).
  const madeAfter = ctx.evidence.madeAfter(ctx.checkpointRel, null, after);
  // A save without its zone may stand for a later instant (instants.ts), except against a commit
  // the graph places after it.
  const mayPrecedeSave = (commit: CommitInfo) => mayPrecedeUnzonedSave(ctx.unzoned, cp.updated_at, commit, ctx.evidence.afterSaveByGraph?.(ctx.checkpointRel, after) ?? (() => false));
  const exists = ctx.exists ?? existsIn(ctx.root);
  const touched = commitsTouching(commits);
  // The session's own commits (which also touch its checkpoint) are not drift.
  const own = new Set(touched.byPath.get(ctx.checkpointRel));
  // The newest commit since `after` with a change whose path (or a rename's old path: a file
  // that matched and moved away changed) passes `test`, and that change. Only the commits that
  // touch a matching path are looked at, not the whole walk per entry and checkpoint.
  // A file holding the blob it held at the save was changed back since (a revert): no change of it counts.
  const same = ctx.sameAsSaved ?? NEVER_SAME;
  // An edit of only line endings or trailing whitespace changes nothing to re-read: an older real one is named instead.
  const cosmetic = ctx.cosmetic ?? NOTHING_COSMETIC;
  // `only`: of the changes, those of one kind (a pattern's removals apart from its edits).
  const changedAfter = (test: (path: string) => boolean, candidates: readonly number[], skip?: ReadonlySet<string>, only?: (change: CommitInfo['changes'][number]) => boolean): { commit: CommitInfo; file: string; change: CommitInfo['changes'][number] } | undefined => {
    for (const i of candidates) {
      const commit = commits[i]!;
      if (!madeAfter(commit) || own.has(i)) continue;
      // A rename the entry still covers at both ends ("src/*.ts": a.ts -> c.ts, same content) changes nothing it names.
      const ch = commit.changes.find((c) => (only === undefined || only(c)) && !skip?.has(c.path) && !(c.from !== undefined && skip?.has(c.from)) && !(editsInPlace(c) && cosmetic(commit.sha, c.path)) && ((c.from !== undefined && test(c.from)) ? !test(c.path) && !same(c.from) : test(c.path) && !same(c.path)));
      // A merge (a pull's "Merge branch 'main' of …") changed it against its first parent because a
      // commit it brought in from the other side did, after the save: that commit is named, with its
      // date, further down the walk (a merge is not blamed for what the merged-in side changed). One
      // dated before the save (a branch older than it, merged since) would read as a change before
      // the save: the merge, which brought it after, is named.
      if (ch && commit.parents.length > 1 && candidates.some((j) => j !== i && sideChanged(commits[j]!, ch.path) && madeAfter(commits[j]!) && commits[j]!.time >= after && !own.has(j) && broughtInBy(commits, commit, commits[j]!.sha))) continue;
      if (ch) return { commit, file: ch.path, change: ch };
    }
    return undefined;
  };
  // The files a pattern gained since the save (gained.ts), each with the index of the newest commit adding it.
  const addedAfter = (test: (path: string) => boolean, candidates: readonly number[]): Map<string, number> =>
    gainedFiles(candidates.flatMap((i) => (madeAfter(commits[i]!) && !own.has(i) ? [[i, commits[i]!] as const] : [])), test);
  // A named file the work tree lacks (a listed path, a brace's literal alternative), judged once git has said what is uncommitted.
  // `mark`: the update that says in its entry that the file is gone (markOf), null for none.
  // `unknown`: a bare name's note, when git knows no such file (missingFile).
  const missingNamed = (rel: string, path: string, entry: string, mark: MarkGone, unknown?: Finding): Finding | Absent => {
    // "src/a.ts (deleted)": the checkpoint itself says the file is gone on purpose.
    const gone = goneNote(entry);
    // "docs/api.md — to write": not made yet, as it says, unless git or the work tree shows it was.
    const planned = plannedNote(entry);
    const notYet: Finding | undefined = planned === null ? unknown : { ...base, level: 'info', path, message: `${shown(rel)} is not made${madeLater(planned) ? ' yet' : ''}, as its entry says (${shown(planned)}); not checked`, evidence: { file: rel } };
    return gone === null ? missingFile(rel, path, cp, ctx, mark, notYet) : { ...base, level: 'info', path, message: `${shown(rel)} is missing, as its entry says (${shown(gone)}); not checked`, evidence: { file: rel } };
  };
  const targets = generatedTargets(cp, ctx.root, undefined, exists);
  // A file two entries name (a literal and a glob, or the same path with and without a note) is
  // one finding, under the first literal entry naming it: a glob reports the other files it matches.
  const literal = new Set(targets.flatMap((t) => (t.target.kind === 'path' && t.rel !== null ? [t.rel] : [])));
  // A file an entry lists is judged under it, whatever prose elsewhere names it too.
  const listed = new Set(targets.flatMap((t) => (t.target.kind === 'path' && t.rel !== null && !t.prose ? [t.rel] : [])));
  const reported = new Set<string>();
  let reading: ReturnType<typeof entryReading> | undefined;
  // Whether a walked commit renamed `rel` away (the commit index by path, as missingFile reads it).
  const renamedAway = (rel: string) => {
    const { commits, removals } = ctx.evidence;
    const renames = (c: CommitInfo) => c.changes.some((ch) => ch.status === 'R' && ch.from === rel);
    return commitsTouching(commits).matching(rel).some((i) => renames(commits[i]!)) || removals.some(renames);
  };
  // The update that says in its entry that the file a target names is gone (fix-commands.ts): the
  // entry marked when it names that file alone; one listing other files too, each of them there,
  // split so the mark speaks for that file only. None for a file the entry's prose names.
  const markOf = (t: GeneratedTarget): MarkGone => {
    if (t.prose) return null;
    if (t.part === t.entry.trim()) return (what) => markGoneCommand(cp.skill, t.path, t.entry, what);
    const parts = targets.filter((o) => o.path === t.path);
    const { exists: there } = (reading ??= entryReading(cp, ctx.root, exists));
    const split = (text: string) => entryParts(text, there);
    // Every file of it deleted: the entry itself marked "deleted", a note true of each. One of them
    // renamed away gets none: the entry's one note would say the same of every file.
    const gone = (o: GeneratedTarget) => o.target.kind === 'path' && o.rel !== null && !exists(o.rel);
    if (parts.every(gone)) return (what) => (what === 'deleted' && !parts.some((o) => renamedAway(o.rel!)) ? markAllDeletedCommand(cp.skill, t.path, t.entry, split) : null);
    if (!parts.every((o) => o === t || (o.target.kind === 'path' && o.rel !== null && exists(o.rel)))) return null;
    return (what) => splitGoneCommand(cp.skill, t.path, t.entry, parts.map((o) => o.part), t.part, what, split);
  };
  for (const t of targets) {
    const { path, entry, target, rel, prose } = t;
    if (target.kind === 'note') {
      const what = target.struck !== undefined ? 'is struck out (crossed off the list)' : target.excluded ? 'is an exclusion (a pattern to leave out), not a file' : target.url === undefined ? 'names no file' : `names a URL${target.url === entry.trim() ? '' : ` (${shown(target.url)})`}, not a file in this checkout`;
      const note: Finding = target.outside === undefined ? { ...base, level: 'info', path, message: `${quoted(entry)} ${what}; read as a note, not checked` } : namesNoRepoFile(base, path, entry, false, whereOutside(ctx.root, target.outside));
      // A bare name ("Makefile") is a file when git knows it: judged as any missing file, else a note.
      findings.push(target.name === undefined ? note : missingNamed(target.name, path, entry, markOf(t), note));
      continue;
    }
    if (target.kind === 'pattern') {
      const { matches, test } = resolvePatternOnce(ctx.evidence, ctx.root, target.alternatives, exists);
      if (!target.alternatives.some((a) => repoRelative(ctx.root, a) !== null)) {
        findings.push(namesNoRepoFile(base, path, entry, false, whereOutside(ctx.root, target.text)));
        continue;
      }
      const odd = resolvePatternOnce(ctx.evidence, ctx.root, target.alternatives, exists).odd;
      if (!matches.length && odd !== null) {
        // Only a FIFO, or only what lies through a link out of the repository: nothing git can hold, the same whatever is outside.
        // The glob's fixed folder itself (it matches no name the glob takes), or a match.
        const what = `${test(odd.path) ? 'matches only' : 'looks in'} ${shownPath(odd.path)}, which ${notAFile(odd.path, odd.entry)}`;
        findings.push({ ...base, level: 'info', path, message: `${shown(target.text)} ${what}; not checked`, evidence: { file: target.text } });
        continue;
      }
      // A brace's literal alternatives ("lib/{a,b}.ts") are named files: one missing is its own
      // finding, as a listed path's (the pattern's own removal finding, below, may name it instead).
      const named = new Set(namedAlternatives(ctx.root, target));
      const absent = [...named].filter((r) => !exists(r) && !literal.has(r) && !reported.has(r));
      const wild = target.alternatives.some(hasGlob);
      if (!matches.length && !wild) {
        for (const r of absent) {
          reported.add(r);
          findings.push(missingNamed(r, path, entry, null));
        }
        continue;
      }
      if (!matches.length) {
        // What a sparse checkout leaves out may be what it names: git has it, this checkout does not.
        // A folded folder hides its files: HEAD's tree says whether one there matches (unknown: assume so).
        const outside = ctx.outside?.() ?? NOTHING_OUTSIDE;
        const folded = foldedDirs(ctx.root, target.alternatives, outside).length > 0 && (ctx.headFolded === undefined || [...ctx.headFolded].some(test));
        // A glob reaching into a submodule this clone never checked out, from inside it
        // ("vendor/lib/src/*.ts") or from above it ("vendor/*/src/*.ts", "vendor/**/x.ts").
        const subs = submodulesReached(ctx.root, target.alternatives, outside, exists.at ?? ((p) => projectEntry(ctx.root, p)));
        if (subs.length) {
          findings.push({ ...base, level: 'info', path, message: `${shown(target.text)} matches no file in this checkout: ${submoduleNotCheckedOut(ctx.root, subs)}; not checked`, evidence: { file: target.text } });
        } else if ([...outside.files].some(test) || folded) {
          findings.push({ ...base, level: 'info', path, message: `${shown(target.text)} matches no file in this checkout; a sparse checkout leaves out what it may name; not checked`, evidence: { file: target.text } });
        } else if (goneNote(entry) !== null) {
          // "src/gen/*.ts (deleted)": gone on purpose, as a listed file's note says (missingNamed).
          findings.push({ ...base, level: 'info', path, message: `${shown(target.text)} matches no file, as its entry says (${shown(entryNote(entry))}); not checked`, evidence: { file: target.text } });
        } else {
          // Its last match deleted or renamed away: that commit named, so a push making it is the cause.
          const removal = touched.matching(test).flatMap((i) => {
            const ch = commits[i]!.changes.find((c) => (c.status === 'D' && test(c.path)) || (c.from !== undefined && test(c.from) && !test(c.path)));
            return ch ? [{ commit: commits[i]!, ch }] : [];
          })[0];
          const how = removal && `its last match ${shown(removal.ch.from ?? removal.ch.path)} was ${removal.ch.status === 'D' ? 'deleted' : `renamed to ${shown(removal.ch.path)}`} in ${short(removal.commit.sha)} ${quoted(removal.commit.subject)}`;
          // A removal known is one the entry can say: none named, nothing to say it with.
          const fix = removal && markOf(t)?.(removal.ch.status === 'R' ? `renamed to ${removal.ch.path}` : 'deleted');
          const none: Finding = {
            ...base, level: 'warning', path, message: `${shown(target.text)} matches no file${how ? ` (${how})` : ''}; ${updateIt(fix ?? null)}`, ...(fix ? { fix } : {}),
            evidence: { file: target.text, missing: true, ...(removal ? { sha: removal.commit.sha, date: iso(removal.commit.time) } : {}) },
          };
          // Read as the path it may be: the commit that removed it, when history has one.
          const asPath = target.alternatives.length === 1 && bracketsOnly(target.text) ? repoRelative(ctx.root, target.alternatives[0]!) : null;
          findings.push(asPath === null ? none : missingFile(asPath, path, cp, ctx, markOf(t), none));
        }
        continue;
      }
      const candidates = touched.matching(test);
      // Only what a wildcard matches can be new to the entry: "src/{a,b}.ts" names both files, as a literal entry does.
      const added = addedAfter((p) => test(p) && !named.has(p), candidates);
      const skip = added.size ? new Set([...literal, ...added.keys()]) : literal;
      // A matched file deleted or renamed away (and not back since) is named so, as a literal
      // entry's would be; apart from the newest edit, so an edit of one match hides no removal of another.
      const goneBy = (ch: CommitInfo['changes'][number]) => {
        const gone = ch.status === 'D' ? ch.path : ch.status === 'R' && test(ch.from!) ? ch.from! : null;
        return gone !== null && !exists(gone) ? gone : null;
      };
      const removal = changedAfter(test, candidates, skip, (ch) => goneBy(ch) !== null);
      const change = changedAfter(test, candidates, skip, (ch) => goneBy(ch) === null);
      const gone = removal && goneBy(removal.change);
      if (removal && gone) {
        reported.add(gone);
        const to = removal.change.status === 'R' ? removal.file : null;
        const by = `${short(removal.commit.sha)} ${quoted(removal.commit.subject)}, ${dated(removal.commit, after)}`;
        // A file the pattern matched, not one it names ("src/{a,b}.ts"): a save after its removal is
        // what the entry stops counting it on, as for an edit. A named one is missing after it too.
        const fix = named.has(gone) ? null : resaveCommand(cp.skill);
        findings.push({
          ...base, level: to ? changed : 'warning', path, ...fixFields(fix),
          message: `${shown(gone)} (matched by ${shown(target.text)}) was ${to ? `renamed to ${to}` : 'deleted'} after the checkpoint was written (${by}); ${updateIt(fix)}`,
          evidence: { file: gone, missing: true, sha: removal.commit.sha, date: iso(removal.commit.time), ...(to ? { renamed_to: to } : {}) },
        });
      }
      // A named alternative gone before the save, or gone beside a newer removal: missing, as a listed path would be.
      for (const r of absent) {
        if (reported.has(r)) continue;
        reported.add(r);
        findings.push(missingNamed(r, path, entry, null));
      }
      if (change) {
        const unzoned = mayPrecedeSave(change.commit);
        findings.push({
          ...base, level: unzoned ? 'advice' : changed, path,
          message: `${shown(change.file)} (matched by ${shown(target.text)}) changed after the checkpoint was written (${short(change.commit.sha)} ${quoted(change.commit.subject)}, ${dated(change.commit, after)}); re-read it${unzoned ? unzonedSave(ctx.unzoned!) : ''}`,
          evidence: { file: change.file, sha: change.commit.sha, date: iso(change.commit.time) },
        });
      } else if (added.size && !removal) {
        // The newest file gained that is still here, if one is.
        const [file, i] = [...added].filter(([f]) => exists(f)).sort((a, b) => a[1] - b[1])[0] ?? [];
        if (file === undefined) continue;
        const commit = commits[i!]!;
        findings.push({
          ...base, level: 'info', path,
          message: `${shown(file)} (matched by ${shown(target.text)}) was added after the checkpoint was written (${short(commit.sha)} ${quoted(commit.subject)}, ${dated(commit, after)}); new to it, not drift`,
          evidence: { file, sha: commit.sha, date: iso(commit.time) },
        });
      }
      continue;
    }
    if (rel === null) {
      findings.push(namesNoRepoFile(base, path, entry, resolve(ctx.root, target.path) === resolve(ctx.root), whereOutside(ctx.root, target.path)));
      continue;
    }
    if (reported.has(rel) || (prose && listed.has(rel))) continue;
    reported.add(rel);
    const odd = notAFile(rel, (exists.at ?? ((r: string) => projectEntry(ctx.root, r)))(rel));
    if (odd !== null) {
      findings.push({ ...base, level: 'info', path, message: `${shown(rel)} ${odd}; not checked`, evidence: { file: rel } });
      continue;
    }
    if (!exists(rel)) {
      findings.push(missingNamed(rel, path, entry, markOf(t)));
      continue;
    }
    const change = changedAfter((p) => p === rel, touched.matching(rel));
    // Prose naming a file says less than a listed path does (it may only be context): a change to it is advice, never a block.
    const named = prose ? `${shown(rel)}, which the entry's prose names,` : shown(rel);
    if (change) {
      const unzoned = mayPrecedeSave(change.commit);
      findings.push({
        ...base, level: prose || unzoned ? 'advice' : changed, path,
        message: `${named} changed after the checkpoint was written (${short(change.commit.sha)} ${quoted(change.commit.subject)}, ${dated(change.commit, after)}); re-read it${unzoned ? unzonedSave(ctx.unzoned!) : ''}`,
        evidence: { file: rel, sha: change.commit.sha, date: iso(change.commit.time) },
      });
    } else findings.push({ dirty: rel, path, ...(prose ? { prose } : {}) });
  }
  return (uncommitted, unsure, untracked, ignored) => findings.flatMap((f): Finding[] => {
    if ('absent' in f) return [f.finding(uncommitted.has(f.absent), uncommitted.has(ctx.checkpointRel), ignored?.has(f.absent) ?? false)];
    if (!('dirty' in f)) return [uncommitted.has(ctx.checkpointRel) && !ctx.evidence.keptSave?.(ctx.checkpointRel) ? f : { ...f, message: f.message.replace(UNTIL_COMMITTED, '') }];
    if (!uncommitted.has(f.dirty)) return [];
    // A build output or a file never added: git holds no version of it to drift from.
    const kind = untracked?.get(f.dirty);
    if (kind !== undefined) {
      const why = kind === 'ignored' ? 'is ignored by git (a build output?)' : 'is not tracked by git (never added: commit it if the work needs it)';
      return [{ ...base, level: 'info', path: f.path, message: `${shown(f.dirty)} ${why}; not checked`, evidence: { file: f.dirty } }];
    }
    // An engine that could not compare as git does says so, rather than claiming an edit.
    const why = unsure?.get(f.dirty);
    const claim = why === undefined ? 'has uncommitted edits' : `may have uncommitted edits (not checked exactly: the embedded engine does not follow ${shown(why)}; git on PATH checks it)`;
    // Last modified before the checkpoint was written (same second: after, as a commit is): the checkpoint saw the edits.
    const modified = modifiedAt(join(ctx.root, f.dirty));
    if (modified < after) return [{ ...base, level: 'info', path: f.path, message: `${shown(f.dirty)} ${claim}, last modified ${iso(modified)}, before the checkpoint was written`, evidence: { file: f.dirty, date: iso(modified) } }];
    // The checkpoint itself has uncommitted edits written after this one: the session is mid-save,
    // and that save may describe it (a note). An edit after the checkpoint's last write, whether or
    // not that write is committed, is one no save saw: drift, as a committed save's is (red team 60, 10).
    const midSave = uncommitted.has(ctx.checkpointRel) && !(modifiedMs(join(ctx.root, f.dirty)) > modifiedMs(join(ctx.root, ctx.checkpointRel)));
    const level = midSave ? 'info' : f.prose ? 'advice' : changed;
    return [{ ...base, level, path: f.path, message: `${shown(f.dirty)}${f.prose ? ", which the entry's prose names," : ''} ${claim} made after the checkpoint; re-read it`, evidence: { file: f.dirty } }];
  });
}

/** The second a file was last modified (lstat: a link is not followed), NaN when it cannot be read. */
function modifiedAt(file: string): number {
  return Math.floor(modifiedMs(file) / 1000);
}

/** When a file was last modified, ms (lstat), NaN when it cannot be read. */
function modifiedMs(file: string): number {
  try {
    return lstatSync(file).mtimeMs;
  } catch {
    return Number.NaN;
  }
}

/** An entry naming a path outside the repository (or the repository itself): a note, as doctor cannot check it. */
function namesNoRepoFile(base: { check: 'generated_files'; skill: string }, path: string, entry: string, itself: boolean, where: string): Finding {
  const what = itself ? 'the repository itself, not a file in it' : `a path ${where}`;
  return { ...base, level: 'info', path, message: `${quoted(entry)} names ${what}; not checked` };
}

/** The update that says in its entry that a file is gone, given how (`what`: "deleted", "renamed to src/c.ts"); null: none. */
type MarkGone = ((what: string) => string | null) | null;

/** A missing file's finding, once git has said whether the path has uncommitted changes. */
interface Absent {
  absent: string;
  finding: (uncommitted: boolean, midSession: boolean, ignored: boolean) => Finding;
}

/**
 * A listed file that is not in the work tree, judged once git has said whether the path has
 * uncommitted changes, in this order:
 *  - git lists it: HEAD has it and the work tree lost it, a deletion or move not yet committed
 *    (whatever older history says); so is a file only the index holds (staged, never committed);
 *  - the index holds it as skip-worktree: HEAD has it, a sparse checkout leaves it out: a note;
 *  - it lies in a submodule the index records and this clone never checked out: a note;
 *  - a commit took it away: the newest walked commit that touched it, when that commit removed it
 *    (deleted, or renamed away), else past the walk its newest removal in older history;
 *  - a sparse index folds its folder, or the newest walked commit that touched it kept it:
 *    HEAD has it and git sees no change, so this checkout does not hold it: a note;
 *  - else it is missing, unexplained; but a bare name (`unknown` given: "Makefile", "TBD") is
 *    a file only when git knows it: missing when the index holds it, else `unknown`, a note.
 * `mark`: the update that says in the entry at `path` that this file is gone (deleted, renamed
 * to …), which a deletion or rename then names; null when there is none.
 */
function missingFile(rel: string, path: string, cp: Checkpoint, ctx: FileContext, mark: MarkGone, unknown?: Finding): Absent {
  const base = { check: 'generated_files', skill: cp.skill, path } as const;
  const fixed = (what: string) => {
    const fix = mark?.(what) ?? null;
    return { update: (orRestore?: boolean) => updateIt(fix, orRestore), ...(fix ? { fix } : {}) };
  };
  const notCheckedOut: Finding = { ...base, level: 'info', message: `${shown(rel)} is not checked out here (sparse checkout or skip-worktree); not checked`, evidence: { file: rel } };
  return {
    absent: rel,
    finding: (uncommitted, midSession, ignored) => {
      // Drift about to be committed, unless the session is mid-work.
      const { update, ...gone } = fixed('deleted');
      const deleted: Finding = { ...base, level: midSession ? 'info' : 'warning', message: `${shown(rel)} is missing: deleted or moved in the work tree, not committed; ${gone.fix ? update(true) : 'update the checkpoint or restore the file'}`, evidence: { file: rel, missing: true }, ...gone };
      if (uncommitted) return deleted;
      const outside = ctx.outside?.() ?? NOTHING_OUTSIDE;
      if (outside.files.has(rel) || leftOutFolder(outside, rel)) return notCheckedOut;
      // The submodule's file, not this repository's: HEAD holds its gitlink, the clone did not check it out.
      const sub = unpopulatedSubmodule(outside, rel, ctx.exists?.at ?? ((p) => projectEntry(ctx.root, p)));
      if (sub !== undefined) return { ...base, level: 'info', message: `${shown(rel)} is ${submoduleNotCheckedOut(ctx.root, sub)}; not checked`, evidence: { file: rel } };
      // Staged, never committed, then deleted: HEAD and the work tree agree (no `uncommitted`), the index holds it.
      if (ctx.inIndex?.(rel)) return deleted;
      // The newest walked commit with a change at `rel` (or a rename from it): the walk's index of
      // names, not a scan of every commit per missing file and checkpoint.
      const commits = ctx.evidence.commits;
      const touching = commitsTouching(commits).matching(rel);
      let last = touching[0] === undefined ? undefined : commits[touching[0]];
      // Commits of one second are in sha order, not parent order (so both engines agree): of
      // those, the file being gone now points at the one that removed it. So does a removal
      // made after the newest-dated one in the graph, though dated before it (a clock behind).
      if (last && !removes(last, rel)) {
        const time = last.time;
        const newest = last;
        const removal = touching.map((i) => commits[i]!).find((c) => removes(c, rel) && (c.time === time || descendsFrom(commits, c, newest.sha)));
        if (removal) last = removal;
      }
      const by = last ? (removes(last, rel) ? last : null) : ctx.evidence.removals.find((c) => removes(c, rel)) ?? null;
      if (by === null && !last) {
        const folder = folderRemoval(rel, commits, ctx.evidence.removals, (to) => fixed(to === null ? 'deleted' : `renamed to ${to}`));
        // Moved away from a complete skill: the code lives on, as for a renamed file.
        if (folder) return { ...base, message: folder.message, evidence: folder.evidence, ...(folder.fix ? { fix: folder.fix } : {}), level: folder.moved && cp.status === 'complete' ? 'advice' : 'warning' };
      }
      if (by !== null) {
        const to = by.changes.find((ch) => ch.status === 'R' && ch.from === rel)?.path;
        // A merge that brought a removal in from the other side: the commit that made it, which
        // says why, and the merge by name (a merge's own removal has no such commit).
        const made = !to && by.parents.length > 1 ? touching.map((i) => commits[i]!).find((c) => c.parents.length < 2 && removes(c, rel) && broughtInBy(commits, by, c.sha)) : undefined;
        const { update, ...fix } = fixed(to ? `renamed to ${to}` : 'deleted');
        if (made) {
          return {
            ...base, level: 'warning',
            message: `${rel} is missing: deleted in ${short(made.sha)} ${quoted(made.subject)}, merged in ${short(by.sha)}; ${update(true)}`,
            evidence: { file: rel, missing: true, sha: made.sha, date: iso(made.time) }, ...fix,
          };
        }
        return {
          // Renamed away from a complete skill: the code lives on, as when it changes (checkGeneratedFiles).
          ...base, level: to && cp.status === 'complete' ? 'advice' : 'warning',
          message: to ? `${rel} is missing: renamed to ${to} in ${short(by.sha)}; ${update()}` : `${rel} is missing: deleted in ${short(by.sha)} ${quoted(by.subject)}; ${update(true)}`,
          evidence: { file: rel, missing: true, sha: by.sha, date: iso(by.time), ...(to ? { renamed_to: to } : {}) }, ...fix,
        };
      }
      if (last || isOutside(outside, rel)) return notCheckedOut;
      if (unknown && !ctx.inIndex?.(rel)) return unknown;
      // A build output no commit holds, not built here (a fresh clone, CI): nothing to drift from.
      if (ignored) return { ...base, level: 'info', message: `${shown(rel)} is ignored by git (a build output?) and not built here; not checked`, evidence: { file: rel } };
      return { ...base, level: 'warning', message: `${shown(rel)} is missing${notRemoved(ctx.root, rel, ctx.removalsSince)}`, evidence: { file: rel, missing: true } };
    },
  };
}

/**
 * The submodule `rel` lies inside ("vendor/lib" for "vendor/lib/src/x.ts") when the index records
 * it and its folder holds no checkout (no `.git`: never initialised, as a plain `git clone` leaves
 * it); undefined otherwise. A checked-out submodule's files are there to be looked at.
 */
export function unpopulatedSubmodule(outside: OutsideCheckout, rel: string, at: (rel: string) => ProjectEntry): string | undefined {
  const sub = outside.gitlinks?.find((link) => rel.startsWith(`${link}/`));
  return sub !== undefined && at(`${sub}/.git`).kind === 'missing' ? sub : undefined;
}

/**
 * The submodules the index records whose folders hold no checkout and that a pattern could match
 * files in: its fixed folder is inside one, or above one its remaining part can reach into.
 */
function submodulesReached(root: string, alternatives: readonly string[], outside: OutsideCheckout, at: (rel: string) => ProjectEntry): string[] {
  const links = outside.gitlinks ?? [];
  if (!links.length) return [];
  const globs = alternatives.flatMap((a) => {
    const rel = repoRelative(root, a);
    return rel === null ? [] : [globMatcher(rel)];
  });
  return links.filter((link) => globs.some((g) => g.under(link)) && at(`${link}/.git`).kind === 'missing');
}

/** Where a path lies that submodules not checked out hold, and how to check them out. */
function submoduleNotCheckedOut(root: string, subs: string | readonly string[]): string {
  const list = typeof subs === 'string' ? [subs] : subs;
  const init = list.map((sub) => pathArg(root, sub)).join(' ');
  const names = list.length === 1 ? `submodule ${shown(list[0]!)}, which is` : `submodules ${list.slice(0, -1).map((sub) => shown(sub)).join(', ')} and ${shown(list.at(-1)!)}, which are`;
  return `inside ${names} not checked out here (git submodule update --init ${init})`;
}

/** Whether `rel` is a folder ("docs/", "docs/guide") the index keeps out of the work tree: it holds a skip-worktree file or folds a folder under it. */
function leftOutFolder(outside: OutsideCheckout, rel: string): boolean {
  const prefix = `${withoutTrailingSlashes(rel)}/`;
  if (prefix === '/') return false;
  if (outside.folders.some((folder) => folder.startsWith(prefix))) return true;
  for (const file of outside.files) if (file.startsWith(prefix)) return true;
  return false;
}

/**
 * A missing entry that was a folder (`src/lib/`, or `src/lib` written without the slash): the
 * newest commit with a change under it took its last file away, deleting or moving it (every
 * file it renamed went to one other folder: that folder is where it went).
 */
function folderRemoval(rel: string, commits: readonly CommitInfo[], older: readonly CommitInfo[], fixed: (to: string | null) => { update: (orRestore?: boolean) => string; fix?: string }): { message: string; evidence: Finding['evidence']; moved: boolean; fix?: string } | null {
  const name = withoutTrailingSlashes(rel);
  if (!name) return null;
  // Its own name too: a submodule's gitlink is the folder ("vendor/sub/", removed by `git rm vendor/sub`).
  const under = (p: string | undefined) => p !== undefined && (p === name || p.startsWith(`${name}/`));
  const newest = commits[commitsTouching(commits).matching((p) => under(p))[0] ?? -1] ?? older.find((c) => c.changes.some((ch) => under(ch.from ?? (ch.status === 'D' ? ch.path : undefined))));
  const gone = newest?.changes.filter((ch) => (ch.status === 'D' && under(ch.path)) || (ch.status === 'R' && under(ch.from)));
  if (!newest || !gone?.length) return null;
  const targets = new Set(gone.map((ch) => (ch.status === 'R' && ch.path.endsWith(ch.from!.slice(name.length)) ? ch.path.slice(0, ch.path.length - (ch.from!.length - name.length)) : null)));
  const to = targets.size === 1 ? [...targets][0] : null;
  const dest = rel.endsWith('/') && to ? `${to}/` : to;
  const { update, fix } = fixed(dest ?? null);
  return {
    message: dest ? `${rel} is missing: renamed to ${dest} in ${short(newest.sha)}; ${update()}` : `${rel} is missing: deleted in ${short(newest.sha)} ${quoted(newest.subject)}; ${update(true)}`,
    evidence: { file: rel, missing: true, sha: newest.sha, date: iso(newest.time), ...(dest ? { renamed_to: dest } : {}) },
    moved: dest !== null,
    ...(fix ? { fix } : {}),
  };
}

/**
 * What the search for a missing file's removal found: nothing in all of HEAD's history, or nothing
 * dated since `since` (a commit may be older, or misdated by a clock behind: git can say).
 */
function notRemoved(root: string, rel: string, since: number | undefined): string {
  if (since === undefined) return '';
  if (since <= 0) return "; no commit in HEAD's history deleted or renamed it";
  const day = iso(since).slice(0, 10);
  // Pasteable as printed where doctor runs: quoted when it needs it; a placeholder where one line cannot hold it.
  const file = rel.length > 200 || /[\x00-\x1f\x7f-\x9f\u2028\u2029]/.test(rel) ? '<the path>' : pathArg(root, rel);
  return `; no commit in HEAD's history dated since ${day} deleted or renamed it (an older or misdated one may have: \`git log --full-history -1 -- ${file}\`)`;
}

/** next_actions and blocker resolutions that name a PR or ticket git shows as landed since. */
export function checkLandedWork(cp: Checkpoint, evidence: Evidence, checkpointRel?: string): Finding[] {
  const saved = toSeconds(cp.updated_at);
  const at = queuedAt(cp, checkpointRel === undefined ? undefined : evidence.queued.get(checkpointRel));
  // An action object's own "pr" / "ticket" / "url" keys name its work too (action-refs.ts).
  // An action written without `text` ({"action": …}, a hand slip) by its words, as next reads it.
  const work = workTexts(cp, readActionText);
  const texts: { path: string; text: string; words: string }[] = [];
  // An action object is read with its own keys: two actions with the same words name each its own PR.
  (Array.isArray(cp.next_actions) ? cp.next_actions : []).forEach((a, i) => {
    const text = readActionText(a);
    texts.push({ path: `next_actions[${i}]`, text, words: typeof a === 'object' && a !== null ? withActionRefs(text, a) : work(text) });
  });
  (Array.isArray(cp.blockers) ? cp.blockers : []).forEach((b, i) => {
    if (b && typeof b.proposed_resolution === 'string') texts.push({ path: `blockers[${i}].proposed_resolution`, text: b.proposed_resolution, words: work(b.proposed_resolution) });
  });
  // A blocker waiting on work ("Blocked until PR #20 merges"): once that landed, it may block no more.
  const landedWait = waitLandings(cp, evidence, checkpointRel);
  const waits = (Array.isArray(cp.blockers) ? cp.blockers : []).flatMap((b, i) => {
    const landings = b ? landedWait(b.description) : null;
    if (!landings) return [];
    const l = landings[0]!;
    // Dated by when the blocker was written, as a queued action: a re-save that kept it hides no landing.
    const written = at(b.description);
    const when = written < saved ? `after the blocker was written on ${iso(written)}` : 'after the checkpoint';
    return [{
      level: 'warning',
      check: 'landed',
      skill: cp.skill,
      path: `blockers[${i}].description`,
      message: `${quoted(b.description)} waits on ${landings.map((x) => x.ref.token).join(', ')}, which landed ${when} (${short(l.commit.sha)} ${quoted(l.commit.subject)}); if it blocks no more, remove the blocker (or say what it still waits on)`,
      evidence: { sha: l.commit.sha, date: iso(l.commit.time) },
    } satisfies Finding];
  });
  return [...waits, ...texts.flatMap(({ path, text, words }) => {
    // Dated by when the text was queued: a re-save that kept it does not hide a landing in between.
    const after = at(text);
    const when = after < saved ? `after it was queued (${iso(after)}) and still queued` : 'after the checkpoint';
    // Work it waits for or follows up ("Once #14 lands, rebase #16") landing is its start, not its
    // end. An action naming work that has not all landed ("Rebase #16 and #17") may be what comes
    // next, as `next` reads it: said, never a warning that blocks a push.
    const { landings, open } = actionLandings(words, evidence.commits, evidence.madeAfter(checkpointRel, text, after), evidence.thisRepo);
    // A queued action is reconciled by done --landed (it records what next skips as landed, nothing else).
    const skill = !open.length && path.startsWith('next_actions[') ? reconcileSkill(cp, checkpointRel) : null;
    const fix = skill === null ? undefined : `checkpoint done ${skill} --landed`;
    return landings.map((l): Finding => ({
      level: open.length ? 'info' : 'warning',
      check: 'landed',
      skill: cp.skill,
      path,
      message: `${quoted(text)} names ${l.ref.token}, which landed ${when} (${short(l.commit.sha)} ${quoted(l.commit.subject)}${l.commit.time < after ? `, dated ${iso(l.commit.time)}: before it, but made after its commit` : ''}); ${open.length ? `${open.join(', ')} ${open.length === 1 ? 'has' : 'have'} not: check the action still holds` : `reconcile instead of redoing it${fix ? ` (\`${fix}\`)` : ''}`}`,
      ...(fix ? { fix } : {}),
      evidence: { sha: l.commit.sha, date: iso(l.commit.time), queued_at: iso(after) },
    }));
  })];
}

/** The skill name `done` takes for the checkpoint at `rel` (its file's name), else the one it records. */
function reconcileSkill(cp: Checkpoint, rel: string | undefined): string | null {
  if (rel !== undefined) return skillFromFileName(basename(rel));
  // A name written in the file is printed as a command only when it is a name done takes.
  return typeof cp.skill === 'string' && isSkillName(cp.skill) ? cp.skill : null;
}

/** verified_for_sha under skill_state, and one written at the top level: each judged alike, under its own path. */
export async function checkVerifiedSha(cp: Checkpoint, evidence: Evidence): Promise<Finding[]> {
  return (await Promise.all(fieldPlaces(cp, 'verified_for_sha').map(({ path, value }) => checkVerifiedValue(cp, path, value, evidence)))).flat();
}

async function checkVerifiedValue(cp: Checkpoint, path: string, value: unknown, evidence: Evidence): Promise<Finding[]> {
  if (typeof value !== 'string' || !value.trim() || !evidence.history) return [];
  const base = { check: 'verified_for_sha', skill: cp.skill, path } as const;
  // Hand-written values wrap the sha in prose ("release-v1 (pre-commit; base e5ea561)").
  const sha = commitToken(value);
  if (sha === null) return [{ ...base, level: 'info', message: `verified_for_sha ${quoted(value)} holds no commit id; not checked` }];
  if (evidence.shallow) return [{ ...base, level: 'info', message: `shallow clone: cannot check verified_for_sha ${sha} (fetch full history to check)` }];
  const { full, inHead } = evidence.verified.get(sha) ?? (await lookupVerified(evidence.history, sha));
  if (!full && isGuessedCommitToken(value, sha)) return [{ ...base, level: 'info', message: `verified_for_sha ${quoted(value)} names no commit of this repository (${sha} is none); not checked` }];
  if (!full) return [{ ...base, level: 'warning', message: `verified_for_sha ${sha} is not a commit in this repository` }];
  if (!inHead) {
    return [{ ...base, level: 'warning', message: `verified_for_sha ${short(full)} is not in HEAD's history (verified on another branch?)`, evidence: { sha: full } }];
  }
  return [];
}

export interface HealthUrlResult {
  url: string;
  version?: string;
  error?: string;
}

/** Compares a deployed health endpoint's version with HEAD; unreachable is a warning, not a crash. */
export function checkOnline(result: HealthUrlResult, head: string | null): Finding[] {
  const base = { check: 'online', skill: null, path: '', evidence: { url: result.url } } as const;
  if (result.error) return [{ ...base, level: 'warning', message: `health URL ${result.url} unreachable: ${result.error}` }];
  if (!result.version) return [{ ...base, level: 'warning', message: `health URL ${result.url} reports no version/sha field` }];
  if (!head) return [{ ...base, level: 'info', message: `deployed version ${result.version}; no HEAD to compare` }];
  const v = result.version.toLowerCase();
  const same = v.length >= 7 && (head.startsWith(v) || v.startsWith(head));
  return [same
    ? { ...base, level: 'info', message: `deployed ${result.version} matches HEAD` }
    : { ...base, level: 'warning', message: `deployed ${result.version} differs from HEAD ${short(head)}; checkpoints may describe undeployed work` }];
}
