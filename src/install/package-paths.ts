// Where this installed package's own files are, for baking into git config and hooks.
// Every bundled chunk lives in dist/, so the package root is one level up.
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN_PATH = fileURLToPath(new URL('../bin/checkpoint.js', import.meta.url));
export const HOOK_TEMPLATE_PATH = fileURLToPath(new URL('../hooks/pre-push', import.meta.url));

/** True for a copy npx fetched into its cache (…/_npx/<hash>/node_modules/…), which npm may clear. */
export function isNpxCachePath(path: string): boolean {
  return /[\\/]_npx[\\/]/.test(path);
}
