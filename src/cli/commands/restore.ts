import { display } from '../../store/checkpoints.js';
import { restoreArchive } from '../../store/history.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  // A path is taken from where the user stands (from the project with -C), as validate takes files.
  const { skill, path, entries } = await restoreArchive(root, args.positionals[0]!, ctx.now, ctx.dirOverride ? root : ctx.cwd);
  if (ctx.json) ctx.out.json({ ok: true, skill, path: display(root, path), ...(entries === undefined ? {} : { entries }) });
  else if (entries === undefined) ctx.out.out(`✓ restored ${skill} to ${display(root, path)} (the archive stays in history/)`);
  else ctx.out.out(`✓ put ${entries} rotated entr${entries === 1 ? 'y' : 'ies'} back into ${display(root, path)} (the rotation file stays in history/)`);
  return 0;
}
