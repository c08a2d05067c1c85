// rebaseSiblings moves the literal texts of many list entries in one pass (rotate and restore
// move thousands); it must give exactly what moving them one by one with rebaseTexts gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rebaseSiblings, rebaseTexts } from '../../src/protocol/format.js';
import { literalKey, parseJson, type LiteralTexts } from '../../src/protocol/json.js';
import type { JsonValue } from '../../src/protocol/types.js';

// Entries as logs hold them: records with and without ids (ids that prefix one another), numbers
// written 8.0 / 1e3, strings with escapes, nested lists, duplicates.
const number = fc.constantFrom('8.0', '1e3', '-0', '12345678901234567890', '0.10', '7');
const text = fc.constantFrom('"src/x.ts (PR 12)"', '"Caf\\u00e9"', '"a]b"', '"run-1"', '"run-10"');
const literal = fc.oneof(number, text);
const entry = fc.oneof(
  fc.record({ id: fc.option(fc.constantFrom('"run-1"', '"run-10"', '"run-1]"', '1', '10'), { nil: undefined }), score: literal, tags: fc.array(literal, { maxLength: 2 }) }).map(
    ({ id, score, tags }) => `{${id === undefined ? '' : `"id":${id},`}"score":${score},"tags":[${tags.join(',')}]}`,
  ),
  literal,
  fc.array(literal, { maxLength: 2 }).map((xs) => `[${xs.join(',')}]`),
);

describe('rebaseSiblings', () => {
  it('moves texts exactly as rebaseTexts one entry at a time, whatever the entries', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 12 }), (entries, picks) => {
        const parsed = parseJson(`{"log":[${entries.join(',')}],"other":[${entries.join(',')}]}`);
        const texts = parsed.texts ?? new Map();
        const list = (parsed.value as { log: JsonValue[] }).log;
        const moved = entries.length ? picks.map((i) => list[i % list.length]!) : [];
        const pairs = moved.map((e) => [literalKey('."log"', true, e), literalKey('."file"', true, e)] as const);
        const oneByOne: LiteralTexts = new Map();
        for (const [from, to] of pairs) rebaseTexts(texts, from, to, oneByOne);
        const together: LiteralTexts = new Map();
        rebaseSiblings(texts, pairs, together);
        const sorted = (m: LiteralTexts) => [...m].map(([k, v]) => [k, [...v].sort()]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
        expect(sorted(together)).toEqual(sorted(oneByOne));
      }),
      { numRuns: 400 },
    );
  });
});
