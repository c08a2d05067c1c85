// Whether a lefthook config runs checkpoint's hook on push: only a command under the top-level
// `pre-push:` (its `commands:` map or `jobs:` list, groups too) with `use_stdin: true` does; one
// in a comment never runs, one under another hook runs at the wrong time, and one without
// use_stdin gets no pushed refs and checks nothing. Read from the text with small readers for the
// shapes lefthook configs take (YAML block and flow style, JSON/JSONC, TOML tables), no library.
import { extname } from 'node:path';

export type LefthookState = 'runs' | 'not-pre-push' | 'no-stdin' | null;

type Value = string | boolean | Value[] | { [k: string]: Value } | null;
type Entry = { run: string; stdin: boolean };

/** What `text` (the config at `file`) does with the hook at `hookPath`; null: it never names it. */
export function lefthookState(file: string, text: string, hookPath: string): LefthookState {
  let config: Value;
  try {
    const ext = extname(file);
    config = ext === '.json' || ext === '.jsonc' ? JSON.parse(stripJsonc(text)) : ext === '.toml' ? readToml(text) : readYaml(text);
  } catch {
    return null;
  }
  if (!isMap(config)) return null;
  const named = (hook: Value) => entries(hook).filter((e) => e.run.includes(hookPath));
  const prePush = named(config['pre-push'] ?? null);
  if (prePush.some((e) => e.stdin)) return 'runs';
  if (prePush.length) return 'no-stdin';
  return Object.entries(config).some(([k, v]) => k !== 'pre-push' && named(v).length) ? 'not-pre-push' : null;
}

const isMap = (v: Value | undefined): v is { [k: string]: Value } => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A hook's commands (a map) and jobs (a list, a group's own jobs within), each with its run and use_stdin. */
function entries(hook: Value | undefined): Entry[] {
  if (!isMap(hook)) return [];
  const one = (v: Value | undefined): Entry[] => {
    if (v === undefined) return [];
    if (!isMap(v)) return [];
    const own = typeof v.run === 'string' ? [{ run: v.run, stdin: v.use_stdin === true || v.use_stdin === 'true' }] : [];
    return [...own, ...(isMap(v.group) && Array.isArray(v.group.jobs) ? v.group.jobs.flatMap(one) : [])];
  };
  const commands = isMap(hook.commands) ? Object.values(hook.commands).flatMap(one) : [];
  const jobs = Array.isArray(hook.jobs) ? hook.jobs.flatMap(one) : [];
  return [...commands, ...jobs];
}

/** JSONC as JSON: comments and trailing commas out, strings as they are. */
function stripJsonc(text: string): string {
  return text
    .replace(/"(?:[^"\\]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) => (m.startsWith('"') ? m : ''))
    .replace(/"(?:[^"\\]|\\.)*"|,(\s*[}\]])/g, (m, end: string | undefined) => (end === undefined ? m : end));
}

/** A line without its comment: a `#` at its start or after a space, outside quotes. */
function uncomment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

/** A scalar or flow collection as YAML and TOML write them (quoted, plain, `{ k: v }`, `[a, b]`). */
function readFlow(src: string, sep: ':' | '='): Value {
  let i = 0;
  const ws = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const scalar = (stops: string): Value => {
    ws();
    const q = src[i];
    if (q === '"' || q === "'") {
      let out = '';
      for (i++; i < src.length && src[i] !== q; i++) {
        if (q === '"' && src[i] === '\\') out += JSON.parse(`"\\${src[++i]}"`);
        else if (q === "'" && src[i] === "'" && src[i + 1] === "'") out += src[i++];
        else out += src[i];
      }
      i++;
      return out;
    }
    const start = i;
    while (i < src.length && !stops.includes(src[i]!)) i++;
    const s = src.slice(start, i).trim();
    return s === 'true' ? true : s === 'false' ? false : s;
  };
  const value = (stops: string): Value => {
    ws();
    if (src[i] === '{') {
      const map: { [k: string]: Value } = {};
      for (i++, ws(); src[i] !== '}'; ws()) {
        if (i >= src.length) throw new Error('unclosed');
        const key = String(scalar(`${sep},}`));
        ws();
        if (src[i] === sep) i++;
        map[key] = value(',}');
        ws();
        if (src[i] === ',') i++;
      }
      i++;
      return map;
    }
    if (src[i] === '[') {
      const list: Value[] = [];
      for (i++, ws(); src[i] !== ']'; ws()) {
        if (i >= src.length) throw new Error('unclosed');
        list.push(value(',]'));
        ws();
        if (src[i] === ',') i++;
      }
      i++;
      return list;
    }
    return scalar(stops);
  };
  return value('');
}

