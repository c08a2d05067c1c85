// A malformed message must get an answer, not silence: the SDK's stdio transport drops a line
// it cannot parse (the host then waits for a reply that never comes). Lines pass through this
// filter first; one that is not JSON, or not a JSON-RPC message (42, {}, a method that is no
// name), is answered here with the JSON-RPC error and never reaches the server, as is a request
// whose params do not fit its method. A batch (an array) goes to `batches` (batch.ts).
import { Transform } from 'node:stream';
import type { Batches } from './batch.js';
import { invalidParams, listParams } from './params.js';
import { JSONRPCMessageSchema } from './sdk.js';

/** The longest line read as a message, in bytes; the rest of a longer one is dropped up to its newline. */
export const MAX_LINE = 8 * 1024 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

const NOT_A_MESSAGE = 'Invalid Request: not a JSON-RPC 2.0 message (check method and params)';

export function guardedInput(reply: (message: unknown) => void, batches: Batches): Transform {
  // The line read so far, as the bytes that came (a character cut between two chunks is decoded
  // whole, with its line), and whether it already passed MAX_LINE: then it was refused, and what
  // follows up to the newline is its tail, never a message of its own.
  let parts: Buffer[] = [];
  let size = 0;
  let oversized = false;
  const refuse = () => reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: a line over ${MAX_LINE} bytes; it was dropped up to its newline and nothing in it ran` } });
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
    // An id in use comes first: whatever else is wrong, nothing runs under it.
    const taken = batches.refusal(value);
    if (taken) {
      reply(taken);
      return [];
    }
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
    // Not a message the server takes. Never answered: a response (a result or an error, well
    // formed or not: an error for an error could go back and forth between the two ends), and a
    // notification as JSON-RPC defines it (no reply, even for a method or params MCP does not
    // have). Anything else is Invalid Request (42, null, {}, and JSON-RPC's own example
    // {"jsonrpc":"2.0","method":1,"params":"bar"}): under its id where that can be read, else
    // id null, so the host is never left waiting.
    const m = typeof value === 'object' && value !== null ? (value as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }) : null;
    if (m && typeof m.method !== 'string' && ('result' in m || 'error' in m)) return [];
    if (m && !('id' in m) && m.jsonrpc === '2.0' && typeof m.method === 'string' && (m.params === undefined || (typeof m.params === 'object' && m.params !== null))) return [];
    if (typeof m?.id === 'string' || typeof m?.id === 'number') reply({ jsonrpc: '2.0', id: m.id, error: { code: -32600, message: NOT_A_MESSAGE } });
    else if (m && 'id' in m) reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: the id must be a string or a number' } });
    else reply({ jsonrpc: '2.0', id: null, error: { code: -32600, message: NOT_A_MESSAGE } });
    return [];
  };
  /** The server's input for one whole line (its bytes, without the newline). */
  const take = (bytes: Buffer): string => {
    const line = bytes.toString('utf8').replace(/\r$/, '');
    return line.trim() ? answer(line).join('') : '';
  };
  return new Transform({
    transform(chunk: Buffer | string, _enc, done) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let out = '';
      let start = 0;
      for (let nl = bytes.indexOf(NEWLINE); nl !== -1; nl = bytes.indexOf(NEWLINE, start)) {
        const piece = bytes.subarray(start, nl);
        start = nl + 1;
        const skipped = oversized;
        const before = parts;
        // Its length without the line ending (a CR before the newline is no part of the message).
        const length = size + piece.length - (piece[piece.length - 1] === CR || (!piece.length && before.at(-1)?.at(-1) === CR) ? 1 : 0);
        parts = [];
        size = 0;
        oversized = false;
        if (skipped) continue;
        if (length > MAX_LINE) refuse();
        else out += take(before.length ? Buffer.concat([...before, piece]) : piece);
      }
      const tail = bytes.subarray(start);
      if (!oversized && tail.length) {
        // One byte more than the cap: room for the CR of a CRLF line ending.
        if (size + tail.length > MAX_LINE + 1) {
          // Refused now, so the host is not kept waiting for a newline that may be far off.
          refuse();
          oversized = true;
          parts = [];
          size = 0;
        } else {
          parts.push(tail);
          size += tail.length;
        }
      }
      done(null, out || undefined);
    },
    flush(done) {
      // A host may close the pipe right after its last line, newline or not.
      const last = oversized || !size ? '' : take(Buffer.concat(parts));
      parts = [];
      done(null, last || undefined);
    },
  });
}
