// Fetches a deployed health endpoint for `doctor --online`, bounded by a timeout.
import type { HealthUrlResult } from './checks.js';

export const ONLINE_TIMEOUT_MS = 5000;
const VERSION_KEYS = ['version', 'sha', 'commit', 'git_sha', 'revision'];

export async function fetchHealth(url: string, timeoutMs = ONLINE_TIMEOUT_MS): Promise<HealthUrlResult> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (!res.ok) return { url, error: `HTTP ${res.status}` };
    const body = (await res.json()) as Record<string, unknown>;
    const key = VERSION_KEYS.find((k) => typeof body?.[k] === 'string');
    return key ? { url, version: body[key] as string } : { url };
  } catch (e) {
    const err = e as Error;
    return { url, error: err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err.cause as Error | undefined)?.message ?? err.message };
  }
}
