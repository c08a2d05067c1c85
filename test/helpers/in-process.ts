// Runs a command line through the CLI's own entry (src/cli/main.ts: parse, run, one-line
// errors, exit code) inside the test process. A spawned `node bin/checkpoint.js` costs ~0.1 s of
// CPU in node's start-up alone, so tests about what a command does use this; tests about the
// process itself (the launcher and the bundle as it loads it, git invoking the driver or a hook,
// signals, stdin, a hang, install paths baked into git config) use `cli()` from ./repo.ts.
//
// The command sees what a spawned one would: its cwd and GIT_ENV (plus `env`) as the process's
// own, `input` (or nothing) on stdin, its stdout and stderr captured. Runs are queued one at a
// time, since cwd, env and stdin are process-wide (concurrent tests may still call it).
// A run that must start with nothing in memory, as a new process does, is runCliFresh's; one
// that must keep what only a build keeps on disk (.git/checkpoint's verdicts and landed work),
// runBuilt's; the merge driver's entry, runMergeDriverHere's.
import { Console } from 'node:console';
import { renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';
import type { Writer } from '../../src/cli/render/output.js';
import { STOP_IN_LOCK_ENV } from '../../src/store/lock.js';
import { CRASH_AFTER_HISTORY_ENV } from '../../src/store/rotate.js';
import { GIT_ENV, ROOT, tempDir, type RunResult } from './repo.js';

/**
 * Commands that need the built package: init and install-driver bake the installed bin's path
 * into git config; the merge driver and the MCP server are processes git and hosts start.
 */
export const NEEDS_PROCESS = /^(init|install-driver|merge-driver|mcp)$/;

let queue: Promise<unknown> = Promise.resolve();

/** The CLI entry's signature (src/cli/main.ts), as the sources and the built bundle export it. */
type Main = (argv: string[], env: NodeJS.ProcessEnv, write: Writer) => Promise<number>;

export function runCli(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<RunResult> {
  return runMain(main, 'runCli', cwd, args, opts);
}

function runMain(entry: Main, name: string, cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string }): Promise<RunResult> {
  // The test hooks SIGKILL or SIGSTOP their own process: here, the test runner.
  const help = args.includes('--help') || args.includes('-h');
  if ((!help && args.some((a) => NEEDS_PROCESS.test(a))) || opts.env?.[CRASH_AFTER_HISTORY_ENV] || opts.env?.[STOP_IN_LOCK_ENV]) {
    throw new Error(`${name}(${args.join(' ')}): run this one as a process, with cli()`);
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
      const code = await entry(args, process.env, (fd, t) => void (text[fd] += t));
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
 * The merge driver's entry (src/merge/driver-main.ts; `args` are %O %A %B %P [%L]) run in this
 * process as runCli runs the CLI's: for tests of what the driver decides and writes. git
 * starting it, and the launcher that loads its bundle, are tested with processes.
 */
export function runMergeDriverHere(cwd: string, args: string[]): Promise<RunResult> {
  return runMain(driverMain, 'runMergeDriverHere', cwd, args, {});
}

/** runMergeDriver, what it writes to fd 2 (synchronously, not through process.stderr) given to `write`. */
const driverMain: Main = async (args, _env, write) => {
  const { runMergeDriver } = await import('../../src/merge/driver-main.js');
  const fs = process.getBuiltinModule('node:fs');
  const writeSync = fs.writeSync;
  fs.writeSync = ((fd: number, buffer: Buffer | string, ...rest: unknown[]) => {
    if (fd !== 2) return (writeSync as (...a: unknown[]) => number)(fd, buffer, ...rest);
    const bytes = typeof buffer === 'string' ? Buffer.from(buffer) : buffer.subarray(typeof rest[0] === 'number' ? rest[0] : 0);
    write(2, bytes.toString('utf8'));
    return bytes.length;
  }) as typeof fs.writeSync;
  try {
    return await runMergeDriver(args);
  } finally {
    fs.writeSync = writeSync;
  }
};

/**
 * runCli with nothing in memory from an earlier run, as a new process starts: src keeps a few
 * memos for the life of a process (walks read from .git/checkpoint, first-parent lines, real
 * paths, git dirs), all keyed by the repository's path. So the folder `top` (the repository, or
 * a folder holding it; default `cwd`) is moved to a new path for the run and back after it: no
 * memo can answer, only what is on disk. What the command prints of the new path is said of the
 * old. Not for tests that run commands in that folder concurrently.
 */
export function runCliFresh(cwd: string, args: string[], opts: FreshOptions = {}): Promise<RunResult> {
  return atFreshPath(cwd, opts.top, (moved) => runMain(main, 'runCliFresh', moved, args, opts));
}

/**
 * runCliFresh with the built bundle's entry (dist/cli.cjs, loaded once into this process) in
 * place of the sources': the answers only a build keeps in .git/checkpoint (verdicts.json and
 * landed.json, keyed by the build's identity; a run from the sources keeps none) are read and
 * written as the binary does. Not with `--engine isomorphic`: the bundle asks its deep
 * questions in a worker thread it never ends, which would stay in this process.
 */
export function runBuilt(cwd: string, args: string[], opts: FreshOptions = {}): Promise<RunResult> {
  if (args.some((a) => a.includes('isomorphic'))) throw new Error(`runBuilt(${args.join(' ')}): the isomorphic engine's worker thread would outlive the run; use cli()`);
  return atFreshPath(cwd, opts.top, (moved) => runMain(builtMain(), 'runBuilt', moved, args, opts));
}

type FreshOptions = { env?: NodeJS.ProcessEnv; input?: string; top?: string };

let built: Main | undefined;
function builtMain(): Main {
  return (built ??= (createRequire(import.meta.url)(join(ROOT, 'dist/cli.cjs')) as { main: Main }).main);
}

async function atFreshPath(cwd: string, top = cwd, run: (cwd: string) => Promise<RunResult>): Promise<RunResult> {
  if (cwd !== top && !cwd.startsWith(`${top}/`)) throw new Error(`${cwd} is not inside ${top}`);
  // A new parent, the same name: a path's tail (a folder named with a newline) prints as it did.
  // Renaming leaves what is inside as it was (no stat the index holds changes).
  const parent = tempDir('cp-fresh-run-');
  const moved = join(parent, basename(top));
  renameSync(top, moved);
  try {
    const r = await run(moved + cwd.slice(top.length));
    // The new parent's path, unique, stands for the old one wherever it shows (escaped tails too).
    const back = (text: string) => text.replaceAll(parent, dirname(top));
    return { code: r.code, stdout: back(r.stdout), stderr: back(r.stderr) };
  } finally {
    renameSync(moved, top);
  }
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
export type DoctorFinding = { path: string; level: string; message: string; blocks?: boolean; evidence?: { file?: string; sha?: string } };

/**
 * Per engine (native, isomorphic): the work tree's generated_files warnings (drift), and what
 * blocks a push of `save..tip` (the findings `doctor --pushed --fail-on-warnings` marks blocking).
 */
export async function driftAndBlocking(dir: string, save: string, tip: string): Promise<Record<string, { drift: string[]; blocking: string[] }>> {
  const out: Record<string, { drift: string[]; blocking: string[] }> = {};
  for (const engine of ['native', 'isomorphic']) {
    const drift = (await generatedFileFindings(dir, engine)).filter((f) => f.level === 'warning').map((f) => f.message);
    const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', `${save}..${tip}`]);
    const blocking = (JSON.parse(r.stdout) as { findings: DoctorFinding[] }).findings.filter((f) => f.blocks).map((f) => f.message);
    out[engine] = { drift, blocking };
  }
  return out;
}

/** Doctor's findings about `generated_files` entries, on `engine`, run in-process. */
export async function generatedFileFindings(dir: string, engine = 'auto', extra: string[] = []): Promise<DoctorFinding[]> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...extra]);
  return (JSON.parse(r.stdout).findings as DoctorFinding[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
}
