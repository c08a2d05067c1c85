// A checkpoint read on trust (a verdict hit, store/verdicts.ts) must be the file a strict read
// gives: the same value, text, format and size, whether its bytes are ASCII (read as Latin-1,
// trusted-json.ts) or not (decoded), with a BOM, CRLF line ends or tabs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAsciiJson } from '../../src/store/trusted-json.js';
import { readCheckpointKnown } from '../../src/store/checkpoints.js';

const dir = mkdtempSync(join(tmpdir(), 'trusted-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const both = (text: string) => {
  const path = join(dir, 'api.checkpoint.json');
  writeFileSync(path, text);
  const strict = readCheckpointKnown(dir, path)!.file!;
  const trusted = readCheckpointKnown(dir, path, () => 'trusted')!.file!;
  return { strict, trusted };
};

describe('a checkpoint read on trust', () => {
  it('is the file a strict read gives: value, text, format (with its literal texts) and size', () => {
    const texts = [
      JSON.stringify({ skill: 'api', score: 8.0, step: 'PR 12 (re-run)', next_actions: ['ship', { text: 'caf\\u00e9' }] }, null, 2) + '\n',
      '\uFEFF{\r\n\t"skill": "api",\r\n\t"note": "Auth done — tests next → deploy 𝄞",\r\n\t"n": 8.0\r\n}',
      '{"skill":"api","n":1e2,"s":"caf\\u00e9"}',
    ];
    for (const text of texts) {
      const { strict, trusted } = both(text);
      expect(trusted.value).toEqual(strict.value);
      expect(trusted.text).toBe(strict.text);
      expect(trusted.sizeBytes).toBe(strict.sizeBytes);
      expect(trusted.skill).toBe(strict.skill);
      expect({ ...trusted.format, texts: [...(trusted.format.texts ?? [])] }).toEqual({ ...strict.format, texts: [...(strict.format.texts ?? [])] });
    }
  });

  it('parseAsciiJson: JSON.parse of the text for ASCII bytes, undefined (decode them) for any other', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(undefined, 2, '\t'), (v, indent) => {
        const bytes = Buffer.from(JSON.stringify(v, null, indent));
        const got = parseAsciiJson(bytes);
        if (/[^\x00-\x7f]/.test(bytes.toString('latin1'))) expect(got).toBeUndefined();
        else expect(got).toEqual(JSON.parse(bytes.toString('utf8')));
      }),
      { numRuns: 300 },
    );
  });
});
