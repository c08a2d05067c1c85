// compareSkillNames stands in for localeCompare (whose first call builds ICU's collator) in
// doctor's report order: it must order every pair of skill names exactly as localeCompare does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertSkillName, compareSkillNames, nearSkillName, isMisnamedCheckpoint, misnamedProblem, SKILL_NAME, skillFromFileName } from '../../src/store/skill-name.js';

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

describe('a file named like a checkpoint: a skill\'s, or misnamed', () => {
  const suffix = '.checkpoint.json';
  it('is exactly one of the two, and the misnamed one is reported on one bounded line', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 40 }), skillName), (stem) => {
        const file = stem + suffix;
        const skill = skillFromFileName(file);
        expect(skill === null).toBe(isMisnamedCheckpoint(file));
        if (skill !== null) expect(() => assertSkillName(skill)).not.toThrow();
        else {
          const line = misnamedProblem(file);
          expect(line).not.toMatch(/[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/); // a tab is one line (oneLine keeps it)
          expect(line.length).toBeLessThan(400);
          expect(line).toContain('rename it to <skill>.checkpoint.json');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('judges names by the same rule a write does (length and ".." included); other files are neither', () => {
    expect(isMisnamedCheckpoint('Foo.checkpoint.json')).toBe(true);
    expect(isMisnamedCheckpoint('a b.checkpoint.json')).toBe(true);
    expect(isMisnamedCheckpoint('nl\nx\x1b[2J.checkpoint.json')).toBe(true);
    expect(isMisnamedCheckpoint('a..b.checkpoint.json')).toBe(true);
    expect(isMisnamedCheckpoint(`${'a'.repeat(101)}.checkpoint.json`)).toBe(true);
    expect(skillFromFileName(`${'a'.repeat(100)}.checkpoint.json`)).toBe('a'.repeat(100));
    // Names Windows keeps for devices, with any extension: git for Windows could not check them out.
    for (const device of ['con', 'nul', 'aux', 'prn', 'com1', 'lpt9', 'con.v2', 'nul.x.y', 'com0', 'lpt0', 'com0.v2', 'lpt0.x.y']) {
      expect(isMisnamedCheckpoint(`${device}.checkpoint.json`), device).toBe(true);
      expect(misnamedProblem(`${device}.checkpoint.json`)).toContain('Windows reserves for a device');
      expect(() => assertSkillName(device)).toThrow(/Windows reserves "\w+" for a device/);
    }
    for (const fine of ['console', 'auxiliary', 'com', 'com10', 'lpt00', 'com0x', 'null', 'my-con', 'a.con', 'a.com1']) expect(() => assertSkillName(fine), fine).not.toThrow();
  });

  it('refuses every Windows device name in any case and with the superscript digits, with or without an extension', () => {
    const devices = ['CON', 'Nul', 'aUx', 'PRN', 'COM0', 'LPT0', 'COM9', 'com\u00b9', 'COM\u00b2', 'Lpt\u00b3', 'lpt\u00b9', 'COM\u00b3.txt', 'LPT\u00b2.checkpoint'];
    for (const device of devices) {
      // Never a skill's file, whatever else is wrong with the name.
      expect(skillFromFileName(`${device}.checkpoint.json`), device).toBeNull();
      expect(isMisnamedCheckpoint(`${device}.checkpoint.json`), device).toBe(true);
      let message = '';
      try {
        assertSkillName(device);
      } catch (e) {
        message = `${(e as Error).message} ${(e as { hint?: string }).hint}`;
      }
      expect(message, device).toContain(`Windows reserves "${device.split('.')[0]}" for a device`);
      // The example name offered is one the rule allows, or none is offered.
      const example = /e\.g\. "([^"]+)"/.exec(message)?.[1];
      if (example !== undefined) expect(() => assertSkillName(example)).not.toThrow();
    }
    // Other superscripts and digits are no devices (and no skill names either: not ASCII).
    for (const other of ['com\u2074', 'lpt\u2070', 'com\u00b9\u00b9', 'coms\u00b9']) {
      expect(() => assertSkillName(other), other).toThrow(/invalid skill name/);
      expect(() => assertSkillName(other), other).not.toThrow(/Windows reserves/);
    }
    for (const other of ['config.json', '.api.checkpoint.json.123-abc.tmp', '.api.lock', 'README.md']) {
      expect(isMisnamedCheckpoint(other)).toBe(false);
      expect(skillFromFileName(other)).toBeNull();
    }
  });
});

describe('nearSkillName', () => {
  it('offers the valid name a mistyped one plainly stands for, and nothing when none is left', () => {
    expect(nearSkillName('My Skill')).toBe('my-skill');
    expect(nearSkillName('../api')).toBe('api');
    expect(nearSkillName('OC App Architect (v2)')).toBe('oc-app-architect-v2');
    expect(nearSkillName('api..v2')).toBe('api.v2');
    expect(nearSkillName('api/../README')).toBe('api-readme');
    expect(nearSkillName('oc_app - v2')).toBe('oc_app-v2');
    for (const none of ['', '!!!', '..', 'api', '日本']) expect(nearSkillName(none), none).toBeNull();
    // Letters folded, never dropped: "ápi" is not "pi", another skill (red team, 12-05).
    expect(nearSkillName('ápi')).toBe('api');
    expect(nearSkillName('\uff41pi')).toBe('api');
    expect(nearSkillName('café-sync')).toBe('cafe-sync');
    expect(nearSkillName('Cafe\u0301 Sync')).toBe('cafe-sync');
    expect(() => assertSkillName('My Skill')).toThrow(expect.objectContaining({ hint: expect.stringMatching(/^did you mean "my-skill"\? use lowercase/) }));
  });

  it('offers the skill a checkpoint\'s path or file name names, not that path made a name', () => {
    expect(nearSkillName('.checkpoints/api.checkpoint.json')).toBe('api');
    expect(nearSkillName('./.checkpoints/oc-app.checkpoint.json')).toBe('oc-app');
    expect(nearSkillName('C:\\proj\\.checkpoints\\Api.checkpoint.json')).toBe('api');
    expect(nearSkillName('Web.Checkpoint.json')).toBe('web');
    expect(() => assertSkillName('.checkpoints/api.checkpoint.json')).toThrow(expect.objectContaining({ hint: expect.stringMatching(/^did you mean "api"\? use lowercase/) }));
  });

  it('only ever offers a name assertSkillName accepts', () => {
    fc.assert(fc.property(fc.string({ maxLength: 120 }), (s) => {
      const near = nearSkillName(s);
      if (near !== null) expect(() => assertSkillName(near)).not.toThrow();
    }), { numRuns: 2000 });
  });
});

describe('nearSkillName on a hostile name', () => {
  it('reads a megabyte-long run of punctuation in one pass, with the same answer', () => {
    const run = 1 << 20;
    expect(nearSkillName(`api${'.'.repeat(run)}x`)).toBe('api.x');
    expect(nearSkillName(`api${'-'.repeat(run)}x-`)).toBe('api-x');
    expect(nearSkillName(`api${'._'.repeat(run)}-x`)).toBe('api-x');
  });
});
