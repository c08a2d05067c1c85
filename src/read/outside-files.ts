// Which of a checkpoint's generated_files lead out of the repository (a path outside it, a
// committed symlink out of it, what lies through one) or to no plain file (a FIFO), as doctor's
// generated_files check notes them. The protocol has a new session load the files resume lists:
// resume marks these, never lists one as a file to read. From the work tree alone, no history,
// so they are marked when git cannot be read too.
import { existsIn, fileUrlOutside, generatedTargets, outOfRepo, repoRelative, whereOutside, type OutOfRepo } from '../doctor/checks.js';
import { outsideMentions } from '../doctor/entries.js';
import type { Checkpoint } from '../protocol/types.js';

export interface OutsideFile extends OutOfRepo {
  /** The entry's JSON path (`context_primer.generated_files[1]`, or a top-level `generated_files[0]`). */
  path: string;
  /** The entry's other parts that stay in the repository, still files to load ("src/config.ts" of "src/config.ts, ~/.app/settings.json"). */
  inRepo: string[];
}

/**
 * Judged per part of an entry (entryParts, as doctor splits it): only the parts leading out are
 * marked. An entry read as prose ("~/.ssh/id_rsa and src/b.ts", "src/a.ts; $HOME/.aws/x") is
 * marked too when any word of it is a path outside, whatever joins them: its in-repo files stay.
 */
export function outsideFiles(cp: Checkpoint, root: string): OutsideFile[] {
  const exists = existsIn(root);
  const targets = generatedTargets(cp, root, new Map(), exists).map((t) => ({ t, out: outOfRepo(t, root, exists) }));
  // Indexed once by entry: a list of 20,000 entries scanned per entry took minutes (red team 63 r1 2).
  const inRepoByPath = new Map<string, Set<string>>();
  const insideByPath = new Map<string, Set<string>>();
  const setOf = (index: Map<string, Set<string>>, path: string) => index.get(path) ?? index.set(path, new Set()).get(path)!;
  for (const { t, out } of targets) {
    // The entry's files in the repository, by their own paths (never the entry's text, which holds the path out).
    const inRepo = setOf(inRepoByPath, t.path);
    if (out === null && t.target.kind === 'path' && t.rel !== null) inRepo.add(t.rel);
    else if (out === null && t.target.kind === 'pattern') inRepo.add(t.target.text);
    // A word the entry's own targets read inside the checkout (a project_dir path mapped in) is not one.
    const inside = setOf(insideByPath, t.path);
    if (t.rel !== null) inside.add(t.part);
  }
  const inRepoOf = (path: string) => [...inRepoByPath.get(path)!];
  const found: OutsideFile[] = targets.flatMap(({ t, out }) => (out === null ? [] : [{ path: t.path, ...out, inRepo: inRepoOf(t.path) }]));
  const marked = new Set(found.map((f) => f.path));
  for (const { t } of targets) {
    if (marked.has(t.path)) continue;
    marked.add(t.path);
    const inside = insideByPath.get(t.path)!;
    const word = outsideMentions(t.entry).find((w) => !inside.has(w) && (/^file:/i.test(w) ? fileUrlOutside(w, root) : repoRelative(root, w) === null));
    if (word !== undefined) found.push({ path: t.path, file: word, kind: 'outside', note: whereOutside(root, word), inRepo: inRepoOf(t.path) });
  }
  // In the list's order, as resume shows the entries: the Map keeps each path's first place.
  const order = new Map([...inRepoByPath.keys()].map((path, i) => [path, i]));
  return found.sort((a, b) => order.get(a.path)! - order.get(b.path)!);
}
