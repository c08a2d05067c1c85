// Runs a next action's done_when check. Only `checkpoint done --verify` calls this: a
// command string from a checkpoint (which may have arrived through a merge) is never run
// unless the user asked for exactly that.
import { spawn } from 'node:child_process';

export interface Verdict {
  ok: boolean;
  reason: string;
}

export function runDoneWhen(command: string, cwd: string, timeoutMs: number): Promise<Verdict> {
  return new Promise((resolve) => {
    // The check's output is diagnostics: all of it goes to stderr, so `done --verify --json`
    // keeps stdout a single JSON document.
    const child = spawn(command, { cwd, shell: true, stdio: ['ignore', 2, 2], detached: process.platform !== 'win32' });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      resolve({ ok: false, reason: `timed out after ${timeoutMs / 1000}s` });
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, reason: e.message });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code === 0 ? { ok: true, reason: 'exit 0' } : { ok: false, reason: signal ? `killed by ${signal}` : `exit ${code}` });
    });
  });
}
