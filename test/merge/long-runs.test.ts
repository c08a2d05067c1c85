// A hostile checkpoint's number literal with a megabyte-long run of zeros inside: /0+$/ retried
// from each zero; exactNumber reads it in one pass, with the same answer.
import { describe, expect, it } from 'vitest';
import { exactNumber } from '../../src/merge/log-texts.js';

describe('exactNumber on a megabyte-long literal', () => {
  it('keeps the zeros inside and drops the trailing ones', () => {
    const zeros = '0'.repeat(1 << 20);
    expect(exactNumber(`1${zeros}1`)).toBe(`1${zeros}1e0`);
    expect(exactNumber(`8.0${zeros}`)).toBe(`8e0`);
    expect(exactNumber('168.630')).toBe('16863e-2');
  });
});
