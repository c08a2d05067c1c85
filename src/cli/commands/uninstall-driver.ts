import { uninstallDriver } from '../../install/driver.js';
import type { Context, ParsedArgs } from '../spec.js';
import { renderSteps } from './install-driver.js';
import { rootOf } from './common.js';

export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const { changes, notes } = uninstallDriver(rootOf(ctx));
  if (ctx.json) ctx.out.json({ ok: true, changes, notes });
  else ctx.out.out(renderSteps(changes, notes, '✓ merge driver was not installed'));
  return 0;
}
