import { CheckpointError } from '../../errors.js';
import { readConfig } from '../../store/config.js';
import { runDoctor } from '../../doctor/run.js';
import type { Finding } from '../../doctor/types.js';
import { oneLine } from '../render/output.js';
import type { Context, ParsedArgs } from '../spec.js';
import { engineArg, rootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const failOnWarnings = Boolean(args.options['fail-on-warnings']);
  const report = await runDoctor({ root, now: ctx.now, engine: engineArg(args), onlineUrl: onlineUrl(args, root) });
  const errors = report.findings.filter((f) => f.level === 'error').length;
  const warnings = report.findings.filter((f) => f.level === 'warning').length;
  const failed = errors > 0 || (failOnWarnings && warnings > 0);
  if (ctx.json) {
    ctx.out.json({ ok: !failed, errors, warnings, checkpoints: report.checkpoints, engine: report.engine, head: report.head, findings: report.findings });
    return failed ? 1 : 0;
  }
  const { c } = ctx.out;
  const mark: Record<Finding['level'], string> = { error: c.red('error  '), warning: c.yellow('warning'), info: c.dim('info   ') };
  for (const f of report.findings) ctx.out.out(`${mark[f.level]} ${f.skill ?? '(repo)'}${f.path ? ` ${f.path}` : ''}: ${oneLine(f.message)}`);
  const summary = `doctor: ${report.checkpoints} checkpoint${report.checkpoints === 1 ? '' : 's'}, ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
  ctx.out.out(failed ? c.red(summary) : errors + warnings ? c.yellow(summary) : c.green(`${summary} — no drift`));
  if (failed && failOnWarnings && !errors) ctx.out.out('fix the checkpoints (or push with --no-verify to bypass the hook)');
  return failed ? 1 : 0;
}

/** --online=URL, or bare --online (empty) for the config's health_url. */
function onlineUrl(args: ParsedArgs, root: string): string | undefined {
  const flag = args.options.online;
  if (flag === undefined) return undefined;
  const url = typeof flag === 'string' && flag ? flag : readConfig(root).health_url;
  if (!url) throw new CheckpointError('E_USAGE', '--online needs a URL (--online=https://...) or health_url in .checkpoints/config.json');
  if (!/^https?:\/\/\S+$/.test(url)) throw new CheckpointError('E_USAGE', `--online: ${url} is not an http(s) URL`);
  return url;
}
