// JSON paths as messages show them.

/** `a.b[2].c`-style display path; keys that are not identifiers are quoted. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const seg = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return base ? `${base}.${seg}` : seg;
}
