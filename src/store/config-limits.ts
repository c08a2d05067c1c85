// Limits and key list of .checkpoints/config.json, apart from config.ts so the merge driver can
// use them without loading the store.

/** A config is a few lines; anything bigger is not one. */
export const MAX_CONFIG_BYTES = 64 * 1024;

/** Every key config.json may hold: a typo ("telemtry") must not silently do nothing. */
export const KNOWN_CONFIG_KEYS: ReadonlySet<string> = new Set(['logs', 'telemetry', 'counters', 'health_url', 'auto_rotate', 'rotate_keep', 'walk_days']);

/** The keys of a parsed config.json that are not settings: named by validate, doctor and the merge driver. */
export function unknownConfigKeys(config: object): string[] {
  return Object.keys(config).filter((k) => !KNOWN_CONFIG_KEYS.has(k));
}

/**
 * How a config.json holding merge conflict markers is settled, as every command and the merge
 * driver say it: no command merges settings, so by hand, then staged. `path`: config.json as a
 * word of the command, pasteable where the message is read.
 */
export function configConflictFix(path: string): string {
  return `fix it by hand (keep both sides' entries as wanted), then \`git add ${path}\``;
}
