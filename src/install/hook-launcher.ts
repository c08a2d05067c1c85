// The CLI a pre-push hook of ours runs, found as hooks/pre-push finds it: the launcher init baked
// in; else, for the template as shipped, the package's launcher beside the file it really is
// (through links: a .git/hooks/pre-push linked to the package's hook); else the first
// `checkpoint-protocol` on PATH. None: the hook skips every push. Read by init (a link to our
// hook needs no line added) and doctor (a copy of the template that finds nothing).
import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The launcher init baked into a hook of ours (CHECKPOINT_BIN='…'), or null. */
export function bakedBin(hook: string): string | null {
  const m = /^CHECKPOINT_BIN='((?:[^']|'\\'')*)'$/m.exec(hook);
  return m && m[1] ? m[1].replace(/'\\''/g, "'") : null;
}

export type HookLauncher = { from: 'baked' | 'beside' | 'path'; bin: string };

/** What the hook at `hookPath` (its text `hook`) runs, or null when it finds nothing and skips the check. */
export function hookLauncher(hookPath: string, hook: string): HookLauncher | null {
  const baked = bakedBin(hook);
  // A baked launcher gone is not replaced by another: the hook skips (never a copy the clone holds).
  if (baked !== null) return existsSync(baked) ? { from: 'baked', bin: baked } : null;
  let own: string;
  try {
    own = dirname(realpathSync(hookPath));
  } catch {
    return null;
  }
  const beside = join(own, '..', 'bin', 'checkpoint.js');
  if (existsSync(beside) && existsSync(join(own, 'pre-push-chain'))) return { from: 'beside', bin: beside };
  const onPath = onPathNamed('checkpoint-protocol');
  return onPath === null ? null : { from: 'path', bin: onPath };
}

/** The first executable file of that name on PATH, as `command -v` finds it. */
function onPathNamed(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      if (!statSync(file).isFile()) continue;
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not there, or not executable: the next folder
    }
  }
  return null;
}
