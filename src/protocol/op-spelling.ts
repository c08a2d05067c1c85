// How an update's messages name an op, and the op a hint says to send instead: as the flags of
// `checkpoint update` for the CLI, as the update tool's `ops` for an MCP caller, who never typed a
// flag and would have to translate `--next_actions+:json=…` back into its own call. So are the
// other options a refusal names (`--max-chars`, the resume tool's `max_chars`).
import { shown } from '../one-line.js';
import { pasteArg, shellQuote } from '../shell-words.js';

export interface OpSpelling {
  readonly caller: 'cli' | 'mcp';
  /** The op as it was given, heading its message: the flag as typed, or `ops[1] (append to "next_actions")`. */
  given(flag: string, index: number, path: string, mode: 'set' | 'append'): string;
  /**
   * An op to send instead. `value` is JSON text (`[8]`), or with `text` a value to write as text
   * as it stands (a placeholder such as `<phase>` the reader replaces, or `…`).
   */
  op(path: string, mode: 'set' | 'append', value: string, as?: 'json' | 'text'): string;
  /** update's option that writes a near-miss field on purpose. */
  readonly allowNewField: string;
  /**
   * A command's option named as the caller gives it: `--max-chars` on the command line, the
   * tool's argument `max_chars` (the option with `_`, as src/mcp/tools.ts maps them) over MCP.
   */
  option(name: string): string;
  /**
   * A whole call to make: `checkpoint done api --landed --complete` on the command line, `the done
   * tool with {"skill": "api", "landed": true, "complete": true}` over MCP (mcpCall).
   */
  call(command: string, skill?: string, ops?: readonly CallOp[], args?: Record<string, string | true>): string;
}

type CallOp = readonly [path: string, mode: 'set' | 'append', value: string, as?: 'json' | 'text'];

export const CLI_SPELLING: OpSpelling = {
  caller: 'cli',
  given: (flag) => shown(flag),
  op: (path, mode, value, as = 'json') => {
    const head = `--${path}${mode === 'append' ? '+' : ''}`;
    return as === 'json' ? pasteArg(`${head}:json=${value}`) : `${head}=${value}`;
  },
  allowNewField: '--allow-new-field',
  option: (name) => `--${name}`,
  call: (command, skill, ops = [], args = {}) =>
    ['checkpoint', command, ...(skill === undefined ? [] : [skill]), ...ops.map(([p, m, v, as = 'text']) => (as === 'text' ? `--${p}${m === 'append' ? '+' : ''}=${shellQuote(v)}` : CLI_SPELLING.op(p, m, v, as))), ...Object.entries(args).map(([k, v]) => (v === true ? `--${k}` : pasteArg(`--${k}=${v}`)))].join(' '),
};

/**
 * A refusal's hint (CheckpointError options) written once for both callers: `hint` spelled for
 * the command line, `hintFor` for the MCP server to spell it as its tools take it.
 */
export function spelledHint(hint: (spelling: OpSpelling) => string): { hint: string; hintFor: (spelling: OpSpelling) => string } {
  return { hint: hint(CLI_SPELLING), hintFor: hint };
}

/**
 * A whole call a hint names, as an MCP caller makes it: `the done tool with {"skill": "api",
 * "complete": true}`. `ops`: update ops (path, mode, value written as text, or as JSON with
 * 'json'); `args`: other arguments by their CLI option names (true for a flag). The CLI's hints
 * name the command as typed.
 */
export function mcpCall(tool: string, skill: string | undefined, ops: readonly CallOp[], args: Record<string, string | true> = {}): string {
  const parts = [...(skill === undefined ? [] : [`"skill": ${JSON.stringify(skill)}`]), ...(ops.length ? [`"ops": [${ops.map(([p, m, v, as = 'text']) => MCP_SPELLING.op(p, m, v, as)).join(', ')}]`] : []), ...Object.entries(args).map(([k, v]) => `"${MCP_SPELLING.option(k)}": ${v === true ? 'true' : JSON.stringify(v)}`)];
  return `the ${tool} tool with {${parts.join(', ')}}`;
}

export const MCP_SPELLING: OpSpelling = {
  caller: 'mcp',
  given: (_flag, index, path, mode) => `ops[${index}] (${mode === 'append' ? 'append to' : 'set'} ${shown(JSON.stringify(path))})`,
  op: (path, mode, value, as = 'json') =>
    `{"path": ${JSON.stringify(path)}, ${mode === 'append' ? '"op": "append", ' : ''}"value": ${as === 'json' ? value : JSON.stringify(value)}}`,
  allowNewField: '"allow_new_field": true',
  option: (name) => name.replace(/-/g, '_'),
  call: (command, skill, ops = [], args = {}) => mcpCall(command, skill, ops, args),
};
