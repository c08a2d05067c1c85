// The CLI entry: parse with the command table, run the lazily-loaded command, and turn
// every CheckpointError into one line (plus a hint) and its exit code. Never a stack
// trace for a user mistake.
import { isAbsolute } from 'node:path';
import { quoted } from '../one-line.js';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { COMMANDS, findCommand, type Context } from './spec.js';
import { runFrom } from '../store/paste-path.js';
import { startDir } from '../store/root.js';
import { closest, parseCommandArgs } from './parse.js';
import { createOutput, decideColor, PERMISSION_HINT, refusedAccessOrRoom, stdoutIsTerminal, withHint, type Output, type Writer } from './render/output.js';

declare const CHECKPOINT_VERSION: string;
export const VERSION = typeof CHECKPOINT_VERSION === 'string' ? CHECKPOINT_VERSION : '0.0.0-dev';
declare const CHECKPOINT_ONLY_COMMAND: string;
/**
 * The one command a per-command bundle carries (dist/cli-<name>.cjs, scripts/build.mjs), '' in
 * the bundle of them all (cli.cjs) and unbundled: the other commands' modules are left out of it.
 */
const ONLY_COMMAND = typeof CHECKPOINT_ONLY_COMMAND === 'string' ? CHECKPOINT_ONLY_COMMAND : '';

/**
 * Whether this bundle runs `argv`: a per-command bundle only its own command (the launcher
 * guesses the command from the first plain word, and loads cli.cjs when that guess was wrong).
 */
export function handles(argv: string[]): boolean {
  return !ONLY_COMMAND || hoistGlobalOptions(argv).argv[0] === ONLY_COMMAND;
}

async function yargsPath(argv: string[]): Promise<number> {
  // yargs reads the nearest package.json above its start-up directory (the cwd, in a bundle)
  // to guess a version: in a clone that file may be a link to /dev/zero. Help and completion
  // need no project, so they run from this package's own folder.
  // package-paths is imported here only: it works out paths at load, which no other command needs.
  process.chdir((await import('../install/package-paths.js')).PACKAGE_ROOT);
  const { runYargs } = await import('./help.js');
  return runYargs(argv, VERSION);
}

/** `completion --help`: its own usage (yargs' completion command has none to print). */
const COMPLETION_HELP = `checkpoint completion [bash|zsh]

print a shell completion script for both names (checkpoint, checkpoint-protocol); without a shell
named, for the one $SHELL runs

Examples:
  checkpoint-protocol completion bash >> ~/.bashrc
  checkpoint-protocol completion zsh >> ~/.zshrc`;

/**
 * Runs one command line and returns its exit code. `write` receives the command's output
 * (default: this process's stdout and stderr); the test suite passes its own to run commands
 * in-process. Help and completion (yargs) always print to the process's own streams.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, write?: Writer): Promise<number> {
  const wantsJson = argv.includes('--json');
  const colorFlag = argv.includes('--no-color') ? false : argv.includes('--color') ? true : undefined;
  const out = await createOutput(decideColor(colorFlag, env, stdoutIsTerminal), write);
  try {
    const hoisted = hoistGlobalOptions(argv);
    const [name, ...rest] = hoisted.argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') return yargsPath(['--help']);
    // `--version` after a command too: per-command help lists it (update takes it as a field only with `=`).
    if (name === '--version' || name === '-V' || rest.includes('--version')) {
      // As every command's --json: one JSON document, never a bare word.
      if (wantsJson) out.json({ ok: true, version: VERSION });
      else out.out(VERSION);
      return 0;
    }
    if (name === 'completion' && !argv.includes('--get-yargs-completions')) {
      // yargs takes no shell argument (its script serves bash and zsh) and would read one as a
      // mistyped command ("did you mean pause?"): accept the two it serves, refuse the rest.
      // -C/--dir and the other global options are taken as everywhere; anything else is refused.
      const words: string[] = [];
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i]!;
        if (a === '-C' || a === '--dir') i++;
        else if (a === '--help' || a === '-h') {
          out.out(COMPLETION_HELP);
          return 0;
        } else if (!a.startsWith('-')) words.push(a);
        else if (!(a.startsWith('--dir=') || /^-C./.test(a) || a === '--json' || a === '--color' || a === '--no-color')) {
          throw new CheckpointError('E_USAGE', `checkpoint completion: unknown option '${a}'`, { hint: 'usage: checkpoint completion [bash|zsh]' });
        }
      }
      if (words.length > 1) throw new CheckpointError('E_USAGE', `checkpoint completion: unexpected argument ${quoted(words[1]!)}`, { hint: 'usage: checkpoint completion [bash|zsh]' });
      const shell = words[0];
      if (shell !== undefined && shell !== 'bash' && shell !== 'zsh') {
        throw new CheckpointError('E_USAGE', `checkpoint completion ${shell}: only bash and zsh are supported`, { hint: 'checkpoint-protocol completion bash >> ~/.bashrc (or zsh >> ~/.zshrc)' });
      }
      const { completionScript, completionShell } = await import('./completion-script.js');
      // As every command's --json: one JSON document (the script a string in it), never the bare script.
      if (wantsJson) out.json({ ok: true, shell: completionShell(shell, env), script: completionScript(shell, env) });
      else out.out(completionScript(shell, env));
      return 0;
    }
    if (name === 'completion' || argv.includes('--get-yargs-completions')) return yargsPath(argv);
    const spec = findCommand(name);
    if (!spec) {
      const guess = closest(name, COMMANDS.map((c) => c.name));
      throw new CheckpointError('E_USAGE', `unknown command ${quoted(name)}`, {
        hint: guess ? `did you mean \`checkpoint ${guess}\`? (see \`checkpoint --help\`)` : 'see `checkpoint --help` for the commands',
      });
    }
    const args = parseCommandArgs(spec, rest, hoisted.lead);
    if (args.options.help) return yargsPath([spec.name, '--help']);
    const dirOverride = typeof args.options.dir === 'string' ? args.options.dir : undefined;
    const ctx: Context = {
      cwd: currentDir(dirOverride),
      dirOverride,
      json: Boolean(args.options.json),
      now: new Date(),
      clock: () => new Date(),
      out,
      env,
    };
    const mod = await spec.load();
    // The paths in the commands it prints are written from where it takes file arguments (argBase).
    return await runFrom(startDir(ctx.cwd, dirOverride), () => mod.run(args, ctx));
  } catch (e) {
    return report(e, out, wantsJson);
  }
}

/**
 * Global options may come before the command, as with git: `checkpoint -C ../api status`. They
 * go after its name; `lead` counts them (before update, `--dir=../api` is the folder, never a field).
 */
