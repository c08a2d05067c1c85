// A request whose params do not fit its method (prompts/get with a number as an argument,
// resources/read with no uri) is a mistake in the request: JSON-RPC's Invalid params, in one
// line naming where. The SDK would parse it inside its handler and answer Internal error with
// zod's multi-line dump, so it is checked here before the server sees it.
import { shown } from '../one-line.js';
import { ClientRequestSchema } from './sdk.js';

const INVALID_PARAMS = -32602;

/** Each MCP request method with the schema its request must fit. */
const SCHEMAS = new Map(ClientRequestSchema.options.map((s) => [s.shape.method.value as string, s]));

/** The -32602 answer for `message` (a request with an id) when its params do not fit its method, else null. */
export function invalidParams(message: unknown): { jsonrpc: '2.0'; id: string | number; error: { code: number; message: string; data: { code: 'E_USAGE'; path: string } } } | null {
  const m = message as { id?: unknown; method?: unknown };
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return null;
  const schema = typeof m.method === 'string' ? SCHEMAS.get(m.method) : undefined;
  const result = schema?.safeParse(message);
  if (!result || result.success) return null;
  const [first, ...rest] = result.error.issues;
  const path = first!.path.map(String).join('.');
  const more = rest.length ? ` (and ${rest.length} more)` : '';
  const why = first!.message.replace(/^Invalid input: /, '');
  return { jsonrpc: '2.0', id: m.id, error: { code: INVALID_PARAMS, message: `Invalid params for ${m.method as string}: ${shown(path)}: ${shown(why)}${more}`, data: { code: 'E_USAGE', path } } };
}
