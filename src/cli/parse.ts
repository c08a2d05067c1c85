// Fast argument parsing from the command table with node:util parseArgs (no load cost on
// the hot commands). Mistakes become one-line usage errors (exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CheckpointError } from '../errors.js';
import { quoted, shown } from '../one-line.js';
import { GLOBAL_OPTIONS, type CommandSpec, type OptionSpec, type ParsedArgs } from './spec.js';

function toConfig(options: Record<string, OptionSpec>): NonNullable<ParseArgsConfig['options']> {
  const out: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, o] of Object.entries(options)) {
    out[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  }
  return out;
}

/**
 * Splits update's `--path=value` operations from real options. `lead`: how many of `args` were
 * given before the command (`checkpoint --dir=../api update …`), options only, as with git.
 */
function splitOps(spec: CommandSpec, args: string[], lead: number): { rest: string[]; ops: string[] } {
  if (!spec.takesOps) return { rest: args, ops: [] };
  const options: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS, ...spec.options };
  const rest: string[] = [];
  const ops: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = /^--([^=]+)/.exec(a)?.[1];
    // After the command every `--name=value` is a field, as `--path=value` always is: a boolean
    // option takes no value (`--json=x`), and the folder goes as `-C <dir>` or `--dir <dir>`, so
    // `--dir=build` over a checkpoint's own "dir" never moves the command to another project.
    const isOption = i < lead || (name !== undefined && Object.hasOwn(options, name) && !a.includes('='));
    if (a === '--' || !name || isOption) {
      rest.push(a);
      // Its folder goes with it; none after it is left for parseArgs to refuse ("argument missing"),
      // as every other command does, rather than run in the current folder as if -C '' was given.
      if ((a === '-C' || a === '--dir') && i + 1 < args.length) rest.push(args[++i]!);
      continue;
    }
    ops.push(a);
  }
  return { rest, ops };
}

/** `--online` alone becomes `--online=` for options whose value is optional. */
function fillOptionalValues(spec: CommandSpec, args: string[]): string[] {
  const optional = new Set(Object.entries(spec.options).filter(([, o]) => o.optionalValue).map(([n]) => `--${n}`));
  return optional.size ? args.map((a) => (optional.has(a) ? `${a}=` : a)) : args;
}

/**
 * What parseArgs gives for the common command line: positionals and plain `--flag` booleans
 * only (`checkpoint status`, `next --json`). Anything else (a value, a short or unknown option,
 * `--`) is left to parseArgs: null. Saves loading node's parseArgs on the hot read commands.
 */
export function parseSimple(spec: CommandSpec, args: readonly string[]): { positionals: string[]; values: Record<string, true> } | null {
  const positionals: string[] = [];
  const values: Record<string, true> = Object.create(null) as Record<string, true>; // as parseArgs gives it
  for (const a of args) {
    if (!a.startsWith('-')) {
      positionals.push(a);
      continue;
    }
    const name = a.slice(2);
    const o = a.startsWith('--') ? (Object.hasOwn(spec.options, name) ? spec.options[name] : Object.hasOwn(GLOBAL_OPTIONS, name) ? GLOBAL_OPTIONS[name] : undefined) : undefined;
    if (!o || o.type !== 'boolean' || o.multiple || name.includes('=')) return null;
    values[name] = true;
  }
  return { positionals, values };
}

/** `lead`: how many of `args` came before the command's name (global options, hoisted after it). */
export function parseCommandArgs(spec: CommandSpec, args: string[], lead = 0): ParsedArgs {
  const { rest, ops } = splitOps(spec, fillOptionalValues(spec, args), lead);
  let parsed;
  try {
    parsed = parseSimple(spec, rest) ?? parseArgs({ args: rest, options: toConfig({ ...GLOBAL_OPTIONS, ...spec.options }), allowPositionals: true, strict: true });
  } catch (e) {
    // node's messages run over several lines and sentences; keep the first, as one line.
    const raw = shownArgs((e as Error).message, rest);
    const msg = raw.split(/\n|\. To specify/)[0]!.replace(/\.$/, '').replace(/^(Unknown option|Option)\b/, (m) => m.toLowerCase());
    const dashed = /use '(--[^=']+=)-XYZ'/.exec(raw)?.[1];
    throw new CheckpointError('E_USAGE', `checkpoint ${spec.name}: ${msg}`, {
      hint: dashed ? `a value that starts with "-" needs the = form: ${dashed}'<value>'` : `see \`checkpoint ${spec.name} --help\``,
    });
  }
  const positionals = parsed.positionals;
  const options = parsed.values as ParsedArgs['options'];
  if (options.help) return { positionals, options, ops };
  const required = spec.positionals.filter((p) => p.required).length;
  const variadic = spec.positionals.some((p) => p.variadic);
  if (positionals.length < required) {
    const missing = spec.positionals[positionals.length]!;
    throw new CheckpointError('E_USAGE', `checkpoint ${spec.name}: missing <${missing.name}>`, { hint: `usage: ${usageLine(spec)}` });
  }
  if (!variadic && positionals.length > spec.positionals.length) {
    throw new CheckpointError('E_USAGE', `checkpoint ${spec.name}: unexpected argument ${quoted(positionals[spec.positionals.length]!)}`, { hint: `usage: ${usageLine(spec)}` });
  }
  for (const [name, o] of Object.entries(spec.options)) {
    const v = options[name];
    if (o.choices && typeof v === 'string' && !o.choices.includes(v)) {
      throw new CheckpointError('E_USAGE', `checkpoint ${spec.name}: --${name} must be one of ${o.choices.join(', ')}`, { hint: `e.g. checkpoint ${spec.name} --${name}=${o.choices[0]}` });
    }
  }
  return { positionals, options, ops };
}

/**
 * node's message with the arguments it quotes as typed (`--a\nb`, `-\x1b`, 10 kB of name) shown
 * escaped and bounded: a newline in one would otherwise cut the message where node's own lines end.
 */
function shownArgs(message: string, args: readonly string[]): string {
  const pieces = new Set<string>();
  for (const a of args) {
    const shorts = a.startsWith('-') && !a.startsWith('--') ? [...a.slice(1)].map((c) => `-${c}`) : [];
    for (const p of [a, a.split('=')[0]!, ...shorts]) if (p !== shown(p)) pieces.add(p);
  }
  let out = message;
  // Longest first: a shorter piece (the name before "=") never matches inside a replaced longer one.
  for (const p of [...pieces].sort((x, y) => y.length - x.length)) out = out.split(p).join(shown(p));
  return out;
}

export function usageLine(spec: CommandSpec): string {
  const pos = spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}${p.variadic ? '...' : ''}]`));
  return ['checkpoint', spec.name, ...pos, spec.takesOps ? '--path=value...' : '', '[options]'].filter(Boolean).join(' ');
}

/** Edit distance, for "did you mean" on an unknown command: the protocol's, which field names use too. */
export { closest } from '../protocol/field-slip.js';
