import { listCheckpointFiles, readCheckpoint } from '../../store/checkpoints.js';
import { misnamedProblem, misnamedStem, skillLabel } from '../../store/skill-name.js';
import { isCheckpointError } from '../../errors.js';
import { oneLine, relativeTime } from '../render/output.js';
import { padDisplay, skillColumn } from '../render/width.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';

interface Row {
  skill: string;
  status: string;
  phase: string;
  step: string;
  updated_at: string | null;
  error?: string;
  /** A misnamed file's path as it is (its stem is `skill`): --json carries the real name. */
  file?: string;
}

export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const { skills, misnamed } = listCheckpointFiles(root);
  const rows: Row[] = skills.map((skill) => {
    try {
      const v = (readCheckpoint(root, skill)?.value ?? {}) as Record<string, unknown>;
      const str = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : '');
      return { skill, status: str('status'), phase: str('phase'), step: str('step'), updated_at: str('updated_at') || null };
    } catch (e) {
      if (!isCheckpointError(e)) throw e;
      return { skill, status: 'unreadable', phase: '', step: '', updated_at: null, error: e.message };
    }
  });
  // Named like a checkpoint, but no skill's: a row that says so and how to fix it, never left out.
  for (const name of misnamed) {
    rows.push({ skill: misnamedStem(name), status: 'misnamed', phase: '', step: '', updated_at: null, error: misnamedProblem(name), file: `.checkpoints/${name}` });
  }
  if (ctx.json) {
    ctx.out.json(rows);
    return rows.some((r) => r.error) ? 1 : 0;
  }
  if (!rows.length) {
    ctx.out.out('no checkpoints yet (create one with `checkpoint update <skill> ...`)');
    return 0;
  }
  // Sized by display width, a misnamed file's name cut to fit (its message names the whole file).
  const { width: w, labels } = skillColumn(rows.map((r) => ({ label: skillLabel(r.skill), misnamed: r.file !== undefined })), 1);
  rows.forEach((r, k) => {
    const when = r.updated_at ? relativeTime(r.updated_at, ctx.now) : '';
    // Values come from files a merge may have brought: one row stays one line.
    const detail = r.error ? ctx.out.c.red(oneLine(r.error)) : `${oneLine(r.phase)}/${oneLine(r.step)}  ${ctx.out.c.dim(when)}`;
    ctx.out.out(`${padDisplay(labels[k]!, w)}  ${oneLine(r.status).padEnd(11)}  ${detail}`);
  });
  return rows.some((r) => r.error) ? 1 : 0;
}
