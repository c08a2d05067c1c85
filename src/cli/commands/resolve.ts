import { join, relative, resolve as resolvePath } from 'node:path';
import { CheckpointError } from '../../errors.js';
import { compileExtraLogs } from '../../protocol/fields.js';
import { mergeCheckpointTexts } from '../../merge/driver.js';
import { splitConflictMarkers } from '../../merge/markers.js';
import { writeFileAtomic } from '../../store/atomic.js';
import { readConfig } from '../../store/config.js';
import { filesWithMarkers, readStages, unmergedCheckpointPaths } from '../../store/conflicts.js';
import { projectPathExists, readProjectText, writablePath } from '../../store/safe-fs.js';
import { gitRun } from '../../install/git-config.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';

type Outcome = { path: string; status: 'resolved' | 'conflict' | 'unparseable' | 'nothing-to-do'; source?: 'stages' | 'markers'; messages: string[] };

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  if (args.options.check) return check(root, ctx);
  const base = ctx.dirOverride ? root : ctx.cwd;
  const paths = args.positionals.length
    ? args.positionals.map((p) => relative(root, resolvePath(base, p)))
    : [...new Set([...unmergedCheckpointPaths(root), ...filesWithMarkers(root, skipNote(ctx))])];
  for (const p of paths) {
    if (p.startsWith('..') || !projectPathExists(root, join(root, p))) throw new CheckpointError('E_NOT_FOUND', `${p}: no such file in this repository`);
  }
  const extraRules = compileExtraLogs(readConfig(root));
  const outcomes = paths.map((p) => resolveOne(root, p, extraRules, Boolean(args.options.add)));
  const failed = outcomes.some((o) => o.status === 'conflict' || o.status === 'unparseable');
  if (ctx.json) ctx.out.json({ ok: !failed, files: outcomes });
  else {
    if (!outcomes.length) ctx.out.out('no conflicted checkpoint files');
    for (const o of outcomes) {
      const what = { resolved: `✓ resolved from ${o.source}${args.options.add ? ' and staged' : ' (stage it with git add, or rerun with --add)'}`, conflict: '✗ real conflicts remain (markers only around them)', unparseable: '✗ cannot be merged semantically', 'nothing-to-do': '· nothing to resolve' }[o.status];
      ctx.out.out(`${o.path}: ${what}`);
      for (const m of o.messages) ctx.out.err(`  ${m}`);
    }
  }
  return failed ? 1 : 0;
}

function resolveOne(root: string, rel: string, extraRules: ReturnType<typeof compileExtraLogs>, add: boolean): Outcome {
  const abs = join(root, rel);
  const stages = readStages(root, rel);
  const sides = stages ?? splitConflictMarkers(readProjectText(root, abs, { maxBytes: 16 * 1024 * 1024 }) ?? '');
  if (!sides) return { path: rel, status: 'nothing-to-do', messages: [] };
  const result = mergeCheckpointTexts({ base: sides.base, ours: sides.ours, theirs: sides.theirs, extraRules, fileName: rel });
  const source = stages ? 'stages' : 'markers';
  if (result.status === 'unparseable' || result.text === undefined) return { path: rel, status: 'unparseable', source, messages: result.messages };
  writeFileAtomic(writablePath(root, abs, { atomic: true }), result.text);
  if (result.status === 'clean') {
    if (add) gitRun(root, ['add', '--', rel]);
    return { path: rel, status: 'resolved', source, messages: [] };
  }
  return { path: rel, status: 'conflict', source, messages: result.messages };
}

const skipNote = (ctx: Context) => (rel: string, why: string) => ctx.out.err(`checkpoint: skipped ${rel}: ${why}`);

/** CI gate: exit 1 when any checkpoint file holds conflict markers or is unmerged. */
function check(root: string, ctx: Context): number {
  const bad = [...new Set([...filesWithMarkers(root, skipNote(ctx)), ...unmergedCheckpointPaths(root)])];
  if (ctx.json) ctx.out.json({ ok: bad.length === 0, conflicted: bad });
  else if (bad.length) {
    for (const p of bad) ctx.out.out(`✗ ${p} holds merge conflict markers`);
    ctx.out.out('run `checkpoint resolve --add` locally (hosted merge buttons bypass the merge driver)');
  } else ctx.out.out('✓ no checkpoint file holds conflict markers');
  return bad.length ? 1 : 0;
}
