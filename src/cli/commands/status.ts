import { CheckpointError } from '../../errors.js';
import { shown } from '../../one-line.js';
import { actionText, type Checkpoint } from '../../protocol/types.js';
import { isIsoInstant } from '../../protocol/validate.js';
import { instantMs, missingDay } from '../../protocol/instant.js';
import { actionsLanded, ageDays, openBlockers, waitsOnUser } from '../../protocol/priority.js';
import { buildAgenda, decisionsWaiting, landedBlockerNote, repairEntry, repairNoteLine, repairReason, repairsEntry, type AgendaItem } from '../../read/agenda.js';
import { skillLabel } from '../../store/skill-name.js';
import { outsideLine } from '../../store/sparse-checkout.js';
import { nestedCheckpoints, nestedCheckpointsNotice } from '../../store/nested.js';
import { oneLine as q, relativeTime } from '../render/output.js';
import { displayWidth, fitDisplay, MAX_CELL_WIDTH, MISNAMED_CELL_WIDTH, padDisplay, skillColumn } from '../render/width.js';
import type { Context, ParsedArgs } from '../spec.js';
import { engineArg, historyNotice, rootOf } from './common.js';
import { recommend } from './next.js';

/** "PM: PLAT-4471 (source) + 3 children" from pm_refs. */
export function pmLine(cp: Checkpoint): string | null {
  const refs = Array.isArray(cp.pm_refs) ? cp.pm_refs : [];
  if (!refs.length) return null;
  const source = refs.find((r) => r.role === 'source') ?? refs[0]!;
  const children = refs.filter((r) => r.role === 'child').length;
  const others = refs.filter((r) => r !== source && r.role !== 'child');
  return `PM: ${source.id} (${source.role ?? 'linked'})${children ? ` + ${children} child${children === 1 ? '' : 'ren'}` : ''}${others.map((r) => ` + ${r.id} (${r.role ?? 'linked'})`).join('')}`;
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const since = typeof args.options.since === 'string' ? args.options.since : undefined;
  if (since !== undefined && !isIsoInstant(since)) {
    const lacks = missingDay(since);
    const flag = ctx.opSpelling?.option('since') ?? '--since'; // the status tool's `since` over MCP
    throw new CheckpointError('E_USAGE', `${flag}=${shown(since)} ${lacks ? `names a day the calendar lacks: ${lacks}` : 'is not an ISO-8601 instant'}`, { hint: `e.g. ${flag}=2026-11-01T00:00:00Z` });
  }
  const agenda = await buildAgenda({ root, now: ctx.now, engine: engineArg(args) });
  const notice = historyNotice(agenda.historyError);
  if (notice) ctx.out.err(notice);
  const decisions = decisionsWaiting(agenda.items);
  // Read despite hand-written slips: still a finding (exit 1), as a checkpoint that needs repair.
  const slips = agenda.items.filter((i) => i.repairs.length);
  // Checkpoints git holds that this sparse checkout leaves out: not read, so never "none".
  const outside = agenda.outside && outsideLine(agenda.outside);
  // Checkpoints git holds in a folder below the top (a package's): not read either, so said, with the move.
  const nested = nestedCheckpoints(root).map((n) => ({ folder: `${n.folder}/`, ...nestedCheckpointsNotice(root, n) }));
  const findings = agenda.broken.length + slips.length + (outside ? 1 : 0) + nested.length;
  const detailed = agenda.items.filter((i) => since === undefined || instantMs(i.checkpoint.updated_at) >= Date.parse(since));

  if (ctx.json) {
    ctx.out.json({
      ok: findings === 0,
      decisions_waiting: decisions,
      next: agenda.items[0] ? recommend(agenda.items[0]) : null,
      skills: agenda.items.map((i) => summary(i, ctx.now)),
      broken: agenda.broken.map(repairEntry),
      repairs: slips.flatMap(repairsEntry),
      history_error: agenda.historyError,
      outside_sparse_checkout: outside,
      nested_checkpoints: nested,
    });
    return findings ? 1 : 0;
  }
  const { c } = ctx.out;
  const lines: string[] = [];
  if (decisions.length) lines.push(c.red.bold(`⛔ ${decisions.length} decision${decisions.length === 1 ? '' : 's'} waiting on you`));
  if (!agenda.items.length && !agenda.broken.length) {
    ctx.out.out([outside ?? "no checkpoints yet (create one with `checkpoint update '<skill>' ...`)", ...nested.map((n) => c.yellow(n.message))].join('\n'));
    return findings ? 1 : 0;
  }
  if (args.options.brief) {
    const top = agenda.items[0];
    if (top) lines.push(`${c.bold(top.skill)}: ${q(recommend(top).text)}`);
    for (const d of decisions) lines.push(`  ⛔ ${d.skill} ${q(String(d.id))}: ${q(d.description)}`);
    for (const i of agenda.items) {
      openBlockers(i.checkpoint).forEach(({ b, index: k }) => {
        if (!waitsOnUser(b)) lines.push(`  ■ ${i.skill} ${q(String(b.id))}: ${q(b.description)}${landedNote(i, k, ctx)}`);
      });
    }
    // What makes the exit 1: a line per checkpoint that needs repair (with no readable one, the only lines).
    // A misnamed file's name as the table's cell shows it: its message names the whole file.
    for (const b of agenda.broken) lines.push(`${top ? '  ' : ''}${c.red(`✗ ${b.misnamed ? fitDisplay(skillLabel(b.skill), MISNAMED_CELL_WIDTH) : b.skill} needs repair`)}: ${q(repairReason(b))}`);
    for (const i of slips) lines.push(`  ${c.yellow(q(repairNoteLine(i, root)!))}`);
  } else {
    // Columns sized by display width (wide characters count two), so long steps keep the table aligned.
    // Each cell escaped, cut to MAX_CELL_WIDTH and measured once: the widths, then the rows.
    const cell = (value: string) => fitDisplay(q(value), MAX_CELL_WIDTH);
    const rows = agenda.items.map((i) => {
      const status = cell(i.checkpoint.status);
      // A blank phase or step (a slip, noted below the table) is left out, not shown as " / step".
      const step = [i.checkpoint.phase, i.checkpoint.step].filter((v) => v.trim()).map(cell).join(' / ');
      return { i, status, step, sw: displayWidth(status), pw: displayWidth(step) };
    });
    const { width: w, labels } = skillColumn([...agenda.items.map((i) => ({ label: i.skill })), ...agenda.broken.map((b) => ({ label: skillLabel(b.skill), misnamed: b.misnamed }))], 5);
    const brokenLabels = labels.slice(agenda.items.length);
    const sw = Math.max(12, ...rows.map((r) => r.sw));
    const pw = Math.max(12, ...rows.map((r) => r.pw));
    const pad = (text: string, textWidth: number, width: number) => text + ' '.repeat(Math.max(0, width - textWidth));
    lines.push(c.dim(`${padDisplay('skill', w)}  ${padDisplay('status', sw)}  ${padDisplay('phase / step', pw)}  updated`));
    for (const { i, status, step, sw: sw1, pw: pw1 } of rows) {
      const cp = i.checkpoint;
      // Dated as read (a Unix time or a day as its instant), the same instant staleness was judged by.
      const age = relativeTime(i.meant.updated_at, ctx.now) + (i.stale ? c.yellow(` ⚠ stale (${Math.floor(ageDays(i.meant, ctx.now))}d)`) : '');
      lines.push(`${padDisplay(i.skill, w)}  ${pad(status, sw1, sw)}  ${pad(step, pw1, pw)}  ${age}`);
      const pm = pmLine(cp);
      if (pm) lines.push(c.dim(`${''.padEnd(w)}  ${fitDisplay(q(pm), 2 * MAX_CELL_WIDTH)}`));
    }
    agenda.broken.forEach((b, k) => lines.push(`${c.red(padDisplay(brokenLabels[k]!, w))}  ${c.red(padDisplay('needs repair', sw))}  ${q(repairReason(b))}`));
    // After the table, apart: a note names values and a command, longer than any row.
    if (slips.length) lines.push('', ...slips.map((i) => c.yellow(q(repairNoteLine(i, root)!))));
    // --since narrows the details, never what waits on the user: the banner's decisions in skills
    // left out are listed here, or the user would see a count and not what to decide.
    const unshown = decisions.filter((d) => !detailed.some((i) => i.skill === d.skill));
    if (unshown.length) lines.push('', c.red(`Decisions waiting in skills not updated since ${since}:`), ...unshown.map((d) => `  ⛔ ${d.skill} ${q(String(d.id))}: ${q(d.description)}`));
    for (const i of detailed) lines.push('', ...details(i, ctx));
  }
  if (outside) lines.push('', c.yellow(outside));
  if (nested.length) lines.push('', ...nested.map((n) => c.yellow(n.message)));
  // Ending in a newline already, the joined text is written as it is (out adds none, nor a copy).
  lines.push('');
  ctx.out.out(lines.join('\n'));
  return findings ? 1 : 0;
}

