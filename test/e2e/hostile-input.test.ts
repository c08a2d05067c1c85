// Bad input through the CLI's entry (main(), in this process: test/helpers/in-process.ts), the
// way a user meets it: the command line's own mistakes
// (unknown commands and options, missing or extra arguments, ambiguous values) and the first
// broken files a user hits, each with its exact message and hint. Every case: exit 2, one clear
// `checkpoint: ...` line on stderr (a hint rides on it, after `; hint: `), nothing on stdout, no stack
// trace, and the project (and any folder a link points to) byte-for-byte as it was.
// Hostile content on every axis (each command x each broken shape, forbidden keys in files,
// values and capsules, FIFOs, /dev/zero, every skill-name way in, the merge driver) is the table
// in test/reliability/hostile.test.ts; rows that only repeated it are not kept here.
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, errorLine, makeRepo, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { checkpointDoc, snapshot } from '../reliability/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(() => {
  assertBuilt();
});

const VALID = checkpointDoc('api', { next_actions: ['first', { text: 'second', done_when: 'touch hostile.marker' }] });
const validText = (patch: Record<string, unknown> = {}) => `${JSON.stringify({ ...VALID, ...patch }, null, 2)}\n`;

/** .checkpoints/api.checkpoint.json as a symlink to a valid checkpoint outside the repository. */
function linkOutside(d: string): string[] {
  const outside = tempDir();
  dirs.push(outside);
  writeFileSync(join(outside, 'secret.json'), validText());
  mkdirSync(join(d, '.checkpoints'));
  symlinkSync(join(outside, 'secret.json'), join(d, CP));
  return [outside];
}
const CP = '.checkpoints/api.checkpoint.json';


interface Case {
  name: string;
  /** Prepares the repository; may return extra folders (outside it) whose contents must not change. */
  setup?: (dir: string) => string[] | void;
  args: string[];
  message: RegExp;
  hint?: RegExp;
  /** Run from this subfolder of the repository. */
  cwd?: string;
}

