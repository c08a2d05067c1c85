// JSON-RPC batches: an array of messages on one line. MCP 2025-03-26 says a server MUST accept
// them; 2025-06-18 removed them (2025-11-25 too). The SDK's stdio transport drops an array without
// a word, so the host waits forever. Here a batch is answered by the protocol version the session
// agreed on: under 2025-03-26 its messages go to the server one by one and their answers come
// back together as one array, as JSON-RPC 2.0 says (without those the host cancelled: MCP sends
// no answer for a cancelled request, and the array must not wait for one, nor is the answer sent
// alone after it). Under any other version nothing in it runs, and one rule answers it: an array
// with one Invalid Request per member that awaits an answer (an object with a string or number id
// that is not itself a response, well-formed or not, as a single line with an id is answered), in
// the batch's order; a single error with id null when no member awaits one (notifications,
// responses, junk), so a batch is never met with silence. Under every version a request under an
// id still in use is refused, in a batch or alone: two answers under one id could not be told
// apart (which fills which batch, which one a cancel ends).
import { invalidParams, listParams } from './params.js';
import { JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './sdk.js';

/** The protocol versions whose spec has batches. */
export const BATCH_VERSIONS: ReadonlySet<string> = new Set(['2025-03-26']);

type Id = string | number;
const INVALID = -32600;
const error = (id: Id | null, message: string) => ({ jsonrpc: '2.0', id, error: { code: INVALID, message } });
const idOf = (m: unknown): Id | null => {
  const id = typeof m === 'object' && m !== null ? (m as { id?: unknown }).id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
};
const isRequest = (m: unknown) => idOf(m) !== null && typeof (m as { method?: unknown }).method === 'string';
/** A cancel notification (no id: one with an id is a request the server does not know, as the SDK reads it), and the request it cancels. */
const cancelled = (m: unknown): { requestId?: unknown } | null =>
  idOf(m) === null && (m as { method?: unknown }).method === 'notifications/cancelled' ? ((m as { params?: { requestId?: unknown } }).params ?? {}) : null;
/** A member a host may wait on an answer for: it has an id and is no response (result or error). */
const awaitsAnswer = (m: unknown) => idOf(m) !== null && !('result' in (m as object)) && !('error' in (m as object));
const key = (id: Id) => `${typeof id}:${id}`;
/**
 * How many ids of cancelled calls a session remembers (`late`, `cancelledSingles`): the server
 * ends a cancelled call without an answer, so such an id is never freed; the oldest are forgotten
 * first. Calls not cancelled are all remembered: each gets its answer.
 */
const MAX_REMEMBERED = 10_000;
const remember = (ids: Set<string>, k: string) => {
  ids.add(k);
  if (ids.size > MAX_REMEMBERED) ids.delete(ids.values().next().value!);
};

interface Open {
  /** The batch's answers in the order of its requests; a hole is an answer still to come. */
  answers: unknown[];
  /** Where each awaited request's answer goes. */
  slots: Map<string, number>;
  /** Slots whose request the host cancelled: MCP sends no answer for one, so the batch does not wait for it. */
  cancelled: Set<string>;
  /** Every request it awaits, answered or not: in use until the batch goes out with their answers. */
  ids: Set<string>;
}

export class Batches {
  /** The version the session agrees on (the server's answer to initialize); null before that. */
  private version: string | null = null;
  private readonly open: Open[] = [];
  /**
   * Cancelled members of batches that went out without them: an answer that comes anyway (the
   * call ended as the cancel arrived, or waited in a full pipe) is dropped, never sent on its
   * own after its batch (MCP: no answer for a cancelled request).
   */
  private readonly late = new Set<string>();
  /** Requests sent as single lines and not yet answered: a batch member under one of their ids would take their answer. */
  private readonly singles = new Set<string>();
  /** Those of them the host cancelled: in use until an answer comes, which may be never. */
  private readonly cancelledSingles = new Set<string>();

  constructor(private readonly reply: (message: unknown) => void) {}

  /**
   * The error to answer a single line with before anything else is checked: a request under an
   * id still in use (inUse); else null.
   */
  refusal(message: unknown): unknown {
    return isRequest(message) ? this.inUse(idOf(message)!) : null;
  }

  /**
   * A message from the host on its way to the server, refusal() and every other check passed. From
   * initialize the version is known before the server answers (a host may send its next line at
   * once): the SDK's own rule.
   */
  seen(message: unknown): void {
    const cancel = cancelled(message);
    if (cancel) return this.cancel(cancel.requestId);
    if (!isRequest(message)) return;
    this.singles.add(key(idOf(message)!));
    const m = message as { method?: unknown; params?: { protocolVersion?: unknown } };
    if (m.method !== 'initialize') return;
    const asked = m.params?.protocolVersion;
    this.version = typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
  }

  /**
   * The error for a request under an id still in use (a request not yet answered, a member of a
   * batch not yet sent, or a call cancelled without an answer), or null. JSON-RPC ids tell answers
   * apart, and MCP forbids reusing one: two requests under one id could not be (whose answer
   * fills which batch, which one a cancel ends).
   */
  private inUse(id: Id): unknown {
    const k = key(id);
    if (!this.singles.has(k) && !this.cancelledSingles.has(k) && !this.late.has(k) && !this.open.some((b) => b.ids.has(k))) return null;
    return error(id, `Invalid Request: the id ${JSON.stringify(id)} is already used by a request not yet answered; nothing ran (send each request under an id of its own)`);
  }

  /** A batch from the host: the lines to hand to the server (its answers are held by `held`). */
  receive(batch: unknown[]): string[] {
    // JSON-RPC 2.0: an empty array is one Invalid Request, not an empty answer.
    if (!batch.length) {
      this.reply(error(null, 'Invalid Request: an empty batch'));
      return [];
    }
    if (this.version === null || !BATCH_VERSIONS.has(this.version)) {
      const only = [...BATCH_VERSIONS].join(', ');
      const why = this.version === null
        ? `Invalid Request: a batch before initialize (initialize comes alone, and only MCP ${only} has batches)`
        : `Invalid Request: JSON-RPC batches are not part of MCP ${this.version}, the version this session agreed on (only ${only} has them); send one message per line`;
      const answers = batch.filter(awaitsAnswer).map((m) => error(idOf(m), why));
      this.reply(answers.length ? answers : error(null, why));
      return [];
    }
    const open: Open = { answers: [], slots: new Map(), cancelled: new Set(), ids: new Set() };
    const lines: string[] = [];
    const cancels: unknown[] = [];
    for (const m of batch) {
      const id = idOf(m);
      // An id in use comes first, as for a single line: whatever else is wrong, nothing runs under it.
      if (isRequest(m)) {
        const taken = open.ids.has(key(id!)) ? error(id, `Invalid Request: the id ${JSON.stringify(id)} is used twice in this batch`) : this.inUse(id!);
        if (taken) {
          open.answers.push(taken);
          continue;
        }
      }
      const listed = listParams(m);
      if (listed) {
        open.answers.push(listed);
        continue;
      }
      if (!JSONRPCMessageSchema.safeParse(m).success) {
        open.answers.push(error(id, 'Invalid Request: not a JSON-RPC 2.0 message (check method and params)'));
        continue;
      }
      const refused = invalidParams(m);
      if (refused) {
        open.answers.push(refused);
        continue;
      }
      if (isRequest(m)) {
        open.slots.set(key(id!), open.answers.length);
        open.ids.add(key(id!));
        open.answers.push(undefined);
      }
      const cancel = cancelled(m);
      if (cancel) cancels.push(cancel.requestId);
      lines.push(`${JSON.stringify(m)}\n`);
    }
    // Notifications and responses alone: JSON-RPC answers nothing at all.
    if (open.slots.size) this.open.push(open);
    else if (open.answers.length) this.reply(open.answers);
    for (const id of cancels) this.cancel(id);
    return lines;
  }

  /**
   * The host cancelled request `id`: a batch holding it no longer waits for its answer (the
   * server sends none), and goes out when the rest are in, without it. One that comes anyway
   * (the call ended first) still takes its place while the batch is open.
   */
  private cancel(id: unknown): void {
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const i = this.open.findIndex((b) => b.slots.has(key(id)));
    if (i < 0) {
      if (this.singles.delete(key(id))) remember(this.cancelledSingles, key(id));
      return;
    }
    this.open[i]!.cancelled.add(key(id));
    this.sendIfDone(i);
  }

  /** Sends the open batch at `i` once every answer it still waits for is one of a cancelled request. */
  private sendIfDone(i: number): void {
    const open = this.open[i]!;
    if ([...open.slots.keys()].some((k) => !open.cancelled.has(k))) return;
    this.open.splice(i, 1);
    for (const k of open.cancelled) remember(this.late, k);
    const answers = open.answers.filter((a) => a !== undefined);
    // JSON-RPC: never an empty array; a batch whose every request was cancelled gets no answer.
    if (answers.length) this.reply(answers);
  }

  /**
   * A message the server sends: true when it is an answer a batch waits for (sent with the batch
   * once all are in), or the late answer of a member cancelled from a batch already sent (dropped).
   * Any other answer goes out, and its id is free again.
   */
  held(message: unknown): boolean {
    const id = idOf(message);
    if (id === null || (message as { method?: unknown }).method !== undefined) return false;
    const i = this.open.findIndex((b) => b.slots.has(key(id)));
    if (i < 0) {
      if (this.late.delete(key(id))) return true;
      this.singles.delete(key(id));
      this.cancelledSingles.delete(key(id));
      return false;
    }
    const open = this.open[i]!;
    open.answers[open.slots.get(key(id))!] = message;
    open.slots.delete(key(id));
    open.cancelled.delete(key(id));
    this.sendIfDone(i);
    return true;
  }
}
