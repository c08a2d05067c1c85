// The project name a new checkpoint gets: package.json "name", else the folder name.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export function projectName(root: string): string {
  try {
    const name = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown }).name;
    if (typeof name === 'string' && name.trim()) return name.trim();
  } catch {
    // no or unreadable package.json: fall back to the folder name
  }
  return basename(root);
}
