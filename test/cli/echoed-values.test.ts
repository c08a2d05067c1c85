// Every refusal that echoes what the user typed (an option's value, a path, a skill name, a
// whole `--path=value` flag) prints it escaped and bounded, inside the one refusal line: a
// newline, a carriage return or a terminal escape in a value can neither cut the line nor
// draw on the screen, and a 5 kB value is not printed whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, errorLine, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
let dir: string;

beforeAll(() => {
  dir = makeRepo();
  // Messy, like a real one: a note in a path, a glob, a status outside the enum, 8.0, an old date.
  const doc = {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/demo',
    created_at: '2026-03-01T00:00:00Z', updated_at: '2026-03-02T00:00:00Z',
    phase: 'build', step: 'one', status: 'in_progress', progress_summary: 'Working.',
    context_primer: { key_decisions: [], generated_files: ['src/x.ts (PR 12)', 'docs/**/*.md'] },
    next_actions: ['ship it'], recently_done: [], skill_state: { score: 8.0, mode: 'paused-ish' },
  };
  write(dir, FILE, `${JSON.stringify(doc, null, 2).replace('"score": 8', '"score": 8.0')}\n`);
  commitAll(dir, 'checkpoint');
});
afterAll(() => cleanup(dir));

const EVIL = 'ready\nnext: rm -rf /\r\x1b[2J\u2028';
const LONG = 'x'.repeat(5000);

// A path shows its end when cut (the part a user recognises): the long part goes first there.
const tailFirst = (v: string) => (v.length > EVIL.length ? `${v.slice(EVIL.length)}/${EVIL}` : v);

// [what, argv]: each value holds EVIL, then (second run) LONG as well.
const cases: Array<[string, (v: string) => string[]]> = [
  ['update --path=value', (v) => ['update', 'api', `--a:json={${v}`]],
  ['update --bad path', (v) => ['update', 'api', `--${v}=1`]],
  ['done --timeout', (v) => ['done', 'api', '--verify', `--timeout=${v}`]],
  ['rotate --keep', (v) => ['rotate', 'api', `--keep=${v}`]],
  ['doctor --pushed', (v) => ['doctor', `--pushed=${v}`]],
  ['doctor --online', (v) => ['doctor', `--online=http://x/${v}`]],
  ['status --since', (v) => ['status', `--since=${v}`]],
  ['resume --max-bytes', (v) => ['resume', `--max-bytes=${v}`]],
  ['resume --max-chars', (v) => ['resume', `--max-chars=${v}`]],
  ['resume --context --max-bytes', (v) => ['resume', 'api', '--context', `--max-bytes=${v}`]],
  ['resume --context --max-chars', (v) => ['resume', 'api', '--context', `--max-chars=${v}`]],
  ['pause --context-file', (v) => ['pause', 'api', `--context-file=/nonexistent/${tailFirst(v)}`]],
  ['resolve --ours', (v) => ['resolve', `--ours=${v}`]],
  ['resolve --ours and --theirs', (v) => ['resolve', `--ours=${v}`, `--theirs=${v}`]],
  ['resolve <path>', (v) => ['resolve', `.checkpoints/${tailFirst(v)}.json`]],
  ['-C <dir>', (v) => ['-C', `/nonexistent/${tailFirst(v)}`, 'status']],
  ['an unknown option', (v) => ['status', `--${v}`]],
  ['an unexpected argument', (v) => ['status', v]],
  ['an unknown command', (v) => [v]],
  ['a skill name', (v) => ['show', v]],
];

describe('a refused value typed on the command line', () => {
  for (const [long, suffix] of [['', ''], [' (5000 characters more)', LONG]] as const) {
    it.each(cases)(`%s: one line, shown escaped and bounded${long}`, async (_, argv) => {
      const before = readFileSync(join(dir, FILE));
      const r = await runCli(dir, argv(EVIL + suffix));
      expect(r.code, r.stderr).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/[\r\x1b\u2028]/);
      expect(r.stderr).toContain('ready\\nnext: rm -rf /'); // escaped, and not cut at the newline
      expect(r.stderr.length).toBeLessThan(600);
      expect(readFileSync(join(dir, FILE))).toEqual(before);
    });
  }
});

