import { display } from '../../store/checkpoints.js';
import { restoreArchive } from '../../store/history.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const { skill, path } = await restoreArchive(root, args.positionals[0]!);
  if (ctx.json) ctx.out.json({ ok: true, skill, path: display(root, path) });
  else ctx.out.out(`✓ restored ${skill} to ${display(root, path)} (the archive stays in history/)`);
  return 0;
}
