// What /proc says of a process: tests that freeze a writer (SIGSTOP) or wait for one to end
// read its state instead of sleeping.
import { readFileSync } from 'node:fs';

/** The one-letter state in /proc/<pid>/stat (T: stopped, Z: a zombie), or null once it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
  } catch {
    return null;
  }
}

/** Whether a process of this id still runs (a zombie counts as gone). */
export function alive(pid: number): boolean {
  const state = processState(pid);
  return state !== null && state !== 'Z';
}
