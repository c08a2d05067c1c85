// git's object names: SHA-1 (40 hex digits) unless the repository's config asks for SHA-256
// (`extensions.objectFormat = sha256`, 64 digits), which checkpoint's readers do not take yet.
import { join } from 'node:path';
import { readGitFile } from './git-file.js';

/** Whether the repository whose common git dir is `commonDir` names its objects with SHA-256. */
export function usesSha256(commonDir: string): boolean {
  const config = readGitFile(join(commonDir, 'config'));
  // A line's own blanks before the key (not `^\s*`, which retried from each line of a long run of blank lines).
  return typeof config === 'string' && config.toLowerCase().includes('objectformat') && /^[^\S\n\r\u2028\u2029]*objectformat\s*=\s*sha256\s*$/im.test(config);
}

/** The common git dir of `gitdir` (a linked work tree's names it in `commondir`). */
export function commonDirOf(gitdir: string): string {
  const named = readGitFile(join(gitdir, 'commondir'));
  return typeof named === 'string' && named.trim() ? join(gitdir, named.trim()) : gitdir;
}
