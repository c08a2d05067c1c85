// --help, completion and version go through yargs, built from the same command table.
// Loaded only for those paths, so everyday commands never pay yargs' start-up cost.
import yargs from 'yargs';
import { COMMANDS, GLOBAL_OPTIONS, type CommandSpec, type OptionSpec } from './spec.js';

const EPILOGUE = `Exit codes: 0 ok, 1 findings (invalid checkpoint, doctor warnings with --fail-on-warnings, unresolved merge conflict), 2 bad usage or bad input, 3 resume needs a decision from the user.
Docs: README.md. Protocol: .checkpoints/README.md`;

function addOption(y: ReturnType<typeof yargs>, name: string, o: OptionSpec) {
  return y.option(name, { type: o.type, describe: o.describe, ...(o.short ? { alias: o.short } : {}), ...(o.choices ? { choices: o.choices as string[] } : {}) });
}

function commandString(spec: CommandSpec): string {
  return [spec.name, ...spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}${p.variadic ? '..' : ''}]`))].join(' ');
}

export function buildProgram(argv: string[], version: string) {
  let y = yargs(argv)
    .scriptName('checkpoint')
    .usage('$0 <command> [options]\n\nKeep AI-agent session state in git: .checkpoints/<skill>.checkpoint.json')
    .version(version)
    .strictOptions()
    .recommendCommands()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .epilogue(EPILOGUE)
    // yargs offers a one-letter alias as a long option (`--C`), which no command takes: left out.
    .completion('completion', 'print a shell completion script for both names: checkpoint-protocol completion bash >> ~/.bashrc (or zsh >> ~/.zshrc)', (_current: string, _argv: unknown, defaults: (done: (err: Error | null, words: string[] | undefined) => void) => void, done: (words: string[]) => void) => {
      defaults((_err, words) => done((words ?? []).filter((w) => !/^--.(?::|$)/.test(w))));
    });
  for (const [name, o] of Object.entries(GLOBAL_OPTIONS)) if (name !== 'help' && name !== 'no-color') y = addOption(y, name, o);
  for (const spec of COMMANDS) {
    y = y.command(
      commandString(spec),
      spec.describe,
      (cy) => {
        let c = cy;
        for (const p of spec.positionals) c = c.positional(p.name, { describe: p.describe, type: 'string', ...(p.variadic ? { array: true } : {}) });
        for (const [name, o] of Object.entries(spec.options)) c = addOption(c, name, o);
        for (const [cmd, desc] of spec.examples) c = c.example(`# ${desc}\n${cmd}`, '');
        if (spec.takesOps) c = c.epilogue('Operators: --a.b=text (replace), --list+=text (append; recently_done: in front, newest first), --a.b:json=\'<json>\' (typed; objects merge into objects), combined: --list+:json=\'<json>\'.\nText over a number or boolean keeps the type when it reads as one (--score=9 over 8.0 writes 9).\nSegments __proto__, prototype and constructor are refused.');
        return c;
      },
    );
  }
  for (const spec of COMMANDS.slice(0, 4)) for (const [cmd, desc] of spec.examples.slice(0, 1)) y = y.example(cmd, desc);
  return y.help('help').alias('help', 'h');
}

/** Prints help (general, or for one command) or a completion script; returns the exit code. */
export async function runYargs(argv: string[], version: string): Promise<number> {
  let code = 0;
  await buildProgram(argv, version)
    .fail((msg) => {
      process.stderr.write(`checkpoint: ${msg}\n`);
      code = 2;
    })
    .exitProcess(false)
    .parseAsync();
  return code;
}
