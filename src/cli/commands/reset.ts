import { display } from '../../store/checkpoints.js';
import { archiveCheckpoint } from '../../store/history.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf, skillArg } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = skillArg(args);
  const archive = await archiveCheckpoint(root, skill, ctx.clock);
  if (ctx.json) ctx.out.json({ ok: true, skill, archive: display(root, archive) });
  else ctx.out.out(`✓ archived ${skill} to ${display(root, archive)} (bring it back with \`checkpoint restore ${archive.split('/').pop()}\`)`);
  return 0;
}
