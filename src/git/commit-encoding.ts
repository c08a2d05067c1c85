// A commit message's text as `git log` prints it (i18n.logOutputEncoding=UTF-8): re-encoded
// from the commit's `encoding` header when that encoding is known, else the raw bytes, which
// are then read as UTF-8 (U+FFFD for invalid bytes), as the native engine reads git's output.

/** iconv's ISO-8859-1 names: WHATWG's TextDecoder reads these as windows-1252 (0x80-0x9f differ). */
const LATIN1 = /^(iso[-_]?8859-?1(:1987)?|latin-?1|l1|cp819|ibm819|iso-ir-100|csisolatin1)$/i;
/** Names git treats as UTF-8 (no re-encoding). */
const UTF8 = /^utf-?8$/i;

/** `body`'s bytes as text, decoded from `encoding` (the header's value; undefined without one). */
export function decodeCommitText(body: Buffer, encoding: string | undefined): string {
  const name = encoding?.trim() ?? '';
  if (!name || UTF8.test(name)) return body.toString('utf8');
  if (LATIN1.test(name)) return body.toString('latin1');
  try {
    // fatal: git's iconv fails on a byte the encoding lacks, and git then prints the raw bytes.
    return new TextDecoder(name, { fatal: true }).decode(body);
  } catch {
    return body.toString('utf8');
  }
}
