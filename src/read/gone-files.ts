// Which of a checkpoint's generated_files are no longer where it names them, as doctor finds
// them: its generated_files check run over that one checkpoint, so resume never lists a file
// git shows renamed or deleted as one to read, and never says other than doctor does.
import { runDoctor } from '../doctor/run.js';
import { hasGlob } from '../doctor/entries.js';
import type { EngineName } from '../git/types.js';

export interface GoneFile {
  /** The entry's JSON path (`context_primer.generated_files[1]`, or a top-level `generated_files[0]`). */
  path: string;
  /** The path doctor judged (repo-relative; for a pattern, the match that went, or the pattern). */
  file: string;
  renamed_to?: string;
  /** The commit that renamed or deleted it; absent when no commit says (not committed yet, or unexplained). */
  sha?: string;
  /** In a reader's words: "renamed to src/b.ts in 1b5f3ba", "deleted in 1b5f3ba", "missing". */
  note: string;
}


export async function goneFiles(opts: { root: string; now: Date; skill: string; engine?: 'auto' | EngineName }): Promise<GoneFile[]> {
  const { findings } = await runDoctor(opts);
  return findings.flatMap((f): GoneFile[] => {
    const e = f.evidence;
    if (f.check !== 'generated_files' || e?.missing !== true || e.file === undefined) return [];
    const at = e.sha?.slice(0, 7);
    // A pattern matching nothing is named by its text: its last match may have been renamed or deleted.
    const pattern = hasGlob(e.file) && e.renamed_to === undefined;
    const note = pattern ? `matches no file${at ? ` since ${at}` : ''}` : e.renamed_to !== undefined && at ? `renamed to ${e.renamed_to} in ${at}` : at ? `deleted in ${at}` : 'missing';
    return [{ path: f.path, file: e.file, ...(e.renamed_to === undefined ? {} : { renamed_to: e.renamed_to }), ...(e.sha === undefined ? {} : { sha: e.sha }), note }];
  });
}
