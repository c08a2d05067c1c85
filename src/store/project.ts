// The project name a new checkpoint gets: package.json "name", else the folder name.
import { basename, join } from 'node:path';
import { readProjectText } from './safe-fs.js';

export function projectName(root: string): string {
  try {
    const name = (JSON.parse(readProjectText(root, join(root, 'package.json'), { maxBytes: 1024 * 1024 }) ?? '{}') as { name?: unknown }).name;
    if (typeof name === 'string' && name.trim()) return name.trim();
  } catch {
    // no, unsafe or unreadable package.json: fall back to the folder name
  }
  return basename(root);
}
