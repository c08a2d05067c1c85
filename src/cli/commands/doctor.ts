import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from '../../errors.js';
import { indexPathsLike } from '../../git/index-paths-like.js';
import { CHECKPOINTS_DIR } from '../../store/root.js';
import { CHECKPOINT_SUFFIX } from '../../store/skill-name.js';
import { shown, shownPath } from '../../one-line.js';
import { gitDirEnvNote } from '../../git/git-dir-env.js';
import { configProblems, readConfig } from '../../store/config.js';
import { PUSHED_IN, runDoctor, WORK_TREE_UNREAD } from '../../doctor/run.js';
import type { Finding, Level } from '../../doctor/types.js';
import { parsePushRange, prePushRanges, rangeText } from '../../doctor/push.js';
import { resolveGitDirsSync } from '../../git/locate.js';
import { hasRemoteTrackingRefs } from '../../git/remotes.js';
import { usesSha256 } from '../../git/object-format.js';
import { block, oneLine } from '../render/output.js';
import { resaveCommand } from '../../doctor/fix-commands.js';
import type { Context, ParsedArgs } from '../spec.js';
import { engineArg, rootOf } from './common.js';
import { compareSkillNames, skillLabel } from '../../store/skill-name.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const failOnWarnings = Boolean(args.options['fail-on-warnings']);
  const pushedArg = args.options.pushed;
  const fromHook = Boolean(args.options['pushed-stdin']);
  if (fromHook && (pushedArg !== undefined || args.options['whole-range'])) throw new CheckpointError('E_USAGE', '--pushed-stdin reads the pushed refs from a pre-push hook\'s stdin; it takes no --pushed or --whole-range', { hint: 'the shipped pre-push hook runs: checkpoint doctor --fail-on-warnings --pushed-stdin' });
  const pushed = fromHook
    ? prePushRanges(await readStdin())
    : pushedArg === undefined ? undefined : (Array.isArray(pushedArg) ? pushedArg : [pushedArg]).map((r) => parsePushRange(String(r)));
  // CI judges a push after it reached the remote: its remote-tracking refs hold every commit it sent.
  const wholeRange = Boolean(args.options['whole-range']);
  if (wholeRange && !pushed) throw new CheckpointError('E_USAGE', '--whole-range says how to read the --pushed ranges, and no --pushed was given', { hint: 'e.g. checkpoint doctor --fail-on-warnings --whole-range --pushed "$BEFORE..$GITHUB_SHA"' });
  // A push that cannot be judged (SHA-256 object names, which history cannot be read in yet) is
  // let through, saying so: refusing every push would only teach --no-verify.
  if (pushed && sha256Repository(root)) {
    ctx.out.err('checkpoint: note: this repository names its objects with SHA-256 (extensions.objectFormat), which checkpoint cannot read yet: the push is not judged');
    return 0;
  }
  // The hook a global core.hooksPath runs in every repository: one with no checkpoints (none at
  // the top, none nested, none in the index) has nothing to judge, and no banner to print.
  if (pushed && !wholeRange && !holdsCheckpoints(root)) return 0;
  if (fromHook) {
    // A push that sends nothing (deletions only) is not judged; else one short line says what is.
    if (!pushed!.length) return 0;
    const more = pushed!.length > 1 ? ` (+${pushed!.length - 1} more range${pushed!.length === 2 ? '' : 's'})` : '';
    ctx.out.err(`checkpoint pre-push: checkpoint doctor --fail-on-warnings --pushed=${rangeText(pushed![0]!)}${more}`);
  }
  const report = await runDoctor({ root, now: ctx.now, engine: engineArg(args), onlineUrl: onlineUrl(args, root, ctx), pushed, wholeRange });
  // A config problem changes how merges and rotation treat every checkpoint: never silent. The
  // config is in .checkpoints/: when that folder could not be read at all, its note says it once.
  const folderUnread = report.findings.some((f) => f.check === WORK_TREE_UNREAD);
  for (const p of folderUnread ? [] : configProblems(root)) {
    report.findings.unshift({ level: 'warning', check: 'config', skill: null, path: p.key === '(file)' ? '.checkpoints/config.json' : `.checkpoints/config.json ${p.key}`, message: p.message.replace(/^\.checkpoints\/config\.json:? /, ''), blocks: !pushed });
  }
  const count = (level: Level) => report.findings.filter((f) => f.level === level).length;
  const errors = count('error');
  const warnings = count('warning');
  const blocking = report.findings.filter((f) => f.blocks && (f.level === 'error' || failOnWarnings));
  const failed = blocking.length > 0;
  if (ctx.json) {
    ctx.out.json({
      ok: !failed, errors, warnings, advice: count('advice'), info: count('info'), blocking: blocking.length,
      checkpoints: report.checkpoints, outside_sparse_checkout: report.outside, engine: report.engine, head: report.head, pushed_commits: report.pushed, findings: report.findings,
    });
    return failed ? 1 : 0;
  }
  const { c } = ctx.out;
  // One write for the whole report.
  const lines: string[] = [];
  const mark: Record<Level, string> = { error: c.red('error  '), warning: c.yellow('warning'), advice: c.cyan('advice '), info: c.dim('info   ') };
  for (const [skill, group] of groupBySkill(report.findings)) {
    lines.push(c.bold(skill === null ? '(repository)' : skillLabel(skill)));
    for (const f of group) {
      // A warning blocks only under --fail-on-warnings (the hook's setting): run by hand without it, said so.
      const tag = !pushed || !f.blocks ? '' : f.level === 'error' || failOnWarnings ? ' [blocks push]' : ' [blocks push under --fail-on-warnings]';
      lines.push(`  ${mark[f.level]} ${oneLine(`${f.path ? `${f.path}: ` : ''}${f.message}`)}${tag}`);
    }
  }
  const n = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  // Left out by a sparse checkout (its note says how to bring them in): counted apart, never "no drift".
  const away = report.outside && (report.outside.folded ? ' (.checkpoints/ is outside this sparse checkout)' : ` (+${report.outside.skills.length} outside this sparse checkout, not checked)`);
  const parts = [n(report.checkpoints, 'checkpoint') + (away ?? ''), n(errors, 'error'), n(warnings, 'warning'), `${count('advice')} advice`, n(count('info'), 'note')];
  const underFlag = failOnWarnings ? 0 : report.findings.filter((f) => f.blocks && f.level === 'warning').length;
  if (report.pushed !== null) parts.push(`${n(report.pushed, 'pushed commit')}, ${blocking.length} blocking${underFlag ? ` (${underFlag} more under --fail-on-warnings, as the pre-push hook runs doctor)` : ''}`);
  const summary = `doctor: ${parts.join(', ')}`;
  lines.push(failed ? c.red(summary) : errors + warnings || away ? c.yellow(summary) : c.green(`${summary} — no drift`));
  // No .git at the project's root (evidence.ts): nothing was checked against git, which "no drift" alone would hide.
  if (report.engine === null) {
    const env = gitDirEnvNote(ctx.env);
    lines.push(`note: git history was not checked: ${shownPath(root)} has no .git (it is not the root of a clone)${env ? `; ${env}` : ''}`);
  }
  if (failed && pushed && wholeRange) {
    // Already pushed (CI): no hook to bypass; a pushed reconcile clears it.
    lines.push('the commits of the range cause or carry the findings marked [blocks push]; reconcile the checkpoints with them, commit and push');
    const reread = rereadLine(blocking, 'push');
    if (reread) lines.push(reread);
  } else if (failed && pushed) {
    lines.push('the pushed commits cause or carry the findings marked [blocks push]; reconcile them (or push with --no-verify to bypass the hook)');
    const reread = rereadLine(blocking, 'push again', report.head);
    if (reread) lines.push(reread);
    // A new branch is judged on what no remote-tracking ref has: with none at all (pushes by URL,
    // a remote never fetched), that is its whole history, so the user learns how to narrow it.
    if (pushed.some((r) => r.from === null) && !hasRemoteTrackingRefs(root)) lines.push('note: this clone has no remote-tracking refs, so a new branch counts every commit it holds as pushed; if the remote already has some of them, fetch it once by name (git fetch <name>; git remote add <name> <url> first if you push by URL) and push again');
  }
  // Outside the hook (CI, by hand) there is no push to bypass: say what fails the run.
  else if (failed && failOnWarnings && !errors) {
    lines.push('--fail-on-warnings: reconcile the checkpoints with what the warnings name, then run doctor again');
    const reread = rereadLine(blocking, 'run doctor again');
    if (reread) lines.push(reread);
  }
  ctx.out.out(block(lines));
  return failed ? 1 : 0;
}

