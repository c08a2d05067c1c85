// writeKeepingLayout (formatKeepingLayout without its last check) on random documents laid out at random (inline and multi-line containers
// mixed, odd blanks, CRLF, BOM, 8.0 / 1E3 / -0.0, escapes) under random edits: the output reads
// back as the edited value, an unedited document comes back byte for byte, an unchanged
// top-level member keeps its exact text, and a file in our own layout is written as formatJson writes it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat, formatJson, type TextFormat } from '../../src/protocol/format.js';
import { parseJson, type LiteralTexts } from '../../src/protocol/json.js';
import { writeKeepingLayout } from '../../src/protocol/layout.js';
import type { JsonValue } from '../../src/protocol/types.js';

type Obj = { [k: string]: JsonValue };

/** Equal, keys in the same order, -0 apart from 0. */
function same(a: JsonValue, b: JsonValue): boolean {
  if (typeof a === 'number') return Object.is(a, b);
  if (a === null || typeof a !== 'object' || b === null || typeof b !== 'object') return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same((a as Obj)[k]!, (b as Obj)[k]!));
}

const key = fc.oneof(fc.constantFrom('id', 'status', 'generated_files', 'a', 'b', 'Café', 'x/y', 'with "quote"', 'line\nbreak', '1', '10'), fc.string({ maxLength: 6 })).filter((k) => !['__proto__', 'prototype', 'constructor'].includes(k));
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constantFrom<JsonValue>(null, true, false, 0, -0, 8, 1000, 12.5, -3, 'src/x.ts (PR 12)', 'Café ☕', 'a/b', 'tab\there', '😀', '', 'done'),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 8 }),
);
const { value: jsonValue } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 4, selector: ([k]) => k }).map((members) => {
      const o: Obj = {};
      for (const [k, v] of members) o[k] = v;
      return o;
    }),
  ),
}));
const document = fc.oneof(
  { weight: 4, arbitrary: fc.uniqueArray(fc.tuple(key, jsonValue), { maxLength: 6, selector: ([k]) => k }).map((m) => Object.fromEntries(m) as JsonValue) },
  { weight: 1, arbitrary: jsonValue },
);

/** A deterministic stream of choices, so one seed names one layout. */
function chooser(seed: number): <T>(options: readonly T[]) => T {
  let s = seed >>> 0 || 1;
  return (options) => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return options[(s >>> 0) % options.length]!;
  };
}

/** Other texts of a number that read as the same double. */
function numberText(v: number, pick: <T>(o: readonly T[]) => T): string {
  const plain = Object.is(v, -0) ? '-0' : JSON.stringify(v);
  const options = [plain, Number.isInteger(v) ? `${plain}.0` : `${plain}0`, `${plain}E0`, Number.isInteger(v) ? `${plain}.00e+0` : plain, Object.is(v, -0) ? '-0.0' : plain];
  const text = pick(options);
  return Object.is(Number(text), v) && !/^-?0\d/.test(text) && !text.includes('e+0e') ? text : plain;
}

