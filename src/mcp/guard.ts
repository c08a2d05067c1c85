// A malformed message must get an answer, not silence: the SDK's stdio transport drops a line
// it cannot parse (the host then waits for a reply that never comes). Lines pass through this
// filter first; one that is not JSON, or not a JSON-RPC message, is answered here with the
// JSON-RPC error and never reaches the server, as is a request whose params do not fit its method. A batch (an array) goes to `batches` (batch.ts).
import { Transform } from 'node:stream';
import type { Batches } from './batch.js';
import { invalidParams, listParams } from './params.js';
import { JSONRPCMessageSchema } from './sdk.js';

const MAX_LINE = 8 * 1024 * 1024;

export function guardedInput(reply: (message: unknown) => void, batches: Batches): Transform {
  let pending = '';
  /** The lines of `line` the server is to read. */
  const answer = (line: string): string[] => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } });
      return [];
    }
    if (Array.isArray(value)) return batches.receive(value);
    const listed = listParams(value);
    if (listed) {
      reply(listed);
      return [];
    }
    if (JSONRPCMessageSchema.safeParse(value).success) {
      const refused = invalidParams(value);
      if (refused) {
        reply(refused);
        return [];
      }
      batches.seen(value);
      return [`${line}\n`];
    }
    const id = typeof value === 'object' && value !== null ? (value as { id?: unknown }).id : undefined;
    // A notification (no id) gets no reply, by JSON-RPC's rules.
    if (typeof id === 'string' || typeof id === 'number') reply({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message (check method and params)' } });
    return [];
  };
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      pending += chunk.toString('utf8');
      let out = '';
      for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
        const line = pending.slice(0, nl).replace(/\r$/, '');
        pending = pending.slice(nl + 1);
        if (line.trim()) out += answer(line).join('');
      }
      if (pending.length > MAX_LINE) {
        pending = '';
        reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: a message over ${MAX_LINE} bytes` } });
      }
      done(null, out || undefined);
    },
  });
}
