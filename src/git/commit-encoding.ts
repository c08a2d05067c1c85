// A commit message's text as `git log` prints it (i18n.logOutputEncoding=UTF-8): re-encoded
// from the commit's `encoding` header when that encoding is known, else the raw bytes, which
// are then read as UTF-8 (U+FFFD for invalid bytes), as the native engine reads git's output.

/** iconv's ISO-8859-1 names: WHATWG's TextDecoder reads these as windows-1252 (0x80-0x9f differ). */
const LATIN1 = /^(iso[-_]?8859-?1(:1987)?|latin-?1|l1|cp819|ibm819|iso-ir-100|csisolatin1)$/i;
/**
 * Names git treats as UTF-8 (no re-encoding), and ASCII's (which WHATWG also reads as
 * windows-1252): iconv fails on any byte past 0x7f, so git prints the bytes as they are.
 */
const UTF8 = /^(utf-?8|(us-)?ascii|ansi_x3\.4-1968)$/i;
/** WHATWG's single-byte encodings: decoded through a byte table, checked against iconv's. */
const SINGLE_BYTE = /^(ibm866|iso-8859-\d+|koi8-[ru]|macintosh|windows-\d+|x-mac-cyrillic)$/;
/**
 * CP1252's 0x80-0x9f as iconv maps them (-1 where it has no character). Node's decoder drops
 * these bytes, so they are mapped here.
 */
const CP1252_HIGH = [
  0x20ac, -1, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, -1, 0x017d, -1,
  -1, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, -1, 0x017e, 0x0178,
];

/** `body`'s bytes as text, decoded from `encoding` (the header's value; undefined without one). */
export function decodeCommitText(body: Buffer, encoding: string | undefined): string {
  const name = encoding?.trim() ?? '';
  if (!name || UTF8.test(name)) return body.toString('utf8');
  if (LATIN1.test(name)) return body.toString('latin1');
  try {
    // fatal: git's iconv fails on a byte the encoding lacks, and git then prints the raw bytes.
    const decoder = new TextDecoder(name, { fatal: true });
    if (!SINGLE_BYTE.test(decoder.encoding)) return decoder.decode(body);
    const table = byteTable(decoder.encoding);
    let text = '';
    for (const byte of body) {
      const ch = table[byte];
      if (ch === null) return body.toString('utf8');
      text += ch;
    }
    return text;
  } catch {
    return body.toString('utf8');
  }
}

const tables = new Map<string, (string | null)[]>();

/**
 * Each byte's character as iconv decodes it (null: none, so git prints the raw bytes). Node's
 * decoder drops the C1 bytes ISO-8859-x maps to themselves, and WHATWG fills the windows code
 * pages' unassigned bytes with C1 controls that iconv rejects.
 */
function byteTable(encoding: string): (string | null)[] {
  let table = tables.get(encoding);
  if (table) return table;
  table = Array.from({ length: 256 }, (_, byte) => {
    const c1 = byte >= 0x80 && byte < 0xa0;
    if (encoding === 'windows-1252' && c1) return CP1252_HIGH[byte - 0x80]! < 0 ? null : String.fromCharCode(CP1252_HIGH[byte - 0x80]!);
    if (encoding.startsWith('iso-8859-') && c1) return String.fromCharCode(byte);
    let ch: string;
    try {
      ch = new TextDecoder(encoding, { fatal: true }).decode(Uint8Array.of(byte));
    } catch {
      return null;
    }
    return ch === '' || /^[\u0080-\u009f]$/.test(ch) ? null : ch;
  });
  tables.set(encoding, table);
  return table;
}