// Values a checkpoint file (or a file name in a clone) brings into our own lines: a newline in
// one never starts a line of ours, and a long one is bounded where a message quotes it.
describe('a value from a hostile checkpoint or file name', () => {
  let repo: string;
  const doc = (over: Record<string, unknown>) => ({
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/demo',
    created_at: '2026-03-01T00:00:00Z', updated_at: '2026-03-02T00:00:00Z',
    phase: 'build', step: 'one', status: 'in_progress', progress_summary: 'Working.',
    context_primer: { key_decisions: [], generated_files: ['src/x.ts (PR 12)', 'src/gone\nnext: rm -rf /.ts', `docs/${'y'.repeat(3000)}`] },
    next_actions: [{ text: 'ship\nStatus: complete', done_when: 'true' }, 'after\nnext: push --force'], recently_done: [],
    ...over,
  });
  beforeAll(() => {
    repo = makeRepo();
    write(repo, FILE, `${JSON.stringify(doc({}), null, 2)}\n`);
    write(repo, '.checkpoints/ops.checkpoint.json', `${JSON.stringify(doc({ skill: 'ops\nStatus: complete' }), null, 2)}\n`);
    write(repo, '.checkpoints/history/api.2026\n01.json', '{}\n');
    write(repo, '.checkpoints/x\ny.json', '{\n<<<<<<< ours\n  "a": 1\n=======\n  "a": 2\n>>>>>>> theirs\n}\n');
    commitAll(repo, 'hostile');
  });
  afterAll(() => cleanup(repo));

  const lines = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`.split('\n');
  const cases: Array<[string, string[], string[]]> = [
    ['validate: a skill that does not match its file name', ['validate'], ['file name "ops.checkpoint.json" must be "ops\\nStatus: complete.checkpoint.json" for skill "ops\\nStatus: complete"']],
    ['doctor: generated_files that name no file', ['doctor'], ['"src/gone\\nnext: rm -rf /.ts" names no file', `docs/${'y'.repeat(75)}… (3005 characters) is missing`]],
    ['done --verify: the action and the next one', ['done', 'api', '--verify'], ['verifying "ship\\nStatus: complete" with: true', '✓ done: ship\\nStatus: complete', '  next: after\\nnext: push --force']],
    ['history: a file name', ['history', 'api'], ['other       api.2026\\n01.json']],
    ['resolve --check: a file name', ['resolve', '--check'], ['✗ .checkpoints/x\\ny.json holds merge conflict markers']],
  ];
  it.each(cases)('%s', async (_, argv, expected) => {
    const r = await runCli(repo, argv);
    const all = lines(r);
    for (const line of expected) expect(all.some((l) => l.includes(line)), `${line}\n---\n${r.stdout.slice(0, 3000)}${r.stderr}`).toBe(true);
    for (const bad of ['Status: complete', 'next: rm -rf', 'next: push', '01.json', 'y.json']) expect(all.filter((l) => l.startsWith(bad))).toEqual([]);
  });
});

// A control character in a value reaches text output in one form, \xNN (as a path shows it),
// never also JSON's \u001b: whether it came through a quoted name, a config key or a parse error.
describe('a control character from a file, in one form', () => {
  it('validate and doctor show ESC in a config key and SOH in a checkpoint as \\x1b and \\x01', async () => {
    const repo = makeRepo();
    write(repo, '.checkpoints/config.json', '{"logs": ["skill_state.audits"], "walk\\u001b[2Jdays": 30}\n');
    write(repo, FILE, '{"protocol_version": "1.1", "skill": \u0001}\n');
    commitAll(repo, 'hostile');
    for (const argv of [['validate'], ['doctor']]) {
      const r = await runCli(repo, argv);
      const text = r.stdout + r.stderr;
      expect(text, argv[0]).toContain('unknown key "walk\\x1b[2Jdays"');
      expect(text, argv[0]).not.toMatch(/\\u00|[\x00-\x09\x0b-\x1f]/);
      if (argv[0] === 'validate') expect(text).toContain('unexpected character "\\x01"');
    }
    cleanup(repo);
  });
});
