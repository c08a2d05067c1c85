// Reads the merge-driver registration straight from git's config files, so doctor can check it
// without a git binary: the system and global files (config-places.ts, as git finds them), then
// the repository's own (the shared config of linked worktrees lives in the common dir); the last
// one setting merge.checkpoint.driver wins, as in git. Read synchronously: node:fs/promises alone
// costs doctor ~2% of its run.
import { isAbsolute, join } from 'node:path';
import { resolveGitDirs } from './locate.js';
import { readGitFile } from './git-file.js';
import { configValue } from './config-file.js';
import { currentConfigPlaces } from './config-places.js';

/** Where a config value was found: this clone's config, or the user's (global) or machine's (system). */
export type ConfigScope = 'local' | 'global' | 'system';

export interface DriverSetting {
  value: string;
  scope: ConfigScope;
  /** The config file it was read from. */
  file: string;
}

/** `merge.checkpoint.driver` from the config file at `file`, or null (absent, not a plain file, unset). */
function driverIn(file: string): string | null {
  // git reads only absolute paths here; a relative one would name a file in the work tree.
  if (!isAbsolute(file) || file === '/dev/null') return null;
  return configValue(readGitFile(file) ?? '', 'merge', 'checkpoint', 'driver');
}

/**
 * The `merge.checkpoint.driver` git uses in this repository and where it is set, or null. Read
 * last-wins like git, so from the repository's own file back to the system's: the first file that
 * sets it answers, and doctor in a clone with its own driver reads no file outside it.
 */
export async function readDriverSetting(root: string): Promise<DriverSetting | null> {
  const { commonDir } = await resolveGitDirs(root);
  const local = join(commonDir, 'config');
  const value = driverIn(local);
  if (value !== null) return { value, scope: 'local', file: local };
  const places = currentConfigPlaces();
  for (const [scope, files] of [['global', places.global], ['system', places.system]] as const) {
    for (const file of [...files].reverse()) {
      const found = driverIn(file);
      if (found !== null) return { value: found, scope, file };
    }
  }
  return null;
}

/** `merge.checkpoint.driver` as git would use it here (this clone's, else global, else system), or null. */
export async function readDriverConfig(root: string): Promise<string | null> {
  return (await readDriverSetting(root))?.value ?? null;
}
