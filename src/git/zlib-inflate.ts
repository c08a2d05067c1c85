// One zlib stream inflated to exactly the size its container declares, by zlib itself.
// `zlib.inflateSync` builds a stream object and a zlib handle per call: for the 200-byte
// commits and 50-byte tree deltas a history walk reads by the ten thousand, that set-up
// (and the garbage it leaves) costs more than the inflating. Here one handle is kept and
// reset between streams, through the same native calls inflateSync makes (`writeSync`, one
// Z_FINISH call with room for one byte more than declared), so every check zlib makes
// (header, block codes, distances, Adler-32) is made as before. The handle is Node's
// internal API: if it is not there in the shape this expects, or does not answer a known
// stream correctly, every call goes to inflateSync.
// node:zlib (and the streams it starts) only on first use: most runs of a module that imports
// this one never inflate anything.
let zlibModule: typeof import('node:zlib') | undefined;
export const zlib = () => (zlibModule ??= process.getBuiltinModule('node:zlib'));

/** An error as inflateSync throws it: `code` is zlib's (Z_BUF_ERROR: the input ended first), or ERR_BUFFER_TOO_LARGE. */
export interface InflateError extends Error {
  code: string;
}

interface Handle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  onerror: (message: string, errno: number, code: string) => void;
}

interface Engine {
  handle: Handle;
  /** [avail_out, avail_in] after each write. */
  state: Uint32Array;
  failure: { message: string; code: string } | null;
}

let engine: Engine | null | undefined;

function newEngine(): Engine | null {
  try {
    const stream = new (zlib().Inflate)() as unknown as { _handle?: Partial<Handle>; _writeState?: unknown };
    const handle = stream._handle;
    const state = stream._writeState;
    if (!handle || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) return null;
    const made: Engine = { handle: handle as Handle, state, failure: null };
    // In place of the stream's handler (which destroys the stream): kept for the caller to throw.
    made.handle.onerror = (message, _errno, code) => {
      made.failure = { message, code };
    };
    return made;
  } catch {
    return null;
  }
}

/** A known answer, and zlib's stream of it (written out, so the check makes no deflate stream). */
const PROBE = 'checkpoint object store\n'.repeat(3);
const PROBE_STREAM = 'eJxLzkhNzi7Iz8wrUchPykpNLlEoLskvSuVKJlEcAPA/G0M=';

/** The kept handle, made on first use and checked once against a stream with a known answer. */
function kept(): Engine | null {
  if (engine !== undefined) return engine;
  engine = newEngine();
  if (engine !== null) {
    try {
      const stream = Buffer.from(PROBE_STREAM, 'base64');
      if (run(engine, stream, 0, stream.length, PROBE.length).toString('latin1') !== PROBE) engine = null;
    } catch {
      engine = null;
    }
  }
  return engine;
}

function fail(message: string, code: string): InflateError {
  return Object.assign(new Error(message), { code });
}

/** Output space: slices of one buffer, as Buffer.allocUnsafe's pool, with one view per object instead of two. */
const ARENA_BYTES = 64 * 1024;
let arena = Buffer.allocUnsafe(0);
let arenaUsed = 0;

function run(e: Engine, input: Buffer, offset: number, length: number, size: number): Buffer {
  // As inflateSync's maxOutputLength, which cannot be 0.
  const limit = Math.max(size, 1);
  const room = limit + 1;
  let out = arena;
  let at = arenaUsed;
  if (room > ARENA_BYTES / 4) {
    out = Buffer.allocUnsafeSlow(room);
    at = 0;
  } else if (at + room > arena.length) {
    out = arena = Buffer.allocUnsafeSlow(ARENA_BYTES);
    at = arenaUsed = 0;
  }
  write(e, zlib().constants.Z_FINISH, input, offset, length, out, at, room);
  // No error with room left means zlib reached the stream's end (its checksum verified):
  // under Z_FINISH anything short of it is an error. No room left: more than `size`.
  const produced = room - e.state[0]!;
  if (produced > limit) throw fail(`inflates to more than ${limit} bytes`, 'ERR_BUFFER_TOO_LARGE');
  // Kept 8-byte aligned, as Buffer's pool keeps its slices.
  if (out === arena) arenaUsed = (at + produced + 7) & ~7;
  return out.subarray(at, at + produced);
}

/**
 * The first bytes of the zlib stream `input` holds the start of: as many as it gives, at most
 * `size`, with no error for a stream that goes on past the input (inflateSync under
 * Z_SYNC_FLUSH, through the kept handle). A loose object's header is read this way, so an
 * object over the caller's cap is never inflated whole.
 */
export function inflatePrefix(input: Buffer, size: number): Buffer {
  const e = kept();
  if (e === null) return zlib().inflateSync(input, { finishFlush: zlib().constants.Z_SYNC_FLUSH }).subarray(0, size);
  const out = Buffer.allocUnsafe(size);
  write(e, zlib().constants.Z_SYNC_FLUSH, input, 0, input.length, out, 0, size);
  return out.subarray(0, size - e.state[0]!);
}

/** One stream through the handle, from a reset; zlib's error, if it met one, thrown as inflateSync throws it. */
function write(e: Engine, flush: number, input: Buffer, offset: number, length: number, out: Buffer, at: number, room: number): void {
  e.failure = null;
  e.handle.reset();
  e.handle.writeSync(flush, input, offset, length, out, at, room);
  if (e.failure !== null) {
    const { message, code } = e.failure as { message: string; code: string };
    // Node's own stream gives up on a handle after an error: so does this one.
    engine = undefined;
    throw fail(message, code);
  }
}

/**
 * The bytes of the zlib stream at input[offset..offset+length), at most `size` of them (or 1
 * when `size` is 0; more is ERR_BUFFER_TOO_LARGE); bytes after the stream's end are ignored,
 * as inflateSync does. An input that ends inside the stream throws code Z_BUF_ERROR. The
 * caller checks the length.
 */
export function inflateUpTo(input: Buffer, size: number, offset = 0, length = input.length - offset): Buffer {
  const e = kept();
  if (e !== null) return run(e, input, offset, length, size);
  const span = offset === 0 && length === input.length ? input : input.subarray(offset, offset + length);
  // chunkSize: zlib's default 16 KiB output buffer per call costs more than inflating a commit.
  return zlib().inflateSync(span, { maxOutputLength: Math.max(size, 1), chunkSize: Math.min(Math.max(size + 1, 64), 64 * 1024) });
}
