// compareSkillNames stands in for localeCompare (whose first call builds ICU's collator) in
// doctor's report order: it must order every pair of skill names exactly as localeCompare does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSkillNames, SKILL_NAME } from '../../src/store/skill-name.js';

const nameChar = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789._-'.split(''));
const skillName = fc
  .tuple(fc.constantFrom(...'abz09'.split('')), fc.array(nameChar, { maxLength: 12 }))
  .map(([first, rest]) => first + rest.join(''))
  .filter((s) => SKILL_NAME.test(s));

describe('compareSkillNames', () => {
  it('orders any two skill names as localeCompare does', () => {
    fc.assert(
      fc.property(skillName, skillName, (a, b) => {
        expect(compareSkillNames(a, b)).toBe(Math.sign(a.localeCompare(b)));
      }),
      { numRuns: 3000 },
    );
  });

  it('on the cases where code-unit order differs (punctuation, digits, prefixes)', () => {
    const names = ['web', 'api_v2', 'api-v2', 'api.v2', 'api2', 'api', 'a_b', 'a-b', 'a.b', 'ab', '9x', 'x9', 'skill-10', 'skill-1', 'skill-9'];
    expect([...names].sort(compareSkillNames)).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    // Not a skill name: localeCompare decides.
    expect(compareSkillNames('Zeta', 'alpha')).toBe(Math.sign('Zeta'.localeCompare('alpha')));
  });
});
