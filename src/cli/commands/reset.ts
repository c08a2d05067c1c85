import { checkpointPath, display } from '../../store/checkpoints.js';
import { archiveCheckpoint } from '../../store/history.js';
import { linkAt } from '../../store/safe-fs.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf, skillArg } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = skillArg(args);
  const live = checkpointPath(root, skill);
  // A committed link (to a file in the project) is archived as a copy; the file it named stays.
  const linked = linkAt(live) !== null;
  const archive = await archiveCheckpoint(root, skill, ctx.clock);
  if (ctx.json) ctx.out.json({ ok: true, skill, archive: display(root, archive), ...(linked ? { was_link: true } : {}) });
  else {
    const link = linked ? `; ${display(root, live)} was a link: the archive is a copy of its content, and the file it pointed at is left as it is` : '';
    ctx.out.out(`✓ archived ${skill} to ${display(root, archive)} (bring it back with \`checkpoint restore ${archive.split('/').pop()}\`)${link}`);
  }
  return 0;
}
