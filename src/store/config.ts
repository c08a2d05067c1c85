// .checkpoints/config.json: project settings (extra log paths for merge and rotate, the
// health URL for doctor --online, auto-rotate). Missing means defaults; broken is an error.
import { join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { policyConfigProblem } from '../protocol/fields.js';
import { checkpointsDir } from './checkpoints.js';
import { parseCheckpointText } from './checkpoints.js';
import { readProjectText } from './safe-fs.js';
import { MAX_CONFIG_BYTES } from './config-limits.js';

export { MAX_CONFIG_BYTES };

export interface ProjectConfig {
  /** Extra append-only log paths (dotted, `*` and `**` allowed), e.g. "skill_state.audits". */
  logs?: string[];
  /** Extra telemetry snapshots: both sides rewrote it -> the later side's whole value. */
  telemetry?: string[];
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

/** Every key config.json may hold: a typo ("telemtry") must not silently do nothing. */
const KNOWN_KEYS: ReadonlySet<string> = new Set(['logs', 'telemetry', 'health_url', 'auto_rotate', 'rotate_keep', 'walk_days']);

export function readConfig(root: string): ProjectConfig {
  const path = join(checkpointsDir(root), CONFIG_FILE);
  const text = readProjectText(root, path, { maxBytes: MAX_CONFIG_BYTES, sizeHint: 'config.json holds a few settings; see .checkpoints/README.md' });
  if (text === null) return {};
  const { value } = parseCheckpointText(text, '.checkpoints/config.json');
  const bad = (what: string) => new CheckpointError('E_INVALID', `.checkpoints/config.json: ${what}`, { hint: 'fix the config file; see .checkpoints/README.md' });
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw bad('must be a JSON object');
  const c = value as Record<string, unknown>;
  const unknown = Object.keys(c).find((k) => !KNOWN_KEYS.has(k));
  if (unknown !== undefined) throw bad(`unknown key ${JSON.stringify(unknown)} (known: ${[...KNOWN_KEYS].join(', ')})`);
  const policyProblem = policyConfigProblem(c);
  if (policyProblem) throw bad(policyProblem);
  if (c.health_url !== undefined && typeof c.health_url !== 'string') throw bad('"health_url" must be a string');
  if (c.auto_rotate !== undefined && typeof c.auto_rotate !== 'boolean') throw bad('"auto_rotate" must be true or false');
  if (c.rotate_keep !== undefined && (!Number.isInteger(c.rotate_keep) || (c.rotate_keep as number) < 0)) throw bad('"rotate_keep" must be a whole number >= 0');
  if (c.walk_days !== undefined && (typeof c.walk_days !== 'number' || !Number.isFinite(c.walk_days) || c.walk_days < 0)) throw bad('"walk_days" must be a number of days >= 0 (0: walk all history)');
  return c as ProjectConfig;
}
