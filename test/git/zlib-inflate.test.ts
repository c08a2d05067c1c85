// The kept zlib handle against zlib.inflateSync on the same bytes: whole, truncated,
// corrupted anywhere (the Adler-32 trailer included), with trailing bytes, and declared
// larger or smaller than they are. Same bytes out, or an error where inflateSync errs.
import fc from 'fast-check';
import { constants, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { inflatePrefix, inflateUpTo } from '../../src/git/zlib-inflate.js';

type Outcome = { ok: string } | { error: string };

function outcome(read: () => Buffer): Outcome {
  try {
    return { ok: read().toString('hex') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Both kinds of "too much output" are the same answer to the caller.
    return { error: code === 'ERR_BUFFER_TOO_LARGE' ? 'too large' : code === 'Z_BUF_ERROR' ? 'input ends' : 'corrupt' };
  }
}

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

const reference = (input: Buffer, size: number) => outcome(() => inflateSync(input, { maxOutputLength: Math.max(size, 1) }));

describe('inflateUpTo', () => {
  it('answers as inflateSync does on damaged, cut and padded streams', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 600 }),
        fc.constantFrom('whole', 'flip', 'cut', 'pad'),
        fc.nat(),
        fc.integer({ min: -3, max: 3 }),
        (content, damage, where, sizeDelta) => {
          const stream = Buffer.from(deflateSync(Buffer.from(content)));
          const input = damaged(stream, damage, where);
          const size = Math.max(0, content.length + sizeDelta);
          const ours = outcome(() => inflateUpTo(input, size));
          const theirs = reference(input, size);
          // inflateSync may return fewer bytes than declared; so may this (the caller checks the
          // length). An error either way; which one zlib meets first (the input ends, the output
          // passes the size, a bad code) can differ, as this reads no further than the size.
          if ('ok' in theirs) expect(ours).toEqual(theirs);
          else expect(ours).toHaveProperty('error');
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('refuses a wrong Adler-32 and keeps working after it', () => {
    const content = Buffer.from('tree 0123\nparent 4567\n\nSubject (#482)\n');
    const stream = deflateSync(content);
    const bad = Buffer.from(stream);
    bad[bad.length - 1]! ^= 0xff;
    expect(() => inflateUpTo(bad, content.length)).toThrow(/incorrect data check/);
    expect(inflateUpTo(stream, content.length).equals(content)).toBe(true);
    expect(() => inflateUpTo(stream, content.length - 1)).toThrow(expect.objectContaining({ code: 'ERR_BUFFER_TOO_LARGE' }));
    expect(inflateUpTo(stream, content.length + 5).equals(content)).toBe(true);
  });

  it('inflatePrefix gives the first bytes inflateSync gives a stream\'s start under Z_SYNC_FLUSH, and the handle works on after it', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 2000 }),
        fc.constantFrom('whole', 'flip', 'cut', 'pad'),
        fc.nat(),
        fc.integer({ min: 1, max: 64 }),
        (content, damage, where, size) => {
          const stream = Buffer.from(deflateSync(Buffer.from(content)));
          // A loose object's first 256 bytes, as object-store.ts reads them.
          const input = damaged(stream.subarray(0, 256), damage, where).subarray(0, 256);
          const ours = outcome(() => inflatePrefix(input, size));
          const theirs = outcome(() => inflateSync(input, { finishFlush: constants.Z_SYNC_FLUSH }).subarray(0, size));
          if ('ok' in theirs || 'error' in ours) expect(ours).toEqual(theirs);
          // Else zlib met the damage only past the first `size` bytes out, which this leaves uninflated.
          expect(inflateUpTo(stream, content.length).equals(Buffer.from(content))).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