/** Escapes a JSON writer may choose: \u for non-ASCII (or anything), \/ for a slash. */
function stringText(s: string, pick: <T>(o: readonly T[]) => T): string {
  const plain = JSON.stringify(s);
  switch (pick(['plain', 'plain', 'ascii', 'slash', 'all'])) {
    case 'ascii':
      return plain.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    case 'slash':
      return plain.replace(/\//g, '\\/');
    case 'all':
      return `"${[...s].map((c) => (c.length === 1 ? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : JSON.stringify(c).slice(1, -1))).join('')}"`;
    default:
      return plain;
  }
}

interface Laid {
  text: string;
  /** Each top-level member's text (`"key": value`), when the root is an object. */
  members: Map<string, string>;
}

/** `value` laid out at random: each container inline or on lines of its own, odd blanks, number and string spellings. */
function layOut(value: JsonValue, seed: number, unit: string, eol: string, bom: boolean, finalNewline: boolean, ours = false): Laid {
  const pick = chooser(seed);
  const members = new Map<string, string>();
  const write = (v: JsonValue, indent: string, inline: boolean, top: boolean): string => {
    if (typeof v === 'number') return numberText(v, pick);
    if (typeof v === 'string') return stringText(v, pick);
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const items = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.keys(v).map((k) => [k, v[k]!] as const);
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (items.length === 0) return open + (ours ? '' : pick(['', '', ' '])) + close;
    const oneLine = !ours && (inline || pick([true, false, false]));
    const inner = indent + unit;
    const colon = ours ? ': ' : pick([': ', ': ', ':', ' : ']);
    const parts = items.map(([k, x]) => {
      const body = (Array.isArray(v) ? '' : stringText(k, pick) + colon) + write(x, inner, oneLine, false);
      if (top) members.set(k, body);
      return body;
    });
    if (oneLine) {
      const sep = pick([', ', ',', ' , ']);
      const pad = pick(['', '', ' ']);
      return open + pad + parts.join(sep) + pad + close;
    }
    return open + parts.map((p) => eol + (ours ? '' : pick(['', '', eol])) + inner + p).join(ours ? ',' : pick([',', ',', ' ,'])) + eol + indent + close;
  };
  const body = write(value, '', false, !Array.isArray(value) && value !== null && typeof value === 'object');
  return { text: (bom ? '\uFEFF' : '') + body + (finalNewline ? eol : ''), members };
}

const layout = fc.record({
  seed: fc.integer({ min: 1 }),
  unit: fc.constantFrom('  ', '    ', '\t'),
  // A lone CR (classic Mac OS): one line to git, but a line end to a person and to the writer.
  eol: fc.constantFrom('\n', '\r\n', '\r'),
  bom: fc.boolean(),
  finalNewline: fc.boolean(),
});

type Edit = { kind: 'set' | 'add' | 'remove' | 'move'; at: number; to: number; value: JsonValue };
// A new -0 has no text to be written with (JSON.stringify writes 0, as formatJson always has): a command's new values come from JSON text, whose texts are recorded.
const noNegativeZero = (v: JsonValue): JsonValue =>
  Object.is(v, -0) ? 0 : Array.isArray(v) ? v.map(noNegativeZero) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, noNegativeZero(x)])) : v;
const edits = fc.array(fc.record({ kind: fc.constantFrom<Edit['kind']>('set', 'add', 'remove', 'move'), at: fc.nat(), to: fc.nat(), value: jsonValue.map(noNegativeZero) }), { minLength: 1, maxLength: 4 });

/** Every container in `v`, root first. */
function containers(v: JsonValue, out: Array<JsonValue[] | Obj> = []): Array<JsonValue[] | Obj> {
  if (v === null || typeof v !== 'object') return out;
  out.push(v);
  for (const x of Array.isArray(v) ? v : Object.values(v)) containers(x, out);
  return out;
}

/** Applies the edits in place (a root that is no container is replaced by `set`). */
function applyEdits(root: JsonValue, list: readonly Edit[]): JsonValue {
  for (const e of list) {
    const all = containers(root);
    if (all.length === 0) {
      if (e.kind === 'set') root = e.value;
      continue;
    }
    const c = all[e.at % all.length]!;
    const keys = Object.keys(c);
    if (e.kind === 'add') {
      if (Array.isArray(c)) c.splice(e.to % (c.length + 1), 0, e.value);
      else c[`k${e.to % 7}`] = e.value;
    } else if (keys.length === 0) continue;
    else if (e.kind === 'set' || e.kind === 'remove') {
      const k = keys[e.to % keys.length]!;
      if (Array.isArray(c)) {
        if (e.kind === 'set') c[Number(k)] = e.value;
        else c.splice(Number(k), 1);
      } else if (e.kind === 'set') c[k] = e.value;
      else delete c[k];
    } else if (Array.isArray(c)) {
      // move: an item into another array (or elsewhere in its own)
      const arrays = all.filter((x): x is JsonValue[] => Array.isArray(x) && !containers(c[e.to % c.length]!).includes(x));
      if (arrays.length === 0) continue;
      const [item] = c.splice(e.to % c.length, 1);
      const target = arrays[(e.at + e.to) % arrays.length]!;
      target.splice(e.to % (target.length + 1), 0, item!);
    }
  }
  return root;
}

/** Where a value holds -0, as paths. */
function negativeZeros(v: JsonValue, at = '$'): string[] {
  if (Object.is(v, -0)) return [at];
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(([k, x]) => negativeZeros(x, `${at}[${JSON.stringify(k)}]`));
}

const formatOf = (text: string, texts: LiteralTexts | undefined): TextFormat => ({ ...detectFormat(text), texts: new Map([...(texts ?? [])].map(([k, t]) => [k, [...t]])) });

