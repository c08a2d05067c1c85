// Whether git ignores the checkpoint files: a project that followed the protocol's 1.0 layout has
// `.checkpoints/` in its .gitignore, and then no checkpoint is ever committed (other sessions and
// clones never see one), while every command works and doctor finds nothing. init names the rule.
import { gitOut } from './git-config.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { quoted } from '../one-line.js';
import { indexNamesAndGitlinks } from '../git/skip-worktree.js';

/** The note for the rule that ignores checkpoint files (`<source>:<line>` and the pattern), or null when none does. */
export function ignoredCheckpointsNote(root: string): string | null {
  // -v names the last rule that matched, a negated one (!pattern) too: that one un-ignores.
  const out = gitOut(root, ['check-ignore', '-v', '--', `${CHECKPOINTS_DIR}/example.checkpoint.json`]);
  const match = out === null ? null : /^(.*?:\d+):(.*)\t/.exec(out);
  if (match === null || match[2]!.startsWith('!')) return null;
  return `${match[1]} ignores checkpoint files (${quoted(match[2]!)}): git would never commit them, so other sessions and clones would not see them; remove that rule (checkpoints are tracked in git since protocol 1.1)`;
}

/**
 * Whether a rule ignores the folder `folder` itself (`.checkpoints/`), not only files in it: git
 * cannot re-include a file in an excluded folder, so a `!<file>` after that rule does nothing.
 * Asked of git, which knows the path is a folder (a folder-only pattern); no git, no answer: false.
 */
export function ignoresFolder(root: string, folder: string): boolean {
  return gitOut(root, ['check-ignore', '-q', '--', folder]) !== null;
}

/** Why `rel` under the submodule gitlink `link` (".checkpoints" committed as one) is never committed, and the repair. */
export function gitlinkedNote(link: string, rel: string): string {
  return `git records ${link} as a submodule (a gitlink), so ${rel} is never committed and no other clone or branch sees it; make it a folder again: \`git rm --cached ${link}\`, then \`git add ${link}\` and commit`;
}

/** The note for a gitlink at or above the checkpoints folder, or null when the index records none: one read of the index. */
export function gitlinkedCheckpointsNote(root: string): string | null {
  const rel = `${CHECKPOINTS_DIR}/<skill>.checkpoint.json`;
  const link = indexNamesAndGitlinks(root, []).gitlinks.find((l) => rel.startsWith(`${l}/`));
  return link === undefined ? null : gitlinkedNote(link, rel);
}
