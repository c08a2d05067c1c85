import { isCheckpointError } from '../../errors.js';
import { migrateCheckpoint, type MigrationChange, type MigrationProblem } from '../../protocol/migration.js';
import { join } from 'node:path';
import { checkpointPath, checkpointsDir, display, listCheckpointFiles, mutateCheckpoint, previewMutation, readCheckpoint, type KeptError } from '../../store/checkpoints.js';
import { misnamedReason, misnamedStem } from '../../store/skill-name.js';
import type { Context, ParsedArgs } from '../spec.js';
import type { JsonValue } from '../../protocol/types.js';
import type { LiteralTexts } from '../../protocol/json.js';
import { oneLine, withHint } from '../render/output.js';
import { keptErrorsText, rootOf } from './common.js';
import { shown, shownPath } from '../../one-line.js';
import { checkpointsOutside } from '../../store/index-conflicts.js';
import { outsideLine } from '../../store/sparse-checkout.js';

interface FileReport {
  skill: string;
  file: string;
  changed: boolean;
  changes: MigrationChange[];
  problems: MigrationProblem[];
  /** Errors the file already had, which the migration left as they were. */
  kept_errors: KeptError[];
  error: { code: string; message: string; hint: string | null } | null;
  /** The checkpoint was a link inside the project (to this): the write replaced it with a regular file. */
  replaced_link?: string;
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const dryRun = Boolean(args.options['dry-run']);
  const reports: FileReport[] = [];
  const { skills, misnamed } = listCheckpointFiles(root);
  for (const skill of skills) {
    const report: FileReport = { skill, file: display(root, checkpointPath(root, skill)), changed: false, changes: [], problems: [], kept_errors: [], error: null };
    reports.push(report);
    try {
      const current = readCheckpoint(root, skill);
      if (!current) continue;
      Object.assign(report, pick(migrateCheckpoint(current.value, current.format.texts)));
      // Nothing to do: the file is not touched, not even reformatted.
      if (!report.changed) continue;
      const write = {
        now: ctx.clock,
        act: `migrate ${skill}`,
        change: (value: JsonValue | null, texts: LiteralTexts) => {
          const r = migrateCheckpoint(value, texts); // again, under the lock: the file may have moved on
          Object.assign(report, pick(r));
          return r.doc;
        },
      };
      // --dry-run passes the same checks as the write (so it says what the real run will do), writing nothing.
      const result = dryRun ? previewMutation(root, skill, write) : await mutateCheckpoint(root, skill, write);
      report.kept_errors = result.kept;
      if (result.replacedLink !== undefined) report.replaced_link = result.replacedLink;
    } catch (e) {
      if (!isCheckpointError(e)) throw e;
      Object.assign(report, { changed: false, error: { code: e.code, message: e.message, hint: e.hint ?? null } });
    }
  }
  // A misnamed file is no skill's, so it is not migrated; named, never counted as "none".
  const misnamedReports = new Set<FileReport>();
  for (const name of misnamed) {
    const message = misnamedReason(name, 'it is not migrated');
    const report: FileReport = { skill: misnamedStem(name), file: display(root, join(checkpointsDir(root), name)), changed: false, changes: [], problems: [], kept_errors: [], error: { code: 'E_INVALID', message, hint: null } };
    reports.push(report);
    misnamedReports.add(report);
  }
  // In git but left out by a sparse checkout: not migrated here, and never "none".
  const outside = checkpointsOutside(root);
  for (const skill of !outside ? [] : outside.folded ? [null] : outside.skills) {
    const file = skill === null ? '.checkpoints/' : display(root, checkpointPath(root, skill));
    reports.push({ skill: skill ?? '', file, changed: false, changes: [], problems: [], kept_errors: [], error: { code: 'E_SPARSE', message: outsideLine(outside!), hint: null } });
  }
  const failed = reports.filter((r) => r.error || r.problems.length).length;

  if (ctx.json) {
    ctx.out.json({ ok: failed === 0, dry_run: dryRun, files: reports });
    return failed ? 1 : 0;
  }
  const { c } = ctx.out;
  if (!reports.length) ctx.out.out('no checkpoints to migrate (.checkpoints/ has none)');
  if (dryRun && reports.length) ctx.out.out(c.dim('dry run: nothing is written'));
  for (const r of reports) {
    // A misnamed file's name is the clone's text (a newline in it would start a line of ours):
    // escaped and cut as every command shows it. A skill's file name has nothing to escape.
    const file = misnamedReports.has(r) ? shown(r.file) : r.file;
    if (r.error) {
      ctx.out.out(`${c.red('✗')} ${file}: ${withHint(r.error.message, r.error.hint)}`);
      continue;
    }
    const mark = r.problems.length ? c.yellow('!') : r.changed ? c.green('✓') : c.dim('·');
    ctx.out.out(`${mark} ${file}: ${r.changed ? (dryRun ? 'would change' : 'changed') : 'nothing to migrate'}`);
    // Paths and details quote the file's keys and values: one line each.
    for (const ch of r.changes) ctx.out.out(`    ${oneLine(`${ch.path}: ${ch.detail}`)}`);
    for (const p of r.problems) ctx.out.out(`    ${c.yellow('not repaired')} ${oneLine(`${p.path}: ${p.message}`)}`);
    if (r.kept_errors.length) ctx.out.out(`    ${c.yellow('note')} ${keptErrorsText(r.kept_errors)}`);
    // As every write says it (an atomic rename never writes through a link): git shows a type change.
    if (r.replaced_link !== undefined) ctx.out.out(`    ${c.yellow('note')} was a symlink to ${shownPath(r.replaced_link)}; the write replaced the link with a regular file (${shownPath(r.replaced_link)} is unchanged; git shows a type change)`);
  }
  const changed = reports.filter((r) => r.changed).length;
  ctx.out.out(`${changed} of ${reports.length} checkpoint${reports.length === 1 ? '' : 's'} ${dryRun ? 'would change' : 'changed'}${failed ? `; ${failed} need attention` : ''}`);
  return failed ? 1 : 0;
}

function pick(r: ReturnType<typeof migrateCheckpoint>): Pick<FileReport, 'changed' | 'changes' | 'problems'> {
  return { changed: r.changed, changes: r.changes, problems: r.problems };
}
