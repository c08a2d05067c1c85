import { isCheckpointError } from '../../errors.js';
import { join } from 'node:path';
import { display } from '../../store/checkpoints.js';
import { historyDir, listArchives } from '../../store/history.js';
import { listProjectDir, statProjectFile } from '../../store/safe-fs.js';
import { oneLine } from '../render/output.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';

interface OtherEntry {
  file: string;
  path: string;
  bytes: number;
}

/**
 * JSON files in history/ whose names follow neither archive rule (hand-named or copied in):
 * listed, never hidden, with why restore cannot take them.
 */
function otherJsonFiles(root: string, known: ReadonlySet<string>, onSkip: (file: string, why: string) => void): OtherEntry[] {
  const dir = historyDir(root);
  return listProjectDir(root, dir)
    .filter((file) => file.endsWith('.json') && !known.has(file))
    .sort()
    .flatMap((file) => {
      const path = join(dir, file);
      try {
        // Through safe-fs: a committed link out of the project or a FIFO is skipped, never followed.
        const loc = statProjectFile(root, path);
        return loc ? [{ file, path, bytes: loc.stat!.size }] : [];
      } catch (e) {
        if (!isCheckpointError(e)) throw e;
        onSkip(file, e.message);
        return [];
      }
    });
}

const CANNOT_RESTORE = 'cannot restore: not named <skill>.<stamp>.checkpoint.json (rename it, or copy it back by hand)';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  const skipped = (file: string, why: string) => ctx.out.err(`checkpoint: skipped history/${oneLine(file)}: ${oneLine(why)}`);
  const entries = listArchives(root, skill, skipped);
  const all = new Set(listArchives(root).map((e) => e.file));
  // With a skill, a hand-named file is shown when its name starts with the skill.
  const others = otherJsonFiles(root, all, skipped).filter((o) => !skill || o.file.startsWith(`${skill}.`) || o.file.startsWith(`${skill}-`));
  if (ctx.json) {
    ctx.out.json([
      ...entries.map((e) => ({ ...e, path: display(root, e.path), restorable: e.kind === 'checkpoint' })),
      ...others.map((o) => ({ ...o, path: display(root, o.path), skill: null, kind: 'other', restorable: false, reason: CANNOT_RESTORE })),
    ]);
    return 0;
  }
  if (!entries.length && !others.length) {
    ctx.out.out('no archives in .checkpoints/history/');
    return 0;
  }
  for (const e of entries) ctx.out.out(`${e.kind === 'checkpoint' ? 'checkpoint' : 'rotation  '}  ${oneLine(e.file)}  ${ctx.out.c.dim(`${e.bytes} bytes`)}`);
  for (const o of others) ctx.out.out(`other       ${oneLine(o.file)}  ${ctx.out.c.dim(`${o.bytes} bytes; ${CANNOT_RESTORE}`)}`);
  return 0;
}
