// The command table: one declaration per command, read by the fast argument parser
// (node:util parseArgs, no load cost) and by the yargs program that renders --help and
// shell completion (loaded only for those). Handlers are lazy-imported modules.
import type { Output } from './render/output.js';

export interface OptionSpec {
  type: 'boolean' | 'string';
  short?: string;
  describe: string;
  multiple?: boolean;
  choices?: readonly string[];
}

export interface PositionalSpec {
  name: string;
  describe: string;
  required?: boolean;
  variadic?: boolean;
}

export interface Context {
  cwd: string;
  /** -C value, when given. */
  dirOverride?: string;
  json: boolean;
  now: Date;
  out: Output;
  env: NodeJS.ProcessEnv;
}

export interface ParsedArgs {
  positionals: string[];
  options: Record<string, string | boolean | string[] | undefined>;
  /** update's --path=value operations, in the order given. */
  ops: string[];
}

export interface CommandModule {
  run(args: ParsedArgs, ctx: Context): Promise<number>;
}

export interface CommandSpec {
  name: string;
  describe: string;
  positionals: PositionalSpec[];
  options: Record<string, OptionSpec>;
  examples: [string, string][];
  /** Flags that look like --path=value are update operations, not options. */
  takesOps?: boolean;
  load: () => Promise<CommandModule>;
}

export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  dir: { type: 'string', short: 'C', describe: 'run as if started in this directory' },
  json: { type: 'boolean', describe: 'machine-readable output' },
  color: { type: 'boolean', describe: 'force colour on' },
  'no-color': { type: 'boolean', describe: 'force colour off (NO_COLOR is honoured too)' },
  help: { type: 'boolean', short: 'h', describe: 'show help' },
};

const skill = (required = true): PositionalSpec => ({ name: 'skill', describe: 'skill name (file .checkpoints/<skill>.checkpoint.json)', required });

export const COMMANDS: CommandSpec[] = [
  {
    name: 'init',
    describe: 'create .checkpoints/ with a README (idempotent)',
    positionals: [],
    options: {},
    examples: [['checkpoint init', 'set up .checkpoints/ in this repository']],
    load: () => import('./commands/init.js'),
  },
  {
    name: 'list',
    describe: 'list checkpoints with status and last update',
    positionals: [],
    options: {},
    examples: [['checkpoint list', 'one line per skill'], ['checkpoint list --json', 'for scripts']],
    load: () => import('./commands/list.js'),
  },
  {
    name: 'show',
    describe: 'print a checkpoint as raw JSON (all of them without a skill)',
    positionals: [skill(false)],
    options: {},
    examples: [['checkpoint show build-loop | jq .next_actions', 'pipe to jq']],
    load: () => import('./commands/show.js'),
  },
  {
    name: 'validate',
    describe: 'check checkpoint files against the protocol',
    positionals: [{ name: 'files', describe: 'files to check (default: every checkpoint)', variadic: true }],
    options: { strict: { type: 'boolean', describe: 'treat warnings as failures' } },
    examples: [
      ['checkpoint validate', 'every checkpoint in .checkpoints/'],
      ['checkpoint validate --strict .checkpoints/api.checkpoint.json', 'one file, warnings fail too'],
    ],
    load: () => import('./commands/validate.js'),
  },
  {
    name: 'update',
    describe: 'merge new state into a checkpoint (creates it if missing), stamp and validate',
    positionals: [skill()],
    options: {},
    takesOps: true,
    examples: [
      ['checkpoint update api --phase=build --step=sprint-2', 'replace scalars'],
      ["checkpoint update api --next_actions+='Run the evaluator'", 'append to a list'],
      ['checkpoint update api --skill_state.iteration:json=2', 'typed value (JSON)'],
      ['checkpoint update api --progress_table.1.status=complete', 'address a list item by index'],
      ['checkpoint update api --eval_scores+:json=\'{"rubric":"audit","score":8,"max":10}\'', 'append a JSON record'],
    ],
    load: () => import('./commands/update.js'),
  },
  {
    name: 'done',
    describe: 'pop next_actions[0] into recently_done and show what is next',
    positionals: [skill()],
    options: {
      verify: { type: 'boolean', describe: "run the action's done_when command first; pop only if it exits 0" },
      timeout: { type: 'string', describe: 'seconds --verify may run (default 120)' },
      complete: { type: 'boolean', describe: 'when this was the last action, mark the checkpoint complete' },
    },
    examples: [
      ['checkpoint done api', 'mark the first action done'],
      ['checkpoint done api --verify', 'only if its done_when check passes'],
    ],
    load: () => import('./commands/done.js'),
  },
  {
    name: 'reset',
    describe: 'archive a checkpoint into .checkpoints/history/ (never deletes)',
    positionals: [skill()],
    options: {},
    examples: [['checkpoint reset api', 'start the skill fresh; the old state stays in history/']],
    load: () => import('./commands/reset.js'),
  },
  {
    name: 'history',
    describe: 'list archived checkpoints and rotated logs',
    positionals: [skill(false)],
    options: {},
    examples: [['checkpoint history api', 'archives for one skill']],
    load: () => import('./commands/history.js'),
  },
  {
    name: 'restore',
    describe: 'bring an archived checkpoint back (refuses to overwrite a live one)',
    positionals: [{ name: 'archive', describe: 'file name from `checkpoint history`', required: true }],
    options: {},
    examples: [['checkpoint restore api.2026-11-30T02-38-46.000Z.checkpoint.json', 'restore that archive']],
    load: () => import('./commands/restore.js'),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
