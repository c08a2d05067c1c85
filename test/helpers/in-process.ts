// Runs a command line through the CLI's own entry (src/cli/main.ts: parse, run, one-line
// errors, exit code) inside the test process. A spawned `node bin/checkpoint.js` costs ~0.1 s of
// CPU in node's start-up alone, so tests about what a command does use this; tests about the
// process itself (the built bundle and launcher, git invoking the driver or a hook, signals,
// stdin, a hang, install paths baked into git config) use `cli()` from ./repo.ts.
//
// The command sees what a spawned one would: its cwd and GIT_ENV (plus `env`) as the process's
// own, `input` (or nothing) on stdin, its stdout and stderr captured. Runs are queued one at a
// time, since cwd, env and stdin are process-wide (concurrent tests may still call it).
import { Console } from 'node:console';
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import { STOP_IN_LOCK_ENV } from '../../src/store/lock.js';
import { CRASH_AFTER_HISTORY_ENV } from '../../src/store/rotate.js';
import { GIT_ENV, type RunResult } from './repo.js';

/**
 * Commands that need the built package: init and install-driver bake the installed bin's path
 * into git config; the merge driver and the MCP server are processes git and hosts start.
 */
export const NEEDS_PROCESS = /^(init|install-driver|merge-driver|mcp)$/;

let queue: Promise<unknown> = Promise.resolve();

export function runCli(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<RunResult> {
  // The test hooks SIGKILL or SIGSTOP their own process: here, the test runner.
  const help = args.includes('--help') || args.includes('-h');
  if ((!help && args.some((a) => NEEDS_PROCESS.test(a))) || opts.env?.[CRASH_AFTER_HISTORY_ENV] || opts.env?.[STOP_IN_LOCK_ENV]) {
    throw new Error(`runCli(${args.join(' ')}): run this one as a process, with cli()`);
  }
  const job = queue.then(async () => {
    const saved = { cwd: process.cwd(), env: process.env, stdin: Object.getOwnPropertyDescriptor(process, 'stdin')! };
    const text = { 1: '', 2: '' };
    const restoreStreams = captureProcessStreams(text);
    process.env = { ...GIT_ENV, ...opts.env };
    process.chdir(cwd);
    // As spawnSync gives a child: a pipe holding `input`, then end of file (never a terminal).
    Object.defineProperty(process, 'stdin', { value: Readable.from(opts.input === undefined ? [] : [Buffer.from(opts.input)]), configurable: true });
    try {
      const code = await main(args, process.env, (fd, t) => void (text[fd] += t));
      return { code, stdout: text[1], stderr: text[2] };
    } finally {
      restoreStreams();
      Object.defineProperty(process, 'stdin', saved.stdin);
      process.chdir(saved.cwd);
      process.env = saved.env;
    }
  });
  queue = job.catch(() => undefined);
  return job;
}

/**
 * Help and completion (yargs) print with console.log and process.stdout/stderr.write rather than
 * the CLI's writer: capture those too, at a pipe's width (no terminal columns), as a child's.
 */
function captureProcessStreams(text: { 1: string; 2: string }): () => void {
  const sink = (fd: 1 | 2) => new Writable({ write: (chunk: Buffer | string, _enc, done) => done(void (text[fd] += String(chunk))) });
  const saved = { console: globalThis.console, out: process.stdout.write, err: process.stderr.write, columns: Object.getOwnPropertyDescriptor(process.stdout, 'columns') };
  globalThis.console = new Console({ stdout: sink(1), stderr: sink(2) });
  process.stdout.write = ((chunk: string | Uint8Array) => ((text[1] += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((text[2] += String(chunk)), true)) as typeof process.stderr.write;
  Object.defineProperty(process.stdout, 'columns', { value: undefined, configurable: true });
  return () => {
    globalThis.console = saved.console;
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    if (saved.columns) Object.defineProperty(process.stdout, 'columns', saved.columns);
    else delete (process.stdout as { columns?: number }).columns;
  };
}

/** A doctor finding as `doctor --json` gives it (the members tests read). */
export type DoctorFinding = { path: string; level: string; message: string; blocks?: boolean };

/** Doctor's findings about `generated_files` entries, on `engine`, run in-process. */
export async function generatedFileFindings(dir: string, engine = 'auto', extra: string[] = []): Promise<DoctorFinding[]> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...extra]);
  return (JSON.parse(r.stdout).findings as DoctorFinding[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
}
