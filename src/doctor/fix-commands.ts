// The `checkpoint update` a generated_files finding names, pasteable as printed (shell-words.ts):
// the save a changed file asks for, or the note a missing file's entry needs. Pure.
import { pathKeys } from '../protocol/path.js';
import { textAssign } from '../protocol/repairable.js';
import { holdsPlaceholder, pasteArg, placeholder } from '../shell-words.js';
import type { Finding } from './types.js';
import { entryParts, goneNote, parseEntry } from './entries.js';

/**
 * A save of `skill`'s checkpoint: what a change made after the save stops counting on (its
 * updated_at is what the change is dated against). Its summary is the reader's to write.
 */
export function resaveCommand(skill: string): string {
  return `checkpoint update ${pasteArg(skill)} --progress_summary=${placeholder('what the change means for the work')}`;
}

/** Where a finding carries `command`: `fix` when it runs as printed, `fix_template` when a placeholder must be filled in first. */
export function fixFields(command: string | null): Pick<Finding, 'fix' | 'fix_template'> {
  if (command === null) return {};
  return holdsPlaceholder(command) ? { fix_template: command } : { fix: command };
}

/**
 * The update that says, in the entry at `path` (`context_primer.generated_files[1]`), that its
 * file is gone on purpose (`what`: "deleted", "renamed to src/c.ts"), in words goneNote reads: the
 * entry as written with that note after it ("src/b.ts (deleted)"; in a note of its own, "src/b.ts
 * (PR 1; deleted)", "src/b.ts — draft — deleted"). The missing file is then a note, in doctor and
 * under the pre-push hook. The entry is kept, not dropped: generated_files is a log of what the
 * session made (merged as one), and its other entries are left as they are. Null when no such
 * text reads as the same entry saying so, or the entry names other files too (`entry` null: its
 * note would speak for them as well; splitGoneCommand).
 */
export function markGoneCommand(skill: string, path: string, entry: string | null, what: string): string | null {
  const keys = fieldKeys(path);
  const text = entry === null || keys === null ? null : markedGone(entry, what);
  const value = text === null ? null : textAssign(text);
  return value === null ? null : `checkpoint update ${pasteArg(skill)} --${keys!.join('.')}${value}`;
}

/**
 * For an entry naming several files, every one of them deleted ("src/a.ts, src/b.ts"): the update
 * that marks the whole entry deleted, a note that speaks for each of them, as it may now. Each
 * file's finding names the same one. `split` reads an entry into parts as doctor does: the entry
 * marked must read as the same files, or there is no command.
 */
export function markAllDeletedCommand(skill: string, path: string, entry: string, split: (text: string) => string[]): string | null {
  const keys = fieldKeys(path);
  const none = () => false;
  const files = (text: string) => JSON.stringify(split(text).map((p) => parseEntry(p, none)));
  const read = files(entry);
  const text = keys === null ? null : markedGone(entry, 'deleted', (t) => files(t) === read);
  const value = text === null ? null : textAssign(text);
  return value === null ? null : `checkpoint update ${pasteArg(skill)} --${keys!.join('.')}${value}`;
}

/**
 * For an entry naming several files (`parts`, as doctor split it: "src/a.ts, src/b.ts (PR 12)")
 * of which `part` is gone and every other is there: the update that takes `part` out of it, every
 * other part's text as written, and appends it to the list as an entry of its own saying it is
 * gone ("src/b.ts (PR 12; deleted)"). A note in the entry itself would speak for every file it
 * names (goneNote reads an entry's note), so a later deletion of one still there would pass
 * unseen. `split` reads an entry into parts as doctor does (entryParts, with what is there): the
 * entry left must read as the other parts, in order, or there is no command. Null too for an
 * entry not in a list (`path` not ending in an index).
 */
export function splitGoneCommand(skill: string, path: string, entry: string, parts: readonly string[], part: string, what: string, split: (text: string) => string[]): string | null {
  const keys = fieldKeys(path);
  const k = parts.indexOf(part);
  if (keys === null || typeof keys.at(-1) !== 'number' || k < 0 || parts.length < 2) return null;
  const marked = markedGone(part, what);
  // Where each part is in the entry, in order: the part is cut out with the joiner after it (the one before, for the last).
  const spans: [number, number][] = [];
  for (const p of parts) {
    const at = entry.indexOf(p, spans.at(-1)?.[1] ?? 0);
    if (at < 0) return null;
    spans.push([at, at + p.length]);
  }
  const left = k < parts.length - 1 ? entry.slice(0, spans[k]![0]) + entry.slice(spans[k + 1]![0]) : entry.slice(0, spans[k - 1]![1]) + entry.slice(spans[k]![1]);
  const others = parts.filter((_, i) => i !== k);
  const reads = split(left).map((p) => p.trim());
  if (marked === null || reads.length !== others.length || reads.some((p, i) => p !== others[i]!.trim())) return null;
  const [kept, added] = [textAssign(left), textAssign(marked)];
  if (kept === null || added === null) return null;
  return `checkpoint update ${pasteArg(skill)} --${keys.join('.')}${kept} --${keys.slice(0, -1).join('.')}+${added}`;
}

/** The keys of a field's JSON path, each one a flag can name; null when one cannot be. */
function fieldKeys(path: string): (string | number)[] | null {
  const keys = pathKeys(path);
  return keys === null || keys.some((k) => typeof k === 'string' && !/^[A-Za-z_]\w*$/.test(k)) ? null : keys;
}

/**
 * `entry` with a note saying its file is gone (`what`) that goneNote reads, read as the same one
 * target (or as `same` says: the same files of a list); null when none does.
 */
function markedGone(entry: string, what: string, same?: (text: string) => boolean): string | null {
  const none = () => false;
  const read = JSON.stringify(parseEntry(entry, none));
  const written = entry.trimEnd();
  // Its own note in brackets takes it as one more clause: "src/b.ts (PR 1; deleted)".
  const candidates = [`${written} (${what})`, ...(written.endsWith(')') ? [`${written.slice(0, -1)}; ${what})`] : []), `${written} \u2014 ${what}`];
  const reads = same ?? ((t: string) => entryParts(t, none).length === 1 && JSON.stringify(parseEntry(t, none)) === read);
  return candidates.find((t) => goneNote(t) !== null && reads(t)) ?? null;
}

/** "update the checkpoint", naming the command that does it when there is one. */
export function updateIt(fix: string | null, orRestore = false): string {
  if (fix === null) return `update the checkpoint${orRestore ? ' (or restore the file)' : ''}`;
  return `update the checkpoint (\`${fix}\`)${orRestore ? ' or restore the file' : ''}`;
}
