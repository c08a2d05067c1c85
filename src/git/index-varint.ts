// The one variable-length integer git's index format uses: the prefix length of a v4 entry's name.

/** git's varint in index v4 names (each continuation byte adds one before shifting); null when cut short or past 2^31. */
export function readVarint(buf: Buffer, at: number, end: number): { value: number; next: number } | null {
  if (at >= end) return null;
  let byte = buf[at++]!;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    if (at >= end || value > 0xffffff) return null;
    byte = buf[at++]!;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: at };
}
