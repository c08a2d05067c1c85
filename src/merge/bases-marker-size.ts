// How the driver tells git's merge of merge bases (the virtual ancestor of a criss-cross merge)
// from a real merge: git passes %L as the file's conflict-marker-size plus 2 for each level of
// merging bases (ll_merge's extra_marker_size, the merge's depth times 2, since git 2.12), so a
// history whose bases are criss-cross merges themselves asks with 9, 11, ... Pure: the sizes in.

import { DEFAULT_MARKER_SIZE } from './render.js';

/**
 * The `conflict-marker-size` attribute as git reads it (ll_merge_marker_size): C's atoi of the
 * value (leading digits, `9x` is 9, `0x9` is 0), the default for anything not above 0, and for
 * an attribute unset or unspecified. `value` is what `git check-attr` prints after the name.
 */
export function attributeMarkerSize(value: string | undefined): number {
  const digits = value === undefined ? undefined : /^[\t\n\v\f\r ]*([+-]?\d+)/.exec(value)?.[1];
  const size = digits === undefined ? 0 : Number(digits);
  return size > 0 ? size : DEFAULT_MARKER_SIZE;
}

/** Whether git passed `markerSize` for a merge of bases at some depth: the file's own size plus 2k, k >= 1. */
export function mergesBasesAt(markerSize: number, fileMarkerSize: number): boolean {
  return markerSize > fileMarkerSize && (markerSize - fileMarkerSize) % 2 === 0;
}
