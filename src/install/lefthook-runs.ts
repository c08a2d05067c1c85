// Whether a lefthook config runs checkpoint's hook on push: only a command under the top-level
// `pre-push:` (its `commands:` map or `jobs:` list, groups too) with `use_stdin: true` does; one
// in a comment never runs, one under another hook runs at the wrong time, and one without
// use_stdin gets no pushed refs and checks nothing. The file is read by YAML and TOML libraries
// (lefthook-read.ts), as lefthook reads it: anchors, merge keys and block scalars included.

export type LefthookState = 'runs' | 'not-pre-push' | 'no-stdin' | null;

type Entry = { run: string; stdin: boolean };
type Table = { [k: string]: unknown };

/** What `text` (the config at `file`) does with the hook at `hookPath`; null: it never names it, or lefthook could not read it. */
export async function lefthookState(file: string, text: string, hookPath: string): Promise<LefthookState> {
  // Loaded here, only when a lefthook config exists: the readers are most of its weight.
  const { readLefthookConfig } = await import('./lefthook-read.js');
  let config: unknown;
  try {
    config = readLefthookConfig(file, text);
  } catch {
    return null;
  }
  if (!isMap(config)) return null;
  const named = (hook: unknown) => entries(hook).filter((e) => e.run.includes(hookPath));
  const prePush = named(config['pre-push']);
  if (prePush.some((e) => e.stdin)) return 'runs';
  if (prePush.length) return 'no-stdin';
  return Object.entries(config).some(([k, v]) => k !== 'pre-push' && named(v).length) ? 'not-pre-push' : null;
}

const isMap = (v: unknown): v is Table => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A hook's commands (a map) and jobs (a list, a group's own jobs within), each with its run and use_stdin. */
function entries(hook: unknown): Entry[] {
  if (!isMap(hook)) return [];
  const one = (v: unknown): Entry[] => {
    if (!isMap(v)) return [];
    const own = typeof v.run === 'string' ? [{ run: v.run, stdin: v.use_stdin === true || v.use_stdin === 'true' }] : [];
    return [...own, ...(isMap(v.group) && Array.isArray(v.group.jobs) ? v.group.jobs.flatMap(one) : [])];
  };
  const commands = isMap(hook.commands) ? Object.values(hook.commands).flatMap(one) : [];
  const jobs = Array.isArray(hook.jobs) ? hook.jobs.flatMap(one) : [];
  return [...commands, ...jobs];
}
