// `checkpoint mcp`: a Model Context Protocol server over stdio, one process per host session.
// Every tool runs the CLI command of the same name (src/mcp/invoke.ts); the project is
// resolved on every call (explicit cwd, else -C, else the host's first root), so two worktrees
// never write into each other; an explicit cwd must lie in a project the server serves (servedBy). No lock is held between calls; a failing call answers a tool
// error and the server keeps serving.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { type Readable, Writable } from 'node:stream';
import { quoted, shownPath } from '../one-line.js';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CheckpointError } from '../errors.js';
import { projectRoot } from '../cli/commands/common.js';
import { listSkills, requireCheckpoint } from '../store/checkpoints.js';
import { assertProjectFolder, isProjectFolder } from '../store/root.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { assertSkillName } from '../store/skill-name.js';
import { CHECKPOINTS_README } from '../store/readme.js';
import { asFailure, documentOf, invoke, toolError, ToolFailure, type Captured } from './invoke.js';
import { resumeText } from './resume-text.js';
import { DEFAULT_MAX_CHARS } from '../cli/render/budget.js';
import { terminalSafeJson } from '../cli/render/json-text.js';
import { shownText } from '../cli/commands/show.js';
import { CancelledNotificationSchema, McpServer, ReadResourceRequestSchema, ResourceTemplate, RootsListChangedNotificationSchema, StdioServerTransport, SubscribeRequestSchema, UnsubscribeRequestSchema, z } from './sdk.js';
import { Batches } from './batch.js';
import { guardedInput } from './guard.js';
import { assertProjectFile } from './project-files.js';
import { PROMPT_ARGUMENTS, TOOLS, type ToolSpec } from './tools.js';
import { watchCheckpoints, type Watch } from './watch.js';

export interface McpOptions {
  /** -C: the project folder the user pinned. */
  dir?: string;
  /** Where the server was started: the last resort for hosts that send no roots. */
  startCwd: string;
  /** `done` may run a done_when command from the file only when the user enabled it. */
  allowVerify: boolean;
  version: string;
}

type Result = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/**
 * A refused prompt or resource request as its JSON-RPC error: the CLI's one line as the message
 * (the SDK sends a thrown error's own `code`, `message` and `data`), Invalid params for a
 * mistake in the request, Internal error for a bug.
 */
function rpcError(e: unknown, notFound = -32602): Error & { code: number; data: Record<string, unknown> } {
  const f = asFailure(e);
  const code = f.code === 'E_INTERNAL' ? -32603 : f.code === 'E_NOT_FOUND' ? notFound : -32602;
  return Object.assign(new Error(f.text), { code, data: { code: f.code, hint: f.hint } });
}
/** MCP's "Resource not found". */
const RESOURCE_NOT_FOUND = -32002;
const SCHEME = 'checkpoint://';
/** How long a call waits for the host's roots/list, once (MCP's RequestTimeout when it runs out). */
const ROOTS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT = -32001;
const README_URI = `${SCHEME}README`;
/** What the resume-session prompt says before the briefing: it counts within the prompt's budget. */
const PROMPT_PREAMBLE = "Resume from the project's checkpoint. Read this briefing first; where it says ASK THE USER, ask before acting.\n\n";


/** A folder (following links); false for anything else, or a path the system refuses to look at. */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

function projectRootOrNull(dir: string): string | null {
  try {
    return projectRoot(dir);
  } catch {
    return null;
  }
}

const real = (path: string): string | null => {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
};

/** The shared git dir of the repository whose work tree `root` is; null outside git. */
function repositoryOf(root: string): string | null {
  try {
    return real(resolveGitDirsSync(root).commonDir);
  } catch {
    return null;
  }
}

/**
 * Does the server serve the project at `root`? When it lies inside one of `folders` (the server's
 * own folder, the host's roots; a folder that is no project serves nothing) or is a work tree of
 * the same repository as one (worktrees of one repository are one project). Real paths: a link
 * inside the project that leads out of it does not count as inside.
 */
function servedBy(root: string, folders: readonly string[]): boolean {
  const at = real(root);
  if (at === null) return false;
  const repository = repositoryOf(root);
  return folders.some((folder) => {
    const base = projectRootOrNull(folder);
    if (base === null || !isProjectFolder(base)) return false;
    const realBase = real(base);
    if (realBase === null) return false;
    const rel = relative(realBase, at);
    if (rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))) return true;
    return repository !== null && repository === repositoryOf(base);
  });
}

