// Which of a checkpoint's generated_files entries doctor reads as notes, naming no file ("none
// yet", "N/A", "see PR 44", an entry struck out): resume lists none of them as a file to read
// (red team 64: they used up its cap on files). A URL stays: a page the session may open. From the work tree alone, as doctor parses
// entries (generatedTargets); a bare name git knows as deleted is doctor's missing file instead,
// which resume marks as gone.
import { existsIn, generatedTargets } from '../doctor/checks.js';
import type { Checkpoint } from '../protocol/types.js';

/** The JSON paths (`context_primer.generated_files[2]`) of the entries every part of which is a note other than a URL. */
export function noteEntries(cp: Checkpoint, root: string): Set<string> {
  const allNotes = new Map<string, boolean>();
  for (const t of generatedTargets(cp, root, new Map(), existsIn(root))) allNotes.set(t.path, (allNotes.get(t.path) ?? true) && t.target.kind === 'note' && t.target.url === undefined);
  return new Set([...allNotes].flatMap(([path, note]) => (note ? [path] : [])));
}