const CASES: Case[] = [
  // the project itself
  { name: 'no .checkpoints/: show', args: ['show', 'api'], message: /^no checkpoint for skill "api" in \.checkpoints\/$/, hint: /create one with/ },
  { name: 'no .checkpoints/: reset', args: ['reset', 'api'], message: /^no checkpoint for skill "api" to reset$/ },
  { name: 'no .checkpoints/: restore', args: ['restore', 'api.2026-01-01T00-00-00.000Z.checkpoint.json'], message: /^no archive "api\.2026.*" in \.checkpoints\/history\/$/ },
  // the file's content
  {
    name: 'invalid JSON names file:line:column',
    setup: (d) => write(d, CP, '{\n  "skill": "api",\n  "phase": "build"\n  "step": "s1"\n}\n'),
    args: ['update', 'api', '--step=s2'],
    message: /^\.checkpoints\/api\.checkpoint\.json:4:3: invalid JSON: expected ',' or '\}' in object$/,
    hint: /it was not changed/,
  },
  { name: 'trailing garbage', setup: (d) => write(d, CP, `${validText()}}`), args: ['done', 'api'], message: /api\.checkpoint\.json:\d+:1: invalid JSON: unexpected content after the JSON value/ },
  {
    name: 'merge conflict markers',
    setup: (d) => write(d, CP, validText().replace('  "step": "s1",\n', '<<<<<<< HEAD\n  "step": "s1",\n=======\n  "step": "s2",\n>>>>>>> topic\n')),
    args: ['update', 'api', '--phase=x'],
    message: /api\.checkpoint\.json:9:1: invalid JSON: conflict marker/,
  },
  { name: 'duplicate keys', setup: (d) => write(d, CP, validText().replace('"phase": "build"', '"phase": "build", "phase": "ship"')), args: ['update', 'api', '--step=s2'], message: /invalid JSON: duplicate key "phase"/ },
  { name: 'invalid UTF-8', setup: (d) => { mkdirSync(join(d, '.checkpoints')); writeFileSync(join(d, CP), Buffer.concat([Buffer.from('{"skill": "'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])); }, args: ['show', 'api'], message: /^\.checkpoints\/api\.checkpoint\.json: not valid UTF-8$/ },
  { name: 'top-level array', setup: (d) => write(d, CP, '[1, 2]\n'), args: ['update', 'api', '--step=s2'], message: /is not a JSON object/ },
  // Every command's hint is one that works on such a file (red team 12-07: done, pause and resume
  // sent the user to an update that refuses it): reset sets it aside, then update starts anew.
  ...(['done api', 'pause api --auto', 'resume api'] as const).map((cmd): Case => ({
    name: `top-level array (${cmd})`,
    setup: (d) => write(d, CP, '[1, 2]\n'),
    args: cmd.split(' '),
    message: /(?:is not a JSON object|a checkpoint must be a JSON object)$/,
    hint: /^fix it by hand \(checkpoint validate\), or set it aside with checkpoint reset api \(kept in \.checkpoints\/history\/\) and start again with checkpoint update api \.\.\.$/,
  })),
  // what stands where the file should be
  { name: 'a directory named like a checkpoint', setup: (d) => void mkdirSync(join(d, CP), { recursive: true }), args: ['update', 'api', '--step=s2'], message: /^\.checkpoints\/api\.checkpoint\.json is a folder, not a plain file; refused$/, hint: /replace it with a regular file/ },
  { name: 'a directory named like a checkpoint (show)', setup: (d) => void mkdirSync(join(d, CP), { recursive: true }), args: ['show', 'api'], message: /is a folder, not a plain file/ },
  {
    name: 'a symlink pointing outside the repository',
    setup: linkOutside,
    args: ['update', 'api', '--step=s2'],
    message: /^\.checkpoints\/api\.checkpoint\.json is a symlink to .*secret\.json, outside the project; refused$/,
  },
  {
    name: 'a symlink outside, through reset',
    setup: linkOutside,
    args: ['reset', 'api'],
    message: /is a symlink to .*outside the project/,
  },
  {
    name: 'a .checkpoints/ that links out of the repository',
    setup: (d) => {
      const outside = tempDir();
      dirs.push(outside);
      symlinkSync(outside, join(d, '.checkpoints'));
      return [outside];
    },
    args: ['update', 'api', '--next_actions+=x'],
    message: /^\.checkpoints is a symlink to .*, outside the project; refused$/,
  },
  // the command line
  { name: 'unknown command with a near miss', args: ['statsu'], message: /^unknown command "statsu"$/, hint: /did you mean `checkpoint status`\?/ },
  { name: 'unknown command, another near miss', args: ['vaildate'], message: /^unknown command "vaildate"$/, hint: /did you mean `checkpoint validate`\?/ },
  { name: 'unknown command far from any', args: ['xyzzyplugh'], message: /^unknown command "xyzzyplugh"$/, hint: /see `checkpoint --help`/ },
  { name: 'skill name with ../', args: ['update', '../evil', '--next_actions+=x'], message: /^invalid skill name "\.\.\/evil"$/, hint: /lowercase letters/ },
  { name: 'skill name with a slash', args: ['reset', 'a/b'], message: /^invalid skill name "a\/b"$/ },
  { name: 'unknown option', setup: (d) => write(d, CP, validText()), args: ['show', 'api', '--bogus'], message: /^checkpoint show: unknown option '--bogus'$/, hint: /checkpoint show --help/ },
  { name: 'unknown short option', args: ['list', '-x'], message: /^checkpoint list: unknown option '-x'$/ },
  { name: 'boolean option given a value', args: ['validate', '--strict=yes'], message: /^checkpoint validate: option '--strict' does not take an argument$/ },
  { name: 'missing skill for update', args: ['update'], message: /^checkpoint update: missing <skill>$/, hint: /usage: checkpoint update <skill>/ },
  { name: 'missing skill for done', args: ['done'], message: /^checkpoint done: missing <skill>$/ },
  { name: 'missing skill for reset', args: ['reset'], message: /^checkpoint reset: missing <skill>$/ },
  { name: 'missing archive for restore', args: ['restore'], message: /^checkpoint restore: missing <archive>$/ },
  { name: 'an extra argument', setup: (d) => write(d, CP, validText()), args: ['show', 'api', 'web'], message: /^checkpoint show: unexpected argument "web"$/ },
  { name: 'update without operations', setup: (d) => write(d, CP, validText()), args: ['update', 'api'], message: /^checkpoint update: nothing to update$/ },
  { name: 'update with a leftover operator', setup: (d) => write(d, CP, validText()), args: ['update', 'api', '--a+:json+=1'], message: /^--a\+:json\+=1: invalid path/ },
  { name: 'update with broken JSON value', setup: (d) => write(d, CP, validText()), args: ['update', 'api', '--skill_state:json={oops}'], message: /value is not valid JSON/ },
  { name: 'done --verify with a bad timeout', setup: (d) => write(d, CP, validText({ next_actions: [{ text: 'a', done_when: 'touch hostile.marker' }, 'b'] })), args: ['done', 'api', '--verify', '--timeout=-1'], message: /^--timeout=-1: expected a positive number of seconds \(at most 86400\)$/ },
  { name: 'an option value that looks like an option', args: ['done', 'api', '--verify', '--timeout', '-1'], message: /^checkpoint done: option '--timeout' argument is ambiguous$/, hint: /needs the = form: --timeout='<value>'/ },
  { name: 'an option without its value', args: ['list', '--dir'], message: /^checkpoint list: option '-C, --dir <value>' argument missing$/ },
  { name: '-C to a missing folder', args: ['-C', 'does/not/exist', 'list'], message: /^-C does\/not\/exist: no such directory$/ },
  { name: '-C to a file, not a folder', args: ['-C', '/dev/null', 'list'], message: /^-C \/dev\/null: not a directory$/ },
  { name: 'restore of a path outside history/', setup: (d) => write(d, 'api.2026-01-01T00-00-00.000Z.checkpoint.json', validText()), args: ['restore', '../api.2026-01-01T00-00-00.000Z.checkpoint.json'], message: /^no archive/, cwd: 'sub' },
];

describe.concurrent('hostile input', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const extra: unknown = c.setup?.(dir);
    const outside = Array.isArray(extra) ? (extra as string[]) : [];
    if (c.cwd) mkdirSync(join(dir, c.cwd), { recursive: true });
    const before = [dir, ...outside].map(snapshot);

    const r = await runCli(c.cwd ? join(dir, c.cwd) : dir, c.args);

    expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(2);
    expect(r.stderr).toMatch(/^checkpoint(: | [a-z-]+: )/); // a usage error names its command instead
    const line = errorLine(r.stderr);
    expect(line.message).toMatch(c.message);
    expect(line.lines, r.stderr).toBe(1);
    if (line.hint !== null) expect(line.hint).toMatch(/^\S/);
    if (c.hint) expect(line.hint).toMatch(c.hint);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(r.stderr).not.toMatch(/internal error|Error:/);
    expect(r.stdout).toBe('');
    expect([dir, ...outside].map(snapshot)).toEqual(before);
    expect(existsSync(join(dir, 'hostile.marker'))).toBe(false);
  });
});

describe('accepted on purpose', () => {
  it('a UTF-8 BOM is read, kept on rewrite, and dropped by show', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, CP, `\uFEFF${validText()}`);
    const up = await runCli(dir, ['update', 'api', '--step=s2']);
    expect(up.code, up.stderr).toBe(0);
    const after = readFileSync(join(dir, CP));
    expect([...after.subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 0x7b]);
    const shown = await runCli(dir, ['show', 'api']);
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { step: string }).step).toBe('s2');
    expect((await runCli(dir, ['validate'])).code).toBe(0);
  });

  it('--json failures print one JSON error object on stdout as well', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const r = await runCli(dir, ['show', 'api', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toEqual({ ok: false, error: { code: 'E_NOT_FOUND', message: 'no checkpoint for skill "api" in .checkpoints/', hint: "create one with `checkpoint update '<skill>' ...`" } });
  });
});
