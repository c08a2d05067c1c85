// Reads the merge-driver registration straight from the repository's config file, so
// doctor can check it without a git binary. The shared config of linked worktrees lives
// in the common dir.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveGitDirs } from './locate.js';

/** `merge.checkpoint.driver` from the repository config, or null. */
export async function readDriverConfig(root: string): Promise<string | null> {
  const { commonDir } = await resolveGitDirs(root);
  const text = await readFile(join(commonDir, 'config'), 'utf8').catch(() => '');
  let inSection = false;
  let driver: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const section = /^\[\s*([^\]\s"]+)(?:\s+"([^"]*)")?\s*\]/.exec(line);
    if (section) {
      inSection = section[1]!.toLowerCase() === 'merge' && section[2] === 'checkpoint';
      continue;
    }
    const kv = /^driver\s*=\s*(.*)$/i.exec(line);
    if (inSection && kv) driver = kv[1]!;
  }
  return driver;
}
