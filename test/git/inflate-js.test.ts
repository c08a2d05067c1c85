// The JavaScript inflater against zlib itself on the same bytes: streams deflated at every level
// and strategy (stored, fixed and dynamic blocks, long matches), whole, cut, with a bit flipped
// anywhere or followed by other bytes, declared larger or smaller than they are. Same bytes out,
// an error exactly where zlib errs, and "the input ends" exactly where zlib says so on a stream
// that is only cut (the object reader then reads further instead of calling the object corrupt).
import fc from 'fast-check';
import { constants, deflateSync, inflateSync, type ZlibOptions } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { adler32, inflateJs } from '../../src/git/inflate-js.js';

type Outcome = { ok: string } | { error: 'too large' | 'input ends' | 'corrupt' } | { skipped: true };

function outcome(read: () => Buffer | null): Outcome {
  try {
    const out = read();
    return out === null ? { skipped: true } : { ok: out.toString('hex') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: code === 'ERR_BUFFER_TOO_LARGE' ? 'too large' : code === 'Z_BUF_ERROR' ? 'input ends' : 'corrupt' };
  }
}

// Content a deflater turns into every kind of block: repeats (long matches, distances near the
// window), text, random bytes (stored or literal-heavy), runs of one byte.
const content = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.string({ maxLength: 2000 }).map((s) => new Uint8Array(Buffer.from(s.repeat(3)))),
  fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 400 })).map(([unit, times]) => new Uint8Array(Buffer.concat(Array.from({ length: times }, () => Buffer.from(unit))))),
  fc.tuple(fc.nat(255), fc.integer({ min: 0, max: 40_000 })).map(([byte, n]) => new Uint8Array(n).fill(byte)),
);

const options = fc.record({
  level: fc.integer({ min: 0, max: 9 }),
  strategy: fc.constantFrom(constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED),
  memLevel: fc.integer({ min: 1, max: 9 }),
  windowBits: fc.constantFrom(15, 15, 15, 9, 12),
}) as fc.Arbitrary<ZlibOptions>;

/** `stream` as given, with one bit flipped at `where`, cut at `where`, or followed by other bytes. */
function damaged(stream: Buffer, damage: 'whole' | 'flip' | 'cut' | 'pad', where: number): Buffer {
  if (damage === 'flip') {
    const out = Buffer.from(stream);
    out[where % out.length]! ^= 1 << where % 8;
    return out;
  }
  if (damage === 'cut') return stream.subarray(0, where % stream.length);
  if (damage === 'pad') return Buffer.concat([stream, Buffer.from('trailing bytes')]);
  return stream;
}

describe('inflateJs', () => {
  it('answers as zlib does, to the byte and to the kind of error, under Z_FINISH', () => {
    fc.assert(
      fc.property(content, options, fc.constantFrom('whole', 'flip', 'cut', 'pad'), fc.nat(), fc.integer({ min: -3, max: 3 }), (data, opts, damage, where, sizeDelta) => {
        const stream = deflateSync(data, opts);
        const input = damaged(stream, damage, where);
        const limit = Math.max(1, data.length + sizeDelta);
        const ours = outcome(() => inflateJs(input, 0, input.length, limit, false));
        if ('skipped' in ours) {
          // Only a window under 32 KiB is left to zlib.
          expect(stream[0]! >> 4).toBeLessThan(7);
          return;
        }
        const theirs = outcome(() => inflateSync(input, { maxOutputLength: limit }));
        if ('ok' in theirs || 'ok' in ours) expect(ours).toEqual(theirs);
        // An honest size and a stream that is only cut: "the input ends", so the reader reads on
        // exactly when it would with zlib. Past a dishonest size, which error comes first differs
        // between zlib's own two paths (inflateSync and a kept handle): an error is all that counts.
        else if (damage !== 'flip' && limit >= data.length) expect(ours).toEqual(theirs);
        else expect(ours).toHaveProperty('error');
      }),
      { numRuns: 3000 },
    );
  });

  it('gives a stream\'s first bytes as zlib gives them under Z_SYNC_FLUSH, from a loose object\'s first 256 bytes', () => {
    fc.assert(
      fc.property(content, options, fc.constantFrom('whole', 'flip', 'cut', 'pad'), fc.nat(), fc.integer({ min: 0, max: 64 }), (data, opts, damage, where, size) => {
        const stream = deflateSync(data, opts);
        const input = damaged(stream.subarray(0, 256), damage, where).subarray(0, 256);
        const ours = outcome(() => inflateJs(input, 0, input.length, size, true));
        if ('skipped' in ours) return;
        const theirs = outcome(() => inflateSync(input, { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, size));
        // zlib may meet damage past the first `size` bytes, which neither needs: then only zlib errs.
        if ('ok' in theirs || 'error' in ours) expect(ours).toEqual(theirs);
        else expect(damage).toBe('flip');
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a stream from the middle of a buffer and ignores what follows it', () => {
    const data = Buffer.from('tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@b> 1 +0000\n\nFix (#482)\n'.repeat(4));
    const stream = deflateSync(data);
    const buffer = Buffer.concat([Buffer.from('pack header'), stream, Buffer.from('next object')]);
    expect(inflateJs(buffer, 11, stream.length + 11, data.length, false)?.equals(data)).toBe(true);
    expect(() => inflateJs(buffer, 11, stream.length - 1, data.length, false)).toThrow(expect.objectContaining({ code: 'Z_BUF_ERROR' }));
    expect(() => inflateJs(stream, 0, stream.length, data.length - 1, false)).toThrow(expect.objectContaining({ code: 'ERR_BUFFER_TOO_LARGE' }));
    const bad = Buffer.from(stream);
    bad[bad.length - 1]! ^= 1;
    expect(() => inflateJs(bad, 0, bad.length, data.length, false)).toThrow(/incorrect data check/);
  });

  it('computes Adler-32 as zlib does past the 5552-byte reduction step', () => {
    for (const n of [0, 1, 5551, 5552, 5553, 70_000]) {
      const data = Buffer.alloc(n, 0xff);
      const trailer = deflateSync(data).subarray(-4).readUInt32BE(0);
      expect(adler32(data, n)).toBe(trailer);
    }
  });
});
