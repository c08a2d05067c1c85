// .checkpoints/config.json: project settings (extra log paths for merge and rotate, the
// health URL for doctor --online, auto-rotate). Missing means defaults; broken is an error.
import { join } from 'node:path';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { checkPolicyConfig } from '../protocol/fields.js';
import { checkpointsDir } from './checkpoints.js';
import { parseCheckpointText } from './checkpoints.js';
import { readProjectText } from './safe-fs.js';
import { pathArg } from './paste-path.js';
import { CHECKPOINTS_DIR } from './root.js';
import { hasConflictMarkers, splitConflictMarkers } from '../merge/markers.js';
import { configConflictFix, KNOWN_CONFIG_KEYS, MAX_CONFIG_BYTES, unknownConfigKeys } from './config-limits.js';
import { quoted, shown } from '../one-line.js';

export { MAX_CONFIG_BYTES };

export interface ProjectConfig {
  /** Extra append-only log paths (dotted, `*` and `**` allowed), e.g. "skill_state.audits". */
  logs?: string[];
  /** Extra telemetry snapshots: both sides rewrote it -> the later side's whole value. */
  telemetry?: string[];
  /** Extra counters (a skill's own run count): both sides raised it -> base + each side's increase. */
  counters?: string[];
  /** URL for `doctor --online`; its JSON should carry a version/sha field. */
  health_url?: string;
  /** Rotate before a write would push a file past the size limit. */
  auto_rotate?: boolean;
  /** How many newest log entries rotation keeps. */
  rotate_keep?: number;
  /** How many days of history status, next and doctor walk at most (0: no bound). */
  walk_days?: number;
}

/**
 * Default bound on history walks: a checkpoint left alone for years must not make every
 * command read the whole history (doctor says in one line when it cut a walk).
 */
export const DEFAULT_WALK_DAYS = 365;

export const CONFIG_FILE = 'config.json';
/** config.json from the project root, as every message names it. */
export const CONFIG_REL = `${CHECKPOINTS_DIR}/${CONFIG_FILE}`;
/** What the merge rules of a project are made from (compileExtraLogs): all `resolve` and `restore` read of it. */
export const MERGE_RULE_KEYS = ['logs', 'telemetry', 'counters'] as const;

/**
 * What a config.json holding merge conflict markers is (`state`: more on it, " (and is unmerged in
 * git's index)"), and how it is settled, as every command says it after its name (validate,
 * doctor, resolve and its --check, rotate, restore): config.json named from where the command ran.
 */
export const configConflict = (root: string, state = ''): string => `holds merge conflict markers${state}: ${configConflictFix(pathArg(root, CONFIG_REL))}`;

/** A problem of config.json: `key` names the entry ("logs"[1], "logz"), or is "(file)" when the file itself is unusable. */
export interface ConfigProblem {
  key: string;
  message: string;
  /** What the commands that pass the entry over use instead (said by doctor and validate, not by a refusal). */
  instead?: string;
}

/** Every problem of .checkpoints/config.json, one per entry; none when it is fine or absent. */
export function configProblems(root: string): ConfigProblem[] {
  try {
    return inspectConfig(root).problems.map(({ key, message, instead }) => ({ key, message: instead ? `${message}; ${instead}` : message }));
  } catch (e) {
    // Unreadable (a folder, a FIFO, a link out, bad JSON): the reader's own one-line message.
    if (!isCheckpointError(e)) throw e;
    return [{ key: '(file)', message: e.message }];
  }
}

/**
 * The history walk bound in days. A bad walk_days is read as the default, as every other bad
 * config entry is passed over by the commands that do not need it: doctor and validate name it
 * (saying the default is used), and status, next and doctor still answer (doctor runs on every
 * push: a typo in a setting must not refuse an unrelated one).
 */
export function walkDays(root: string): number {
  let inspected: ReturnType<typeof inspectConfig>;
  try {
    inspected = inspectConfig(root);
  } catch (e) {
    if (isCheckpointError(e)) return DEFAULT_WALK_DAYS; // an unusable file: reported by doctor and validate
    throw e;
  }
  const days = inspected.value?.walk_days;
  return isWalkDays(days) ? days : DEFAULT_WALK_DAYS;
}

const isWalkDays = (days: unknown): days is number => typeof days === 'number' && Number.isFinite(days) && days >= 0;

/** A bad setting's value inside a one-line message: its JSON, cut to a recognisable start. */
function valueShown(value: unknown): string {
  return shown(JSON.stringify(value));
}

/**
 * The config for a command that reads only the entries `keys` names (a key, or a list's items:
 * "logs" covers "logs[1]"): a problem elsewhere (a bad walk_days, an unknown key) is passed over,
 * as walkDays passes over the others; one in those entries, or an unusable file, refuses as
 * readConfig does.
 */
