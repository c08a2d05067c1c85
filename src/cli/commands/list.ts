import { repairNoteLine, repairReason, repairsEntry } from '../../read/agenda.js';
import { loadRemembered, readable, withConflicts } from '../../read/load.js';
import { skillLabel } from '../../store/skill-name.js';
import { oneLine, relativeTime } from '../render/output.js';
import { fitDisplay, MAX_CELL_WIDTH, padDisplay, skillColumn } from '../render/width.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';
import { checkpointsOutside } from '../../store/index-conflicts.js';
import { outsideLine } from '../../store/sparse-checkout.js';

interface Row {
  skill: string;
  status: string;
  phase: string;
  step: string;
  updated_at: string | null;
  error?: string;
  /** A misnamed file's path as it is (its stem is `skill`): --json carries the real name. */
  file?: string;
  /** Hand-written slips the file is read despite (as status and next read it), each with its fix. */
  repairs?: ReturnType<typeof repairsEntry>;
}

export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  // Loaded and judged as status and next load them: an invalid checkpoint is a finding here too.
  const unread = new Set<Row>();
  // One git's index holds unmerged is a conflict, whatever its file says (or without a file).
  const rows: Row[] = withConflicts(root, loadRemembered(root, ctx.now)).map((l): Row => {
    // Named like a checkpoint but no skill's, or not readable: a row that says why, never left out.
    if (l.misnamed || !l.file) {
      const row: Row = { skill: l.skill, status: l.misnamed ? 'misnamed' : l.conflict ? 'conflicted' : 'unreadable', phase: '', step: '', updated_at: null, error: l.conflict ? repairReason(l) : l.problem! };
      if (l.misnamed) row.file = `.checkpoints/${l.skill}.checkpoint.json`;
      unread.add(row);
      return row;
    }
    // Only hand-written slips ("In Progress", a date-only `at`, `"step": 2`): read as status and
    // next read it (a number where text belongs shown as its text), with the same fix line;
    // anything else: marked with why it needs repair.
    const slips = l.checkpoint ? null : readable(l);
    const v: unknown = slips?.shown ?? l.file.value;
    const str = (k: string) => {
      const x = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
      return typeof x === 'string' ? x : '';
    };
    const row: Row = { skill: l.skill, status: str('status'), phase: str('phase'), step: str('step'), updated_at: str('updated_at') || null };
    if (l.checkpoint) return row;
    const notes = slips?.notes;
    if (notes?.length) {
      const item = { skill: l.skill, repairs: notes };
      return { ...row, error: repairNoteLine(item, root)!.replace(/^note: [^:]*: /, ''), repairs: repairsEntry(item) };
    }
    return { ...row, error: repairReason(l) };
  });
  // Checkpoints git holds that this sparse checkout leaves out: never "no checkpoints yet". In
  // --json a row each (one for the folder a sparse index folds), in text the one line all readers give.
  const outside = checkpointsOutside(root);
  const line = outside && outsideLine(outside);
  if (ctx.json) {
    const away: Row[] = !outside ? [] : outside.folded ? [{ skill: '', status: 'outside', phase: '', step: '', updated_at: null, error: line!, file: '.checkpoints/' }] : outside.skills.map((skill) => ({ skill, status: 'outside', phase: '', step: '', updated_at: null, error: line! }));
    ctx.out.json([...rows, ...away]);
    return rows.some((r) => r.error) || away.length ? 1 : 0;
  }
  if (!rows.length) {
    ctx.out.out(line ?? "no checkpoints yet (create one with `checkpoint update '<skill>' ...`)");
    return line ? 1 : 0;
  }
  // Sized by display width, a misnamed file's name cut to fit (its message names the whole file).
  const { width: w, labels } = skillColumn(rows.map((r) => ({ label: skillLabel(r.skill), misnamed: r.file !== undefined })), 1);
  // Values come from files a merge may have brought: one row stays one line, each cell bounded.
  const cell = (value: string) => fitDisplay(oneLine(value), MAX_CELL_WIDTH);
  rows.forEach((r, k) => {
    const when = r.updated_at ? relativeTime(r.updated_at, ctx.now) : '';
    const read = `${[r.phase, r.step].filter((v) => v.trim()).map(cell).join('/')}  ${ctx.out.c.dim(when)}`;
    const detail = !r.error ? read : unread.has(r) ? ctx.out.c.red(oneLine(r.error)) : r.repairs ? `${read}  ${ctx.out.c.yellow(`! slip: ${oneLine(r.error)}`)}` : `${read}  ${ctx.out.c.red(`✗ needs repair: ${oneLine(r.error)}`)}`;
    ctx.out.out(`${padDisplay(labels[k]!, w)}  ${cell(r.status).padEnd(11)}  ${detail}`);
  });
  if (line) ctx.out.out(ctx.out.c.yellow(line));
  return rows.some((r) => r.error) || line ? 1 : 0;
}
