// Blockers the checkpoint marks resolved instead of removing them. Apart from priority.ts (the
// `next` ranking) so validate, which advises removing them, loads only this.

// A blocker's status as people write it once it no longer blocks.
const CLOSED_WORDS = new Set(['resolved', 'done', 'closed', 'fixed', 'decided', 'answered', 'complete', 'completed', 'cancelled', 'canceled']);

/**
 * Whether the checkpoint marks a blocker resolved rather than removing it, as people and agents do
 * (red team 12-07: every session asked the user again about a decision made): `"resolved": true`
 * (or closed, done), a status or state of resolved, done, closed, fixed, decided, answered,
 * complete or cancelled, or a `resolved_at` / `closed_at` time. Readers take it as closed; validate
 * advises removing it.
 */
export function blockerClosed(b: unknown): boolean {
  if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
  const r = b as Record<string, unknown>;
  if (r.resolved === true || r.closed === true || r.done === true) return true;
  for (const key of ['status', 'state']) if (typeof r[key] === 'string' && CLOSED_WORDS.has((r[key] as string).trim().toLowerCase())) return true;
  return ['resolved_at', 'closed_at'].some((key) => typeof r[key] === 'string' && /\S/.test(r[key] as string));
}