function details(i: AgendaItem, ctx: Context): string[] {
  const { c } = ctx.out;
  const cp = i.checkpoint;
  // A blank project or summary (a slip, noted) is left out rather than printed as an empty line.
  const out = [c.bold(`${i.skill}`) + (cp.project.trim() ? c.dim(` — ${q(cp.project)}`) : ''), ...(cp.progress_summary.trim() ? [`  ${q(cp.progress_summary)}`] : [])];
  const actions = Array.isArray(cp.next_actions) ? cp.next_actions : [];
  // Each action shown that landed, past the one next recommends too (red team 12-07).
  const landed = new Map(actionsLanded(i.meant, i.landed).map((l) => [l.index, l.evidence]));
  actions.slice(0, 5).forEach((a, n) => {
    const ev = landed.get(n);
    out.push(ev ? c.dim(`  ${n + 1}. ${q(actionText(a))}  (already landed: ${q(ev)})`) : `  ${n + 1}. ${q(actionText(a))}`);
  });
  if (actions.length > 5) out.push(c.dim(`  … ${actions.length - 5} more`));
  openBlockers(cp).forEach(({ b, index: k }) => out.push(`  ${waitsOnUser(b) ? '⛔' : '■'} ${q(String(b.id))}: ${q(b.description)}${b.needs ? c.dim(` [${q(b.needs)}]`) : ''}${landedNote(i, k, ctx)}`));
  return out;
}

/** After blocker `index` of `i`, when git shows its awaited work landed: " — #20 landed in …; check and remove the blocker". */
function landedNote(i: AgendaItem, index: number, ctx: Context): string {
  const landed = i.landedBlockers.find((b) => b.index === index);
  return landed ? ctx.out.c.yellow(` — ${q(landedBlockerNote(landed))}`) : '';
}

function summary(i: AgendaItem, now: Date) {
  const cp = i.checkpoint;
  return {
    skill: i.skill,
    status: cp.status,
    phase: cp.phase,
    step: cp.step,
    updated_at: cp.updated_at,
    age_days: Math.round(ageDays(cp, now) * 10) / 10,
    stale: i.stale,
    rank: i.rank,
    over_budget: i.overBudget,
    pm: pmLine(cp),
    progress_summary: cp.progress_summary,
    next_actions: (Array.isArray(cp.next_actions) ? cp.next_actions : []).map(actionText),
    landed_actions: actionsLanded(i.meant, i.landed),
    blockers: openBlockers(cp).map(({ b }) => b),
    landed_blockers: i.landedBlockers,
  };
}
