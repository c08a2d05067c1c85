// The end of a text without a run of given characters, read by hand: an end-anchored regex
// (/x+$/) retries from each character of a long run (quadratic: a hostile clone's megabyte of
// them took minutes).

/** `text` without the characters of `chars` it ends with. */
export function withoutTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `path` without the slashes it ends with ("docs/" -> "docs"). */
export const withoutTrailingSlashes = (path: string): string => withoutTrailing(path, '/');

/** `path` without the slashes or backslashes it ends with ("C:\\work\\" -> "C:\\work"). */
export const withoutTrailingSeparators = (path: string): string => withoutTrailing(path, '/\\');
