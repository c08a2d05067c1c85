// Reads the merge-driver registration straight from the repository's config file, so
// doctor can check it without a git binary. The shared config of linked worktrees lives
// in the common dir. Read synchronously: node:fs/promises alone costs doctor ~2% of its run.
import { join } from 'node:path';
import { resolveGitDirs } from './locate.js';
import { readGitFile } from './head-files.js';

/** `merge.checkpoint.driver` from the repository config, or null. */
export async function readDriverConfig(root: string): Promise<string | null> {
  const { commonDir } = await resolveGitDirs(root);
  // No config file (or not a plain one: a FIFO is never read): no driver.
  const text = readGitFile(join(commonDir, 'config')) ?? '';
  let inSection = false;
  let driver: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const section = /^\[\s*([^\]\s"]+)(?:\s+"([^"]*)")?\s*\]/.exec(line);
    if (section) {
      // git's older [merge.checkpoint] form names the same section (its subsection lowercased):
      // missing it here would have doctor ask for install-driver, which finds the driver set.
      const [name, sub] = section[2] !== undefined ? [section[1]!, section[2]] : [section[1]!.replace(/\..*$/, ''), /\.(.*)$/.exec(section[1]!)?.[1]?.toLowerCase()];
      inSection = name.toLowerCase() === 'merge' && sub === 'checkpoint';
      continue;
    }
    const kv = /^driver\s*=\s*(.*)$/i.exec(line);
    if (inSection && kv) driver = decodeConfigValue(kv[1]!);
  }
  return driver;
}

/** A git config value as git reads it: quotes dropped, escapes decoded, comments cut. */
export function decodeConfigValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const e = raw[++i]!;
      out += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'b' ? '\b' : e;
    } else if (!quoted && (c === ';' || c === '#')) break;
    else out += c;
  }
  return out.trimEnd();
}
