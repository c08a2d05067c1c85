import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { installDriver } from '../../install/driver.js';
import { gitRepoProblem } from '../../install/git-config.js';
import { CheckpointError } from '../../errors.js';
import { stableBinPath } from '../../install/package-paths.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';
import { withHint } from '../render/output.js';
import { overriddenMessage, overridingMergeLines } from '../../install/merge-attribute.js';

/**
 * Set to 1 to make `install-driver --optional` (an npm `prepare` script) a no-op, as in a CI job's
 * `npm ci`. A command typed on purpose, plain install-driver or init, still installs: a CI job
 * that sets it for the whole job and then installs the driver to run doctor gets its driver.
 */
export const SKIP_ENV = 'CHECKPOINT_SKIP_INSTALL';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  if (args.options.optional && ctx.env[SKIP_ENV] && ctx.env[SKIP_ENV] !== '0') {
    ctx.out.err(`checkpoint install-driver: skipped (${SKIP_ENV} is set)`);
    return 0;
  }
  const root = rootOf(ctx);
  // --optional (an npm prepare script): wherever git cannot open a clone here (no .git, no git
  // installed, a copied worktree's .git file), npm install must not fail: say why, exit 0.
  const problem = args.options.optional ? (existsSync(join(root, '.git')) ? gitRepoProblem(root) : new CheckpointError('E_GIT', 'not a git repository')) : null;
  if (problem) {
    ctx.out.err(`checkpoint install-driver: ${problem.message}; nothing to install`);
    return 0;
  }
  let installed: ReturnType<typeof installDriver>;
  try {
    installed = installDriver(root, process.execPath, stableBinPath(root), { local: Boolean(args.options.local) });
  } catch (e) {
    if (!args.options.optional) throw e;
    // An optional step (npm prepare) that fails the whole npm install helps nobody: a stale
    // .git/config.lock, a read-only .git, a committed .gitattributes link is one warning line.
    // Refusals are thrown while planning, before any write; a write turned down half way takes
    // back those before it (planDriver), so "not installed" holds.
    const err = e as { message?: string; hint?: string };
    ctx.out.err(`checkpoint install-driver: ${withHint(err?.message ?? String(e), err?.hint)}; merge driver not installed (--optional: run checkpoint install-driver once that is fixed)`);
    return 0;
  }
  const { changes, notes } = installed;
  // Installed, and still never run: a later .gitattributes line decides merges of checkpoint files.
  notes.push(...overridingMergeLines(root).map(overriddenMessage));
  if (ctx.json) ctx.out.json({ ok: true, changes, notes });
  else ctx.out.out(renderSteps(changes, notes, '✓ merge driver already installed'));
  return 0;
}

/** What init / install-driver / uninstall-driver did (✓), then what they left for the user to do (!). */
export function renderSteps(changes: string[], notes: string[], nothing: string): string {
  return [...(changes.length || notes.length ? changes.map((c) => `✓ ${c}`) : [nothing]), ...notes.map((n) => `! ${n}`)].join('\n');
}
