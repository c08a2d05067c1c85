// How resume reads a checkpoint's generated_files entries, as doctor parses them (one
// generatedTargets pass, from the work tree alone):
//  - notes: entries every part of which names no file ("none yet", "N/A", "see PR 44", one struck
//    out) are no file to read (red team 64: they used up resume's cap on files). A URL stays, a
//    page the session may open; a bare name git knows as deleted is doctor's missing file, which
//    resume marks as gone.
//  - local: an entry that is one path written for another checkout, under its project_dir
//    ("/home/alice/proj/src/a.ts") or with Windows separators ("src\\a.ts"), is listed as the
//    file here ("src/a.ts"), the one a session can load.
import { isAbsolute } from 'node:path';
import { existsIn, generatedTargets } from '../doctor/checks.js';
import type { Checkpoint } from '../protocol/types.js';

export interface ListedEntries {
  /** The JSON paths (`context_primer.generated_files[2]`) of the entries that are notes. */
  notes: Set<string>;
  /** By JSON path: the repo-relative path here of an entry written for another checkout. */
  local: Map<string, string>;
}

export function readListedEntries(cp: Checkpoint, root: string): ListedEntries {
  const exists = existsIn(root);
  const targets = generatedTargets(cp, root, new Map(), exists);
  const parts = new Map<string, { count: number; allNotes: boolean }>();
  for (const t of targets) {
    const seen = parts.get(t.path) ?? { count: 0, allNotes: true };
    parts.set(t.path, { count: seen.count + 1, allNotes: seen.allNotes && t.target.kind === 'note' && t.target.url === undefined });
  }
  const local = new Map<string, string>();
  for (const t of targets) {
    // One path as the whole entry (never a part of a list, a file prose names, or one with a note)
    // written for another checkout, naming a file here (one gone is marked as written instead).
    if (parts.get(t.path)!.count !== 1 || t.prose || t.target.kind !== 'path' || t.rel === null || t.part !== t.entry.trim() || t.rel === t.part) continue;
    const elsewhere = t.part.includes('\\') ? t.part.replace(/\\/g, '/').replace(/^\.\//, '') === t.rel : isAbsolute(t.part) && !/\s/.test(t.part);
    if (elsewhere && exists(t.rel)) local.set(t.path, t.rel);
  }
  return { notes: new Set([...parts].flatMap(([path, p]) => (p.allNotes ? [path] : []))), local };
}
