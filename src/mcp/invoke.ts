// Runs a CLI command for the MCP server: the tool's arguments become the command's argv, and
// the same parser and command module the CLI uses do the work. Output is captured, never
// written to stdout (which carries the protocol).
import { CheckpointError, isCheckpointError } from '../errors.js';
import { parseCommandArgs } from '../cli/parse.js';
import { findCommand, type Context } from '../cli/spec.js';
import { createOutput, PERMISSION_HINT, refusedAccessOrRoom, withHint } from '../cli/render/output.js';
import { escapeControl, oneLine } from '../one-line.js';
import { MCP_SPELLING } from '../protocol/op-spelling.js';
import { runFrom } from '../store/paste-path.js';

export interface Captured {
  code: number;
  /** Values the command printed with out.json (its --json document). */
  json: unknown[];
  out: string[];
  err: string[];
}

/** A CheckpointError (or a refused file operation) as the CLI prints it: one line plus a hint. */
export class ToolFailure extends Error {
  /**
   * `text` is the whole one-line refusal, as the CLI prints it; `reason` and `hint` its what-went-wrong
   * and what-to-do parts alone, without the `checkpoint: ` prefix (as `--json` gives them).
   */
  constructor(readonly text: string, readonly code: string, readonly reason: string, readonly hint: string | null = null) {
    super(text);
  }
}

/** A refused call as its tool result: its text the CLI's one line, its structured content the CLI's `--json` error (message and hint apart). */
export function toolError(f: ToolFailure) {
  return { content: [{ type: 'text' as const, text: f.text }], structuredContent: { ok: false, error: { code: f.code, message: f.reason, hint: f.hint } }, isError: true as const };
}

/**
 * The clock a write reads under the skill's lock just before it writes (store/checkpoints.ts
 * Clock): once the host cancelled the call it refuses instead, so a cancelled write stops there
 * with nothing written (MCP: a cancelled request's processing stops; no answer is sent).
 */
function cancellableClock(signal: AbortSignal | undefined): () => Date {
  return () => {
    if (signal?.aborted) throw new CheckpointError('E_CANCELLED', 'the call was cancelled before anything was written', { hint: 'nothing was changed' });
    return new Date();
  };
}

export async function invoke(name: string, argv: string[], cwd: string, json: boolean, signal?: AbortSignal): Promise<Captured> {
  const spec = findCommand(name);
  if (!spec) throw new Error(`no command ${name}`);
  const plain = await createOutput(false);
  const cap: Captured = { code: 0, json: [], out: [], err: [] };
  const ctx: Context = {
    cwd,
    json,
    now: new Date(),
    clock: cancellableClock(signal),
    env: process.env,
    signal,
    // Ops are the update tool's, not flags the caller typed: messages name ops[i] and hint at ops.
    opSpelling: MCP_SPELLING,
    // As the CLI writes it, without colour: the host may show the text or hand it to a model, so
    // a control or bidi character from a checkpoint stays escaped, and each note stays one line.
    out: { color: false, c: plain.c, out: (t) => cap.out.push(escapeControl(t, false)), err: (t) => cap.err.push(oneLine(t)), json: (v) => cap.json.push(v) },
  };
  try {
    const args = parseCommandArgs(spec, argv);
    const mod = await spec.load();
    cap.code = await runFrom(cwd, () => mod.run(args, ctx));
    return cap;
  } catch (e) {
    throw asFailure(e);
  }
}

export function asFailure(e: unknown): ToolFailure {
  if (e instanceof ToolFailure) return e;
  // One prefix, as the CLI prints it (main.ts): a usage error naming its command already has one.
  if (isCheckpointError(e)) {
    // The calls a hint names, as the tools take them (never a command line).
    const hint = e.hintFor?.(MCP_SPELLING) ?? e.hint;
    return new ToolFailure(`${e.code === 'E_USAGE' && e.message.startsWith('checkpoint ') ? '' : 'checkpoint: '}${withHint(e.message, hint)}`, e.code, e.message, hint ?? null);
  }
  const err = e as NodeJS.ErrnoException;
  if (refusedAccessOrRoom(err?.code)) {
    return new ToolFailure(`checkpoint: ${withHint(err.message, PERMISSION_HINT)}`, err.code, err.message, PERMISSION_HINT);
  }
  const internal = `internal error: ${String(err?.message ?? e)}`;
  const report = 'this is a bug in checkpoint; please report it';
  return new ToolFailure(`checkpoint: ${withHint(internal, report)}`, 'E_INTERNAL', internal, report);
}

/** The command's JSON document: what it printed with out.json, else its stdout parsed (show, resume --context). */
export function documentOf(cap: Captured): Record<string, unknown> {
  const last = cap.json[cap.json.length - 1];
  if (last !== undefined) return asObject(last);
  try {
    return asObject(JSON.parse(cap.out.join('\n')));
  } catch {
    return { text: cap.out.join('\n') };
  }
}

const asObject = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v });
