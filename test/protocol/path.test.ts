import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { joinPath, pathKeys } from '../../src/protocol/path.js';

describe('pathKeys reads back what joinPath wrote', () => {
  it('property: any keys and indexes, odd key names included (dots, brackets, quotes, spaces, unicode)', () => {
    const key = fc.oneof(fc.nat({ max: 1000 }), fc.string(), fc.constantFrom('a.b', '[0]', '"', '\\', 'x y', 'ß', '__proto__', '-x', 'a-b', '$x'));
    fc.assert(fc.property(fc.array(key, { minLength: 1, maxLength: 6 }), (keys) => {
      // joinPath's first key is a name: a path never starts at an index.
      fc.pre(typeof keys[0] === 'string');
      const path = keys.reduce<string>((base, k) => joinPath(base, k), '');
      expect(pathKeys(path)).toEqual(keys);
    }), { numRuns: 2000 });
  });
  it('(root) is no keys; a text joinPath cannot make is null', () => {
    expect(pathKeys('(root)')).toEqual([]);
    expect(pathKeys('a..b')).toBeNull();
    expect(pathKeys('a[x]')).toBeNull();
    expect(pathKeys('a"b"')).toBeNull();
  });
});
