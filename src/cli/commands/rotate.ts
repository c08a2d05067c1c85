import { CheckpointError, isCheckpointError } from '../../errors.js';
import { oneLine, shown } from '../../one-line.js';
import { listSkills, requireCheckpoint } from '../../store/checkpoints.js';
import { readConfig } from '../../store/config.js';
import { rotateSkill, type RotateReport } from '../../store/rotate.js';
import { assertSkillName } from '../../store/skill-name.js';
import type { Context, ParsedArgs } from '../spec.js';
import { withHint } from '../render/output.js';
import { noteReplacedLink, rootOf } from './common.js';

function keepArg(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || !Number.isSafeInteger(n)) {
    throw new CheckpointError('E_USAGE', `--keep=${shown(String(raw))}: expected a whole number >= 0`, { hint: 'e.g. checkpoint rotate --keep 5' });
  }
  return n;
}

/**
 * What the rotation does to the file's size, truly: a few small entries moved out weigh less
 * than the skill_state.rotated_to line that names their rotation file, so the file can grow.
 * It still rotates: --keep is about how many entries a log holds, and the moved ones stop
 * conflicting in merges; the next rotation into the same file adds no second name.
 */
function sizeChange(r: RotateReport, dryRun: boolean): string {
  const saved = r.bytes_before - r.bytes_after;
  if (saved > 0) return `${dryRun ? 'would save' : 'saved'} ${saved}`;
  if (saved === 0) return dryRun ? 'the same size' : 'the same size as before';
  const why = r.pointer_added ? `: skill_state.rotated_to ${dryRun ? 'would name' : 'now names'} the rotation file, which takes more room than the entries ${dryRun ? 'moving' : 'moved'}` : '';
  return `${dryRun ? 'would grow by' : 'grew by'} ${-saved}${why}`;
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const keep = keepArg(args.options.keep);
  const dryRun = Boolean(args.options['dry-run']);
  for (const s of args.positionals) assertSkillName(s);
  const present = listSkills(root);
  // A named skill with no checkpoint (a typo) is bad input: refused before any other is rotated,
  // as a conflicted or removed one would be by itself (requireCheckpoint says which).
  for (const s of args.positionals) if (!present.includes(s)) requireCheckpoint(root, s, undefined, `rotate ${s}`);
  const skills = args.positionals.length ? [...new Set(args.positionals)] : present;
  const config = readConfig(root);

  const reports: RotateReport[] = [];
  const failures: { skill: string; code: string; message: string; hint: string | null; exit: number }[] = [];
  for (const skill of skills) {
    try {
      reports.push(await rotateSkill(root, skill, { now: ctx.clock, keep, dryRun, config }));
    } catch (e) {
      if (!isCheckpointError(e)) throw e;
      failures.push({ skill, code: e.code, message: e.message, hint: e.hint ?? null, exit: e.exit });
    }
  }
  const exit = failures.reduce((m, f) => Math.max(m, f.exit), 0);

  if (ctx.json) {
    ctx.out.json({ ok: failures.length === 0, dry_run: dryRun, skills: reports, failures: failures.map(({ exit: _exit, ...f }) => f) });
    return exit;
  }
  const { c } = ctx.out;
  if (!skills.length) ctx.out.out('no checkpoints to rotate (.checkpoints/ has none)');
  if (dryRun && reports.length) ctx.out.out(c.dim('dry run: nothing is written'));
  for (const r of reports) {
    if (!r.changed) {
      ctx.out.out(`${c.dim('·')} ${r.skill}: nothing to rotate`);
      continue;
    }
    const verb = dryRun ? 'would move' : 'moved';
    const dest = r.history ? ` to ${r.history}` : '';
    // Only the copies an interrupted run had archived: it finishes that run, and says so.
    const finished = r.logs.reduce((n, l) => n + (l.already_in_history ?? 0), 0);
    const what = r.moved === 0 && finished ? `${dryRun ? 'would finish' : 'finished'} a rotation an interrupted run began (${finished} entr${finished === 1 ? 'y' : 'ies'} it had archived ${dryRun ? 'would leave' : 'left'} the checkpoint)` : `${verb} ${r.moved} entr${r.moved === 1 ? 'y' : 'ies'}${dest}`;
    ctx.out.out(`${c.green('✓')} ${r.skill}: ${what}; ${r.file} ${r.bytes_before} → ${r.bytes_after} bytes (${sizeChange(r, dryRun)})`);
    for (const l of r.logs) {
      const again = l.already_in_history ? `, ${l.already_in_history} already in history dropped` : '';
      // The log's keys are the checkpoint's (a clone's) text: a newline or U+2028 in one never starts a line.
      ctx.out.out(`    ${oneLine(l.path)}: ${l.total} → ${l.kept} kept, ${l.moved} ${dryRun ? 'to move' : 'moved'}${again}`);
    }
    noteReplacedLink(ctx, r.file, r.replaced_link);
  }
  for (const f of failures) {
    // One line per skill, as every refusal: what, where, then what to do.
    ctx.out.err(`✗ ${f.skill}: ${withHint(f.message, f.hint)}`);
  }
  return exit;
}
