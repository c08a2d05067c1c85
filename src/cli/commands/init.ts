import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointsDir } from '../../store/checkpoints.js';
import { CHECKPOINTS_GITIGNORE, CHECKPOINTS_README } from '../../store/readme.js';
import { SCHEMA_FILE, schemaText } from '../../protocol/schema.js';
import { installDriver } from '../../install/driver.js';
import { installPrePushHook } from '../../install/hook.js';
import { BIN_PATH, HOOK_TEMPLATE_PATH } from '../../install/package-paths.js';
import type { Context, ParsedArgs } from '../spec.js';
import { SKIP_ENV } from './install-driver.js';
import { rootOf } from './common.js';

/** Creates .checkpoints/ with its README and JSON Schema. Idempotent: reports what it did. */
export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const dir = checkpointsDir(root);
  const done: string[] = [];
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    done.push('created .checkpoints/');
  }
  done.push(...writeIfChanged(join(dir, 'README.md'), CHECKPOINTS_README, '.checkpoints/README.md'));
  done.push(...writeIfChanged(join(dir, SCHEMA_FILE), schemaText(), `.checkpoints/${SCHEMA_FILE}`));
  done.push(...writeIfChanged(join(dir, '.gitignore'), CHECKPOINTS_GITIGNORE, '.checkpoints/.gitignore'));
  for (const step of await integrationSteps(root, ctx)) done.push(step);
  if (ctx.json) ctx.out.json({ ok: true, root, changes: done });
  else ctx.out.out(done.length ? done.map((d) => `✓ ${d}`).join('\n') : `✓ ${root} is already set up`);
  return 0;
}

function writeIfChanged(path: string, content: string, label: string): string[] {
  if (existsSync(path) && readFileSync(path, 'utf8') === content) return [];
  const existed = existsSync(path);
  writeFileSync(path, content);
  return [`${existed ? 'updated' : 'wrote'} ${label}`];
}

/** Git integrations that init also sets up: the merge driver and the pre-push hook. */
async function integrationSteps(root: string, ctx: Context): Promise<string[]> {
  if (!existsSync(join(root, '.git'))) return ['not a git repository: merge driver and pre-push hook not installed (run init again after `git init`)'];
  if (ctx.env[SKIP_ENV] && ctx.env[SKIP_ENV] !== '0') return [`git integrations skipped (${SKIP_ENV} is set)`];
  const { changes } = installDriver(root, process.execPath, BIN_PATH);
  return [...changes, ...installPrePushHook(root, readFileSync(HOOK_TEMPLATE_PATH, 'utf8'), process.execPath, BIN_PATH)];
}