export function createServer(opts: McpOptions): { server: McpServer; close: () => void; drain: () => Promise<void> } {
  const server = new McpServer(
    { name: 'checkpoint', version: opts.version },
    {
      capabilities: { resources: { subscribe: true, listChanged: true }, tools: {}, prompts: {} },
      instructions: 'Checkpoints are resumable state of agent skills in .checkpoints/. Start with the resume tool (or the resume-session prompt); record progress with update, done and pause. Pass cwd when working in a folder other than the host\'s first root.',
    },
  );
  cancelEveryId(server);
  const watches = new Map<string, Watch>();
  // Once closed, no new watch: a roots/list still pending when the session ended answers then.
  let closed = false;
  const subscribed = new Set<string>();
  // Requests under way (tool calls, prompts/get, resources/list and resources/read: each handler
  // that may wait, on git or on the host's roots), so a server whose input ended answers them all
  // before it stops.
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p)).catch(() => {});
    return p;
  };
  const drain = async () => {
    // A turn first: the transport hands over what it already read, which may start more calls.
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    do {
      await turn();
      await Promise.allSettled([...inFlight]);
    } while (inFlight.size);
    // And a turn for the SDK to write the last answers out.
    await turn();
  };

  /**
   * Set when the host let roots/list time out: it is not asked again (each call would wait the
   * whole timeout) until it says its roots changed.
   */
  let rootsUnanswered = false;
  /**
   * The roots/list under way: calls that arrive meanwhile wait for its answer instead of each
   * asking (and, from a host that does not answer, each waiting the whole timeout).
   */
  let asking: Promise<{ uri: string }[]> | undefined;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    rootsUnanswered = false;
    // An answer under way may be from before the change: the next call asks anew.
    asking = undefined;
  });

  function askRoots(): Promise<{ uri: string }[]> {
    if (asking) return asking;
    const started = performance.now();
    const ask: Promise<{ uri: string }[]> = server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS }).then(
      (answer) => answer.roots,
      (e: unknown) => {
        // Our wait ran out, not a host's own error under that code (a quick "busy": asked again
        // next time); and not when the host said its roots changed while it kept us waiting.
        const waited = performance.now() - started >= ROOTS_TIMEOUT_MS / 2;
        if ((e as { code?: unknown }).code === REQUEST_TIMEOUT && waited && asking === ask) rootsUnanswered = true;
        return [];
      },
    );
    asking = ask;
    void ask.finally(() => {
      if (asking === ask) asking = undefined;
    });
    return ask;
  }

  /**
   * The host's roots (MCP roots/list), as folders; none when the host has no roots or its answer
   * fails (an error, no handler, a timeout): the call then works where the server was started, as
   * for a host without roots, and never fails for the host's fault. A root no path can be made of
   * (file://other-host/x) is passed over.
   */
  async function hostRoots(): Promise<string[]> {
    if (!server.server.getClientCapabilities()?.roots || rootsUnanswered) return [];
    const roots = await askRoots();
    return roots.flatMap((r) => {
      try {
        return r.uri.startsWith('file:') ? [fileURLToPath(r.uri)] : [];
      } catch {
        return [];
      }
    });
  }
  // The folder the server serves: -C, else where it was started.
  const home = opts.dir !== undefined ? resolve(opts.startCwd, opts.dir) : opts.startCwd;

  /** The folder a call works in; the store then finds the project (worktree) root from it. */
  async function projectDir(explicit: unknown): Promise<string> {
    if (typeof explicit === 'string') {
      if (explicit.includes('\0')) throw new CheckpointError('E_USAGE', `cwd ${quoted(explicit)} holds a NUL byte; refused`, { hint: 'pass the project folder as an absolute path' });
      if (!isAbsolute(explicit)) throw new CheckpointError('E_USAGE', `cwd ${quoted(explicit)} is not an absolute path`, { hint: 'pass the project folder as an absolute path' });
      // As the CLI's -C: a folder that is not there is refused, never read as an empty project (or created).
      if (!isFolder(explicit)) throw new CheckpointError('E_NO_ROOT', `cwd ${quoted(explicit)}: ${existsSync(explicit) ? 'not a directory' : 'no such directory'}`, { hint: 'pass the project folder that holds .checkpoints/' });
      // A bare repository or git dir is refused here by its own name, before the question of whose it is.
      const root = projectRoot(explicit);
      // A host that does not answer roots/list leaves the server's own project alone to serve.
      const served = [home, ...(await hostRoots())];
      if (!servedBy(root, served)) {
        const mine = projectRootOrNull(home);
        throw new CheckpointError('E_USAGE', `cwd ${quoted(explicit)} is outside this server's project (${mine && isProjectFolder(mine) ? shownPath(mine) : `none: it was started in ${shownPath(home)}`}) and the host's roots; refused`, {
          hint: 'pass a folder inside it (or a worktree of its repository), or start a server for that project (checkpoint mcp -C <folder>)',
        });
      }
      return explicit;
    }
    if (opts.dir !== undefined) return home;
    const first = (await hostRoots())[0];
    if (first === undefined) return opts.startCwd;
    // As an explicit cwd: a root that is not there is refused, never read as an empty project.
    if (!isFolder(first)) throw new CheckpointError('E_NO_ROOT', `the host's first root ${quoted(first)}: ${existsSync(first) ? 'not a directory' : 'no such directory'}`, { hint: "pass cwd (the project folder, as an absolute path), or fix the host's roots" });
    return first;
  }

  /** The project root of a call, watched from then on for resource notifications. */
  function rootFor(dir: string): string {
    const root = projectRoot(dir);
    if (!closed && !watches.has(root)) {
      watches.set(root, watchCheckpoints(root, (skills) => {
        server.sendResourceListChanged();
        for (const s of skills ?? [...subscribed].map((u) => u.slice('checkpoint://'.length))) {
          const uri = `checkpoint://${s}`;
          if (subscribed.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => {});
        }
      }));
    }
    return root;
  }

  async function call(tool: ToolSpec, args: Record<string, unknown>, signal?: AbortSignal): Promise<Result> {
    try {
      const refused = tool.check?.(args, opts);
      if (refused) throw new CheckpointError('E_USAGE', refused.message, { hint: refused.hint });
      const dir = await projectDir(args.cwd);
      const root = rootFor(dir);
      // A write never starts a .checkpoints/ in a folder that is no project (the host started us in /, or in ~).
      if (!tool.readOnly && !tool.startsNothing?.(args)) assertProjectFolder(root);
      for (const file of tool.files?.(args) ?? []) assertProjectFile(root, dir, String(file), tool.command);
      const argv = tool.argv(args);
      if (tool.name === 'resume') return await resume(tool, args, argv, dir);
      const cap = await invoke(tool.command, argv, dir, true, signal);
      const doc = documentOf(cap);
      const notes = cap.err.filter((l) => l.trim());
      // show's text is each file's own text: that is its JSON already.
      if (tool.name === 'show') return { content: [{ type: 'text', text: [cap.out.length ? cap.out.join('\n') : JSON.stringify(doc, null, 2), ...notes].join('\n') }], structuredContent: doc };
      return {
        content: [
          { type: 'text', text: [tool.summary(doc), ...notes].filter(Boolean).join('\n') },
          // MCP: a tool that returns structured content SHOULD return it serialized in a text block
          // too, for hosts that give the model only the text. Escaped as `show` prints a file:
          // a line separator or bidi control from a checkpoint stays a \u escape there.
          { type: 'text', text: terminalSafeJson(JSON.stringify(doc)) },
        ],
        structuredContent: doc,
        // The CLI's exit 2 (rotate with a skill it could not rotate): the call failed, in whole or
        // in part, and the summary names what failed; 1 is a finding (doctor, validate), not a failure.
        ...(cap.code >= 2 ? { isError: true } : {}),
      };
    } catch (e) {
      return toolError(asFailure(e));
    }
  }

  /**
   * The briefing and its notes within max_chars together (resume-text.ts), and the structured
   * briefing within the same budget, counted in bytes (a host may hand it to the model too): its
   * least-needed parts left out and named; left off when not even its next action fits, the text
   * then standing alone. The JSON run at the host's budget also gives the notes; only when it is
   * refused does a run at the default budget give them.
   */
  async function resume(tool: ToolSpec, args: Record<string, unknown>, argv: string[], dir: string): Promise<Result> {
    const budget = typeof args.max_chars === 'number' ? args.max_chars : undefined;
    const budgeted = budget === undefined ? undefined : await budgetedRun(argv, dir, budget);
    const cap = budgeted ?? (await invoke('resume', argv, dir, true));
    const text = await resumeText((n) => tool.argv({ ...args, max_chars: n }), dir, cap.err.filter((l) => l.trim()), budget);
    const structured = budget === undefined || budgeted ? documentOf(cap) : undefined;
    return { content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
  }

  async function budgetedRun(argv: string[], dir: string, maxBytes: number): Promise<Captured | undefined> {
    try {
      return await invoke('resume', [`--max-bytes=${maxBytes}`, ...argv], dir, true);
    } catch (e) {
      if (e instanceof ToolFailure && (e.code === 'E_USAGE' || e.code === 'E_CAPSULE')) return undefined;
      throw e;
    }
  }

  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        // Strict, as params.ts checks calls: tools/list says no other argument is taken.
        inputSchema: z.strictObject(tool.shape),
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.destructive ?? false, idempotentHint: tool.readOnly, openWorldHint: tool.name === 'doctor' },
      },
      (args: Record<string, unknown>, extra: { signal: AbortSignal }) => track(call(tool, args, extra.signal)),
    );
  }

  // Resources: each checkpoint as stored, and the README that explains .checkpoints/.
  const readme = (uri: string) => ({ contents: [{ uri, mimeType: 'text/markdown', text: CHECKPOINTS_README }] });
  async function readCheckpointResource(uri: string, skill: string) {
    try {
      assertSkillName(skill);
      const root = rootFor(await projectDir(undefined));
      // As `show` prints it: a TAG character or bidi control from the file stays a \u escape.
      return { contents: [{ uri, mimeType: 'application/json', text: shownText(requireCheckpoint(root, skill).text) }] };
    } catch (e) {
      throw rpcError(e, RESOURCE_NOT_FOUND);
    }
  }
  async function listCheckpointResources() {
    try {
      const root = rootFor(await projectDir(undefined));
      return { resources: listSkills(root).map((s) => ({ uri: `${SCHEME}${s}`, name: s, title: `checkpoint ${s}`, mimeType: 'application/json' })) };
    } catch (e) {
      // A refusal (.checkpoints a link out of the project, a bare repository) in the CLI's one line, not Internal error.
      throw rpcError(e);
    }
  }
  server.registerResource('protocol-readme', README_URI, { title: 'The Checkpoint Protocol in this repository', mimeType: 'text/markdown' }, async (uri) => readme(uri.href));
  server.registerResource(
    'checkpoint',
    new ResourceTemplate(`${SCHEME}{skill}`, {
      list: () => track(listCheckpointResources()),
    }),
    { title: 'A checkpoint', mimeType: 'application/json' },
    async (uri, vars) => track(readCheckpointResource(uri.href, String(vars.skill))),
  );
  // resources/read judged by the URI as sent. The SDK's own handler reads it as a URL first,
  // which resolves dot segments (checkpoint://api/../README became checkpoint://api/README) and
  // answers a miss in its own words, without the CLI's code and hint.
  server.server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (uri === README_URI) return readme(uri);
    if (uri.startsWith(SCHEME)) return track(readCheckpointResource(uri, uri.slice(SCHEME.length)));
    throw rpcError(new CheckpointError('E_NOT_FOUND', `no resource ${quoted(uri)}: this server serves ${SCHEME}<skill> and ${README_URI}`, { hint: 'resources/list names them' }), RESOURCE_NOT_FOUND);
  });
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    // Only what this server serves: checkpoint://<skill> (a valid name) and the README.
    const uri = req.params.uri;
    if (uri !== README_URI) {
      try {
        if (!uri.startsWith(SCHEME)) throw new CheckpointError('E_NOT_FOUND', `no resource ${quoted(uri)}: this server serves ${SCHEME}<skill> and ${README_URI}`, { hint: 'resources/list names them' });
        assertSkillName(uri.slice(SCHEME.length));
      } catch (e) {
        throw rpcError(e, RESOURCE_NOT_FOUND);
      }
    }
    subscribed.add(uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });
  // Watching starts with the first call; a host that only subscribes starts it here. A folder
  // that is no project (a bare repository) is refused by each call, not here.
  server.server.oninitialized = () => {
    // A turn later: a host that sends initialized in the same chunk as initialize gets here
    // before the SDK has recorded its capabilities (roots among them).
    setImmediate(() => void projectDir(undefined).then(rootFor).catch(() => {}));
  };

  server.registerPrompt(
    'resume-session',
    {
      title: 'Resume a session',
      description: 'What a fresh session should read first: the resume briefing (decisions waiting on the user, the next action, key decisions, files).',
      argsSchema: PROMPT_ARGUMENTS['resume-session'],
    },
    (args) => track(resumeSession(args)),
  );
  /** The resume-session prompt: the resume briefing, its notes beside it, for a fresh session to read first. */
  async function resumeSession(args: { skill?: string; cwd?: string }) {
    let text: string;
    try {
      const dir = await projectDir(args.cwd);
      const skill = args.skill ? [args.skill] : [];
      const cap = await invoke('resume', ['--', ...skill], dir, false);
      // Preamble, briefing and notes within the default budget together, as the resume tool keeps its text.
      text = await resumeText((n) => [`--max-chars=${n}`, '--', ...skill], dir, cap.err.filter((l) => l.trim()), DEFAULT_MAX_CHARS - PROMPT_PREAMBLE.length);
    } catch (e) {
      // A refusal is the request's error, never a message the model would read as its briefing.
      throw rpcError(e);
    }
    return {
      description: 'checkpoint resume briefing',
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `${PROMPT_PREAMBLE}${text}` } }],
    };
  }

  // registerTool and registerPrompt advertise listChanged: this server's tools and prompt never change while it runs.
  server.server.registerCapabilities({ tools: { listChanged: false }, prompts: { listChanged: false } });

  const close = () => {
    closed = true;
    watches.forEach((w) => w.close());
  };
  return { server, close, drain };
}

