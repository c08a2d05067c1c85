// `checkpoint mcp` inside the test process: src/mcp/server.ts's runMcpServer on a pair of
// in-memory streams carrying the bytes a host's pipe carries (newline-delimited JSON-RPC, through
// the same guard, batches and SDK transport). A spawned server costs a node start and the CLI and
// MCP bundles' load, so tests about what the tools, resources and prompt answer use this; tests
// about the process itself spawn `node bin/checkpoint.js mcp`: the launch through bin/, framing on
// a real pipe, the end of stdin ending the process, a host that stops reading (EPIPE), a lock
// held by a stopped process, CLI processes writing alongside, and an end-to-end session.
//
// What is process-wide here, and so set only while a server runs: process.env is GIT_ENV (what
// a spawned server is given; the commands and the git they run read it), and the lock's waiting
// notes, which a spawned server writes to its stderr, are kept (stderr()) rather than printed.
// The cwd is not changed: the server works where it is told (startCwd), as a spawned one does in
// its own cwd (only a lock note or refusal names the lock file relative to the process's cwd). A session ends as a spawned one does, its input closed: the server answers what is
// under way, closes its watchers and resolves; endSessions() (afterEach) ends any left open and
// fails when a server left a file watch behind.
//
// What the host writes reaches the server a turn of the event loop later, as a pipe's bytes do (a
// process reads them when the loop polls): handed over at once, the host's next message would be
// read before the server's own setImmediate work (the watch it starts once initialized), which a
// quick host could then outrun until after the session ended.
import { readdirSync, readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { runMcpServer } from '../../src/mcp/server.js';
import { VERSION } from '../../src/cli/main.js';
import { lockNotes } from '../../src/store/lock.js';
import { GIT_ENV } from './repo.js';

export interface McpSession {
  /** The server's stdin: write lines (each ending in "\n") or any bytes; end() is the host closing the pipe. */
  stdin: PassThrough;
  /** The server's stdout: listen to 'data' (unread, it fills and the server waits, as on a full pipe). */
  stdout: PassThrough;
  /** runMcpServer's exit code, once the session is over. */
  ended: Promise<number>;
  /** What the server would have written to its stderr (lock waiting notes). */
  stderr: () => string;
}

const open = new Set<McpSession>();
let saved: { env: NodeJS.ProcessEnv; notes: typeof lockNotes.write; watches: number | null } | null = null;
let notes = '';
/** What went wrong on the way out (a watch left behind), for endSessions() to report. */
const problems: string[] = [];

/**
 * `checkpoint mcp` (with --allow-verify when asked) started in `cwd`. `sameTurn`: the host's
 * bytes handed over at once, a host quicker than any pipe (the server must still end clean).
 */
export function startMcp(cwd: string, opts: { allowVerify?: boolean; sameTurn?: boolean } = {}): McpSession {
  if (saved === null) {
    saved = { env: process.env, notes: lockNotes.write, watches: inotifyWatches() };
    process.env = { ...GIT_ENV };
    notes = '';
    lockNotes.write = (line) => void (notes += `${line}\n`);
  }
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  // The server's end of the pipe: each chunk (and the end) a turn after the host wrote it.
  const input = new PassThrough();
  const later = opts.sameTurn ? (f: () => void) => f() : (f: () => void) => void setImmediate(f);
  stdin.on('data', (chunk: Buffer) => later(() => input.destroyed || input.write(chunk)));
  stdin.on('end', () => later(() => input.destroyed || input.end()));
  const session: McpSession = { stdin, stdout, ended: undefined as unknown as Promise<number>, stderr: () => notes };
  session.ended = runMcpServer({ startCwd: cwd, allowVerify: opts.allowVerify ?? false, version: VERSION }, { stdin: input, stdout }).finally(async () => {
    open.delete(session);
    if (open.size === 0) await restore();
  });
  open.add(session);
  return session;
}

/** The process-wide state back as it was, once the last server is done. */
async function restore(): Promise<void> {
  // A turn first: a watch started on the way out would be there by then.
  await new Promise((done) => setImmediate(done));
  if (open.size > 0 || saved === null) return;
  const { env, notes: write, watches } = saved;
  saved = null;
  process.env = env;
  lockNotes.write = write;
  const left = inotifyWatches();
  if (watches !== null && left !== null && left > watches) problems.push(`an in-process MCP server left ${left - watches} file watch(es) behind`);
}

/** The file watches this process holds (inotify, where /proc shows them); null where it cannot tell. */
function inotifyWatches(): number | null {
  try {
    let n = 0;
    for (const fd of readdirSync('/proc/self/fdinfo')) {
      try {
        n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
      } catch {
        // closed meanwhile
      }
    }
    return n;
  } catch {
    return null;
  }
}

/** Ends every session still open (their input closed), waits for each to finish, and fails for what any left behind. */
export async function endSessions(): Promise<void> {
  const left = [...open];
  for (const s of left) s.stdin.end();
  await Promise.all(left.map((s) => s.ended));
  if (problems.length) throw new Error(problems.splice(0).join('; '));
}

/**
 * The server fed `chunks` (after whatever the caller put first: initialize, initialized) through
 * its stdin, which then closes: everything it wrote, once it is done.
 */
export async function pipeMcp(cwd: string, chunks: (string | Buffer)[], opts: { allowVerify?: boolean } = {}): Promise<string> {
  const s = startMcp(cwd, opts);
  let text = '';
  s.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  for (const c of chunks) s.stdin.write(c);
  s.stdin.end();
  await s.ended;
  return text;
}

/** The SDK Client's side of a session: its messages as lines into the server's stdin, the server's lines read back. */
export class SessionTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(readonly session: McpSession) {}

  async start(): Promise<void> {
    this.session.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (e) {
          this.onerror?.(e as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    void this.session.ended.finally(() => this.onclose?.());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.session.stdin.write(serializeMessage(message))) await new Promise((done) => this.session.stdin.once('drain', done));
  }

  /** As a host ending its server: the pipe closed, then the server's end waited for. */
  async close(): Promise<void> {
    this.session.stdin.end();
    await this.session.ended;
  }
}
