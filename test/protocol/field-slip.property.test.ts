// protocolFieldSlip: the did-you-mean for a top-level name that is a typo of a protocol field.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_FIELDS } from '../../src/protocol/fields.js';
import { editDistance, protocolFieldSlip } from '../../src/protocol/field-slip.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { warningLevel } from '../../src/protocol/validate.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const FIELDS = PROTOCOL_FIELDS.filter((f) => !f.startsWith('$'));
const LETTERS = 'abcdefghijklmnopqrstuvwxyz_'.split('');

/** `f` with one letter replaced, inserted or removed at `at`. */
function oneEdit(f: string, kind: number, at: number, letter: string): string {
  const i = at % (f.length + (kind === 1 ? 1 : 0));
  if (kind === 0) return f.slice(0, i) + letter + f.slice(i + 1);
  if (kind === 1) return f.slice(0, i) + letter + f.slice(i);
  return f.slice(0, i) + f.slice(i + 1);
}

describe('protocolFieldSlip', () => {
  it('the red team\'s typos and option-looking names', () => {
    expect(protocolFieldSlip('stauts')).toBe('status');
    expect(protocolFieldSlip('next_action')).toBe('next_actions');
    expect(protocolFieldSlip('blocker')).toBe('blockers');
    expect(protocolFieldSlip('Next-Actions')).toBe('next_actions');
    expect(protocolFieldSlip('host')).toBe('cost'); // short names: one edit (a project keeps its own with --allow-new-field)
    for (const own of ['owner', 'notes', 'tags', 'review_board', 'jira_epic']) expect(protocolFieldSlip(own)).toBeNull();
    for (const f of PROTOCOL_FIELDS) expect(protocolFieldSlip(f)).toBeNull();
  });

  it('any one-letter slip of a field of 5+ letters is caught, and names a field within its reach', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS.filter((f) => f.length >= 5)), fc.integer({ min: 0, max: 2 }), fc.nat(), fc.constantFrom(...LETTERS), (f, kind, at, letter) => {
        const slip = oneEdit(f, kind, at, letter);
        fc.pre(!PROTOCOL_FIELDS.includes(slip) && slip.length >= 5);
        const meant = protocolFieldSlip(slip);
        expect(meant).not.toBeNull();
        expect(editDistance(slip.toLowerCase(), meant!)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('never suggests past its limit: 1 edit under 5 letters, 2 from 5', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 14 }), (key) => {
        const meant = protocolFieldSlip(key);
        if (meant === null) return;
        const k = key.toLowerCase().replace(/-/g, '_');
        expect(editDistance(k, meant)).toBeLessThanOrEqual(k.length < 5 ? 1 : 2);
        expect(PROTOCOL_FIELDS).not.toContain(key);
      }),
    );
  });

  it('validate reports a near miss as advice (never failing --strict or a push), a far custom field not at all', () => {
    const r = validateCheckpoint({ ...checkpointDoc(), stauts: 'blocked', owner: 'team-a' });
    expect(r.errors).toEqual([]);
    const slips = r.warnings.filter((w) => w.message.startsWith('unknown top-level field'));
    expect(slips).toEqual([expect.objectContaining({ path: 'stauts', message: 'unknown top-level field "stauts"; did you mean status?' })]);
    expect(warningLevel(slips[0]!)).toBe('advice');
  });
});
