// Whether git ignores the checkpoint files: a project that followed the protocol's 1.0 layout has
// `.checkpoints/` in its .gitignore, and then no checkpoint is ever committed (other sessions and
// clones never see one), while every command works and doctor finds nothing. init names the rule.
import { gitOut } from './git-config.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { quoted } from '../one-line.js';

/** The note for the rule that ignores checkpoint files (`<source>:<line>` and the pattern), or null when none does. */
export function ignoredCheckpointsNote(root: string): string | null {
  // -v names the last rule that matched, a negated one (!pattern) too: that one un-ignores.
  const out = gitOut(root, ['check-ignore', '-v', '--', `${CHECKPOINTS_DIR}/example.checkpoint.json`]);
  const match = out === null ? null : /^(.*?:\d+):(.*)\t/.exec(out);
  if (match === null || match[2]!.startsWith('!')) return null;
  return `${match[1]} ignores checkpoint files (${quoted(match[2]!)}): git would never commit them, so other sessions and clones would not see them; remove that rule (checkpoints are tracked in git since protocol 1.1)`;
}
