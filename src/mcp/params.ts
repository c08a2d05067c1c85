// A request whose params do not fit its method (prompts/get with a number as an argument,
// resources/read with no uri) is a mistake in the request: JSON-RPC's Invalid params, in one
// line naming where. The SDK would parse it inside its handler and answer Internal error with
// zod's multi-line dump, so it is checked here before the server sees it. So are tool calls:
// an unknown tool is Invalid params too, and arguments that do not fit a tool's schema a tool
// error in the CLI's words.
import { quoted, shown } from '../one-line.js';
import { CheckpointError } from '../errors.js';
import { asFailure, toolError } from './invoke.js';
import { ClientRequestSchema, z } from './sdk.js';
import { PROMPT_ARGUMENTS, TOOLS } from './tools.js';

const INVALID_PARAMS = -32602;

/** Each MCP request method with the schema its request must fit. */
const SCHEMAS = new Map(ClientRequestSchema.options.map((s) => [s.shape.method.value as string, s]));

type Refusal = { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string; data: { code: 'E_USAGE'; path: string } } };
type ToolRefusal = { jsonrpc: '2.0'; id: string | number; result: ReturnType<typeof toolError> };

/**
 * Each tool's arguments: an object of its shape and nothing else. The SDK's own check drops a key
 * it does not know, so a misspelt `verfy: true` would mark an action done unchecked, and
 * `max_char` would return a briefing without its budget: the CLI refuses an unknown option too.
 */
const TOOL_ARGUMENTS = new Map(TOOLS.map((t) => [t.name, z.strictObject(t.shape)]));

/** Each prompt's arguments, nothing else: the SDK would drop an unknown one (a misspelt "skil") unsaid. */
const PROMPT_SCHEMAS = new Map(Object.entries(PROMPT_ARGUMENTS).map(([name, shape]) => [name, z.strictObject(shape)]));

const refusal = (id: string | number, method: string, path: string, why: string, more = ''): Refusal => ({
  jsonrpc: '2.0',
  id,
  error: { code: INVALID_PARAMS, message: `Invalid params for ${method}: ${shown(path)}: ${shown(why)}${more}`, data: { code: 'E_USAGE', path } },
});

/**
 * The -32602 answer for a request (with an id) whose params are a list: JSON-RPC allows them, so
 * the message is well formed (the SDK's schema, which wants an object, would call it malformed),
 * but every MCP method takes its params by name. Asked before that schema; else null.
 */
export function listParams(message: unknown): Refusal | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if ((typeof m.id !== 'string' && typeof m.id !== 'number') || m.jsonrpc !== '2.0' || typeof m.method !== 'string' || !Array.isArray(m.params)) return null;
  return refusal(m.id, m.method, 'params', 'a list; MCP takes params by name (an object)');
}

/**
 * The -32602 answer for `message` (a well-formed request with an id) when its params do not fit
 * its method, else null. A resource uri that is no URL is such a misfit too, not a server fault.
 */
export function invalidParams(message: unknown): Refusal | ToolRefusal | null {
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return null;
  const schema = typeof m.method === 'string' ? SCHEMAS.get(m.method) : undefined;
  const result = schema?.safeParse(message);
  if (result?.success && m.method === 'resources/read') {
    try {
      new URL((m.params as { uri: string }).uri);
    } catch {
      return refusal(m.id, m.method, 'params.uri', 'not a URL (checkpoint://… as resources/list gives)');
    }
  }
  if (result?.success && m.method === 'tools/call') return invalidToolArguments(m as { id: string | number; params?: unknown });
  if (result?.success && m.method === 'prompts/get') return invalidPromptArguments(m as { id: string | number; params?: unknown });
  if (!result || result.success) return null;
  const { path, why, more } = firstIssue(result.error);
  return refusal(m.id, m.method as string, path, why, more);
}

/**
 * The answer for a call of a tool we do not have, or of one whose arguments do not fit its input
 * schema; else null.
 * MCP wants it as a tool result with isError (the model reads it and can try again), which the SDK
 * would send as "MCP error -32602: Input validation error: Invalid arguments for tool …": here it
 * is the CLI's one line, with the same structured error every other refused call carries.
 */
function invalidToolArguments(m: { id: string | number; params?: unknown }): Refusal | ToolRefusal | null {
  const params = m.params as { name: string; arguments?: unknown };
  const schema = TOOL_ARGUMENTS.get(params.name);
  // MCP's answer for an unknown tool is Invalid params (the SDK would send a tool result reading "MCP error -32602: …").
  if (!schema) return refusal(m.id, 'tools/call', 'params.name', `no tool ${quoted(params.name)}`, '; tools/list names them');
  const result = schema.safeParse(params.arguments ?? {});
  if (result.success) return null;
  const { path, why, more } = firstIssue(result.error, Object.keys(schema.shape));
  const refused = new CheckpointError('E_USAGE', `invalid argument ${path ? `${shown(path)} ` : ''}for tool ${params.name}: ${shown(why)}${more}`, { hint: 'tools/list gives each tool\'s input schema' });
  return { jsonrpc: '2.0', id: m.id, result: toolError(asFailure(refused)) };
}

/**
 * The Invalid params answer for a prompt we do not have (in the server's words, not the SDK's
 * "MCP error -32602: Prompt … not found") or an argument it does not take; else null.
 */
function invalidPromptArguments(m: { id: string | number; params?: unknown }): Refusal | null {
  const params = m.params as { name: string; arguments?: unknown };
  const schema = PROMPT_SCHEMAS.get(params.name);
  if (!schema) return refusal(m.id, 'prompts/get', 'params.name', `no prompt ${quoted(params.name)}`, '; prompts/list names them');
  const result = schema.safeParse(params.arguments ?? {});
  if (result.success) return null;
  const { path, why, more } = firstIssue(result.error, Object.keys(schema.shape));
  return refusal(m.id, 'prompts/get', `params.arguments${path ? `.${path}` : ''}`, why, more.replace('; nothing was run', ''));
}

/** The first issue in the CLI's words; an unknown key of a tool's arguments names the ones it takes (`known`). */
function firstIssue(error: z.ZodError, known?: string[]): { path: string; why: string; more: string } {
  const [first, ...rest] = error.issues;
  const unknown = first!.code === 'unrecognized_keys' && known ? first!.keys : null;
  // An unknown key inside an argument (an op's "opp"): refused too, never dropped, or a misspelt
  // "op" would read as a set and replace a whole log.
  const nested = unknown !== null && first!.path.length > 0;
  return {
    path: first!.path.map(String).join('.'),
    why: unknown ? `unknown ${nested ? 'key' : 'argument'}${unknown.length === 1 ? '' : 's'} ${unknown.map((k) => quoted(k)).join(', ')}` : first!.message.replace(/^Invalid input: /, ''),
    more: `${unknown ? `${nested ? '' : ` (it takes ${known!.join(', ')})`}; nothing was run` : ''}${rest.length ? ` (and ${rest.length} more)` : ''}`,
  };
}
