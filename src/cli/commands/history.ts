import { display } from '../../store/checkpoints.js';
import { listArchives } from '../../store/history.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const entries = listArchives(root, optionalSkillArg(args), (file, why) => ctx.out.err(`checkpoint: skipped history/${file}: ${why}`));
  if (ctx.json) {
    ctx.out.json(entries.map((e) => ({ ...e, path: display(root, e.path) })));
    return 0;
  }
  if (!entries.length) {
    ctx.out.out('no archives in .checkpoints/history/');
    return 0;
  }
  for (const e of entries) ctx.out.out(`${e.kind === 'checkpoint' ? 'checkpoint' : 'rotation  '}  ${e.file}  ${ctx.out.c.dim(`${e.bytes} bytes`)}`);
  return 0;
}
