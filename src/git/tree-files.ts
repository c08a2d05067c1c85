// Listing the files of one directory in a commit's tree (GitHistory.filesIn): the shared
// path rule and the parser of `git ls-tree -z` output, so both engines name files alike.
import { repoRelativePath } from './normalize.js';

/** A directory as filesIn takes it: repo-relative, no leading "./" or trailing slash, '' for the top. */
export function treeDir(dir: string): string {
  const rel = dir === '' || dir === '.' || dir === './' ? '' : repoRelativePath(dir);
  return rel.replace(/^\.\/+/, '').replace(/\/+$/, '');
}

/** What a listing keeps: files ('blob': blobs and links), submodules' gitlinks ('commit'), or symbolic links alone ('link'). */
export type EntryKind = 'blob' | 'commit' | 'link';

/** Whether a tree entry of `type` and `mode` is of `kind` (a link is a blob of mode 120000). */
export function entryOfKind(kind: EntryKind, type: string, mode: string): boolean {
  return kind === 'link' ? type === 'blob' && mode === '120000' : type === kind;
}

/** `<mode> SP <type> SP <oid> TAB <path> NUL` records: the entries of `kind` directly in one of `dirs` (`recursive`: at any depth under one). */
export function parseTreeListing(stdout: string, dirs: readonly string[], recursive = false, kind: EntryKind = 'blob'): Map<string, string> {
  const wanted = new Set(dirs);
  const under = (path: string) => dirs.some((d) => d === '' || path.startsWith(`${d}/`));
  const out = new Map<string, string>();
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, oid] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    const slash = path.lastIndexOf('/');
    if (entryOfKind(kind, type ?? '', mode ?? '') && oid && (recursive ? under(path) : wanted.has(slash < 0 ? '' : path.slice(0, slash)))) out.set(path, oid);
  }
  return out;
}
