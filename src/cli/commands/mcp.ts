// `checkpoint mcp`: serve the checkpoint tools over the Model Context Protocol (stdio). The
// server and the SDK load only here (dist/mcp.cjs), so no other command pays for them.
import type { Context, ParsedArgs } from '../spec.js';
import { VERSION } from '../main.js';
import { rootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  // A -C that names no project is a mistake to report now, not on every call.
  if (ctx.dirOverride !== undefined) rootOf(ctx);
  const { runMcpServer } = await import('../../mcp/server.js');
  return runMcpServer({ dir: ctx.dirOverride, startCwd: ctx.cwd, allowVerify: Boolean(args.options['allow-verify']), version: VERSION });
}
