// Shared pieces of the reliability suite: an asynchronous runner for the built binary (the
// crash and concurrency tests must never block their own event loop with spawnSync, or their
// kill timers and file-system watchers would fire late), a whole-tree snapshot for "nothing
// changed" checks, and a valid checkpoint to start from.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, GIT_ENV, ROOT, type RunResult } from '../helpers/repo.js';

export interface AsyncRun extends RunResult {
  signal: NodeJS.Signals | null;
  ms: number;
}

export interface Started {
  child: ChildProcess;
  done: Promise<AsyncRun>;
}

/** Starts the binary without waiting; `done` settles when the process is gone (exit or signal). */
export function start(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Started {
  const t0 = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...GIT_ENV, ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.on('error', () => undefined); // a killed child closes its stdin early
  child.stdin!.end(opts.input ?? '');
  const done = new Promise<AsyncRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr, ms: performance.now() - t0 }));
  });
  return { child, done };
}

export function run(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<AsyncRun> {
  return start(cwd, args, opts).done;
}

/** Fails fast when the binary cannot start (dist/ missing or half rebuilt), whatever the bundle layout. */
export function assertBuilt(): void {
  const r = spawnSync(process.execPath, [BIN, 'list', '--json', '-C', tmpdir()], { cwd: ROOT, env: GIT_ENV, encoding: 'utf8' });
  if (!existsSync(join(ROOT, 'dist')) || r.status !== 0 || /build output is missing/.test(r.stderr)) {
    throw new Error(`build output is missing or broken (dist/): run \`node scripts/build.mjs\` first\n${r.stderr}`);
  }
}

/** Every path under `dir` (but .git) with its kind and content hash or link target. */
export function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      if (!rel && name === '.git') continue;
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, r));
      if (st.isSymbolicLink()) out.set(r, `link:${readlinkSync(join(dir, r))}`);
      else if (st.isDirectory()) {
        out.set(r, 'dir');
        walk(r);
      } else if (st.isFile()) out.set(r, `file:${createHash('sha256').update(readFileSync(join(dir, r))).digest('hex')}`);
      else out.set(r, `special:${st.mode}`); // a FIFO or device: never read it (a FIFO would block)
    }
  };
  walk('');
  return out;
}

/** A valid 1.1 checkpoint for `skill`, with `patch` laid over it. */
export function checkpointDoc(skill: string, patch: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol_version: '1.1',
    skill,
    project: 'p',
    project_dir: '/p',
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T01:00:00Z',
    phase: 'build',
    step: 's1',
    status: 'in_progress',
    progress_summary: 'going',
    progress_table: [{ id: 's1', label: 'S1', status: 'in_progress' }],
    context_primer: { key_decisions: [] },
    next_actions: ['first', 'second'],
    ...patch,
  };
}

export const checkpointText = (skill: string, patch: Record<string, unknown> = {}): string => `${JSON.stringify(checkpointDoc(skill, patch), null, 2)}\n`;

/** The stack-trace shape node prints: "    at fn (file:line:col)". */
export const STACK_LINE = /\n\s+at /;
