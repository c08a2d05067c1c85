import { CheckpointError } from '../../errors.js';
import { applyUpdateOps, parseUpdateFlag } from '../../protocol/update-ops.js';
import { scaffoldCheckpoint, stampWrite } from '../../protocol/scaffold.js';
import type { JsonObject } from '../../protocol/types.js';
import { display, mutateCheckpoint } from '../../store/checkpoints.js';
import { projectName } from '../../store/project.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf, skillArg } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = skillArg(args);
  if (!args.ops.length) {
    throw new CheckpointError('E_USAGE', 'checkpoint update: nothing to update', { hint: "e.g. checkpoint update api --step=sprint-2 --next_actions+='Run the evaluator'" });
  }
  const ops = args.ops.map(parseUpdateFlag); // all flags checked before the file is touched
  let created = false;
  const result = await mutateCheckpoint(root, skill, {
    now: ctx.now,
    change: (current) => {
      if (current !== null && (typeof current !== 'object' || Array.isArray(current))) {
        throw new CheckpointError('E_INVALID', `.checkpoints/${skill}.checkpoint.json is not a JSON object`, { hint: 'fix or `checkpoint reset` it' });
      }
      created = current === null;
      const doc = current ?? scaffoldCheckpoint({ skill, project: projectName(root), projectDir: root, now: ctx.now });
      return stampWrite(applyUpdateOps(doc as JsonObject, ops), ctx.now);
    },
  });
  if (ctx.json) {
    ctx.out.json({ ok: true, skill, path: display(root, result.path), created, warnings: result.warnings });
    return 0;
  }
  ctx.out.out(`✓ ${created ? 'created' : 'updated'} ${display(root, result.path)} (${ops.length} change${ops.length === 1 ? '' : 's'})`);
  for (const w of result.warnings) ctx.out.err(`  warning ${w.path}: ${w.message}`);
  return 0;
}
