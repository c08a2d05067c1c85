import { uninstallDriver } from '../../install/driver.js';
import type { Context, ParsedArgs } from '../spec.js';
import { rootOf } from './common.js';

export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const { changes } = uninstallDriver(rootOf(ctx));
  if (ctx.json) ctx.out.json({ ok: true, changes });
  else ctx.out.out(changes.length ? changes.map((c) => `✓ ${c}`).join('\n') : '✓ merge driver was not installed');
  return 0;
}
