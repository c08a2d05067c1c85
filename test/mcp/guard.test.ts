// The line reader in front of the MCP server (src/mcp/guard.ts), in the process: whatever chunks
// the pipe cuts the input into, each line is one message or one refusal; a line over the size cap
// is refused once and nothing in it runs (not its tail either); a character cut between chunks
// arrives whole. The built server over a real pipe is in rough-input.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Batches } from '../../src/mcp/batch.js';
import { guardedInput, MAX_LINE } from '../../src/mcp/guard.js';

/** Feeds `chunks` through the guard: the lines it hands the server, and its own replies. */
async function feed(chunks: Buffer[]): Promise<{ passed: string[]; replies: { id: unknown; error: { code: number; message: string } }[] }> {
  const replies: never[] = [];
  const guard = guardedInput((m) => replies.push(m as never), new Batches(() => {}));
  let text = '';
  guard.on('data', (c: Buffer) => (text += c.toString('utf8')));
  const ended = new Promise((done) => guard.on('end', done));
  for (const c of chunks) guard.write(c);
  guard.end();
  await ended;
  return { passed: text.split('\n').filter(Boolean), replies };
}

/** A call of the `next` tool; a test's padding goes in its one string argument, `cwd` (an unknown key is refused). */
const call = (id: number, args: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'next', arguments: args } });
/** `text` cut into pieces of `size` bytes, as a pipe hands them over. */
const cut = (text: string | Buffer, size: number) => {
  const b = Buffer.isBuffer(text) ? text : Buffer.from(text);
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};
const TOO_LONG = { jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: a line over ${MAX_LINE} bytes; it was dropped up to its newline and nothing in it ran` } };

describe('the MCP line reader', () => {
  it('a request under an id not yet answered is refused in one line (id and reason), never handed to the server', async () => {
    const { passed, replies } = await feed([Buffer.from(`${call(1)}\n${call(1)}\n${call(2)}\n`)]);
    expect(passed.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: the id 1 is already used by a request not yet answered; nothing ran (send each request under an id of its own)' } }]);
    // That comes first, whatever else is wrong with it (params that do not fit, params as a list).
    const badParams = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'prompts/get', params: { name: 5 } });
    const listed = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: [] });
    const again = await feed([Buffer.from(`${call(1)}\n${badParams}\n${listed}\n`)]);
    expect(again.passed).toHaveLength(1);
    expect(again.replies.map((r) => [r.id, r.error.code])).toEqual([[1, -32600], [1, -32600]]);
  });

  it('a line that is JSON but no request (42, null, {}, a method that is no name) is one Invalid Request, under its id where it has one; notifications and responses get none (rtB/05)', async () => {
    const junk = ['{}', '{"jsonrpc":"2.0","method":1,"params":"bar"}', '42', 'null', '"tools/call"', 'true', '{"jsonrpc":"2.0","params":{"name":"next"}}', '{"jsonrpc":"2.0","method":"ping","params":"bar"}', '{"method":"ping"}'];
    const withId = '{"jsonrpc":"2.0","id":"b-7","method":["tools/call"]}';
    // Never answered: a notification (MCP may not know it, or its params), a host's response, well formed or not (an error for an error could go on for ever).
    const quiet = [
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{"jsonrpc":"2.0","method":"notifications/made-up (PR 12)","params":[8.0, "src/**/*.ts"]}',
      '{"jsonrpc":"2.0","id":3,"result":8.0}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
      '{"jsonrpc":"2.0","id":4,"result":{}}',
    ];
    const { passed, replies } = await feed([Buffer.from([...junk, withId, ...quiet, call(5)].map((l) => `${l}\n`).join(''))]);
    const invalid = (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message (check method and params)' } });
    expect(replies).toEqual([...junk.map(() => invalid(null)), invalid('b-7')]);
    // Only well-formed messages reach the server.
    expect(passed.map((l) => JSON.parse(l))).toEqual([JSON.parse(quiet[0]!), JSON.parse(quiet[4]!), JSON.parse(call(5))]);
  });

  it('a line of 16 MiB of blanks and then a call is one refusal: the call at its end never runs', async () => {
    const line = `${' '.repeat(16 * 1024 * 1024)}${call(7)}\n${call(8)}\n`;
    const { passed, replies } = await feed(cut(line, 65536));
    expect(replies).toEqual([TOO_LONG]);
    expect(passed.map((l) => JSON.parse(l).id)).toEqual([8]);
  });

  it('one 40 MB update is one refusal, not one per 8 MiB plus a parse error for its tail', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'update', arguments: { skill: 'api', ops: [{ path: 'skill_state.dump', value: 'x'.repeat(40e6) }] } } });
    const { passed, replies } = await feed(cut(`${big}\n${call(4)}\n`, 65536));
    expect(replies).toEqual([TOO_LONG]);
    expect(passed.map((l) => JSON.parse(l).id)).toEqual([4]);
  });

  it('a line over the cap that arrives in one chunk with its newline is refused too', async () => {
    const { passed, replies } = await feed([Buffer.from(`${call(1, { cwd: 'p'.repeat(MAX_LINE) })}\n${call(2)}\n`)]);
    expect(replies).toEqual([TOO_LONG]);
    expect(passed.map((l) => JSON.parse(l).id)).toEqual([2]);
  });

  it('a line just under the cap passes whole', async () => {
    const line = call(1, { cwd: '' });
    const exact = call(1, { cwd: 'p'.repeat(MAX_LINE - line.length) });
    expect(Buffer.byteLength(exact)).toBe(MAX_LINE);
    const { passed, replies } = await feed(cut(`${exact}\r\n`, 1 << 20));
    expect(replies).toEqual([]);
    expect(passed).toEqual([exact]);
  });

  it('a last line without its newline is still read (the host closed the pipe after it)', async () => {
    const { passed, replies } = await feed([Buffer.from(`${call(1)}\n${call(2)}`)]);
    expect(replies).toEqual([]);
    expect(passed.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
  });

  it('whatever the chunk sizes, every line (non-ASCII text included) arrives as written', async () => {
    const lines = [call(1, { cwd: 'café — naïve 😀 日本' }), '', call(2, { cwd: '€'.repeat(300) }), call(3, { cwd: 'e\u0301 \r' })];
    const input = Buffer.from(lines.map((l) => `${l}\r\n`).join(''));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 700 }), async (size) => {
        const { passed, replies } = await feed(cut(input, size));
        expect(replies).toEqual([]);
        expect(passed).toEqual(lines.filter(Boolean));
      }),
    );
  });

  it('whatever the chunk sizes, an oversized line among others is one refusal and the others pass', async () => {
    const lines = [call(1, { cwd: 'café' }), call(2, { cwd: 'é'.repeat(MAX_LINE / 2 + 1) }), call(3, { cwd: '€'.repeat(1000) })];
    const input = Buffer.from(lines.map((l) => `${l}\n`).join(''));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 4096, max: 1 << 21 }), async (size) => {
        const { passed, replies } = await feed(cut(input, size));
        expect(replies).toEqual([TOO_LONG]);
        expect(passed).toEqual([lines[0], lines[2]]);
      }),
      { numRuns: 8 },
    );
  });
});