export function readConfigFor(root: string, keys: readonly string[]): ProjectConfig {
  const { value, problems } = inspectConfig(root);
  const first = problems.find((p) => p.key === '(file)' || keys.includes(p.key.replace(/\[\d+\]$/, '')));
  if (first) throw new CheckpointError('E_INVALID', `.checkpoints/config.json: ${first.message}`, { hint: 'fix the config file; see .checkpoints/README.md' });
  return (value ?? {}) as ProjectConfig;
}

export function readConfig(root: string): ProjectConfig {
  const { value, problems } = inspectConfig(root);
  const first = problems[0];
  if (first) throw new CheckpointError('E_INVALID', `.checkpoints/config.json: ${first.message}`, { hint: 'fix the config file; see .checkpoints/README.md' });
  return (value ?? {}) as ProjectConfig;
}

/** config.json's text, or null when there is none. */
function configText(root: string): string | null {
  return readProjectText(root, join(checkpointsDir(root), CONFIG_FILE), { maxBytes: MAX_CONFIG_BYTES, sizeHint: 'config.json holds a few settings; see .checkpoints/README.md' });
}

/** Whether config.json holds merge conflict markers (false when it is missing). */
export function configHoldsMarkers(root: string): boolean {
  const text = configText(root);
  return text !== null && hasConflictMarkers(text);
}

/**
 * The config for `resolve`, which reads its merge rules (MERGE_RULE_KEYS) only: one config as
 * readConfig gives it; or, while config.json holds merge conflict markers, each config its
 * settling may give as far as the rules go: ours', theirs', and both sides' entries together
 * (one, when the sides' rules agree). A merge that comes out alike under each does not wait for
 * the config; one that does not is refused by the caller. A side that cannot be read (markers
 * broken by a hand edit, a bad rule) is refused here: its rules are unknown.
 */
export function configSettlements(root: string): ProjectConfig[] {
  const text = configText(root);
  const sides = text !== null && hasConflictMarkers(text) ? splitConflictMarkers(text) : null;
  if (sides === null) return [readConfig(root)];
  const [ours, theirs] = [sides.ours, sides.theirs].map((side): Record<string, string[]> => {
    const { value, problems } = inspectConfigText(root, side);
    if (problems.some((p) => p.key === '(file)' || (MERGE_RULE_KEYS as readonly string[]).includes(p.key.replace(/\[\d+\]$/, '')))) {
      throw new CheckpointError('E_INVALID', `${CONFIG_REL}: ${configConflict(root)}; resolve cannot read the merge rules of one side of it`);
    }
    return Object.fromEntries(MERGE_RULE_KEYS.map((k) => [k, (value?.[k] as string[] | undefined) ?? []]));
  }) as [Record<string, string[]>, Record<string, string[]>];
  if (JSON.stringify(ours) === JSON.stringify(theirs)) return [ours];
  return [ours, theirs, Object.fromEntries(MERGE_RULE_KEYS.map((k) => [k, [...new Set([...ours[k]!, ...theirs[k]!])]]))];
}

function inspectConfig(root: string): { value: Record<string, unknown> | null; problems: ConfigProblem[] } {
  const text = configText(root);
  return text === null ? { value: null, problems: [] } : inspectConfigText(root, text);
}

function inspectConfigText(root: string, text: string): { value: Record<string, unknown> | null; problems: ConfigProblem[] } {
  const { value } = parseCheckpointText(text, CONFIG_REL, {
    tooBig: 'write a number the setting takes (.checkpoints/README.md lists each; walk_days: 0 reads all history)',
    conflict: () => configConflict(root),
  });
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { value: null, problems: [{ key: '(file)', message: 'must be a JSON object' }] };
  const c = value as Record<string, unknown>;
  const problems: ConfigProblem[] = unknownConfigKeys(c).map((k) => ({ key: k, message: `unknown key ${quoted(k)} (known: ${[...KNOWN_CONFIG_KEYS].join(', ')})` }));
  for (const message of checkPolicyConfig(c).problems) {
    const at = /^"(\w+)"(\[\d+\])?/.exec(message); // "logs"[1] ... -> logs[1]
    problems.push({ key: at ? `${at[1]}${at[2] ?? ''}` : '(file)', message });
  }
  if (c.health_url !== undefined && typeof c.health_url !== 'string') problems.push({ key: 'health_url', message: '"health_url" must be a string' });
  if (c.auto_rotate !== undefined && typeof c.auto_rotate !== 'boolean') problems.push({ key: 'auto_rotate', message: '"auto_rotate" must be true or false' });
  if (c.rotate_keep !== undefined && (!Number.isInteger(c.rotate_keep) || (c.rotate_keep as number) < 0)) problems.push({ key: 'rotate_keep', message: '"rotate_keep" must be a whole number >= 0' });
  if (c.walk_days !== undefined && !isWalkDays(c.walk_days)) {
    problems.push({ key: 'walk_days', message: `"walk_days" must be a number of days >= 0 (0: walk all history), not ${valueShown(c.walk_days)}`, instead: `the default ${DEFAULT_WALK_DAYS} is used` });
  }
  return { value: c, problems };
}
