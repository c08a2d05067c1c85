// The one place that decides colour and where text goes. chalk ignores NO_COLOR, so the
// decision is ours: --no-color / NO_COLOR (any non-empty value) off, --color / FORCE_COLOR on,
// otherwise colour only when stdout is a terminal.
import { Chalk, type ChalkInstance } from 'chalk';

export interface Output {
  readonly color: boolean;
  readonly c: ChalkInstance;
  out(text: string): void;
  err(text: string): void;
  json(value: unknown): void;
}

export function decideColor(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (flag !== undefined) return flag;
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY;
}

export function createOutput(color: boolean): Output {
  return {
    color,
    c: new Chalk({ level: color ? 1 : 0 }),
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    json: (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
  };
}

/** "3h ago", "2d ago", "in 5m": the relative times resume and status show. */
export function relativeTime(iso: string, now: Date): string {
  const ms = now.getTime() - Date.parse(iso);
  if (Number.isNaN(ms)) return 'unknown time';
  const abs = Math.abs(ms);
  const units: [number, string][] = [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'm']];
  const [size, unit] = units.find(([s]) => abs >= s) ?? [1000, 's'];
  const n = Math.floor(abs / size);
  return ms >= 0 ? `${n}${unit} ago` : `in ${n}${unit}`;
}
