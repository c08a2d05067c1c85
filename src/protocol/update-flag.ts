// Where an update flag's path ends: `--path=value`, `--list+=value`, `--a:json=<json>`,
// `--list+:json=<json>`. The CLI's flags and the MCP tool's paths are both read here, so a path
// one accepts is the path the other writes.

export interface FlagParts {
  /** The path as typed, before any operator. */
  path: string;
  plus: boolean;
  json: boolean;
  /** Everything after the "=": the value as typed. */
  value: string;
}

/**
 * The first "=" outside a bracketed key (`a["mode=fast"]`, a JSON string, `\"` and all): a key
 * may hold "=", which conflicts print in that form. Where brackets or quotes never close, the
 * first "=" anywhere, so the path parser names the bad path rather than "expected --path=value".
 */
function valueStart(body: string): number {
  let inBracket = false;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (inBracket) {
      if (c === '"') inString = true;
      else if (c === ']') inBracket = false;
    } else if (c === '[') inBracket = true;
    else if (c === '=') return i;
  }
  return body.indexOf('=');
}

/** `--path[+][:json]=value` split at the "=" that ends the path; null when it holds none (or no path). */
export function splitUpdateFlag(flag: string): FlagParts | null {
  if (!flag.startsWith('--')) return null;
  const body = flag.slice(2);
  const eq = valueStart(body);
  if (eq <= 0) return null;
  const head = /^([\s\S]+?)(\+)?(:json)?$/.exec(body.slice(0, eq))!;
  return { path: head[1]!, plus: head[2] !== undefined, json: head[3] !== undefined, value: body.slice(eq + 1) };
}

/** Whether `path`, written into a flag (`--<path>=…`), comes back out as the same path with no operator: the MCP tool's paths. */
export function pathRoundTrips(path: string): boolean {
  const parts = splitUpdateFlag(`--${path}=`);
  return parts !== null && parts.path === path && !parts.plus && !parts.json && parts.value === '';
}