describe('writeKeepingLayout (property)', () => {
  it('reads back as the edited value; keeps BOM, line ends and final newline; unchanged top-level members keep their text', () => {
    fc.assert(
      fc.property(document, layout, edits, (value, l, list) => {
        const laid = layOut(value, l.seed, l.unit, l.eol, l.bom, l.finalNewline);
        const parsed = parseJson(laid.text);
        expect(same(parsed.value, value)).toBe(true);
        const next = applyEdits(structuredClone(parsed.value), list);
        const format = formatOf(laid.text, parsed.texts);
        const out = writeKeepingLayout(laid.text, parsed.value, next, format, parsed.texts);
        expect(out).not.toBeNull();
        const back = parseJson(out!);
        // Equal but for the sign of zeros: a -0 moved to where no text of it is recorded (another array)
        // is written 0, as formatJson writes it (JSON.stringify has no -0); a -0 is never invented.
        expect(JSON.stringify(back.value)).toBe(JSON.stringify(next));
        const nextZeros = negativeZeros(next);
        for (const at of negativeZeros(back.value)) expect(nextZeros).toContain(at);
        expect(back.hadBom).toBe(l.bom);
        expect(out!.endsWith(l.eol)).toBe(l.finalNewline);
        if (l.eol === '\n') expect(out).not.toContain('\r');
        if (l.eol === '\r') expect(out).not.toContain('\n');
        if (next !== null && typeof next === 'object' && !Array.isArray(next) && !Array.isArray(value) && typeof value === 'object' && value !== null) {
          for (const [k, text] of laid.members) if (Object.prototype.hasOwnProperty.call(next, k) && same((value as Obj)[k]!, next[k]!)) expect(out).toContain(text);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('writes a file with lone-CR line ends as it writes its LF twin, line ends apart (red team s13 #8: inline stays inline)', () => {
    fc.assert(
      fc.property(document, layout, edits, (value, l, list) => {
        const { text } = layOut(value, l.seed, l.unit, '\n', l.bom, l.finalNewline);
        // JSON holds a raw line end only between tokens: the twin differs in its line ends alone.
        const cr = text.replace(/\n/g, '\r');
        const parsed = parseJson(text);
        const next = applyEdits(structuredClone(parsed.value), list);
        const lf = writeKeepingLayout(text, parsed.value, next, formatOf(text, parsed.texts), parsed.texts);
        const crParsed = parseJson(cr);
        const mine = writeKeepingLayout(cr, crParsed.value, structuredClone(next), formatOf(cr, crParsed.texts), crParsed.texts);
        expect(mine).toBe(lf!.replace(/\n/g, '\r'));
      }),
      { numRuns: 500 },
    );
  });

  it('gives back a document it did not edit byte for byte', () => {
    fc.assert(
      fc.property(document, layout, (value, l) => {
        const { text } = layOut(value, l.seed, l.unit, l.eol, l.bom, l.finalNewline);
        const parsed = parseJson(text);
        expect(writeKeepingLayout(text, parsed.value, structuredClone(parsed.value), formatOf(text, parsed.texts), parsed.texts)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('writes a file in our own layout exactly as formatJson does', () => {
    fc.assert(
      fc.property(document, layout, edits, (value, l, list) => {
        const text = formatJson(value, { indent: l.unit, eol: l.eol as TextFormat['eol'], bom: l.bom, finalNewline: l.finalNewline });
        const parsed = parseJson(text);
        const next = applyEdits(structuredClone(parsed.value), list);
        const format = formatOf(text, parsed.texts);
        const mine = writeKeepingLayout(text, parsed.value, next, format, parsed.texts);
        expect(mine).toBe(formatJson(next, format));
      }),
      { numRuns: 500 },
    );
  });

  it('lays out a file in our own layout with odd literal texts (8.0, \\u00e9) as formatJson does, keeping texts it loses', () => {
    // Every string and number written as JSON.stringify writes it: what is left is the layout.
    const canonical = (text: string): string => text.replace(/"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*/g, (t) => (t.startsWith('"') ? JSON.stringify(JSON.parse(t)) : JSON.stringify(Number(t))));
    fc.assert(
      fc.property(document, layout, edits, (value, l, list) => {
        const { text } = layOut(value, l.seed, l.unit, l.eol, l.bom, l.finalNewline, true);
        const parsed = parseJson(text);
        const format = formatOf(text, parsed.texts);
        // Our layout: formatJson gives it back as it is (two spellings of one value in one array it would not).
        fc.pre(formatJson(parsed.value, format) === text);
        const next = applyEdits(structuredClone(parsed.value), list);
        // formatJson loses the text of a literal in an array whose content changed around it (its key names
        // the array's content); the layout writer keeps it, the value being unchanged. Otherwise the same text.
        expect(canonical(writeKeepingLayout(text, parsed.value, next, format, parsed.texts)!)).toBe(canonical(formatJson(next, format)));
      }),
      { numRuns: 500 },
    );
  });
});
