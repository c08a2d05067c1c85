// Formatting of a checkpoint file, detected on read and reproduced on write, so a
// rewrite (update, merge, rotate) changes only the lines whose data changed.

export interface TextFormat {
  /** Indent unit ("  ", "    ", "\t"), or "" for single-line JSON. */
  indent: string;
  eol: '\n' | '\r\n';
  finalNewline: boolean;
  bom: boolean;
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
  let out = JSON.stringify(value, null, format.indent || undefined);
  if (format.eol === '\r\n') out = out.replace(/\n/g, '\r\n');
  if (format.finalNewline) out += format.eol;
  return (format.bom ? '\uFEFF' : '') + out;
}
