// Skill names become file names under .checkpoints/; the pattern alone keeps them there
// (no slash, no leading dot, so no `..`), and the store re-checks the resolved path.
import { CheckpointError } from '../errors.js';
import { quoted, shown } from '../one-line.js';

export const SKILL_NAME = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_SKILL_NAME = 100;

/** The naming rule in words, for every message that asks for a valid name. */
export const SKILL_NAME_RULE = `lowercase letters, digits, ".", "_" and "-" (pattern ${SKILL_NAME.source}, at most ${MAX_SKILL_NAME} characters)`;

/**
 * Names Windows keeps for devices, with any extension (`con.checkpoint.json` is CON): git for
 * Windows refuses to check such a path out, so a teammate there could not clone the project.
 * COM and LPT take a digit 0-9 or a superscript ¹ ² ³ (Microsoft's "Naming Files, Paths, and
 * Namespaces"). Tested on the lower-cased name (isWindowsDevice): Windows ignores ASCII case.
 */
const WINDOWS_DEVICE = /^(?:con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(?:\.|$)/;

/** Whether Windows reads `name` (any case, with or without an extension) as a device. */
function isWindowsDevice(name: string): boolean {
  return WINDOWS_DEVICE.test(name.toLowerCase());
}

/** Whether `name` is a valid skill name (assertSkillName says why one is not). */
export function isSkillName(name: string): boolean {
  return SKILL_NAME.test(name) && name.length <= MAX_SKILL_NAME && !name.includes('..') && !isWindowsDevice(name);
}

export function assertSkillName(name: unknown): asserts name is string {
  if (typeof name === 'string' && isWindowsDevice(name)) {
    const device = name.split('.')[0]!;
    // The example is offered only when it is a name the rule allows (not for "COM1" or "com¹").
    const instead = `${device}-skill`;
    const hint = SKILL_NAME.test(instead) ? `use another name, e.g. ${quoted(instead)}` : `use another name: ${SKILL_NAME_RULE}`;
    throw new CheckpointError('E_SKILL_NAME', `invalid skill name ${quoted(name)}: Windows reserves ${quoted(device)} for a device, so a clone there could not check the file out`, { hint });
  }
  if (typeof name !== 'string' || !isSkillName(name)) {
    const near = typeof name === 'string' ? nearSkillName(name) : null;
    throw new CheckpointError('E_SKILL_NAME', `invalid skill name ${quoted(String(name))}`, { hint: `${near === null ? '' : `did you mean ${quoted(near)}? `}use ${SKILL_NAME_RULE}` });
  }
}

/**
 * The valid name `name` most plainly stands for ("My Skill" → "my-skill", "../api" → "api",
 * ".checkpoints/api.checkpoint.json" → "api"):
 * letters folded to their plain form ("café" → "cafe", a full-width "ａ" → "a": dropped, they would
 * name another skill, "ápi" → "pi"), lower case, each run of other characters (with the separators
 * around it) one "-", trimmed; null when nothing valid is left.
 * Only ever offered, never used in its place: a typo'd name must not write another skill's file.
 */
export function nearSkillName(name: string): string | null {
  // A checkpoint's path or file name given for its skill (`.checkpoints/api.checkpoint.json`,
  // tab completion's habit): the skill it names, not "checkpoints-api.checkpoint.json".
  const file = /(?:^|[\\/])([^\\/]+)\.checkpoint\.json$/i.exec(name);
  // Runs of punctuation each read once: /[._-]*-[._-]*/ and /[^a-z0-9]+$/ retried from each of a long one's characters.
  const near = (file ? file[1]! : name).normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/[._-]+/g, (run) => (run.includes('-') ? '-' : run)).replace(/\.{2,}/g, '.').replace(/^[^a-z0-9]+|(?<![^a-z0-9])[^a-z0-9]+$/g, '').slice(0, MAX_SKILL_NAME);
  return near !== name && isSkillName(near) ? near : null;
}

export const CHECKPOINT_SUFFIX = '.checkpoint.json';

/** The skill a file name in .checkpoints/ belongs to: `<skill>.checkpoint.json` with a valid skill name, else null. */
export function skillFromFileName(file: string): string | null {
  if (!file.endsWith(CHECKPOINT_SUFFIX)) return null;
  const skill = file.slice(0, -CHECKPOINT_SUFFIX.length);
  return isSkillName(skill) ? skill : null;
}

/**
 * A file in .checkpoints/ named like a checkpoint (`*.checkpoint.json`, so git routes it to the
 * merge driver) whose name is not a valid skill name: no command reads or writes it as one, so
 * it is reported instead (misnamedProblem). Temp files end in ".tmp" and are never this.
 */
export function isMisnamedCheckpoint(file: string): boolean {
  return file.endsWith(CHECKPOINT_SUFFIX) && skillFromFileName(file) === null;
}

/** The name a misnamed checkpoint file stands for: its stem as it is, for --json (text shows skillLabel of it). */
export function misnamedStem(file: string): string {
  return file.slice(0, -CHECKPOINT_SUFFIX.length);
}

/**
 * A skill's name in text output (status, list, next, doctor): escaped onto one line and bounded
 * by the naming rule's own length, so a name a skill can have is shown as it is, and a misnamed
 * file's stem (any text, any length) neither breaks the line nor runs on.
 */
export function skillLabel(skill: string): string {
  return shown(skill, MAX_SKILL_NAME);
}

/** The finding for misnamed checkpoint file `file` in .checkpoints/: its path, then misnamedReason. */
export function misnamedProblem(file: string): string {
  return `${shown(`.checkpoints/${file}`)}: ${misnamedReason(file)}`;
}

/** What is wrong with a misnamed checkpoint file (isMisnamedCheckpoint) and what to do, bounded, for one line. */
export function misnamedReason(file: string, so = 'it is not read as any skill\'s checkpoint'): string {
  const stem = misnamedStem(file);
  if (isWindowsDevice(stem) && SKILL_NAME.test(stem)) return `${quoted(stem)} is a name Windows reserves for a device (a clone there cannot check the file out), so ${so}: rename it to <skill>.checkpoint.json with another name`;
  return `${quoted(misnamedStem(file))} is not a valid skill name, so ${so}: rename it to <skill>.checkpoint.json, the skill in ${SKILL_NAME_RULE}`;
}

// The order String#localeCompare gives the characters a skill name may hold.
const COLLATION = '_-.0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Skill names in the order `a.localeCompare(b)` puts them, without its first call, which builds
 * ICU's collator (about as much work as node's own start-up). Any other text falls back to it.
 */
export function compareSkillNames(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) continue;
    const x = COLLATION.indexOf(a[i]!);
    const y = COLLATION.indexOf(b[i]!);
    if (x < 0 || y < 0) return a.localeCompare(b);
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
