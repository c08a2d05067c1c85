// The `checkpoint update` a generated_files finding names, pasteable as printed (shell-words.ts):
// the save a changed file asks for, or the note a missing file's entry needs. Pure.
import { pathKeys } from '../protocol/path.js';
import { textAssign } from '../protocol/repairable.js';
import { pasteArg, placeholder } from '../shell-words.js';
import { entryParts, goneNote, parseEntry } from './entries.js';

/**
 * A save of `skill`'s checkpoint: what a change made after the save stops counting on (its
 * updated_at is what the change is dated against). Its summary is the reader's to write.
 */
export function resaveCommand(skill: string): string {
  return `checkpoint update ${pasteArg(skill)} --progress_summary=${placeholder('what the change means for the work')}`;
}

/**
 * The update that says, in the entry at `path` (`context_primer.generated_files[1]`), that its
 * file is gone on purpose (`what`: "deleted", "renamed to src/c.ts"), in words goneNote reads: the
 * entry as written with that note after it ("src/b.ts (deleted)"; in a note of its own, "src/b.ts
 * (PR 1; deleted)", "src/b.ts — draft — deleted"). The missing file is then a note, in doctor and
 * under the pre-push hook. The entry is kept, not dropped: generated_files is a log of what the
 * session made (merged as one), and its other entries are left as they are. Null when no such
 * text reads as the same entry saying so, or the entry names other files too (`entry` null): its
 * note would speak for them as well.
 */
export function markGoneCommand(skill: string, path: string, entry: string | null, what: string): string | null {
  const keys = pathKeys(path);
  if (entry === null || keys === null || keys.some((k) => typeof k === 'string' && !/^[A-Za-z_]\w*$/.test(k))) return null;
  const none = () => false;
  const read = JSON.stringify(parseEntry(entry, none));
  const written = entry.trimEnd();
  // Its own note in brackets takes it as one more clause: "src/b.ts (PR 1; deleted)".
  const candidates = [`${written} (${what})`, ...(written.endsWith(')') ? [`${written.slice(0, -1)}; ${what})`] : []), `${written} \u2014 ${what}`];
  const text = candidates.find(
    (t) => goneNote(t) !== null && entryParts(t, none).length === 1 && JSON.stringify(parseEntry(t, none)) === read,
  );
  const value = text === undefined ? null : textAssign(text);
  return value === null ? null : `checkpoint update ${pasteArg(skill)} --${keys.join('.')}${value}`;
}

/** "update the checkpoint", naming the command that does it when there is one. */
export function updateIt(fix: string | null, orRestore = false): string {
  if (fix === null) return `update the checkpoint${orRestore ? ' (or restore the file)' : ''}`;
  return `update the checkpoint (\`${fix}\`)${orRestore ? ' or restore the file' : ''}`;
}