/**
 * How a listed file that changed after its checkpoint was written stops failing: re-reading it is
 * not enough, the checkpoint must be saved after the change (its updated_at is what the change is
 * dated against). Null when no failing finding is such a change.
 */
function rereadLine(failing: readonly Finding[], then: string, head: string | null = null): string | null {
  const changed = failing.filter((f) => f.check === 'generated_files' && f.evidence?.file !== undefined && !f.evidence.missing && f.skill !== null);
  const skills = [...new Set(changed.map((f) => f.skill!))];
  if (!skills.length) return null;
  // Found only in a pushed branch that is not checked out: saved here, the checked-out checkpoint
  // would change, not that branch's (docs/doctor.md).
  const tips = [...new Set(changed.flatMap((f) => {
    const sha = PUSHED_IN.exec(f.message)?.[1];
    return sha !== undefined && !(head ?? '').startsWith(sha) ? [sha] : [];
  }))];
  const where = tips.length ? `check out the branch you pushed (${tips.join(', ')}) first, then ` : '';
  const example = resaveCommand(skills[0]!);
  return `a file changed after its checkpoint was written stops counting once the checkpoint is saved after the change: ${where}re-read it, save ${skills.length === 1 ? 'the checkpoint' : `each of ${skills.join(', ')}`}${tips.length ? ' there' : ''} (e.g. ${example}), commit, and ${then}`;
}

