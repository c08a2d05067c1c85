// Batches (src/mcp/batch.ts) in the process: whatever array a host sends, every request in it is
// answered exactly once, in one reply, and nothing is silent. The server is played by a loop that
// answers each forwarded request in a shuffled order, as concurrent tool calls finish.
// The built server over a real pipe is in server.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Batches } from '../../src/mcp/batch.js';

const init = (version: string) => ({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });

function session(version: string | null) {
  const replies: unknown[] = [];
  const b = new Batches((m) => replies.push(m));
  if (version) {
    b.seen(init(version));
    // The server's answer to initialize: it goes out, and its id is free again.
    b.held({ jsonrpc: '2.0', id: 0, result: {} });
  }
  return { b, replies };
}

/** Elements a host might put in a batch, tagged: requests (ids may repeat), notifications, responses, junk. */
const element = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('a', 'b', '1')), method: fc.constantFrom('ping', 'tools/list') }).map((m) => ({ kind: 'request', m })),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer({ min: 0, max: 5 }), method: fc.constant('tools/call'), params: fc.constant({ name: 'show', arguments: { skill: 'api' } }) }).map((m) => ({ kind: 'request', m })),
  // Params that do not fit the method (a prompt argument that is no string, a tools/call without a name).
  fc.oneof(
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer({ min: 0, max: 5 }), method: fc.constant('prompts/get'), params: fc.record({ name: fc.constant('resume-session'), arguments: fc.record({ skill: fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 })) }) }) }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.constantFrom('a', 'b'), method: fc.constant('tools/call') }),
  ).map((m) => ({ kind: 'bad-params', m })),
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constantFrom('notifications/initialized', 'notifications/roots/list_changed') }).map((m) => ({ kind: 'quiet', m })),
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer({ min: 0, max: 5 }), result: fc.constant({}) }).map((m) => ({ kind: 'quiet', m })),
  fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.record({ id: fc.integer(), method: fc.integer() })).map((m) => ({ kind: 'junk', m })),
);

type Msg = { id?: unknown; method?: unknown; error?: { code: number; message: string } };

