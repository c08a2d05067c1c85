// What `pause --auto` writes in a capsule's claims when no session recorded any: each one says it
// is unknown. A capsule holding only these records nothing a session knew, so a merge takes the
// other side's real claims over it (merge/capsule-origin.ts). Pure, tiny: on the driver's path.
import type { JsonValue } from './types.js';

export const NOT_RECORDED = 'unknown: not recorded yet';

/** Whether every claim of `context` (a capsule's) is a placeholder pause --auto wrote; false for no context or no claims. */
export function onlyPlaceholders(context: JsonValue | undefined): boolean {
  if (context === null || typeof context !== 'object' || Array.isArray(context)) return false;
  const claims = Object.values(context).flatMap((v) => (Array.isArray(v) ? v : [v]));
  return claims.length > 0 && claims.every((c) => typeof c === 'string' && c.startsWith(NOT_RECORDED));
}
