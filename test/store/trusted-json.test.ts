// A checkpoint read on trust (a verdict hit, store/verdicts.ts) must be the file a strict read
// gives: the same value, text, format and size, whether its bytes are ASCII or not (read as
// Latin-1 with escapes, trusted-json.ts), with a BOM, CRLF line ends or tabs; and where its
// non-ASCII bytes are, as kept with the verdict, can never make it read a wrong value.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { nonAsciiRuns, parseKnownJson } from '../../src/store/trusted-json.js';
import { readCheckpointKnown } from '../../src/store/checkpoints.js';

const dir = mkdtempSync(join(tmpdir(), 'trusted-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const utf8Value = (bytes: Buffer) => JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, '')) as unknown;

// Messy, the way real files are: an 8.0, escapes, an em dash and an arrow, a path with a note.
const TEXTS = [
  JSON.stringify({ skill: 'api', score: 8.0, step: 'PR 12 (re-run)', next_actions: ['ship', { text: 'caf\\u00e9' }] }, null, 2) + '\n',
  '\uFEFF{\r\n\t"skill": "api",\r\n\t"note": "Auth done — tests next → deploy 𝄞",\r\n\t"n": 8.0\r\n}',
  '{"skill":"api","n":1e2,"s":"caf\\u00e9 — \\\\é","clé":["日本","\\u2014—"]}',
];

describe('a checkpoint read on trust', () => {
  it('is the file a strict read gives: value, text, format (with its literal texts) and size', () => {
    for (const text of TEXTS) {
      const path = join(dir, 'api.checkpoint.json');
      writeFileSync(path, text);
      const strict = readCheckpointKnown(dir, path)!.file!;
      // Runs that do not fit the bytes (an odd list) take the decoding read; the right ones, the byte read.
      for (const how of [{ nonAscii: [0] }, { nonAscii: nonAsciiRuns(strict.text) }] as const) {
        const trusted = readCheckpointKnown(dir, path, () => how)!.file!;
        expect(trusted.value).toEqual(strict.value);
        expect(Object.getPrototypeOf(trusted.value)).toBe(Object.prototype);
        expect(trusted.text).toBe(strict.text);
        expect(trusted.sizeBytes).toBe(strict.sizeBytes);
        expect(trusted.skill).toBe(strict.skill);
        expect({ ...trusted.format, texts: [...(trusted.format.texts ?? [])] }).toEqual({ ...strict.format, texts: [...(strict.format.texts ?? [])] });
      }
    }
  });

  it('parses without a decode what a BOM does not start: a real checkpoint with an em dash and an arrow', () => {
    const bytes = Buffer.from(TEXTS[2]!);
    const value = parseKnownJson(bytes, nonAsciiRuns(bytes.toString('utf8')));
    expect(value).not.toBeUndefined();
    expect(value).toEqual(utf8Value(bytes));
  });

  it('is JSON.parse of the UTF-8 text for any JSON with its runs (undefined only with a BOM or a U+FFFD)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: 'binary' }), fc.boolean(), fc.constantFrom(undefined, 2, '\t'), (v, extra, bom, indent) => {
        // JSON.stringify escapes only controls: turn some characters into \u escapes by hand too.
        const json = JSON.stringify({ v, [extra]: extra }, null, indent).replace(/[\u0080-\uffff]/g, (c) => (c.charCodeAt(0) % 3 === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c));
        const text = (bom ? '\uFEFF' : '') + json;
        const bytes = Buffer.from(text);
        const got = parseKnownJson(bytes, nonAsciiRuns(bytes.toString('utf8')));
        // A BOM is not inside a string; a U+FFFD (a lone surrogate written out) is left to the decode too.
        if (bom || bytes.toString('utf8').includes('\uFFFD')) expect(got === undefined || JSON.stringify(got) === JSON.stringify(utf8Value(bytes))).toBe(true);
        else expect(got).toEqual(utf8Value(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('never reads a wrong value from runs that do not fit the bytes (a damaged cache)', () => {
    const bytes = Buffer.from(TEXTS[2]!);
    const right = nonAsciiRuns(bytes.toString('utf8'));
    const runs = fc.oneof(
      fc.array(fc.integer({ min: -1, max: bytes.length + 1 }), { maxLength: 12 }),
      fc.tuple(fc.nat({ max: right.length - 1 }), fc.integer({ min: -3, max: 3 })).map(([i, d]) => right.map((x, j) => (j === i ? x + d : x))),
    );
    fc.assert(
      fc.property(runs, (r) => {
        const got = parseKnownJson(bytes, r);
        if (got !== undefined) expect(got).toEqual(utf8Value(bytes));
      }),
      { numRuns: 500 },
    );
  });
});
