// The paths inside the commands we print for a person to paste (`git add …`, `checkpoint resolve
// …`, in a repair or a hint) name the file from the folder the command was run in, as git prints
// them (`git add ../../.checkpoints/api.checkpoint.json` two folders down): a line pasted there
// runs as printed, and a path a command reads back is taken from that folder too (argPath).
// Each entry says once where that is (runFrom: the CLI's, the MCP server's per call), scoped to
// that run, as git keeps its prefix: no store call that may refuse with such a line needs it
// passed in, and no folder is process-wide (the MCP server runs calls side by side).
import type { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { pasteArg } from '../shell-words.js';

/** Made on a first run below the top: the merge driver and a run at the top never load async_hooks. */
let runDir: AsyncLocalStorage<string> | undefined;

/** Runs `work` with `dir` (the folder file arguments are taken from: the current one, or -C's) as where its printed commands are pasted. */
export function runFrom<T>(dir: string, work: () => T): T {
  // At a work tree's top (the usual place, the hook's too) every path is already written from
  // there: no scope, since one costs every promise of the run a hook (node 20's async_hooks).
  if (existsSync(join(dir, '.git'))) return work();
  runDir ??= new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)<string>();
  return runDir.run(dir, work);
}

/**
 * `rel` (a path from the project root `root`, with forward slashes) as one word of a printed
 * command: relative to the folder the command runs from, as git names it; as it is from the
 * root, and outside any run (a library call). Quoted only when the shell needs it.
 */
export function pathArg(root: string, rel: string): string {
  const dir = runDir?.getStore();
  if (dir === undefined) return pasteArg(rel);
  const from = relative(dir, join(root, rel)).split(sep).join('/') || '.';
  return pasteArg(rel.endsWith('/') ? `${from}/` : from); // a folder stays written as one
}
