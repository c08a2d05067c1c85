// Formatting of a checkpoint file, detected on read and reproduced on write, so a
// rewrite (update, merge, rotate) changes only the lines whose data changed.

import { numberKey, POSITION_ROOT, positionKey, type NumberTexts } from './json.js';
import type { JsonValue } from './types.js';

export interface TextFormat {
  /** Indent unit ("  ", "    ", "\t"), or "" for single-line JSON. */
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
  bom: boolean;
  /** Source texts of numbers a plain rewrite would change (from parseJson): written back where the value is unchanged. */
  numbers?: NumberTexts;
}

export const DEFAULT_FORMAT: TextFormat = { indent: '  ', eol: '\n', finalNewline: true, bom: false };

export function detectFormat(text: string): TextFormat {
  const bom = text.charCodeAt(0) === 0xfeff;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const finalNewline = /\r?\n$/.test(text);
  // The first indented line that opens a key or value gives the unit.
  const m = /\n([ \t]+)\S/.exec(text);
  const indent = m ? (m[1]!.startsWith('\t') ? '\t' : m[1]!) : text.trim().includes('\n') ? '  ' : '';
  return { indent, eol, finalNewline, bom };
}

export function formatJson(value: unknown, format: TextFormat = DEFAULT_FORMAT): string {
  let out = format.numbers?.size ? stringifyKeepingNumbers(value as JsonValue, format.indent, format.numbers) : JSON.stringify(value, null, format.indent || undefined);
  if (format.eol === '\r\n') out = out.replace(/\n/g, '\r\n');
  if (format.finalNewline) out += format.eol;
  return (format.bom ? '\uFEFF' : '') + out;
}

/**
 * JSON.stringify, but a number whose key (numberKey, below `rootKey`: where `value` stands) has a recorded source text that still
 * denotes the same value is written as that text (`8.0`, `12345678901234567890`, `1e-400`); failing that, the text recorded at
 * its position (positionKey below `rootPosition`; null: position unknown), if it denotes the same value.
 * The replacer swaps such numbers for placeholder strings, replaced by the texts afterwards;
 * the placeholder's marker is chosen so that no string in the document contains it.
 */
export function stringifyKeepingNumbers(value: JsonValue, indent: string, numbers: NumberTexts, rootKey = '', rootPosition: string | null = POSITION_ROOT): string {
  const plain = JSON.stringify(value);
  let marker = '~#n';
  while (plain.includes(marker)) marker += '#';
  const keys = new WeakMap<object, string>();
  const positions = new WeakMap<object, string | null>();
  const texts: string[] = [];
  const out = JSON.stringify(
    value,
    function (this: unknown, key: string, v: JsonValue) {
      const holder = this as object;
      const parentKey = keys.get(holder);
      const own = parentKey === undefined ? rootKey : numberKey(parentKey, Array.isArray(holder), Array.isArray(holder) ? v : key);
      const parentPosition = positions.get(holder);
      const position = parentKey === undefined ? rootPosition : parentPosition == null ? null : positionKey(parentPosition, Array.isArray(holder) ? Number(key) : key);
      if (v !== null && typeof v === 'object') {
        keys.set(v, own);
        positions.set(v, position);
      } else if (typeof v === 'number') {
        const text = recordedText(numbers, own, position, v);
        if (text !== undefined) {
          texts.push(text);
          return `${marker}${texts.length - 1}${marker}`;
        }
      }
      return v;
    },
    indent || undefined,
  );
  return out.replace(new RegExp(`"${marker}(\\d+)${marker}"`, 'g'), (_, k: string) => texts[Number(k)]!);
}

/** The recorded source text a writer gives the number `v` standing at `key` (else at `position`): one that still denotes `v`. */
export function recordedText(numbers: NumberTexts | undefined, key: string, position: string | null, v: number): string | undefined {
  const same = (t: string): boolean => Object.is(Number(t), v);
  return numbers?.get(key)?.find(same) ?? (position === null ? undefined : numbers?.get(position)?.find(same));
}
