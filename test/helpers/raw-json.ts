// The source text of values in a JSON document, blanks outside strings taken out: what a test
// compares to say a value kept its exact text (`8.0`, `-0`, `1E2`, `"Caf\u00e9"`) wherever a
// command put it. A small scanner of its own (the code under test must not check itself).

/** The compact source text of the value at `path` in `text`, or undefined when there is none. */
export function rawAt(text: string, path: ReadonlyArray<string | number>): string | undefined {
  let node: Raw | undefined = scanRaw(text);
  for (const seg of path) {
    if (node === undefined || node.kind === 'scalar') return undefined;
    node = typeof seg === 'number' ? (node.kind === 'array' ? node.items[seg] : undefined) : node.kind === 'object' ? node.members.find((m) => m.name === seg)?.value : undefined;
  }
  return node?.text;
}

/** The compact source texts of the items of the array at `path` (empty when there is none). */
export function rawItems(text: string, path: ReadonlyArray<string | number>): string[] {
  let node: Raw | undefined = scanRaw(text);
  for (const seg of path) {
    if (node === undefined || node.kind === 'scalar') return [];
    node = typeof seg === 'number' ? (node.kind === 'array' ? node.items[seg] : undefined) : node.kind === 'object' ? node.members.find((m) => m.name === seg)?.value : undefined;
  }
  return node?.kind === 'array' ? node.items.map((i) => i.text) : [];
}

/** Every number literal in `text` as written, in order (strings skipped). */
export function numberTexts(text: string): string[] {
  return [...text.matchAll(/"(?:[^"\\]|\\.)*"|(-?\d[\d.eE+-]*)/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]));
}

type Raw =
  | { kind: 'scalar'; text: string }
  | { kind: 'array'; text: string; items: Raw[] }
  | { kind: 'object'; text: string; members: Array<{ name: string; value: Raw }> };

function scanRaw(source: string): Raw {
  let i = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  const blanks = () => {
    while (i < source.length && ' \t\r\n'.includes(source[i]!)) i++;
  };
  const string = (): string => {
    const from = i;
    for (i++; source[i] !== '"'; i++) if (source[i] === '\\') i++;
    i++;
    return source.slice(from, i);
  };
  const value = (): Raw => {
    blanks();
    const c = source[i];
    if (c === '"') return { kind: 'scalar', text: string() };
    if (c !== '[' && c !== '{') {
      const m = /^[^\s,\]}]+/.exec(source.slice(i))!;
      i += m[0].length;
      return { kind: 'scalar', text: m[0] };
    }
    i++;
    blanks();
    if (c === '[') {
      const items: Raw[] = [];
      if (source[i] === ']') i++;
      else
        for (;;) {
          items.push(value());
          blanks();
          if (source[i++] === ']') break;
        }
      return { kind: 'array', items, text: `[${items.map((x) => x.text).join(',')}]` };
    }
    const members: Array<{ name: string; value: Raw; key: string }> = [];
    if (source[i] === '}') i++;
    else
      for (;;) {
        blanks();
        const key = string();
        blanks();
        i++; // ':'
        members.push({ key, name: JSON.parse(key) as string, value: value() });
        blanks();
        if (source[i++] === '}') break;
      }
    return { kind: 'object', members, text: `{${members.map((m) => `${m.key}:${m.value.text}`).join(',')}}` };
  };
  return value();
}
