import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointsDir } from '../../store/checkpoints.js';
import { CHECKPOINTS_GITIGNORE, CHECKPOINTS_README } from '../../store/readme.js';
import { SCHEMA_FILE, schemaText } from '../../protocol/schema.js';
import { installDriver } from '../../install/driver.js';
import { planPrePushHook } from '../../install/hook.js';
import { BIN_PATH, HOOK_TEMPLATE_PATH } from '../../install/package-paths.js';
import type { Context, ParsedArgs } from '../spec.js';
import { SKIP_ENV } from './install-driver.js';
import { rootOf } from './common.js';
import { writeFileAtomic } from '../../store/atomic.js';
import { ensureProjectDir, projectPathExists, readProjectText, writablePath } from '../../store/safe-fs.js';

/**
 * Creates .checkpoints/ with its README, .gitignore and JSON Schema. Idempotent: reports what
 * it did. README and .gitignore belong to the project once written: init writes them only
 * when absent and leaves an edited one alone. The schema is ours and kept current.
 */
export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const dir = checkpointsDir(root);
  const done: string[] = [];
  if (!projectPathExists(root, dir)) done.push('created .checkpoints/');
  ensureProjectDir(root, dir);
  done.push(...writeIfAbsent(root, join(dir, 'README.md'), CHECKPOINTS_README, '.checkpoints/README.md'));
  done.push(...writeIfChanged(root, join(dir, SCHEMA_FILE), schemaText(), `.checkpoints/${SCHEMA_FILE}`));
  done.push(...writeIfAbsent(root, join(dir, '.gitignore'), CHECKPOINTS_GITIGNORE, '.checkpoints/.gitignore'));
  const notes: string[] = [];
  for (const step of await integrationSteps(root, ctx, notes)) done.push(step);
  if (ctx.json) ctx.out.json({ ok: true, root, changes: done, notes });
  else ctx.out.out([...(done.length || notes.length ? done.map((d) => `✓ ${d}`) : [`✓ ${root} is already set up`]), ...notes.map((n) => `! ${n}`)].join('\n'));
  return 0;
}

function writeIfChanged(root: string, path: string, content: string, label: string): string[] {
  const current = readProjectText(root, path);
  if (current === content) return [];
  writeFileAtomic(writablePath(root, path, { atomic: true }), content);
  return [`${current === null ? 'wrote' : 'updated'} ${label}`];
}

function writeIfAbsent(root: string, path: string, content: string, label: string): string[] {
  const current = readProjectText(root, path);
  if (current === null) {
    writeFileAtomic(writablePath(root, path, { atomic: true }), content);
    return [`wrote ${label}`];
  }
  return current === content ? [] : [`left ${label} as the project edited it`];
}

/** Git integrations that init also sets up: the merge driver and the pre-push hook. */
async function integrationSteps(root: string, ctx: Context, notes: string[]): Promise<string[]> {
  if (!existsSync(join(root, '.git'))) return ['not a git repository: merge driver and pre-push hook not installed (run init again after `git init`)'];
  if (ctx.env[SKIP_ENV] && ctx.env[SKIP_ENV] !== '0') return [`git integrations skipped (${SKIP_ENV} is set)`];
  const { changes } = installDriver(root, process.execPath, BIN_PATH);
  const hook = planPrePushHook(root, readFileSync(HOOK_TEMPLATE_PATH, 'utf8'), process.execPath, BIN_PATH, HOOK_TEMPLATE_PATH);
  hook.apply();
  notes.push(...hook.notes);
  return [...changes, ...hook.changes];
}
