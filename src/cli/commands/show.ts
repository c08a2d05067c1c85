import { listSkills, requireCheckpoint } from '../../store/checkpoints.js';
import { terminalSafeJson } from '../render/json-text.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';

/**
 * Raw JSON, pipeable to jq: one skill's file as it is on disk (line ends LF, C1 controls as
 * \u escapes: json-text.ts), or an object of all of them.
 */
export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  if (skill) {
    const text = requireCheckpoint(root, skill).text;
    ctx.out.out(terminalSafeJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text));
    return 0;
  }
  const all: Record<string, unknown> = {};
  for (const s of listSkills(root)) all[s] = requireCheckpoint(root, s).value;
  ctx.out.json(all);
  return 0;
}
