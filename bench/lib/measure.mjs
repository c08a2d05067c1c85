// Wall-clock measurement of whole processes, the way a user (or git) runs them.
// Candidates run interleaved, so machine noise hits every one alike; we report medians
// and ratios measured in the same run, never absolute times across runs.
import { spawnSync } from 'node:child_process';

export function timeOnce(cmd, args, opts = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...opts });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (opts.expectCodes && !opts.expectCodes.includes(r.status)) {
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 300)}`);
  }
  return ms;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** candidates: { name: () => ms } — runs each `runs` times, interleaved, after `warmup` rounds. */
export function compare(candidates, { runs = 21, warmup = 3 } = {}) {
  const names = Object.keys(candidates);
  const samples = Object.fromEntries(names.map((n) => [n, []]));
  for (let i = 0; i < warmup + runs; i++) {
    for (const n of names) {
      const ms = candidates[n]();
      if (i >= warmup) samples[n].push(ms);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(samples[n])]));
}

export function fmt(ms) {
  return `${ms.toFixed(1)} ms`;
}
