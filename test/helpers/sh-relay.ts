// Runs a command synchronously through one long-lived `sh` per test process instead of a
// spawnSync of its own. A fork of the test process (a node of 100+ MB) costs some 7 ms of CPU on
// top of the child itself (its page tables copied, then copy-on-write faults in the test process
// as it runs on), a fork of a small sh next to nothing; the suite starts thousands of git
// processes to build and inspect its repositories.
//
// The command sees what spawnSync would give it: its cwd, exactly the environment asked for (sh's
// own PWD, OLDPWD, SHLVL or _ never reach it: checked once, else spawnSync is used), stdin at end
// of file, no other open file; its stdout and stderr are captured whole. The relay is a plain
// `sh` reading request lines from a FIFO: where there is none (Windows) or it stops answering,
// commands are spawned directly.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RelayResult {
  status: number;
  stdout: string;
  stderr: string;
}

interface Relay {
  dir: string;
  /** Request FIFO, written a line per command; the answer FIFO, read for its exit status. */
  req: number;
  res: number;
  /** Puts PWD, OLDPWD and SHLVL back as the environment had them, after sh and `cd` set them. */
  restore: string;
}

/** One relay per environment the process asks with as its base (in practice: GIT_ENV). */
const relays = new Map<NodeJS.ProcessEnv, Relay | null>();

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Runs each of `commands` (argv lists) in turn in `cwd`, as `a && b && ...`, with `base` plus
 * `extra` as its environment (an undefined value unsets the name): the status of the last one
 * run. Null when the relay cannot take it; the caller then spawns it itself.
 */
export function relayRun(cwd: string, commands: readonly (readonly string[])[], base: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): RelayResult | null {
  const changed = Object.entries(extra).filter(([k, v]) => base[k] !== v);
  if (changed.some(([k]) => !NAME.test(k))) return null;
  const relay = relayFor(base);
  if (relay === null) return null;
  const env = changed.map(([k, v]) => (v === undefined ? `unset ${k}` : `export ${k}=${quote(String(v))}`));
  const result = ask(relay, cwd, env, commands);
  if (result === null) relays.set(base, null);
  return result;
}

function relayFor(base: NodeJS.ProcessEnv): Relay | null {
  if (!relays.has(base)) {
    const relay = start(base);
    relays.set(base, relay);
    // The environment a command sees must be the one asked for, nothing of sh's own.
    if (relay !== null) {
      const seen = ask(relay, tmpdir(), [], [['env']]);
      const lines = (text: string) => text.split('\n').filter(Boolean).sort().join('\n');
      const expected = Object.entries(base).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`).join('\n');
      if (seen === null || seen.status !== 0 || lines(seen.stdout) !== lines(expected)) {
        closeSync(relay.req);
        relays.set(base, null);
      }
    }
  }
  return relays.get(base)!;
}

function start(env: NodeJS.ProcessEnv): Relay | null {
  if (process.platform === 'win32') return null;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cp-relay-')));
  if (spawnSync('mkfifo', [join(dir, 'req'), join(dir, 'res')]).status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  // Each request runs in a subshell that does not see the FIFOs; the line back is its status.
  // When this process ends (however), the request FIFO reads end of file: sh removes its folder.
  const loop = 'exec 3<"$1/req" 4>"$1/res"; while IFS= read -r line <&3; do ( . "$1/cmd" ) </dev/null >"$1/out" 2>"$1/err" 3<&- 4>&-; echo "$?" >&4; done; rm -rf "$1"';
  const child = spawn('/bin/sh', ['-c', loop, 'sh', dir], { env, stdio: 'ignore' });
  child.on('error', () => {}); // no sh: the FIFO below never opens, and commands are spawned directly
  child.unref();
  // Opened for writing without blocking once sh has it open for reading (ENXIO until then).
  let req = -1;
  for (const deadline = Date.now() + 10_000; req < 0 && Date.now() < deadline; ) {
    try {
      req = openSync(join(dir, 'req'), constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENXIO' || child.exitCode !== null) break;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
  if (req < 0) {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const restore = ['PWD', 'OLDPWD', 'SHLVL'].map((k) => (env[k] === undefined ? `unset ${k}` : `export ${k}=${quote(env[k]!)}`)).join('\n');
  return { dir, req, res: openSync(join(dir, 'res'), 'r'), restore };
}

/**
 * Starts `argv` in `cwd` through the relay and returns at once: it runs on beside what comes
 * next, its output discarded. False when the relay cannot take it.
 */
export function relayInBackground(cwd: string, argv: readonly string[], base: NodeJS.ProcessEnv): boolean {
  const relay = relayFor(base);
  return relay !== null && ask(relay, cwd, [], [[...argv]], true) !== null;
}

/** The status sh answers, with what the commands wrote; null if sh was gone before it took them. */
function ask(relay: Relay, cwd: string, env: string[], commands: readonly (readonly string[])[], background = false): RelayResult | null {
  const run = background
    ? `${commands[0]!.map(quote).join(' ')} </dev/null >/dev/null 2>&1 &`
    : commands.map((argv, i) => `${i === commands.length - 1 ? 'exec ' : ''}${argv.map(quote).join(' ')}`).join(' &&\n');
  writeFileSync(join(relay.dir, 'cmd'), `cd ${quote(cwd)} || exit 127\n${relay.restore}\n${env.join('\n')}\n${run}\n`);
  try {
    writeSync(relay.req, '\n');
  } catch {
    return null;
  }
  const buf = Buffer.alloc(16);
  let line = '';
  while (!line.endsWith('\n')) {
    const n = readSync(relay.res, buf, 0, buf.length, null);
    // Ended while it ran them: they may have done part of their work, so they are not run again.
    if (n === 0) {
      relays.forEach((r, base) => r === relay && relays.set(base, null));
      throw new Error(`the sh relaying test commands ended while running: ${commands.map((c) => c.join(' ')).join(' && ')}`);
    }
    line += buf.toString('latin1', 0, n);
  }
  return { status: Number(line), stdout: readFileSync(join(relay.dir, 'out'), 'utf8'), stderr: readFileSync(join(relay.dir, 'err'), 'utf8') };
}