/** Where a YAML block line's key ends (`key:` then a space or the line's end), or -1. */
function keyEnd(s: string): number {
  const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s{["'#][^:]*?):(?:\s|$)/.exec(s);
  return m ? m[1]!.length : -1;
}

/** The YAML subset lefthook configs use: block maps and lists, flow collections, scalars, block scalars. */
function readYaml(text: string): Value {
  const lines: { indent: number; text: string }[] = [];
  const raw = text.split(/\r?\n/);
  for (let n = 0; n < raw.length; n++) {
    const line = raw[n]!;
    const body = uncomment(line);
    if (!body.trim() || body.trim() === '---') continue;
    const indent = line.length - line.trimStart().length;
    // A block scalar (`run: |`): its more-indented lines are its text, comments and all.
    if (/:\s*[|>][-+]?\d*$/.test(body)) {
      const more: string[] = [];
      while (n + 1 < raw.length && (!raw[n + 1]!.trim() || raw[n + 1]!.length - raw[n + 1]!.trimStart().length > indent)) more.push(raw[++n]!.trim());
      lines.push({ indent, text: body.trim().replace(/[|>][-+]?\d*$/, () => JSON.stringify(more.join('\n'))) });
    } else lines.push({ indent, text: body.trim() });
  }
  let at = 0;
  const block = (indent: number): Value => {
    const first = lines[at];
    if (first === undefined || first.indent < indent) return null;
    if (first.text.startsWith('- ') || first.text === '-') {
      const list: Value[] = [];
      const col = first.indent;
      while (at < lines.length && lines[at]!.indent === col && (lines[at]!.text.startsWith('- ') || lines[at]!.text === '-')) {
        const line = lines[at]!;
        const rest = line.text.slice(1).trimStart();
        if (!rest) {
          at++;
          list.push(block(col + 1));
        } else {
          // `- key: value`: the item is a map whose keys sit where `key` does.
          line.indent = col + (line.text.length - rest.length);
          line.text = rest;
          list.push(keyEnd(rest) >= 0 ? block(line.indent) : (at++, readFlow(rest, ':')));
        }
      }
      return list;
    }
    if (keyEnd(first.text) < 0) {
      at++;
      return readFlow(first.text, ':');
    }
    const map: { [k: string]: Value } = {};
    const col = first.indent;
    while (at < lines.length && lines[at]!.indent === col) {
      const line = lines[at]!;
      const end = keyEnd(line.text);
      if (end < 0) throw new Error('not a key');
      const key = String(readFlow(line.text.slice(0, end), ':'));
      const rest = line.text.slice(end + 1).trim();
      at++;
      if (rest) {
        // A flow collection may go on over the lines below it.
        let src = rest;
        while (/^[{[]/.test(rest) && unbalanced(src) && at < lines.length) src += ` ${lines[at++]!.text}`;
        map[key] = readFlow(src, ':');
      } else map[key] = at < lines.length && lines[at]!.indent > col ? block(lines[at]!.indent) : at < lines.length && lines[at]!.indent === col && lines[at]!.text.startsWith('-') ? block(col) : null;
    }
    return map;
  };
  const root = block(0);
  if (at < lines.length) throw new Error('not read to its end');
  return root;
}

function unbalanced(src: string): boolean {
  const open = (src.match(/[{[]/g) ?? []).length;
  const close = (src.match(/[}\]]/g) ?? []).length;
  return open > close;
}

/** The TOML lefthook configs use: [tables], [[arrays of tables]], key = scalar or inline table. */
function readToml(text: string): Value {
  const root: { [k: string]: Value } = {};
  let table = root;
  const path = (keys: string[], from: { [k: string]: Value }) => {
    let t = from;
    for (const k of keys) {
      let next = t[k] ?? null;
      if (Array.isArray(next)) next = next.at(-1) ?? null;
      if (!isMap(next)) t[k] = next = {};
      t = next as { [k: string]: Value };
    }
    return t;
  };
  const keysOf = (s: string) => s.split('.').map((k) => String(readFlow(k, '=')));
  for (const raw of text.split(/\r?\n/)) {
    const line = uncomment(raw).trim();
    if (!line) continue;
    let m: RegExpExecArray | null;
    if ((m = /^\[\[(.+)\]\]$/.exec(line))) {
      const keys = keysOf(m[1]!);
      const parent = path(keys.slice(0, -1), root);
      const last = keys.at(-1)!;
      const list = Array.isArray(parent[last]) ? (parent[last] as Value[]) : (parent[last] = []);
      const item = {};
      list.push(item);
      table = item;
    } else if ((m = /^\[(.+)\]$/.exec(line))) table = path(keysOf(m[1]!), root);
    else if ((m = /^([^=]+)=(.*)$/.exec(line))) {
      const keys = keysOf(m[1]!.trim());
      path(keys.slice(0, -1), table)[keys.at(-1)!] = readFlow(m[2]!.trim(), '=');
    } else throw new Error('not TOML lefthook reads');
  }
  return root;
}
