import { actionText } from '../../protocol/types.js';
import { MARKED_DONE, RANK_LABELS, RANKS, UNCLEAR_NEEDS_LABEL, userDecisionBlockers } from '../../protocol/priority.js';
import { aheadNotes, buildAgenda, landedBlockerNote, needsRepairLines, repairEntry, repairNoteLine, repairsEntry, type AgendaItem, type LandedBlocker } from '../../read/agenda.js';
import type { Context, ParsedArgs } from '../spec.js';
import { outsideLine } from '../../store/sparse-checkout.js';
import { oneLine as q } from '../render/output.js';
import { engineArg, historyNotice, rootOf } from './common.js';
import { mentionsWork } from '../../doctor/evidence.js';

export interface Recommendation {
  skill: string;
  rank: number;
  reason: string;
  /** What to do: the decision to ask for, the action, or the reconciliation. */
  kind: 'decision' | 'action' | 'reconcile' | 'review';
  text: string;
  stale: boolean;
  over_budget: boolean;
  skipped_as_landed: { index: number; text: string; evidence: string }[];
  /** Blockers whose awaited work git shows landed since the checkpoint: to check and remove, not to wait on. */
  landed_blockers: LandedBlocker[];
}

export function recommend(item: AgendaItem): Recommendation {
  const base = { skill: item.skill, rank: item.rank, reason: rankReason(item), stale: item.stale, over_budget: item.overBudget, skipped_as_landed: item.choice.landed, landed_blockers: item.landedBlockers };
  const decision = userDecisionBlockers(item.checkpoint)[0];
  if (decision) return { ...base, kind: 'decision', text: `Ask the user to decide: ${decision.description} (blocker ${String(decision.id)})` };
  if (item.choice.reconcile) return { ...base, kind: 'reconcile', text: reconcileText(item.skill, item.status, item.choice.landed.length, doneHow(item.choice.landed)) };
  if (item.choice.action !== null) return { ...base, kind: 'action', text: actionText(item.choice.action) };
  return { ...base, kind: 'review', text: `${item.skill} is ${item.checkpoint.status} with nothing queued: review it or start the next piece of work` };
}

/** Why `item` ranks where it does: its rank's label, unless another word says it better. */
function rankReason(item: AgendaItem): string {
  if (item.rank === RANKS.rest && item.choice.action !== null) return 'queued, but not in progress';
  if (item.rank === RANKS.failed && item.status !== 'failed') return UNCLEAR_NEEDS_LABEL;
  return RANK_LABELS[item.rank]!;
}

/** How the skipped actions are done: landed in git, marked done in the file, or some of each. */
function doneHow(skipped: readonly { evidence: string }[]): string {
  const marked = skipped.filter((s) => s.evidence === MARKED_DONE).length;
  return marked === 0 ? 'already landed' : marked === skipped.length ? 'already marked done' : 'already landed or marked done';
}

/**
 * What clears a checkpoint whose `count` queued actions all landed, in commands that work as
 * written: `done --landed` records them all, and refuses to empty an in_progress skill's queue
 * unless it is finished (`--complete`) or something is queued after them.
 */
export function reconcileText(skill: string, status: unknown, count: number, how = 'already landed'): string {
  const done = `checkpoint done ${skill} --landed`;
  const head = `Reconcile ${skill}: ${count === 1 ? 'its queued action' : `all ${count} queued actions`} ${how}`;
  if (status !== 'in_progress') return `${head}; run \`${done}\`, or rewrite next_actions`;
  return `${head}; if ${skill} is finished run \`${done} --complete\`; else queue what comes next (\`checkpoint update ${skill} --next_actions+='...'\`) and then run \`${done}\``;
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const agenda = await buildAgenda({ root, now: ctx.now, engine: engineArg(args) });
  const notice = historyNotice(agenda.historyError);
  if (notice) ctx.out.err(notice);
  for (const note of aheadNotes(agenda, ctx.now)) ctx.out.err(note);
  const top = agenda.items[0];
  const needsRepair = agenda.broken.map(repairEntry);
  // A checkpoint that needs repair is a finding (exit 1, `ok: false`), as in status and list;
  // the recommendation for the readable ones is still given.
  // A checkpoint read despite hand-written slips is ranked as written, and a finding too.
  const slips = agenda.items.filter((i) => i.repairs.length);
  const repairs = slips.flatMap(repairsEntry);
  // Checkpoints git holds that this sparse checkout leaves out: not read, so never "nothing queued".
  const outside = agenda.outside && outsideLine(agenda.outside);
  const ok = needsRepair.length === 0 && repairs.length === 0 && !outside;
  const code = ok ? 0 : 1;
  if (!top) {
    // The members a recommendation has, so a script reads one shape (needs_repair names the skills).
    if (ctx.json) ctx.out.json({ ok, next: null, reconcile: false, needs_repair: needsRepair, repairs, shallow: agenda.shallow, history_error: agenda.historyError, outside_sparse_checkout: outside });
    else ctx.out.out(agenda.broken.length || outside ? [...needsRepairLines(agenda), ...(outside ? [outside] : [])].join('\n') : 'no checkpoints yet: nothing queued');
    return code;
  }
  const rec = recommend(top);
  // Its landing may lie beyond a shallow clone's boundary: the action is shown, with that caveat.
  const unverifiable = agenda.shallow && rec.kind === 'action' && mentionsWork(top.checkpoint);
  if (ctx.json) {
    ctx.out.json({ ok, next: rec, reconcile: rec.kind === 'reconcile', needs_repair: needsRepair, repairs, shallow: agenda.shallow, history_error: agenda.historyError, outside_sparse_checkout: outside });
    return code;
  }
  const { c } = ctx.out;
  // A conflicted or invalid checkpoint is named where the reader looks, before another skill is recommended.
  const lines = needsRepairLines(agenda).map((line) => c.red(line));
  lines.push(`${c.bold(rec.skill)} ${c.dim(`(${rec.reason}${rec.stale ? ', stale' : ''}${rec.over_budget ? ', over budget' : ''})`)}`);
  // Quoted from the file: a line break in it must not print as a line of ours.
  lines.push(`→ ${q(rec.text)}`);
  // Stale ones rank after all others (priority.ts): a stale top means nothing fresh is queued.
  if (rec.stale) lines.push(c.yellow(`  stale: nothing fresh is queued; ask the user before resuming ${rec.skill} (\`checkpoint resume ${rec.skill}\` asks too)`));
  for (const s of rec.skipped_as_landed) lines.push(c.dim(`  skipped next_actions[${s.index}] "${q(s.text)}": ${q(s.evidence)}`));
  for (const b of rec.landed_blockers) lines.push(c.yellow(`  blocker ${q(b.id)}: ${q(b.description)} — ${q(landedBlockerNote(b))}`));
  if (agenda.historyError !== null && rec.kind === 'action' && mentionsWork(top.checkpoint)) lines.push(c.dim('  note: git history could not be read: whether this already landed is not known (see the warning above)'));
  for (const i of slips) lines.push(c.yellow(`  ${q(repairNoteLine(i, root)!)}`));
  if (unverifiable) lines.push(c.dim('  note: shallow clone: work that landed before its boundary is not seen (`git fetch --unshallow` to check)'));
  if (outside) lines.push(c.yellow(`  ${outside}`));
  // One write, ending in its newline (out adds none).
  lines.push('');
  ctx.out.out(lines.join('\n'));
  return code;
}
