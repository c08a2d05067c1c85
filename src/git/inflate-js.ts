// A zlib stream inflated in JavaScript (RFC 1950 framing around RFC 1951 deflate), for the
// handful of small objects a run reads right after a commit: loading node:zlib and the stream
// machinery it starts costs ~3-4 ms, more than inflating a few commits and trees bit by bit.
// zlib-inflate.ts decides when it is used; it refuses what zlib refuses (header, block types,
// code sets, distances, Adler-32) and reports errors with zlib's codes, so callers cannot tell
// the two apart. Canonical Huffman codes are decoded a bit at a time (as zlib's reference
// decoder puff does): slow per symbol, but no tables to build for a 200-byte commit.

export interface JsInflateError extends Error {
  code: string;
}

function fail(message: string, code = 'Z_DATA_ERROR'): JsInflateError {
  return Object.assign(new Error(message), { code });
}

/** Input ran out before the stream's end: zlib's Z_BUF_ERROR, which callers answer with more input. */
class OutOfInput extends Error {}

/** A canonical Huffman code: how many codes of each length (1..15), and the symbols in code order. */
interface Code {
  count: Uint16Array;
  symbol: Uint16Array;
}

const MAX_BITS = 15;

/**
 * The code for `lengths` (0: symbol unused). Returns how many codes are left unused: 0 for a
 * complete code, > 0 incomplete, < 0 over-subscribed (an error wherever it occurs).
 */
function buildCode(lengths: Uint8Array, n: number, code: Code): number {
  code.count.fill(0);
  for (let s = 0; s < n; s++) code.count[lengths[s]!]!++;
  if (code.count[0] === n) return 0; // no codes: complete, though no symbol can be decoded
  let left = 1;
  for (let len = 1; len <= MAX_BITS; len++) {
    left = left * 2 - code.count[len]!;
    if (left < 0) return left;
  }
  const offs = new Uint16Array(MAX_BITS + 1);
  for (let len = 1; len < MAX_BITS; len++) offs[len + 1] = offs[len]! + code.count[len]!;
  for (let s = 0; s < n; s++) if (lengths[s] !== 0) code.symbol[offs[lengths[s]!]!++] = s;
  return left;
}

const newCode = (n: number): Code => ({ count: new Uint16Array(MAX_BITS + 1), symbol: new Uint16Array(n) });

// Base lengths and extra bits for length symbols 257..285, and distances 0..29.
const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
// The order code length code lengths are stored in.
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

let fixed: { lengths: Code; distances: Code } | null = null;

function fixedCodes(): { lengths: Code; distances: Code } {
  if (fixed) return fixed;
  const l = new Uint8Array(288);
  l.fill(8, 0, 144);
  l.fill(9, 144, 256);
  l.fill(7, 256, 280);
  l.fill(8, 280, 288);
  const lengths = newCode(288);
  buildCode(l, 288, lengths);
  const distances = newCode(30);
  buildCode(new Uint8Array(30).fill(5), 30, distances);
  fixed = { lengths, distances };
  return fixed;
}

/**
 * Inflates the zlib stream at input[offset..offset+length) into at most `limit` bytes.
 * `partial` (zlib's Z_SYNC_FLUSH, for a loose object's header): stops without error when the
 * output holds `limit` bytes or the input ends, returning what it has. Otherwise (Z_FINISH) the
 * stream must end, Adler-32 checked, within the input (else code Z_BUF_ERROR) and within `limit`
 * bytes (else ERR_BUFFER_TOO_LARGE); bytes after its end are ignored.
 * Null when the header asks for a window smaller than 32 KiB (git never writes one): zlib decides.
 */
