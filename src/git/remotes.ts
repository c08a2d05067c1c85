// The repository's remote URLs, read straight from its config file (as driver-config.ts reads
// the driver): both engines and a run without a git binary see the same remotes. Doctor, next,
// status and resume use them to tell this repository's PR URLs from another's.
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { configEntries } from './config-file.js';
import { readGitFile } from './git-file.js';
import { resolveGitDirsSync } from './locate.js';

/**
 * Every remote's url and pushurl, with `url.<base>.insteadOf` applied as git applies it (the
 * longest matching prefix); [] when there is no repository or its config cannot be read.
 */
export function remoteUrls(root: string): string[] {
  let text: string | null | undefined;
  try {
    // Remotes live in the shared config: a linked worktree's are its common dir's.
    text = readGitFile(join(resolveGitDirsSync(root).commonDir, 'config'));
  } catch {
    return [];
  }
  if (!text) return [];
  const entries = configEntries(text);
  const insteadOf: [prefix: string, base: string][] = [];
  for (const e of entries) if (e.section === 'url' && e.subsection !== null && e.key === 'insteadof' && e.value) insteadOf.push([e.value, e.subsection]);
  const rewrite = (url: string): string => {
    let best: [string, string] | null = null;
    for (const pair of insteadOf) if (url.startsWith(pair[0]) && (!best || pair[0].length > best[0].length)) best = pair;
    return best ? best[1] + url.slice(best[0].length) : url;
  };
  return entries.filter((e) => e.section === 'remote' && (e.key === 'url' || e.key === 'pushurl') && e.value).map((e) => rewrite(e.value!));
}

/**
 * Whether the repository at `root` has any remote-tracking ref (refs/remotes/…, loose or packed).
 * True when that cannot be told from its files (no git dir found, refs stored another way):
 * the answer only decides whether a push's verdict explains itself, never the verdict.
 */
export function hasRemoteTrackingRefs(root: string): boolean {
  let commonDir: string;
  try {
    commonDir = resolveGitDirsSync(root).commonDir;
  } catch {
    return true;
  }
  const config = readGitFile(join(commonDir, 'config'));
  // A line's own blanks before "[" (not `^\s*`, which retried from each line of a long run of blank lines).
  if (config === undefined || (config !== null && /^[^\S\n\r\u2028\u2029]*\[\s*extensions\b/im.test(config))) return true;
  const packed = readGitFile(join(commonDir, 'packed-refs'));
  if (packed === undefined || (packed !== null && /^[0-9a-f]+ refs\/remotes\//m.test(packed))) return true;
  return anyFileUnder(join(commonDir, 'refs', 'remotes'));
}

function anyFileUnder(dir: string): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
  return entries.some((e) => !e.isDirectory() || anyFileUnder(join(dir, e.name)));
}