function hoistGlobalOptions(argv: string[]): { argv: string[]; lead: number } {
  const lead: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const a = argv[i]!;
    if ((a === '-C' || a === '--dir') && i + 1 < argv.length) {
      lead.push(a, argv[i + 1]!);
      i += 2;
    } else if (a.startsWith('--dir=') || /^-C./.test(a) || a === '--json' || a === '--color' || a === '--no-color') {
      lead.push(a);
      i++;
    } else break;
  }
  return lead.length && i < argv.length ? { argv: [argv[i]!, ...lead, ...argv.slice(i + 1)], lead: lead.length } : { argv, lead: 0 };
}

/** The folder the command runs in; a folder deleted under a shell still in it is the user's to fix, not a crash. */
function currentDir(override: string | undefined): string {
  try {
    return process.cwd();
  } catch {
    // An absolute -C needs no current folder.
    if (override !== undefined && isAbsolute(override)) return override;
    throw new CheckpointError('E_NO_ROOT', 'the current folder no longer exists (deleted or moved away)', { hint: 'cd into the project again, or pass it with -C <dir>' });
  }
}

/**
 * A write the file system itself turned down (mkdir under /proc, a name too long, a loop, a
 * full descriptor table): the place is the problem, not checkpoint. Reads of missing files
 * are handled where they happen, so only write-side calls are judged here.
 */
function refusedByFileSystem(err: NodeJS.ErrnoException | undefined): boolean {
  return typeof err?.path === 'string'
    && ['mkdir', 'rename', 'link', 'symlink', 'mkdtemp', 'write', 'fsync'].includes(err.syscall ?? '')
    && ['ENOENT', 'ENOTDIR', 'ELOOP', 'ENAMETOOLONG', 'EIO', 'EXDEV', 'EBUSY', 'EMFILE', 'ENFILE', 'EDQUOT', 'EINVAL'].includes(err.code ?? '');
}

function report(e: unknown, out: Output, json: boolean): number {
  if (isCheckpointError(e)) {
    // One line: what went wrong and where, then what to do. A usage error already names the
    // command ("checkpoint status: ..."), so it is not prefixed twice.
    out.err(`${e.code === 'E_USAGE' && e.message.startsWith('checkpoint ') ? '' : 'checkpoint: '}${withHint(e.message, e.hint)}`);
    if (json) out.json({ ok: false, error: { code: e.code, message: e.message, hint: e.hint ?? null } });
    return e.exit;
  }
  const err = e as NodeJS.ErrnoException;
  if (refusedAccessOrRoom(err?.code)) {
    out.err(`checkpoint: ${withHint(err.message, PERMISSION_HINT)}`);
    return 2;
  }
  if (refusedByFileSystem(err)) {
    out.err(`checkpoint: ${withHint(err!.message, 'the file system refused it: run checkpoint in an ordinary project folder (a git work tree on a writable disk)')}`);
    return 2;
  }
  out.err(`checkpoint: internal error: ${withHint(err?.message ?? String(e), 'this is a bug in checkpoint; rerun with CHECKPOINT_DEBUG=1 for details and report it')}`);
  if (process.env.CHECKPOINT_DEBUG) out.err(String(err?.stack ?? e));
  return 2;
}
