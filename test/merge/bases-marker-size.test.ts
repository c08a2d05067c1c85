// How the driver tells git's merges of merge bases (at any depth) from a merge, by %L and the
// file's conflict-marker-size as git reads it.
import { describe, expect, it } from 'vitest';
import { attributeMarkerSize, mergesBasesAt } from '../../src/merge/bases-marker-size.js';

describe('attributeMarkerSize', () => {
  it("reads the attribute as git's ll_merge_marker_size does: atoi, the default 7 for anything not above 0", () => {
    const cases: [string | undefined, number][] = [
      [undefined, 7],
      ['unspecified', 7],
      ['set', 7],
      ['unset', 7],
      ['9', 9],
      ['32', 32],
      ['+9', 9],
      ['009', 9],
      ['9x', 9],
      ['1e3', 1],
      ['0x9', 7],
      ['0', 7],
      ['-9', 7],
      ['', 7],
    ];
    for (const [value, size] of cases) expect(attributeMarkerSize(value), String(value)).toBe(size);
  });
});

describe('mergesBasesAt', () => {
  it("is the file's size plus 2k, k >= 1: every depth of a criss-cross of criss-cross merges", () => {
    for (const file of [7, 9, 3, 32]) {
      expect(mergesBasesAt(file, file)).toBe(false);
      for (let k = 1; k <= 5; k++) expect(mergesBasesAt(file + 2 * k, file)).toBe(true);
      for (const off of [-2, -1, 1, 3]) expect(mergesBasesAt(file + off, file)).toBe(false);
    }
  });
});
