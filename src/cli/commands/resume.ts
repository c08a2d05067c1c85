import { CheckpointError } from '../../errors.js';
import { actionText, type Checkpoint } from '../../protocol/types.js';
import { RANK_LABELS, userDecisionBlockers } from '../../protocol/priority.js';
import { brokenNotice, buildAgenda, type AgendaItem } from '../../doctor/agenda.js';
import { oneLine as q, relativeTime } from '../render/output.js';
import type { Context, ParsedArgs } from '../spec.js';
import { engineArg, optionalSkillArg, rootOf } from './common.js';
import { recommend } from './next.js';

export const RESUME_MAX_BYTES = 16 * 1024;
/** Exit code when the user has to decide (continue, restart, show) before work resumes. */
export const EXIT_ASK_USER = 3;
const MAX_FILES = 12;

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  if (args.options.context) return (await import('./resume-context.js')).run(args, ctx);
  const maxBytes = byteLimit(args.options['max-bytes']);
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  const agenda = await buildAgenda({ root, now: ctx.now, engine: engineArg(args), skill });
  if (skill && agenda.broken.length) {
    const b = agenda.broken[0]!;
    if (!b.file && !b.problem) throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}"`);
    throw new CheckpointError('E_INVALID', `cannot resume ${skill}: ${b.problem ?? b.validation?.errors[0]?.path + ': ' + b.validation?.errors[0]?.message}`, { hint: 'fix it (checkpoint validate) or start fresh with checkpoint reset' });
  }
  const notice = brokenNotice(agenda);
  if (notice) ctx.out.err(notice);
  const top = agenda.items[0];
  if (!top) {
    const msg = 'no checkpoint to resume: start fresh (a skill creates its checkpoint on its first write)';
    if (ctx.json) ctx.out.json({ ok: true, resume: null, message: msg });
    else ctx.out.out(msg);
    return 0;
  }
  const needsUser = (i: AgendaItem) => i.stale || i.checkpoint.status === 'blocked' || i.checkpoint.status === 'failed';
  // Without a skill we never silently pick one the user has to look at: list and ask.
  if (!skill && needsUser(top)) {
    const candidates = agenda.items.slice(0, 8).map((i) => ({ skill: i.skill, status: i.checkpoint.status, stale: i.stale, reason: RANK_LABELS[i.rank], updated: relativeTime(i.checkpoint.updated_at, ctx.now) }));
    if (ctx.json) ctx.out.json({ ok: true, ask_user: true, question: 'Which checkpoint should this session resume?', candidates });
    else {
      ctx.out.out('Several checkpoints need a decision before any is resumed automatically:');
      for (const cand of candidates) ctx.out.out(`  ${cand.skill}  ${q(cand.status)}${cand.stale ? ' (stale)' : ''}  ${cand.updated}  — ${cand.reason}`);
      ctx.out.out('ASK THE USER which to resume, then run `checkpoint resume <skill>`.');
    }
    return EXIT_ASK_USER;
  }
  const ask = needsUser(top);
  const orientation = orient(top, ctx.now, ask);
  if (ctx.json) {
    ctx.out.json({ ok: true, ask_user: ask, ...orientation.data });
    return ask ? EXIT_ASK_USER : 0;
  }
  ctx.out.out(bound(orientation.lines.join('\n'), maxBytes, top.skill));
  return ask ? EXIT_ASK_USER : 0;
}

function byteLimit(raw: unknown): number {
  if (raw === undefined) return RESUME_MAX_BYTES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 256) throw new CheckpointError('E_USAGE', `--max-bytes=${String(raw)}: expected a whole number of bytes, at least 256`);
  return n;
}

function progress(cp: Checkpoint): string {
  const rows = Array.isArray(cp.progress_table) ? cp.progress_table : [];
  if (!rows.length) return 'no progress_table';
  return `${rows.filter((r) => r.status === 'complete').length}/${rows.length} phases complete`;
}

/** generated_files that mention the current step, phase or in-progress row; all of them if none do. */
function relevantFiles(cp: Checkpoint): string[] {
  const files = (cp.context_primer?.generated_files ?? []).filter((f): f is string => typeof f === 'string');
  const rows = (Array.isArray(cp.progress_table) ? cp.progress_table : []).filter((r) => r.status === 'in_progress').map((r) => r.id);
  const tokens = [cp.step, cp.phase, ...rows].filter((t) => t && t.length > 2).map((t) => t.toLowerCase());
  const hits = files.filter((f) => tokens.some((t) => f.toLowerCase().includes(t)));
  return (hits.length ? hits : files).slice(0, MAX_FILES);
}

function orient(item: AgendaItem, now: Date, ask: boolean) {
  const cp = item.checkpoint;
  const rec = recommend(item);
  const decisions = userDecisionBlockers(cp);
  const keyDecisions = (cp.context_primer?.key_decisions ?? []).filter((d): d is string => typeof d === 'string');
  const files = relevantFiles(cp);
  // Every value from the file goes through q(): a line break in it prints as \n, so a merged
  // checkpoint cannot add a line that looks like one of ours (a fake "Next: ...").
  const lines = [
    `RESUMING: ${item.skill} on ${q(cp.project)}`,
    `Last session: ${relativeTime(cp.updated_at, now)} (${q(cp.updated_at)})${item.stale ? ' ⚠ stale' : ''}`,
    `Status: ${q(cp.status)} — ${q(cp.progress_summary)}`,
    `Progress: ${progress(cp)}`,
    `Next: ${q(rec.text)}`,
    ...rec.skipped_as_landed.map((s) => `  (skipped "${q(s.text)}": ${q(s.evidence)})`),
    `(the text after each label is quoted from .checkpoints/${item.skill}.checkpoint.json, as earlier sessions wrote it)`,
  ];
  if (ask) lines.push('', `ASK THE USER: this checkpoint is ${item.stale ? 'stale' : q(cp.status)}. Continue from here, restart (checkpoint reset ${item.skill}), or show the full checkpoint (checkpoint show ${item.skill})?`);
  if (decisions.length) lines.push('', 'Decisions waiting on the user (ask before proceeding):', ...decisions.map((b) => `  ⛔ ${q(String(b.id))}: ${q(b.description)}${b.proposed_resolution ? ` — proposed: ${q(b.proposed_resolution)}` : ''}`));
  if (keyDecisions.length) lines.push('', 'Key decisions:', ...keyDecisions.map((d) => `  - ${q(d)}`));
  if (files.length) lines.push('', 'Files for this step:', ...files.map((f) => `  ${q(f)}`));
  const upcoming = (Array.isArray(cp.next_actions) ? cp.next_actions : []).map(actionText);
  return {
    lines,
    data: {
      skill: item.skill,
      project: cp.project,
      updated_at: cp.updated_at,
      stale: item.stale,
      status: cp.status,
      progress_summary: cp.progress_summary,
      progress: progress(cp),
      next: rec,
      next_actions: upcoming,
      key_decisions: keyDecisions,
      files,
      user_decisions: decisions,
    },
  };
}

/** Keeps output within the byte limit, cutting at a line and saying so. */
function bound(text: string, maxBytes: number, skill: string): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  const note = `\n… truncated at ${maxBytes} bytes; \`checkpoint show ${skill}\` has everything`;
  let out = Buffer.from(text).subarray(0, maxBytes - Buffer.byteLength(note)).toString('utf8').replace(/\uFFFD$/, '');
  out = out.slice(0, Math.max(0, out.lastIndexOf('\n')));
  return out + note;
}
