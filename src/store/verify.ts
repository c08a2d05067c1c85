// Runs a next action's done_when check. Only `checkpoint done --verify` calls this: a
// command string from a checkpoint (which may have arrived through a merge) is never run
// unless the user asked for exactly that.
// Not git (that goes through src/git/git-process.ts): the user's own done_when shell command.
import { spawn, type ChildProcess } from 'node:child_process';

export interface Verdict {
  ok: boolean;
  reason: string;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** `signal`: the MCP host's cancellation of the call, which ends the check as a stop of this CLI does. */
export function runDoneWhen(command: string, cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<Verdict> {
  return new Promise((resolve) => {
    // The check's output is diagnostics: all of it goes to stderr, so `done --verify --json`
    // keeps stdout a single JSON document. It runs in its own process group, so a timeout or
    // a stop of this CLI ends the whole check (`sh -c` and what it started), never orphans it.
    let settled = false;
    let child: ChildProcess | null = null;
    let timer: NodeJS.Timeout | undefined;
    const killGroup = () => {
      if (!child) return;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const finish = (verdict: Verdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      signal?.removeEventListener('abort', onCancel);
      resolve(verdict);
    };
    const onSignal = (stop: NodeJS.Signals) => {
      killGroup();
      finish({ ok: false, reason: `stopped by ${stop}; the check was ended` });
    };
    const onCancel = () => {
      killGroup();
      finish({ ok: false, reason: 'the call was cancelled; the check was ended' });
    };
    // Listening before the check starts: a stop that lands in between would otherwise end this
    // CLI by the signal's default action and leave the check's group running.
    for (const s of STOP_SIGNALS) process.on(s, onSignal);
    if (signal?.aborted) return finish({ ok: false, reason: 'the call was cancelled before the check ran' });
    signal?.addEventListener('abort', onCancel);
    try {
      child = spawn(command, { cwd, shell: true, stdio: ['ignore', 2, 2], detached: process.platform !== 'win32' });
    } catch (e) {
      return finish({ ok: false, reason: e instanceof Error ? e.message : String(e) });
    }
    timer = setTimeout(() => {
      killGroup();
      finish({ ok: false, reason: `timed out after ${timeoutMs / 1000}s` });
    }, timeoutMs);
    child.on('error', (e) => finish({ ok: false, reason: e.message }));
    child.on('exit', (code, signal) => {
      // The shell is gone; anything it left running in the group goes with it.
      if (!settled) killGroup();
      finish(code === 0 ? { ok: true, reason: 'exit 0' } : { ok: false, reason: signal ? `killed by ${signal}` : `exit ${code}` });
    });
  });
}
