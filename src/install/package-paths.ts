// Where this installed package's own files are, for baking into git config and hooks.
// Every bundled chunk lives in dist/, so the package root is one level up.
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN_PATH = fileURLToPath(new URL('../bin/checkpoint.js', import.meta.url));
export const HOOK_TEMPLATE_PATH = fileURLToPath(new URL('../hooks/pre-push', import.meta.url));

/** True for a copy npx fetched into its cache (…/_npx/<hash>/node_modules/…), which npm may clear. */
export function isNpxCachePath(path: string): boolean {
  return /[\\/]_npx[\\/]/.test(path);
}

/**
 * The launcher to bake into the git config and hook of the project at `root`: the path through
 * its own node_modules/checkpoint-protocol (there or in a folder above, as node finds packages)
 * when that leads to this very file, else `binPath` as it is. Node runs a package by its real
 * path, which under pnpm names the version (node_modules/.pnpm/checkpoint-protocol@0.1.0/…) and
 * is gone after an upgrade, while the link is re-pointed: baked, it keeps working.
 */
export function stableBinPath(root: string, binPath: string = BIN_PATH): string {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return null;
    }
  };
  const target = real(binPath);
  if (target === null) return binPath;
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules/checkpoint-protocol/bin/checkpoint.js');
    if (real(candidate) === target) return candidate;
    if (dirname(dir) === dir) return binPath;
  }
}
