import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { checkpointPath, checkpointsDir, display, listCheckpointFiles } from '../../store/checkpoints.js';
import { isMisnamedCheckpoint, MAX_SKILL_NAME, misnamedReason, SKILL_NAME } from '../../store/skill-name.js';
import { CHECKPOINTS_DIR } from '../../store/root.js';
import { splitAdvice, type Advice, type Issue } from '../../protocol/validate.js';
import { CheckpointError, isCheckpointError } from '../../errors.js';
import { Verdicts } from '../../store/verdicts.js';
import { readChecked } from '../../read/checked.js';
import type { Context, ParsedArgs } from '../spec.js';
import { argPath, rootOf } from './common.js';
import { ARCHIVE_NAME } from '../../protocol/file-names.js';
import { CONFIG_FILE, configProblems } from '../../store/config.js';
import { block, oneLine } from '../render/output.js';
import { shownPath } from '../../one-line.js';
import { projectPathExists } from '../../store/safe-fs.js';
import { checkpointsOutside } from '../../store/index-conflicts.js';
import { outsideLine } from '../../store/sparse-checkout.js';

const CONFIG_DISPLAY = '.checkpoints/config.json';

interface FileReport {
  file: string;
  ok: boolean;
  errors: Issue[];
  warnings: Issue[];
  advice: Advice[];
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const strict = Boolean(args.options.strict);
  const listed = args.positionals.length ? null : listCheckpointFiles(root);
  const paths = listed === null
    ? args.positionals.map((p) => namedPath(root, argPath(ctx, p), p))
    : listed.skills.map((s) => checkpointPath(root, s));
  const named = args.positionals.length > 0;
  // Read-only: a file unchanged since a run judged it is not read again (store/verdicts.ts).
  const verdicts = Verdicts.open(root);
  // The project config named on the command line is judged as the config it is, as plain validate judges it.
  const configPath = join(checkpointsDir(root), CONFIG_FILE);
  const reports: FileReport[] = paths.map((path) => (path === configPath && existsSync(path) ? configReport(root) : withNameCheck(root, path, validateOne(root, path, ctx.now, strict, named, verdicts))));
  verdicts.save();
  if (!named) {
    // Named like a checkpoint but not a skill: no command reads it, so it is a finding here.
    for (const name of listed!.misnamed) {
      const rel = `${CHECKPOINTS_DIR}/${name}`;
      reports.push({ file: rel, ok: false, errors: [{ level: 'error', path: '(file name)', message: misnamedReason(name) }], warnings: [], advice: [] });
    }
    // In git but left out by a sparse checkout: not validated here, and never "none".
    const outside = checkpointsOutside(root);
    const line = outside && outsideLine(outside);
    for (const file of !outside ? [] : outside.folded ? [`${CHECKPOINTS_DIR}/`] : outside.skills.map((s) => `${CHECKPOINTS_DIR}/${s}.checkpoint.json`)) {
      reports.push({ file, ok: false, errors: [{ level: 'error', path: '(checkout)', message: line! }], warnings: [], advice: [] });
    }
    // The project config steers merge and rotate: a problem in it is a finding like an invalid checkpoint.
    const config = configReport(root);
    if (!config.ok) reports.push(config);
  }
  const failed = reports.filter((r) => !r.ok).length;
  if (ctx.json) {
    ctx.out.json({ ok: failed === 0, strict, files: reports });
    return failed ? 1 : 0;
  }
  const { c } = ctx.out;
  // One write for the whole report.
  const lines: string[] = [];
  if (!reports.length) lines.push('no checkpoints to validate (.checkpoints/ has none)');
  for (const r of reports) {
    lines.push(`${r.ok ? c.green('✓') : c.red('✗')} ${oneLine(r.file)}`); // a file name in a clone may hold a newline
    // Paths and messages may quote a file's keys and values: each finding stays one line.
    for (const e of r.errors) lines.push(`  ${c.red('error')}   ${oneLine(`${e.path}: ${e.message}`)}`);
    for (const w of r.warnings) lines.push(`  ${strict ? c.red('warning') : c.yellow('warning')} ${oneLine(`${w.path}: ${w.message}`)}`);
    for (const a of r.advice) lines.push(`  ${c.cyan('advice')}  ${oneLine(`${a.path}: ${a.message}`)}`);
  }
  if (reports.length > 1 || failed) lines.push(`${reports.length - failed}/${reports.length} valid${strict ? ' (strict)' : ''}`);
  ctx.out.out(block(lines));
  return failed ? 1 : 0;
}

/** .checkpoints/config.json judged as the project config: each problem an error. */
function configReport(root: string): FileReport {
  const problems = configProblems(root);
  return { file: CONFIG_DISPLAY, ok: !problems.length, errors: problems.map((p) => ({ level: 'error', path: p.key, message: p.message.replace(`${CONFIG_DISPLAY} `, '').replace(`${CONFIG_DISPLAY}:`, '').trim() })), warnings: [], advice: [] };
}

/**
 * What a name on the command line means: the file it names, or, when no such file exists and
 * it is a skill name, that skill's checkpoint (every other command takes skill names, so
 * `validate api` is what people type).
 */
function namedPath(root: string, path: string, given: string): string {
  if (!SKILL_NAME.test(given) || given.length > MAX_SKILL_NAME || existsSync(path)) return path;
  const skillFile = checkpointPath(root, given);
  return projectPathExists(root, skillFile) ? skillFile : path;
}

/** A misnamed checkpoint file named on the command line: its content judged, and its name too. */
function withNameCheck(root: string, path: string, report: FileReport): FileReport {
  const name = basename(path);
  if (dirname(path) !== checkpointsDir(root) || !isMisnamedCheckpoint(name)) return report;
  return { ...report, ok: false, errors: [{ level: 'error', path: '(file name)', message: misnamedReason(name) }, ...report.errors] };
}

/**
 * The name the validator checks against the skill: an archive reset wrote
 * (`<skill>.<stamp>.checkpoint.json`) is judged by its skill part, under its own naming rule.
 */
function expectedName(name: string): string {
  const archive = ARCHIVE_NAME.exec(name);
  return archive ? `${archive[1]}.checkpoint.json` : name;
}

function validateOne(root: string, path: string, now: Date, strict: boolean, named: boolean, verdicts: Verdicts): FileReport {
  const file = display(root, path);
  try {
    const checked = readChecked(root, path, { fileName: expectedName(basename(path)), now, verdicts, needValue: false });
    if (checked === null) throw new CheckpointError('E_NOT_FOUND', `${shownPath(file)} does not exist`, { hint: 'name an existing checkpoint file or skill, or run `checkpoint validate` alone for all of .checkpoints/' });
    const v = checked.validation;
    // The doctor's levels: --strict fails on warnings, never on advice.
    const { warnings, advice } = splitAdvice(v.warnings);
    return { file, ok: v.errors.length === 0 && (!strict || warnings.length === 0), errors: v.errors, warnings, advice };
  } catch (e) {
    // A missing file named on the command line is a usage mistake; anything unreadable is a
    // finding, a listed checkpoint that vanished or is a dangling link included.
    if (!isCheckpointError(e) || (named && e.code === 'E_NOT_FOUND')) throw e;
    return { file, ok: false, errors: [{ level: 'error', path: '(file)', message: e.message.replace(`${file}:`, '').replace(`${file} `, '').trim() }], warnings: [], advice: [] };
  }
}
