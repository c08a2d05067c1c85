// Where a listed generated_files entry lies in this checkout, as doctor reads it: a path written
// under another machine's project_dir ("/home/alice/proj/src/a.ts") or with Windows separators
// ("src\\a.ts") is the repository's "src/a.ts" here. resume lists that, the file a session can load.
import { existsIn, generatedTargets } from '../doctor/checks.js';
import { isAbsolute } from 'node:path';
import type { Checkpoint } from '../protocol/types.js';

/** By each entry's JSON path: its repo-relative path here, for an entry that is one path written otherwise. */
export function localPaths(cp: Checkpoint, root: string): Map<string, string> {
  const exists = existsIn(root);
  const targets = generatedTargets(cp, root, new Map(), exists);
  const partsOf = new Map<string, number>();
  for (const t of targets) partsOf.set(t.path, (partsOf.get(t.path) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const t of targets) {
    // One path as the whole entry (never a part of a list, a file prose names, or one with a note)
    // written for another checkout, naming a file here (one gone is marked as written instead).
    if (partsOf.get(t.path) !== 1 || t.prose || t.target.kind !== 'path' || t.rel === null || t.part !== t.entry.trim() || t.rel === t.part) continue;
    const elsewhere = t.part.includes('\\') ? t.part.replace(/\\/g, '/').replace(/^\.\//, '') === t.rel : isAbsolute(t.part) && !/\s/.test(t.part);
    if (elsewhere && exists(t.rel)) out.set(t.path, t.rel);
  }
  return out;
}
