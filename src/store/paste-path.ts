// The paths inside the commands we print for a person to paste (`git add …`, `checkpoint resolve
// …`, in a repair or a hint) name the file from the folder the command was run in, as git prints
// them (`git add ../../.checkpoints/api.checkpoint.json` two folders down): a line pasted there
// runs as printed, and a path a command reads back is taken from that folder too (argPath).
// Each entry says once where that is (runFrom: the CLI's, the MCP server's per call), scoped to
// that run, as git keeps its prefix: no store call that may refuse with such a line needs it
// passed in, and no folder is process-wide (the MCP server runs calls side by side).
import { AsyncLocalStorage } from 'node:async_hooks';
import { join, relative, sep } from 'node:path';
import { pasteArg } from '../shell-words.js';

const runDir = new AsyncLocalStorage<string>();

/** Runs `work` with `dir` (the folder file arguments are taken from: the current one, or -C's) as where its printed commands are pasted. */
export function runFrom<T>(dir: string, work: () => T): T {
  return runDir.run(dir, work);
}

/**
 * `rel` (a path from the project root `root`, with forward slashes) as one word of a printed
 * command: relative to the folder the command runs from, as git names it; as it is from the
 * root, and outside any run (a library call). Quoted only when the shell needs it.
 */
export function pathArg(root: string, rel: string): string {
  const dir = runDir.getStore();
  if (dir === undefined) return pasteArg(rel);
  const from = relative(dir, join(root, rel)).split(sep).join('/') || '.';
  return pasteArg(rel.endsWith('/') ? `${from}/` : from); // a folder stays written as one
}
