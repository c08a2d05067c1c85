import { display } from '../../store/checkpoints.js';
import { restoreArchive } from '../../store/restore.js';
import type { Context, ParsedArgs } from '../spec.js';
import { oneLine } from '../render/output.js';
import { argBase, noteReplacedLink, rootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  // A path is taken from where the user stands (the -C folder with -C), as validate takes files.
  const r = await restoreArchive(root, args.positionals[0]!, ctx.clock, argBase(ctx));
  const file = display(root, r.path);
  const rotation = r.entries !== undefined;
  // As every write does: errors the result holds that it did not bring in are said, in one line
  // (nothing written, nothing to say: the file is as it was).
  if (r.kept.length && r.written) {
    const first = r.kept[0]!;
    const errors = `${r.kept.length === 1 ? 'an error' : `${r.kept.length} errors`} ${rotation ? 'it already had' : 'the archive already had'}: ${oneLine(`${first.path}: ${first.message}`)}${r.kept.length > 1 ? ` (+${r.kept.length - 1} more)` : ''}`;
    ctx.out.err(`checkpoint: note: ${file} is ${rotation ? 'written' : 'restored'} with ${errors}; fix it by hand or with \`checkpoint update\`, then \`checkpoint validate\``);
  }
  noteReplacedLink(ctx, file, r.replacedLink);
  if (ctx.json) {
    ctx.out.json({
      ok: true,
      skill: r.skill,
      path: file,
      ...(rotation ? { entries: r.entries, already_present: r.already ?? 0, named_in_rotated_to: r.named ?? false } : {}),
      ...(r.replacedLink !== undefined ? { replaced_link: r.replacedLink } : {}),
      ...(r.kept.length ? { kept_errors: r.kept } : {}),
    });
    return 0;
  }
  if (!rotation) {
    ctx.out.out(`✓ restored ${r.skill} to ${file} (the archive stays in history/)`);
    return 0;
  }
  const n = r.entries!;
  const back = `✓ put ${n} rotated entr${n === 1 ? 'y' : 'ies'} back into ${file} (the rotation file stays in history/)`;
  const left = r.already ?? 0;
  if (!left) ctx.out.out(back);
  // Said, never silent: which entries stayed out, and why they count as already back.
  else if (r.named) ctx.out.out(`${back}; ${left} ${left === 1 ? 'was' : 'were'} already in it (the same records: put back from another rotation file that held them too, when two branches rotated the same log, or left by a rotate stopped before its checkpoint write)`);
  else ctx.out.out(`${back}; ${left} left out as already there (in it, or in a rotation file it names): its skill_state.rotated_to does not name this one, so this file was restored before or is an earlier checkpoint's`);
  return 0;
}
