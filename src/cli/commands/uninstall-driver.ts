import { uninstallDriver } from '../../install/driver.js';
import { installedHookNote } from '../../install/hook.js';
import type { Context, ParsedArgs } from '../spec.js';
import { renderSteps } from './install-driver.js';
import { rootOf } from './common.js';

export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const { changes, notes } = uninstallDriver(root);
  // Only the driver is taken back: the hook init installed is named, with how to remove it.
  const hook = installedHookNote(root);
  if (hook) notes.push(hook);
  if (ctx.json) ctx.out.json({ ok: true, changes, notes });
  else ctx.out.out(renderSteps(changes, notes, '✓ merge driver was not installed'));
  return 0;
}