describe('JSON-RPC batches', () => {
  it('under MCP 2025-03-26: one array answers every request of the batch once, in its order; invalid members get their error in place', () => {
    fc.assert(
      fc.property(fc.array(element, { minLength: 1, maxLength: 12 }), fc.integer(), (tagged, seed) => {
        const { b, replies } = session('2025-03-26');
        const lines = b.receive(tagged.map((t) => t.m)).map((l) => JSON.parse(l) as Msg);
        // A request whose id came earlier in the batch is refused in place; the first is served.
        const idOf = (t: (typeof tagged)[number]) => JSON.stringify((t.m as Msg).id);
        const served = (t: (typeof tagged)[number], i: number) => t.kind === 'request' && tagged.findIndex((u) => u.kind === 'request' && idOf(u) === idOf(t)) === i;
        // Requests served, notifications and responses reach the server; junk does not.
        expect(lines).toEqual(tagged.filter((t, i) => t.kind === 'quiet' || served(t, i)).map((t) => t.m));
        // The server answers the requests it was given, in a shuffled order.
        const requests = lines.filter((m) => m.id !== undefined && typeof m.method === 'string');
        const order = [...requests].sort((x, y) => ((JSON.stringify(x).length * 31 + seed) % 7) - ((JSON.stringify(y).length * 31 + seed) % 7));
        for (const r of order) expect(b.held({ jsonrpc: '2.0', id: r.id, result: { echo: r.method } })).toBe(true);
        // Something not awaited goes straight out.
        expect(b.held({ jsonrpc: '2.0', id: 'not-in-any-batch', result: {} })).toBe(false);
        expect(b.held({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' })).toBe(false);

        const answered = tagged.map((t, i) => ({ ...t, at: i, served: served(t, i) })).filter((t) => t.kind !== 'quiet');
        if (!answered.length) {
          expect(replies).toEqual([]); // notifications and responses alone: nothing, as JSON-RPC says
          return;
        }
        expect(replies).toHaveLength(1);
        const answers = replies[0] as Msg[];
        expect(Array.isArray(answers)).toBe(true);
        // One answer per request or junk member, in the batch's order.
        expect(answers.map((a) => (a.error ? 'error' : 'result'))).toEqual(answered.map((t) => (t.served ? 'result' : 'error')));
        expect(answers.filter((a) => !a.error).map((a) => a.id)).toEqual(requests.map((r) => r.id));
        // Invalid params in place (-32602, one line), every other refusal Invalid Request; an id a
        // request earlier in the batch holds is refused as such first, whatever else is wrong.
        const idTaken = (t: (typeof tagged)[number] & { at: number }) => tagged.some((u, j) => j < t.at && served(u, j) && idOf(u) === idOf(t));
        const refused = answered.filter((t) => !t.served);
        expect(answers.filter((x) => x.error).map((a) => a.error!.code)).toEqual(refused.map((t) => (t.kind === 'bad-params' && !idTaken(t) ? -32602 : -32600)));
        for (const a of answers.filter((x) => x.error)) expect(a.error!.message).not.toContain('\n');
      }),
    );
  });

  it('under any other version (or before initialize): nothing runs; one error per member awaiting an answer, in order, else one error with id null', () => {
    // A member awaits an answer when it has a string or number id and is no response: the host may be waiting on that id.
    const awaits = (m: unknown): boolean => {
      if (typeof m !== 'object' || m === null || Array.isArray(m)) return false;
      const id = (m as Msg).id;
      return (typeof id === 'string' || typeof id === 'number') && !('result' in m) && !('error' in m);
    };
    fc.assert(
      fc.property(fc.constantFrom(null, '2025-06-18', '2025-11-25', '2024-11-05', 'not-a-version'), fc.array(element, { minLength: 1, maxLength: 8 }), (version, tagged) => {
        const { b, replies } = session(version);
        const batch: unknown[] = tagged.map((t) => t.m);
        expect(b.receive(batch)).toEqual([]); // nothing reaches the server
        expect(replies).toHaveLength(1);
        const reply = replies[0] as Msg | Msg[];
        const waiting = batch.filter(awaits);
        if (waiting.length) {
          expect(Array.isArray(reply)).toBe(true);
          expect((reply as Msg[]).map((a) => a.id)).toEqual(waiting.map((m) => (m as Msg).id));
        } else {
          expect(Array.isArray(reply)).toBe(false);
          expect((reply as Msg).id).toBeNull();
        }
        const errors = Array.isArray(reply) ? reply : [reply];
        // One reason for all, naming the version, on one line.
        expect(new Set(errors.map((e) => JSON.stringify(e.error)))).toHaveProperty('size', 1);
        expect(errors[0]!.error!.code).toBe(-32600);
        const shown = version === null ? 'before initialize' : version === 'not-a-version' ? 'MCP 2025-11-25' : `MCP ${version}`;
        expect(errors[0]!.error!.message).toContain(shown);
        expect(errors[0]!.error!.message).not.toContain('\n');
      }),
    );
  });

  it('under 2025-06-18, the cases found by hand follow the one rule', () => {
    const note = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
    const cases: [unknown[], unknown][] = [
      [[{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'prompts/list' }, note], [1, 2]],
      [[1, 2], null],
      [[note], null],
      [[{ jsonrpc: '2.0', id: 7, result: {} }], null],
      // Ill-formed but with an id: answered under it, as the same line sent alone is.
      [[{ id: 8, method: 5 }, note, { jsonrpc: '1.0', id: 'nine', method: 'ping' }], [8, 'nine']],
    ];
    for (const [batch, ids] of cases) {
      const { b, replies } = session('2025-06-18');
      b.receive(batch);
      const reply = replies[0] as Msg | Msg[];
      if (ids === null) expect(reply, JSON.stringify(batch)).toMatchObject({ id: null, error: { code: -32600 } });
      else expect((reply as Msg[]).map((a) => a.id), JSON.stringify(batch)).toEqual(ids);
    }
  });

  it('an empty batch is one Invalid Request, not an empty array', () => {
    const { b, replies } = session('2025-03-26');
    expect(b.receive([])).toEqual([]);
    expect(replies).toEqual([{ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: an empty batch' } }]);
  });
});

describe('a cancelled member of a batch', () => {
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'show', arguments: { skill: 'api' } } });
  const cancel = (id: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'stop' } });
  const answer = (id: number) => ({ jsonrpc: '2.0', id, result: { n: id } });

  it('is left out of the array, which goes once the others are in (cancel as its own line, or in a later batch)', () => {
    for (const how of ['line', 'batch'] as const) {
      const { b, replies } = session('2025-03-26');
      b.receive([call(1), call(2), call(3)]);
      expect(b.held(answer(3))).toBe(true);
      if (how === 'line') b.seen(cancel(2));
      else b.receive([cancel(2)]);
      expect(replies).toEqual([]);
      expect(b.held(answer(1))).toBe(true);
      expect(replies).toEqual([[answer(1), answer(3)]]);
    }
  });

  it('goes out at once when the cancelled one was the last awaited; a batch whose every request was cancelled gets no answer (never an empty array)', () => {
    const one = session('2025-03-26');
    one.b.receive([call(1), call(2)]);
    one.b.held(answer(1));
    one.b.seen(cancel(2));
    expect(one.replies).toEqual([[answer(1)]]);
    // Its answer came anyway after the batch went (the call ended as the cancel came, or the
    // answer waited in a full pipe): dropped, never sent alone after its batch (red team, 12-05).
    expect(one.b.held(answer(2))).toBe(true);
    expect(one.replies).toEqual([[answer(1)]]);
    // Once: the id is the host's again.
    expect(one.b.held(answer(2))).toBe(false);

    const all = session('2025-03-26');
    all.b.receive([call(1), call(2)]);
    all.b.seen(cancel(1));
    all.b.seen(cancel(2));
    expect(all.replies).toEqual([]);
  });

  it('still takes its place when its answer comes before the batch goes (the call had ended first)', () => {
    const { b, replies } = session('2025-03-26');
    b.receive([call(1), call(2), call(3)]);
    b.seen(cancel(2));
    expect(b.held(answer(2))).toBe(true);
    b.held(answer(1));
    b.held(answer(3));
    expect(replies).toEqual([[answer(1), answer(2), answer(3)]]);
    // A cancel for an id no batch holds, or with no id, changes nothing.
    b.seen(cancel(99));
    b.seen(cancel(undefined));
    expect(replies).toHaveLength(1);
  });
});

describe('an id a batch still waits on', () => {
  /** A single line as the guard hands it over: refused when its id is in use, else seen. */
  const line = (b: Batches, m: unknown): unknown => {
    const refused = b.refusal(m);
    if (refused) return refused;
    b.seen(m);
    return null;
  };
  const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'show', arguments: { skill: 'api' } } });
  const cancel = (id: unknown) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
  const answer = (id: number | string, n: unknown = id) => ({ jsonrpc: '2.0', id, result: { n } });

  it('is refused in a later batch or a single line, in place, nothing run (red team, 12-05: the answers went to the wrong batch)', () => {
    const { b, replies } = session('2025-03-26');
    expect(b.receive([call(1), call(2)])).toHaveLength(2);
    const later = b.receive([call(2), call(3)]);
    expect(later.map((l) => JSON.parse(l).id)).toEqual([3]);
    const single = line(b, call(1)) as Msg;
    expect(single).toMatchObject({ id: 1, error: { code: -32600 } });
    expect(single.error!.message).toMatch(/already used by a request not yet answered/);
    expect(line(b, call('1'))).toBeNull(); // the string "1" is another id
    b.held(answer(3));
    expect(replies).toHaveLength(1);
    expect(replies[0]).toEqual([expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32600 }) }), answer(3)]);
    b.held(answer(2));
    b.held(answer(1));
    expect(replies[1]).toEqual([answer(1), answer(2)]);
    // Answered: the ids are free again.
    expect(line(b, call(1))).toBeNull();
    expect(b.receive([call(2)])).toHaveLength(1);
  });

  it('a single line\'s id is in use until its answer; a cancelled member\'s until its late answer (dropped), or for good when none comes', () => {
    const { b, replies } = session('2025-03-26');
    expect(line(b, call(7))).toBeNull();
    expect(b.receive([call(7), call(8)]).map((l) => JSON.parse(l).id)).toEqual([8]);
    expect(b.held(answer(7))).toBe(false); // the single line's answer goes out alone
    b.seen(cancel(8));
    expect(replies).toEqual([[expect.objectContaining({ id: 7, error: expect.objectContaining({ code: -32600 }) })]]);
    expect(line(b, call(8))).toMatchObject({ id: 8, error: { code: -32600 } });
    expect(b.held(answer(8))).toBe(true);
    expect(line(b, call(8))).toBeNull();
    expect(line(b, call(7))).toBeNull();
  });

  it('a member already answered stays in use until its batch goes out with the answer (red team, 12-05: two answers under one id)', () => {
    const { b, replies } = session('2025-03-26');
    b.receive([call('slow'), call('B')]);
    expect(b.held(answer('B'))).toBe(true);
    expect(line(b, call('B'))).toMatchObject({ id: 'B', error: { code: -32600 } });
    expect(b.receive([call('B')])).toEqual([]);
    b.held(answer('slow'));
    expect(replies.at(-1)).toEqual([answer('slow'), answer('B')]);
    expect(line(b, call('B'))).toBeNull();
  });

  it('a "notifications/cancelled" with an id is a request (the server does not know it), never a cancel, and takes its id', () => {
    const asRequest = (id: string, requestId: unknown) => ({ jsonrpc: '2.0', id, method: 'notifications/cancelled', params: { requestId } });
    const { b, replies } = session('2025-03-26');
    expect(b.receive([call('W'), asRequest('C', 'W')])).toHaveLength(2);
    expect(line(b, asRequest('W', 'x'))).toMatchObject({ id: 'W', error: { code: -32600 } });
    b.held({ jsonrpc: '2.0', id: 'C', error: { code: -32601, message: 'Method not found' } });
    expect(replies.filter(Array.isArray)).toEqual([]); // still waits on W: it was not cancelled
    b.held(answer('W'));
    expect(replies.at(-1)).toEqual([answer('W'), { jsonrpc: '2.0', id: 'C', error: { code: -32601, message: 'Method not found' } }]);
  });

  it('ten thousand cancelled calls never free the id of a call still under way (red team, 12-05)', () => {
    const { b } = session('2025-03-26');
    expect(line(b, call('P'))).toBeNull();
    for (let i = 1; i <= 10_001; i++) {
      expect(line(b, call(i))).toBeNull();
      b.seen(cancel(i));
    }
    expect(line(b, call('P'))).toMatchObject({ id: 'P', error: { code: -32600 } });
    // The oldest cancelled ids are forgotten (their calls give no answer); the newest are kept.
    expect(line(b, call(1))).toBeNull();
    expect(line(b, call(10_001))).toMatchObject({ id: 10_001, error: { code: -32600 } });
  });

  it('over any run of batches, single calls, cancels and answers in any order: a member is answered once in its own batch (at most once when cancelled), never alone', () => {
    const id = fc.integer({ min: 0, max: 3 });
    const step = fc.oneof(
      fc.array(id, { minLength: 1, maxLength: 3 }).map((ids) => ({ kind: 'batch' as const, ids })),
      id.map((i) => ({ kind: 'single' as const, id: i })),
      id.map((i) => ({ kind: 'cancel' as const, id: i })),
      fc.record({ n: fc.nat(), drop: fc.boolean() }).map((a) => ({ kind: 'answer' as const, ...a })),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const { b, replies } = session('2025-03-26');
        type Call = { id: number; seq: number; batch: number | null; cancelled: boolean };
        const pending: Call[] = [];
        const calls: Call[] = [];
        const alone: Call[] = [];
        let batchNo = 0;
        const forward = (i: number, batch: number | null) => {
          // Never two calls under one id in flight.
          expect(pending.some((p) => p.id === i)).toBe(false);
          const c = { id: i, seq: calls.length, batch, cancelled: false };
          pending.push(c);
          calls.push(c);
        };
        const serve = (n: number, drop: boolean) => {
          const [c] = pending.splice(n % pending.length, 1);
          // The server ends a cancelled call with or without an answer (a call that ended first has one).
          if (drop && c!.cancelled) return;
          if (!b.held(answer(c!.id, c!.seq))) alone.push(c!);
        };
        for (const s of steps) {
          if (s.kind === 'batch') {
            const no = batchNo++;
            for (const line of b.receive(s.ids.map(call))) forward(JSON.parse(line).id, no);
          } else if (s.kind === 'single') {
            if (line(b, call(s.id)) === null) forward(s.id, null);
          } else if (s.kind === 'cancel') {
            for (const p of pending) if (p.id === s.id) p.cancelled = true;
            b.seen(cancel(s.id));
          } else if (pending.length) serve(s.n, s.drop);
        }
        while (pending.length) serve(0, false);

        const inArrays = replies.filter(Array.isArray).map((a) => (a as Msg[]).filter((m) => !('error' in m)).map((m) => calls[(m as { result: { n: number } }).result.n]!));
        for (const members of inArrays) expect(new Set(members.map((c) => c.batch)).size).toBeLessThanOrEqual(1);
        for (const c of calls.filter((x) => x.batch !== null)) {
          const times = inArrays.flat().filter((m) => m === c).length;
          expect(times).toBe(c.cancelled ? Math.min(times, 1) : 1);
        }
        // Alone: single calls only.
        for (const c of alone) expect(c.batch).toBeNull();
      }),
    );
  });
});
