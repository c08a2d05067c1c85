// A path's trailing slashes, as a folder is written ("docs/", "docs//"). `(?<!…)`: a run is tried
// from its first slash only; /\/+$/ retried from each slash of a long run (quadratic: a hostile
// checkpoint's megabyte of slashes in a path took minutes).

/** `path` without the slashes it ends with ("docs/" -> "docs"). */
export const withoutTrailingSlashes = (path: string): string => path.replace(/(?<!\/)\/+$/, '');

/** `path` without the slashes or backslashes it ends with ("C:\\work\\" -> "C:\\work"). */
export const withoutTrailingSeparators = (path: string): string => path.replace(/(?<![\\/])[\\/]+$/, '');
