// The command table: one declaration per command, read by the fast argument parser
// (node:util parseArgs, no load cost) and by the yargs program that renders --help and
// shell completion (loaded only for those). Handlers are lazy-imported modules.
import type { OpSpelling } from '../protocol/op-spelling.js';
import type { Output } from './render/output.js';

export interface OptionSpec {
  type: 'boolean' | 'string';
  short?: string;
  describe: string;
  multiple?: boolean;
  choices?: readonly string[];
  /** A string option that may also stand alone (`--online` or `--online=URL`). */
  optionalValue?: boolean;
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
  /** The one instant a run reads with (ages, staleness, validation): its output agrees with itself. */
  now: Date;
  /**
   * What a write stamps with (store/checkpoints.ts Clock): read under the skill's lock, just
   * before the write, never ctx.now (which may be seconds older: a lock wait, a --verify check).
   */
  clock: () => Date;
  out: Output;
  env: NodeJS.ProcessEnv;
  /** The MCP host's cancellation of this call: a --verify check is ended, and `clock` refuses once it fires. */
  signal?: AbortSignal;
  /** How messages name update's ops (the MCP tool's `ops[i]`) and a command's options (`max_chars`); the CLI's flags when absent. */
  opSpelling?: OpSpelling;
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
  // yargs reads --no-color as this flag's negation, so help lists the pair here.
  color: { type: 'boolean', describe: 'force colour on; --no-color forces it off (NO_COLOR, FORCE_COLOR=0 and TERM=dumb turn it off too)' },
  'no-color': { type: 'boolean', describe: 'force colour off (NO_COLOR is honoured too)' },
  help: { type: 'boolean', short: 'h', describe: 'show help' },
};

/**
 * `done --verify`'s default --timeout, in seconds, for the CLI and the MCP done tool alike: long
 * enough for a real test suite, short enough that a hung check cannot hold a session forever.
 * Here, beside the option, since this table is what both read (and it loads nothing).
 */
export const DEFAULT_VERIFY_TIMEOUT_S = 600;
/** The longest --timeout `done --verify` takes (a day); the MCP done tool's schema says the same. */
export const MAX_VERIFY_TIMEOUT_S = 86_400;

const skill = (required = true): PositionalSpec => ({ name: 'skill', describe: 'skill name (file .checkpoints/<skill>.checkpoint.json)', required });

