// Skill names become file names under .checkpoints/; the pattern alone keeps them there
// (no slash, no leading dot, so no `..`), and the store re-checks the resolved path.
import { CheckpointError } from '../errors.js';
import { shown } from '../one-line.js';

export const SKILL_NAME = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_SKILL_NAME = 100;

export function assertSkillName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !SKILL_NAME.test(name) || name.length > MAX_SKILL_NAME || name.includes('..')) {
    throw new CheckpointError('E_SKILL_NAME', `invalid skill name ${shown(JSON.stringify(String(name)))}`, {
      hint: `use lowercase letters, digits, ".", "_" and "-" (pattern ${SKILL_NAME.source}, at most ${MAX_SKILL_NAME} characters)`,
    });
  }
}

export const CHECKPOINT_SUFFIX = '.checkpoint.json';

export function skillFromFileName(file: string): string | null {
  if (!file.endsWith(CHECKPOINT_SUFFIX)) return null;
  const skill = file.slice(0, -CHECKPOINT_SUFFIX.length);
  return SKILL_NAME.test(skill) && !skill.includes('..') ? skill : null;
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