export function inflateJs(input: Uint8Array, offset: number, length: number, limit: number, partial: boolean): Buffer | null {
  const end = offset + length;
  let at = offset;
  let bitBuf = 0;
  let bitCount = 0;
  const out = Buffer.allocUnsafe(limit);
  let put = 0;

  const bits = (need: number): number => {
    while (bitCount < need) {
      if (at >= end) throw new OutOfInput();
      bitBuf |= input[at++]! << bitCount;
      bitCount += 8;
    }
    const value = bitBuf & ((1 << need) - 1);
    bitBuf >>>= need;
    bitCount -= need;
    return value;
  };
  const decode = (code: Code, what: string): number => {
    let value = 0; // bits read so far, first bit most significant
    let first = 0; // the first code of this length
    let index = 0; // where this length's symbols start
    for (let len = 1; len <= MAX_BITS; len++) {
      value |= bits(1);
      const count = code.count[len]!;
      if (value - count < first) return code.symbol[index + (value - first)]!;
      index += count;
      first = (first + count) << 1;
      value <<= 1;
    }
    throw fail(`invalid ${what} code`);
  };
  // Partial: the output holds all that was asked for, and is returned as it is. Otherwise one
  // more byte is more than the container declared.
  const full = (): boolean => put >= limit;

  try {
    if (length < 2) throw new OutOfInput();
    const cmf = input[at]!;
    const flg = input[at + 1]!;
    if ((cmf * 256 + flg) % 31 !== 0) throw fail('incorrect header check');
    if ((cmf & 15) !== 8) throw fail('unknown compression method');
    if (cmf >> 4 > 7) throw fail('invalid window size');
    if (cmf >> 4 !== 7) return null;
    if (flg & 0x20) throw fail('Missing dictionary', 'Z_NEED_DICT');
    at += 2;

    let last = 0;
    while (!last) {
      last = bits(1);
      const type = bits(2);
      if (type === 0) {
        bitBuf = 0;
        bitCount = 0;
        if (at + 4 > end) throw new OutOfInput();
        const len = input[at]! | (input[at + 1]! << 8);
        const nlen = input[at + 2]! | (input[at + 3]! << 8);
        if (len !== (~nlen & 0xffff)) throw fail('invalid stored block lengths');
        at += 4;
        for (let i = 0; i < len; i++) {
          if (partial && full()) return out;
          // The byte must be there to be one too many, as with zlib.
          if (at >= end) throw new OutOfInput();
          if (full()) throw tooLarge(limit);
          out[put++] = input[at++]!;
        }
        continue;
      }
      let lengths: Code;
      let distances: Code;
      if (type === 1) ({ lengths, distances } = fixedCodes());
      else if (type === 2) ({ lengths, distances } = dynamicCodes(bits, decode));
      else throw fail('invalid block type');
      for (;;) {
        const symbol = decode(lengths, 'literal/length');
        if (symbol < 256) {
          if (full()) {
            if (partial) return out;
            throw tooLarge(limit);
          }
          out[put++] = symbol;
          continue;
        }
        if (symbol === 256) break;
        const s = symbol - 257;
        if (s >= 29) throw fail('invalid literal/length code');
        const len = LENGTH_BASE[s]! + bits(LENGTH_EXTRA[s]!);
        const d = decode(distances, 'distance');
        if (d >= 30) throw fail('invalid distance code');
        const dist = DIST_BASE[d]! + bits(DIST_EXTRA[d]!);
        if (dist > put) throw fail('invalid distance too far back');
        for (let i = 0; i < len; i++) {
          if (full()) {
            if (partial) return out;
            throw tooLarge(limit);
          }
          out[put] = out[put - dist]!;
          put++;
        }
      }
    }
    // The Adler-32 of the output, big-endian, from the next byte boundary.
    bitBuf = 0;
    bitCount = 0;
    if (at + 4 > end) {
      if (partial) return out.subarray(0, put);
      throw new OutOfInput();
    }
    const stored = ((input[at]! << 24) | (input[at + 1]! << 16) | (input[at + 2]! << 8) | input[at + 3]!) >>> 0;
    if (stored !== adler32(out, put)) throw fail('incorrect data check');
    return out.subarray(0, put);
  } catch (error) {
    if (!(error instanceof OutOfInput)) throw error;
    if (partial) return out.subarray(0, put);
    throw fail('unexpected end of file', 'Z_BUF_ERROR');
  }
}

function tooLarge(limit: number): JsInflateError {
  return fail(`inflates to more than ${limit} bytes`, 'ERR_BUFFER_TOO_LARGE');
}

/** A dynamic block's codes, read from its header. */
function dynamicCodes(bits: (n: number) => number, decode: (code: Code, what: string) => number): { lengths: Code; distances: Code } {
  const nlen = bits(5) + 257;
  const ndist = bits(5) + 1;
  const ncode = bits(4) + 4;
  if (nlen > 286 || ndist > 30) throw fail('too many length or distance symbols');
  const codeLengths = new Uint8Array(19);
  for (let i = 0; i < ncode; i++) codeLengths[CODE_LENGTH_ORDER[i]!] = bits(3);
  const codeCode = newCode(19);
  // The code length code must be complete.
  if (buildCode(codeLengths, 19, codeCode) !== 0) throw fail('invalid code lengths set');
  const all = new Uint8Array(nlen + ndist);
  for (let i = 0; i < nlen + ndist; ) {
    const symbol = decode(codeCode, 'code lengths');
    if (symbol < 16) {
      all[i++] = symbol;
      continue;
    }
    let value = 0;
    let repeat: number;
    if (symbol === 16) {
      if (i === 0) throw fail('invalid bit length repeat');
      value = all[i - 1]!;
      repeat = 3 + bits(2);
    } else if (symbol === 17) repeat = 3 + bits(3);
    else repeat = 11 + bits(7);
    if (i + repeat > nlen + ndist) throw fail('invalid bit length repeat');
    while (repeat--) all[i++] = value;
  }
  if (all[256] === 0) throw fail('invalid code -- missing end-of-block');
  const lengths = newCode(nlen);
  const lengthsLeft = buildCode(all.subarray(0, nlen), nlen, lengths);
  // Incomplete codes are refused but for one code of one bit, as zlib does.
  if (lengthsLeft < 0 || (lengthsLeft > 0 && nlen !== lengths.count[0]! + lengths.count[1]!)) throw fail('invalid literal/lengths set');
  const distances = newCode(ndist);
  const distLeft = buildCode(all.subarray(nlen), ndist, distances);
  if (distLeft < 0 || (distLeft > 0 && ndist !== distances.count[0]! + distances.count[1]!)) throw fail('invalid distances set');
  return { lengths, distances };
}

/** zlib's Adler-32 of data[0..n). */
export function adler32(data: Uint8Array, n: number): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < n; ) {
    // 5552: the most bytes before b can overflow 2^32 (zlib's NMAX).
    const stop = Math.min(n, i + 5552);
    for (; i < stop; i++) {
      a += data[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}