export const COMMANDS: CommandSpec[] = [
  {
    name: 'init',
    describe: 'set up .checkpoints/ (README, schema), the merge driver and the pre-push hook; idempotent',
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
    positionals: [{ name: 'files', describe: 'files (or skill names) to check (default: every checkpoint)', variadic: true }],
    options: { strict: { type: 'boolean', describe: 'treat warnings as failures (advice never fails)' } },
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
    options: {
      'auto-rotate': { type: 'boolean', describe: 'when the file would pass 32 KiB, first rotate old telemetry into .checkpoints/history/ (config auto_rotate does the same)' },
      'allow-new-field': { type: 'boolean', describe: 'write a new top-level field whose name is a near miss of a protocol field or an option\'s name (refused otherwise, as a likely typo)' },
      'keep-updated-at': { type: 'boolean', describe: 'a repair, not a save: keep updated_at as written, so what changed since the last save still counts as changed (the slip fixes doctor and status print pass it)' },
    },
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
    describe: 'move the action next names (with those before it the checkpoint marks done or git shows landed) into recently_done and show what is next',
    positionals: [skill()],
    options: {
      verify: { type: 'boolean', describe: "run the action's done_when command first; pop only if it exits 0" },
      timeout: { type: 'string', describe: `seconds --verify may run before the check (its whole process group) is ended (default ${DEFAULT_VERIFY_TIMEOUT_S})` },
      complete: { type: 'boolean', describe: 'when this was the last action, mark the checkpoint complete' },
      landed: { type: 'boolean', describe: 'record only the actions git shows landed or the checkpoint marks done (reconcile), wherever they stand' },
    },
    examples: [
      ['checkpoint done api', 'record the action next names'],
      ['checkpoint done api --verify', 'only if its done_when check passes'],
      ['checkpoint done api --landed', 'reconcile: record the queued work that already landed'],
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
    describe: 'bring back what reset or rotate moved: an archived checkpoint (never over a live one), or a rotation file\'s entries',
    positionals: [{ name: 'archive', describe: 'file name from `checkpoint history`', required: true }],
    options: {},
    examples: [
      ['checkpoint restore api.2026-11-30T02-38-46.000Z.checkpoint.json', 'make that archive the live checkpoint again'],
      ['checkpoint restore api.2026-11-30.json', 'put the log entries rotated out that day back'],
    ],
    load: () => import('./commands/restore.js'),
  },
  {
    name: 'status',
    describe: 'where every skill left off: table, decisions waiting on you, details',
    positionals: [],
    options: {
      brief: { type: 'boolean', describe: 'only the top action, open blockers and checkpoints needing repair' },
      since: { type: 'string', describe: 'details only for skills updated since this ISO instant' },
      engine: { type: 'string', choices: ['auto', 'native', 'isomorphic'], describe: 'git history engine' },
    },
    examples: [['checkpoint status', 'full summary'], ['checkpoint status --brief', 'top action and blockers'], ['checkpoint status --since=2026-11-01T00:00:00Z', 'momentum digest']],
    load: () => import('./commands/status.js'),
  },
  {
    name: 'next',
    describe: 'the single highest-priority action that git does not show as already landed',
    positionals: [],
    options: { engine: { type: 'string', choices: ['auto', 'native', 'isomorphic'], describe: 'git history engine' } },
    examples: [['checkpoint next', 'what to do now'], ['checkpoint next --json', 'for an agent']],
    load: () => import('./commands/next.js'),
  },
  {
    name: 'resume',
    describe: 'the orientation a new session reads first (exit 3 when the user must decide; 0 with --context, which says so in its text)',
    positionals: [skill(false)],
    options: {
      context: { type: 'boolean', describe: 'print the saved recovery capsule (unverified claims) instead' },
      'max-bytes': { type: 'string', describe: 'output limit in bytes (default 16384)' },
      'max-chars': { type: 'string', describe: 'text budget in characters (default 9000, under hosts\' 10,000 cap); filled by priority, what is left out is named; one too small for the first line and the next action is refused (exit 2)' },
      engine: { type: 'string', choices: ['auto', 'native', 'isomorphic'], describe: 'git history engine' },
    },
    examples: [['checkpoint resume', 'pick the most important skill'], ['checkpoint resume api', 'one skill'], ['checkpoint resume api --context', 'the recovery capsule after compaction'], ['checkpoint resume --max-chars 4000', 'a smaller budget for a hook']],
    load: () => import('./commands/resume.js'),
  },
  {
    name: 'doctor',
    describe: 'check checkpoints against git history and the working tree for drift',
    positionals: [],
    options: {
      'fail-on-warnings': { type: 'boolean', describe: 'exit 1 on warnings too (pre-push hook)' },
      online: { type: 'string', optionalValue: true, describe: 'also compare a deployed health URL with HEAD (URL or config health_url); use --online= for the config URL' },
      engine: { type: 'string', choices: ['auto', 'native', 'isomorphic'], describe: 'git history engine' },
      pushed: { type: 'string', multiple: true, describe: 'judge a push: <from>..<to> (or <to> for a new branch), commit ids as the hook passes them or names (origin/main..HEAD); only findings these commits cause or carry block' },
      'pushed-stdin': { type: 'boolean', describe: 'judge the push git describes on a pre-push hook\'s stdin (what the shipped hook runs): each pushed ref\'s range, once' },
      'whole-range': { type: 'boolean', describe: 'with --pushed: judge every commit of <from>..<to>, those a remote-tracking ref holds too (CI, after the push reached the remote)' },
    },
    examples: [['checkpoint doctor', 'report drift'], ['checkpoint doctor --fail-on-warnings', 'what the pre-push hook runs'], ['checkpoint doctor --fail-on-warnings --whole-range --pushed "$BEFORE..$GITHUB_SHA"', 'what a CI job runs on the commits a push brought']],
    load: () => import('./commands/doctor.js'),
  },
  {
    name: 'rotate',
    describe: 'move old per-session telemetry out of checkpoints into .checkpoints/history/',
    positionals: [{ name: 'skills', describe: 'skills to rotate (default: all)', variadic: true }],
    options: {
      keep: { type: 'string', describe: 'newest entries to keep per log (default 5)' },
      'dry-run': { type: 'boolean', describe: 'show what would move and the bytes saved' },
    },
    examples: [['checkpoint rotate --dry-run', 'preview'], ['checkpoint rotate git-ops --keep 3', 'keep the newest 3 entries']],
    load: () => import('./commands/rotate.js'),
  },
  {
    name: 'migrate',
    describe: 'sweep 1.0 checkpoints to wire 1.1 and repair legacy update damage',
    positionals: [],
    options: { 'dry-run': { type: 'boolean', describe: 'report without writing' } },
    examples: [['checkpoint migrate --dry-run', 'what would change']],
    load: () => import('./commands/migrate.js'),
  },
  {
    name: 'pause',
    describe: 'save the recovery capsule before compaction (or --auto: mechanical state only)',
    positionals: [skill()],
    options: {
      context: { type: 'string', describe: 'the seven-field capsule JSON (or - for stdin)' },
      'context-file': { type: 'string', describe: 'read the capsule JSON from a file' },
      auto: { type: 'boolean', describe: 'refresh HEAD, branch, uncommitted paths and time; keep the capsule frozen' },
    },
    examples: [["checkpoint pause api --context-file capsule.json", 'save the capsule'], ['checkpoint pause api --auto', 'from a PreCompact hook']],
    load: () => import('./commands/pause.js'),
  },
  {
    name: 'mcp',
    describe: 'serve the checkpoint tools, resources and resume prompt to an agent host over MCP (stdio)',
    positionals: [],
    options: {
      'allow-verify': { type: 'boolean', describe: "let the done tool run an action's done_when command (off by default: it comes from the file)" },
    },
    examples: [['checkpoint mcp', 'what an MCP host starts (see docs/integrations.md)'], ['checkpoint mcp -C ~/src/api --allow-verify', 'pinned to a project, verify enabled']],
    load: () => import('./commands/mcp.js'),
  },
  {
    name: 'install-driver',
    describe: 'register the semantic merge driver in this clone (.gitattributes + git config); idempotent',
    positionals: [],
    options: {
      optional: { type: 'boolean', describe: 'never fail (for npm prepare scripts): outside a git repository, or where the install is refused, one warning line and exit 0' },
      local: { type: 'boolean', describe: "register the driver in this clone's config even when your global or system git config has one (this clone's then takes precedence)" },
    },
    examples: [['checkpoint install-driver', 'after a fresh clone'], ['"prepare": "checkpoint-protocol install-driver --optional"', "in package.json (the package's own bin name: another tool's checkpoint is never run); CHECKPOINT_SKIP_INSTALL=1 skips it in CI"]],
    load: () => import('./commands/install-driver.js'),
  },
  {
    name: 'uninstall-driver',
    describe: 'remove exactly what install-driver added',
    positionals: [],
    options: {},
    examples: [['checkpoint uninstall-driver', 'back to plain text merges']],
    load: () => import('./commands/uninstall-driver.js'),
  },
  {
    name: 'resolve',
    describe: 're-run the semantic merge on conflicted checkpoint files (our markers in the file win; git\'s own line markers are merged from the index stages)',
    positionals: [{ name: 'paths', describe: 'files to resolve (default: every conflicted checkpoint file)', variadic: true }],
    options: {
      add: { type: 'boolean', describe: 'stage files that resolved cleanly; in a modify/delete conflict (one side deleted the checkpoint, the other changed it) this keeps the changed file' },
      'accept-deletion': { type: 'boolean', describe: 'in a modify/delete conflict, accept the deletion: the changed version is archived in .checkpoints/history/ (as reset does; checkpoint restore brings it back) and the deletion staged; with --add the archive is staged too' },
      check: { type: 'boolean', describe: 'only report: exit 1 if any checkpoint file holds conflict markers, is unmerged, or cannot be read for them (for CI)' },
      ours: { type: 'string', multiple: true, describe: 'settle the conflict at this path (as printed, e.g. phase) with our version; repeatable' },
      theirs: { type: 'string', multiple: true, describe: 'settle the conflict at this path with their version; repeatable' },
    },
    examples: [
      ['checkpoint resolve --add', 'after a merge made without the driver'],
      ['checkpoint resolve --theirs phase --ours step --add', 'settle real conflicts field by field, keep the rest merged'],
      ['checkpoint resolve --check', 'CI gate: hosted merge buttons bypass merge drivers'],
      ['checkpoint resolve --accept-deletion --add', 'one side deleted (or reset) a checkpoint the other changed: keep the deletion, the change archived'],
    ],
    load: () => import('./commands/resolve.js'),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
