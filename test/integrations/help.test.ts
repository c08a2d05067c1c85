// --help for the program and for EVERY command in the table (src/cli/spec.ts): exit 0,
// the usage line, every positional and option, and every example, copyable on its own
// line. Shell completion: the script, what it calls (--get-yargs-completions), and a real
// bash completing `checkpoint sta` to `status`.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, GLOBAL_OPTIONS } from '../../src/cli/spec.js';
import { runCli } from '../helpers/in-process.js';
import { BIN, cleanup, ROOT, tempDir, HANG_GUARD_MS } from '../helpers/repo.js';

const dirs: string[] = [];
afterAll(() => dirs.splice(0).forEach(cleanup));
const cwd = tempDir('cp-help-');
dirs.push(cwd);

/** Whitespace runs collapsed, so wrapped descriptions compare as one line. */
const flat = (s: string) => s.replace(/\s+/g, ' ');
const lines = (s: string) => s.split('\n').map((l) => l.trim());

describe('checkpoint --help', () => {
  for (const args of [['--help'], ['-h'], ['help'], []]) {
    it(`checkpoint ${args.join(' ') || '(no arguments)'} lists every command and real examples, exit 0`, async () => {
      const r = await runCli(cwd, args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^checkpoint <command> \[options\]/);
      for (const spec of COMMANDS) {
        expect(r.stdout, spec.name).toMatch(new RegExp(`^  checkpoint ${spec.name}\\b`, 'm'));
        expect(flat(r.stdout), spec.name).toContain(flat(spec.describe).split(' ').slice(0, 4).join(' '));
      }
      expect(r.stdout).toMatch(/^  checkpoint completion\b/m);
      expect(r.stdout).toMatch(/^Examples:$/m);
      const examples = COMMANDS.flatMap((c) => c.examples.map(([cmd]) => cmd));
      const shown = lines(r.stdout).filter((l) => examples.some((e) => l.startsWith(e)));
      expect(shown.length).toBeGreaterThanOrEqual(3);
      for (const name of ['dir', 'json', 'color']) expect(r.stdout).toContain(`--${name}`);
      expect(r.stdout).toMatch(/Exit codes: 0 ok, 1 findings/);
    });
  }
});

