// Reads the merge-driver registration straight from the repository's config file, so
// doctor can check it without a git binary. The shared config of linked worktrees lives
// in the common dir. Read synchronously: node:fs/promises alone costs doctor ~2% of its run.
import { join } from 'node:path';
import { resolveGitDirs } from './locate.js';
import { readGitFile } from './git-file.js';
import { configValue } from './config-file.js';

/** `merge.checkpoint.driver` from the repository config, or null. */
export async function readDriverConfig(root: string): Promise<string | null> {
  const { commonDir } = await resolveGitDirs(root);
  // No config file (or not a plain one: a FIFO is never read): no driver.
  return configValue(readGitFile(join(commonDir, 'config')) ?? '', 'merge', 'checkpoint', 'driver');
}
