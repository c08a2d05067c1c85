// Skill names become file names under .checkpoints/; the pattern alone keeps them there
// (no slash, no leading dot, so no `..`), and the store re-checks the resolved path.
import { CheckpointError } from '../errors.js';

export const SKILL_NAME = /^[a-z0-9][a-z0-9._-]*$/;
export const MAX_SKILL_NAME = 100;

export function assertSkillName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !SKILL_NAME.test(name) || name.length > MAX_SKILL_NAME || name.includes('..')) {
    throw new CheckpointError('E_SKILL_NAME', `invalid skill name ${JSON.stringify(String(name))}`, {
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