describe.each(COMMANDS.map((spec) => [spec.name, spec] as const))('checkpoint %s --help', (name, spec) => {
  it('exits 0 with the usage line, description, positionals, options and every example', async () => {
    const r = await runCli(cwd, [name, '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const usage = [`checkpoint ${name}`, ...spec.positionals.map((p) => (p.required ? `<${p.name}>` : `[${p.name}${p.variadic ? '..' : ''}]`))].join(' ');
    expect(r.stdout.split('\n')[0]).toBe(usage);
    expect(flat(r.stdout)).toContain(flat(spec.describe));
    for (const p of spec.positionals) expect(r.stdout, p.name).toMatch(new RegExp(`^  ${p.name}\\s`, 'm'));
    for (const [opt, o] of Object.entries({ ...spec.options, dir: GLOBAL_OPTIONS.dir!, json: GLOBAL_OPTIONS.json! })) {
      expect(r.stdout, `--${opt}`).toMatch(new RegExp(`^\\s+(-\\w, )?--${opt}\\s`, 'm'));
      // The first words of its description (the rest may wrap around the [type] column).
      expect(flat(r.stdout), `--${opt} description`).toContain(o.describe.split(' ').slice(0, 3).join(' '));
      for (const choice of o.choices ?? []) expect(r.stdout).toContain(`"${choice}"`);
    }
    expect(spec.examples.length, 'the command table gives every command an example').toBeGreaterThan(0);
    const shown = lines(r.stdout);
    for (const [cmd, desc] of spec.examples) {
      // The whole command on one line, so it can be copied as is.
      expect(shown, cmd).toContain(cmd);
      expect(flat(r.stdout), desc).toContain(flat(desc));
    }
  });

  it('-h and `--help` after other arguments give the same help', async () => {
    const full = (await runCli(cwd, [name, '--help'])).stdout;
    expect((await runCli(cwd, [name, '-h'])).stdout).toBe(full);
    const positional = spec.positionals.find((p) => p.required);
    if (positional) expect((await runCli(cwd, [name, 'api', '--help'])).stdout).toBe(full);
  });
});

describe('shell completion', () => {
  it('checkpoint completion prints a bash script for both names that asks checkpoint-protocol, exit 0', async () => {
    for (const args of [['completion'], ['completion', 'bash']]) {
      const r = await runCli(cwd, args, { env: { SHELL: '/bin/bash', ZSH_NAME: '' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('###-begin-checkpoint-completions-###');
      expect(r.stdout).toContain('checkpoint-protocol --get-yargs-completions');
      expect(r.stdout).not.toMatch(/(^|[^-])\bcheckpoint --get-yargs-completions/m);
      expect(r.stdout).toMatch(/^complete .*-F _checkpoint_protocol_completions checkpoint checkpoint-protocol$/m);
    }
  });

  it('completion --help prints its own usage, not the top-level help (red team 62e, 08)', async () => {
    for (const flag of ['--help', '-h']) {
      const r = await runCli(cwd, ['completion', flag]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^checkpoint completion \[bash\|zsh\]\n/);
      expect(r.stdout).toContain('checkpoint-protocol completion zsh >> ~/.zshrc');
      expect(r.stdout).not.toContain('Commands:');
    }
  });

  it('under zsh, or with `completion zsh`, it prints a zsh script (compdef) for both names, exit 0', async () => {
    for (const [args, shell] of [[['completion'], '/usr/bin/zsh'], [['completion', 'zsh'], '/bin/bash']] as const) {
      const r = await runCli(cwd, [...args], { env: { SHELL: shell, ZSH_NAME: '' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^#compdef checkpoint checkpoint-protocol$/m);
      expect(r.stdout).toMatch(/^ {2}compdef _checkpoint_protocol_completions checkpoint checkpoint-protocol$/m);
      expect(r.stdout).toContain('checkpoint-protocol --get-yargs-completions');
    }
  });

  it('with --json (as every command takes it) it prints one JSON document holding the script, exit 0; an unknown shell the JSON refusal, exit 2', async () => {
    for (const [args, shell] of [[['completion', 'bash', '--json'], 'bash'], [['--json', 'completion'], 'zsh'], [['completion', '--json', 'zsh'], 'zsh']] as const) {
      const env = { SHELL: '/usr/bin/zsh', ZSH_NAME: '' };
      const r = await runCli(cwd, [...args], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      const plain = (await runCli(cwd, args.filter((a) => a !== '--json'), { env })).stdout;
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, shell, script: plain });
    }
    const fish = await runCli(cwd, ['completion', 'fish', '--json']);
    expect(fish.code).toBe(2);
    expect(JSON.parse(fish.stdout)).toMatchObject({ ok: false, error: { code: 'E_USAGE', message: 'checkpoint completion fish: only bash and zsh are supported' } });
  });

  it('completion refuses what it does not take (a second shell, an unknown option), exit 2, and reads -C as a folder, not a shell', async () => {
    for (const [args, message] of [
      [['completion', 'bash', 'zsh'], 'checkpoint completion: unexpected argument "zsh"'],
      [['completion', '--bogus'], "checkpoint completion: unknown option '--bogus'"],
    ] as const) {
      const r = await runCli(cwd, [...args]);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(message);
    }
    const dir = await runCli(cwd, ['completion', '-C', cwd, 'bash']);
    expect(dir.code, dir.stderr).toBe(0);
    expect(dir.stdout).toContain('###-begin-checkpoint-completions-###');
  });

  it('--version with --json prints one JSON document, in either order; without it the bare version', async () => {
    for (const args of [['--version', '--json'], ['--json', '--version'], ['-V', '--json']]) {
      const r = await runCli(cwd, args);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ ok: true, version: (await runCli(cwd, ['--version'])).stdout.trim() });
    }
    expect((await runCli(cwd, ['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?\n$/);
  });

  it('--get-yargs-completions suggests status for `sta`, and command options after a command', async () => {
    for (const args of [['--get-yargs-completions', 'sta'], ['--get-yargs-completions', 'checkpoint', 'sta']]) {
      const r = await runCli(cwd, args, { env: { SHELL: '/bin/bash' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n'), args.join(' ')).toContain('status');
    }
    const opts = await runCli(cwd, ['--get-yargs-completions', 'checkpoint', 'status', '--'], { env: { SHELL: '/bin/bash' } });
    expect(opts.code, opts.stderr).toBe(0);
    expect(opts.stdout.split('\n')).toEqual(expect.arrayContaining(['--brief', '--since', '--engine']));
    // A one-letter alias is no long option: `--C` is refused by every command, so never offered (red team, 12-04).
    expect(opts.stdout.split('\n').filter((w) => /^--.$/.test(w))).toEqual([]);
    const zsh = await runCli(cwd, ['--get-yargs-completions', 'checkpoint', 'status', '--'], { env: { SHELL: '/usr/bin/zsh' } });
    expect(zsh.stdout.split('\n').filter((w) => /^--.:/.test(w))).toEqual([]);
    expect(zsh.stdout).toMatch(/^--dir:/m);
  });

  it('a real bash, with the script sourced, completes both names, never running another tool\'s `checkpoint`', async () => {
    const bin = tempDir('cp-completion-bin-');
    dirs.push(bin);
    symlinkSync(BIN, join(bin, 'checkpoint-protocol'));
    // Another tool's `checkpoint`, first on PATH: completion must never run it.
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\ntouch '${join(bin, 'decoy-ran')}'\necho decoy\n`, { mode: 0o755 });
    const script = (await runCli(cwd, ['completion', 'bash'])).stdout;
    for (const name of ['checkpoint', 'checkpoint-protocol']) {
      const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `${script}\ncomplete -p ${name}\nCOMP_WORDS=(${name} sta); COMP_CWORD=1; _checkpoint_protocol_completions; printf '%s\\n' "\${COMPREPLY[@]}"`], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, SHELL: '/bin/bash' },
      });
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`-F _checkpoint_protocol_completions ${name}$`));
      expect(lines.slice(1)).toEqual(['status']);
    }
    expect(existsSync(join(bin, 'decoy-ran'))).toBe(false);
  });
});

describe('help in a project that installed the package, whose package.json is hostile', () => {
  it('never reads the project package.json: --help and command help answer although it links to /dev/zero', async () => {
    const project = tempDir('cp-help-hostile-');
    dirs.push(project);
    symlinkSync('/dev/zero', join(project, 'package.json'));
    // A real copy under node_modules: yargs guesses its settings file from that path.
    const installed = join(project, 'node_modules', 'checkpoint-protocol');
    mkdirSync(installed, { recursive: true });
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(ROOT, part), join(installed, part), { recursive: true });
    for (const args of [['--help'], ['status', '--help']]) {
      // timeout: only a hang guard; before the fix this read /dev/zero until memory ran out.
      const r = spawnSync(process.execPath, [join(installed, 'bin/checkpoint.js'), ...args], { cwd: project, encoding: 'utf8', timeout: HANG_GUARD_MS });
      expect(r.signal, args.join(' ')).toBeNull();
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^checkpoint /);
    }
  });
});
