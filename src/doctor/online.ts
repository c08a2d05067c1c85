// Fetches a deployed health endpoint for `doctor --online`, bounded by a timeout.
import type { HealthUrlResult } from './checks.js';

export const ONLINE_TIMEOUT_MS = 5000;
/** A health answer is a small JSON object; reading stops past this (an endless body must not fill memory). */
export const ONLINE_MAX_BYTES = 64 * 1024;
const VERSION_KEYS = ['version', 'sha', 'commit', 'git_sha', 'revision'];

/** The body as text, or null once it passes `max` bytes (the stream is cancelled there). */
async function readCapped(res: Response, max: number): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function fetchHealth(url: string, timeoutMs = ONLINE_TIMEOUT_MS): Promise<HealthUrlResult> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: 'application/json' } });
    if (!res.ok) return { url, error: `HTTP ${res.status}` };
    const raw = await readCapped(res, ONLINE_MAX_BYTES);
    if (raw === null) return { url, error: `answer over ${ONLINE_MAX_BYTES} bytes; not read further` };
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return { url, error: 'the answer is not JSON' };
    }
    const key = VERSION_KEYS.find((k) => typeof body?.[k] === 'string');
    return key ? { url, version: body[key] as string } : { url };
  } catch (e) {
    const err = e as Error;
    return { url, error: err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (err.cause as Error | undefined)?.message ?? err.message };
  }
}
