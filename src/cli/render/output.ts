// The one place that decides colour and where text goes. chalk ignores NO_COLOR, so the
// decision is ours: --no-color / NO_COLOR (any non-empty value) off, --color / FORCE_COLOR on
// (FORCE_COLOR=0 or false off), otherwise colour only when stdout is a terminal that is not TERM=dumb.
// Start-up matters (every command is a fresh process), so chalk is loaded only when colour
// is on, and text goes out with fs.writeSync instead of process.stdout, whose stream and tty
// machinery cost several milliseconds to set up.
import { fstatSync, statSync, writeSync } from 'node:fs';
import type { ChalkInstance } from 'chalk';
import { breaksShown, escapeControl, oneLine } from '../../one-line.js';
import { terminalSafeJson } from './json-text.js';
import { instantMs } from '../../protocol/instant.js';

export interface Output {
  readonly color: boolean;
  readonly c: ChalkInstance;
  out(text: string): void;
  err(text: string): void;
  json(value: unknown): void;
}

/** `isTTY` may be a function, asked only when neither flag nor environment decides. */
export function decideColor(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean | (() => boolean)): boolean {
  if (flag !== undefined) return flag;
  if (env.NO_COLOR) return false;
  // As node and chalk read it: "0" and "false" force colour off, any other value (empty too) on.
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  // A terminal that says it draws no colour.
  if (env.TERM === 'dumb') return false;
  return typeof isTTY === 'function' ? isTTY() : isTTY;
}

/**
 * Whether fd 1 is a terminal, without loading node:tty: a character device other than
 * /dev/null (the one character device output is commonly sent to).
 */
export function stdoutIsTerminal(): boolean {
  try {
    const out = fstatSync(1);
    return out.isCharacterDevice() && out.rdev !== statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** chalk's chainable API with every style a no-op: `c.red.bold(x)` is `x`. */
const PLAIN: ChalkInstance = new Proxy(((...args: unknown[]) => args.join(' ')) as unknown as ChalkInstance, {
  get: (_target, prop) => (prop === 'level' ? 0 : PLAIN),
});

/** Writes all of `text`; a closed pipe (`| head`) is not an error, a full non-blocking one falls back to the stream. */
function writeAll(fd: 1 | 2, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return;
      if (code !== 'EAGAIN') throw e;
      (fd === 1 ? process.stdout : process.stderr).write(buf.subarray(off));
      return;
    }
  }
}

const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);

/** Lines as one text for a single `out` (one write for a whole report), each ending as `out` ends it. */
export const block = (lines: readonly string[]): string => lines.map(line).join('');

// Checkpoint text reaches the terminal from files that may have arrived through a merge, so
// control characters are shown escaped (one-line.ts, shared with the merge driver's bundle).
export { escapeControl, oneLine, shown, shownList } from '../../one-line.js';

/** What to do when the file system said no (permissions, a read-only or full disk). */
export const PERMISSION_HINT = 'check permissions and free space; nothing was changed';

/** The file system's refusals PERMISSION_HINT answers: no access, a read-only disk, no room (a full disk, a file size limit). */
export function refusedAccessOrRoom(code: string | undefined): code is string {
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOSPC' || code === 'EFBIG';
}

/** A refusal as one line: what went wrong and where, then (after `; hint: `) what to do. */
export function withHint(message: string, hint?: string | null): string {
  return `${oneLine(message)}${hint ? `; hint: ${oneLine(hint)}` : ''}`;
}

/** Where finished text goes: fd 1 (stdout) or 2 (stderr). */
export type Writer = (fd: 1 | 2, text: string) => void;

/** `write` defaults to the process's own stdout and stderr; an in-process caller (tests) passes its own. */
export async function createOutput(color: boolean, write: Writer = writeAll): Promise<Output> {
  const c = color ? new (await import('chalk')).Chalk({ level: 1 }) : PLAIN;
  return {
    color,
    c,
    out: (text) => write(1, line(escapeControl(text, color))),
    // Every stderr message is one line: a break inside it (a value a note quotes) is shown, not honoured.
    err: (text) => write(2, line(escapeControl(breaksShown(text), color))),
    // JSON.stringify leaves C1 controls raw in strings; escaped, the value is the same.
    json: (value) => write(1, `${terminalSafeJson(JSON.stringify(value, null, 2))}\n`),
  };
}

/** "3h ago", "2d ago", "in 5m": the relative times resume and status show. */
export function relativeTime(iso: string, now: Date): string {
  const ms = now.getTime() - instantMs(iso); // a time without its zone as UTC, as everywhere
  if (Number.isNaN(ms)) return 'unknown time';
  const abs = Math.abs(ms);
  const units: [number, string][] = [[86_400_000, 'd'], [3_600_000, 'h'], [60_000, 'm']];
  const [size, unit] = units.find(([s]) => abs >= s) ?? [1000, 's'];
  const n = Math.floor(abs / size);
  return ms >= 0 ? `${n}${unit} ago` : `in ${n}${unit}`;
}