/** Per skill (repository-wide first), drift before notes and advice. */
function groupBySkill(findings: readonly Finding[]): [string | null, Finding[]][] {
  const order: Record<Level, number> = { error: 0, warning: 1, info: 2, advice: 3 };
  const groups = new Map<string | null, Finding[]>();
  // Pushed in place: a copy per finding made 20,000 findings (one per missing file) quadratic (red team 63 r1 2).
  for (const f of findings) (groups.get(f.skill) ?? groups.set(f.skill, []).get(f.skill)!).push(f);
  return [...groups]
    .sort(([a], [b]) => (a === null ? -1 : b === null ? 1 : compareSkillNames(a, b)))
    .map(([skill, group]) => [skill, [...group].sort((x, y) => order[x.level] - order[y.level])]);
}

/** --online=URL, or bare --online (empty) for the config's health_url. */
function onlineUrl(args: ParsedArgs, root: string, ctx: Context): string | undefined {
  const flag = args.options.online;
  if (flag === undefined) return undefined;
  const url = typeof flag === 'string' && flag ? flag : readConfig(root).health_url;
  // The doctor tool's `online: true` takes no URL (only the config's): its refusal names that.
  const mcp = ctx.opSpelling?.caller === 'mcp';
  if (!url) throw new CheckpointError('E_USAGE', mcp ? 'online needs health_url in .checkpoints/config.json (this server never takes a URL from the caller)' : '--online needs a URL (--online=https://...) or health_url in .checkpoints/config.json');
  if (!/^https?:\/\/\S+$/.test(url)) throw new CheckpointError('E_USAGE', `${mcp ? 'online: health_url of .checkpoints/config.json' : '--online'}: ${shown(url)} is not an http(s) URL`);
  return url;
}

/** A pre-push hook's stdin, whole: git's lines for every pushed ref. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer | string>) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether the repository at `root` has checkpoints: a .checkpoints/ folder at its top, or checkpoint files in its index (nested, or outside a sparse checkout). */
function holdsCheckpoints(root: string): boolean {
  return existsSync(join(root, CHECKPOINTS_DIR)) || indexPathsLike(root, { holding: `${CHECKPOINTS_DIR}/`, ending: CHECKPOINT_SUFFIX }).length > 0;
}

/** Whether the repository at `root` names its objects with SHA-256 (none, or a broken .git: no). */
function sha256Repository(root: string): boolean {
  try {
    return usesSha256(resolveGitDirsSync(root).commonDir);
  } catch {
    return false;
  }
}