/**
 * The SDK (1.32.2, pinned) skips a cancel whose requestId is 0 or "" (it tests the id for
 * truth), so such a call ran on and wrote. Handled here as the SDK handles any other id, with
 * the table of calls under way it keeps; left to the SDK should a later one keep no such table.
 */
function cancelEveryId(server: McpServer): void {
  const calls = (server.server as unknown as { _requestHandlerAbortControllers?: unknown })._requestHandlerAbortControllers;
  if (!(calls instanceof Map)) return;
  server.server.setNotificationHandler(CancelledNotificationSchema, (n) => {
    (calls as Map<unknown, AbortController>).get(n.params.requestId)?.abort(n.params.reason);
  });
}

/**
 * Serves one host session on `io`'s stdin and stdout: the process's own (`checkpoint mcp`), or,
 * for the test suite, a pair of streams carrying the same newline-delimited bytes.
 */
export async function runMcpServer(opts: McpOptions, io: { stdin: Readable; stdout: Writable } = process): Promise<number> {
  const { server, close, drain } = createServer(opts);
  // A host may stop reading our stdout (close its end) and keep our stdin open: a write then fails
  // with EPIPE. That ends the session as the end of its input does, without a stack trace.
  const host = new AbortController();
  io.stdout.on('error', () => host.abort());
  const reply = (m: unknown) => {
    if (!host.signal.aborted) io.stdout.write(`${JSON.stringify(m)}\n`);
  };
  const batches = new Batches(reply);
  const input = io.stdin.pipe(guardedInput(reply, batches));
  // The server's messages pass by `batches` on their way out: an answer a batch waits for is held for it.
  const output = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      const text = String(chunk);
      if (host.signal.aborted || batches.held(JSON.parse(text))) return done();
      if (io.stdout.write(text)) return done();
      // A full pipe: on when it drains, or at once when the host is gone (no drain comes then).
      const go = () => {
        io.stdout.off('drain', go);
        host.signal.removeEventListener('abort', go);
        done();
      };
      io.stdout.on('drain', go);
      host.signal.addEventListener('abort', go);
    },
  });
  // The SDK waits for 'drain' once per answer it sends while the pipe is full: hundreds of calls
  // at once are hundreds of listeners, each waiting its turn, not a leak.
  output.setMaxListeners(0);
  const transport = new StdioServerTransport(input as unknown as typeof process.stdin, output as unknown as typeof process.stdout);
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    input.once('end', () => done());
    host.signal.addEventListener('abort', () => {
      // No more calls are read: none could be answered.
      io.stdin.unpipe(input);
      done();
    });
  });
  await server.connect(transport);
  await closed;
  // Input ended (a host that writes its calls and closes the pipe): every call already read is
  // answered before the server stops, as its writes were made. A host that is gone gets no
  // answers, but a write under way still finishes: nothing is left half done.
  await drain();
  close();
  await server.close().catch(() => {});
  // A host that stopped reading may keep our stdin open: nothing more is read from it.
  io.stdin.destroy();
  return 0;
}
