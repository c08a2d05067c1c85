// generated_files and verified_for_sha written at the top level of a checkpoint (where many people
// and agents put them) instead of under context_primer / skill_state (red team B02): update writes
// them as asked with one note naming their home, validate says where they belong, and doctor
// checks them as it checks their home's, the pre-push judgement included. Real git, the built
// binary as a user runs it, both engines, and the MCP update tool.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, cli, commitAll, git, GIT_ENV, headSha, initialized, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
const clients: Client[] = [];
beforeAll(assertBuilt);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  dirs.splice(0).forEach(cleanup);
});

type F = { level: string; check: string; path: string; message: string; blocks?: boolean };
const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
const notes = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('checkpoint: note: '));

describe('the red team repro (B02), with the built binary', () => {
  it('update writes the top-level fields as asked and notes their home; validate --strict and doctor say what is off', () => {
    const dir = makeRepo();
    dirs.push(dir);
    initialized(dir);
    write(dir, 'a.ts', 'a\n');
    write(dir, 'b.ts', 'b\n');
    commitAll(dir, 'init');
    const u = cli(dir, ['update', 'api', '--status=in_progress', '--phase=build', '--step=x', '--next_actions+=go', '--generated_files+=a.ts', '--generated_files+=b.ts', '--verified_for_sha=deadbeef']);
    expect(u.code, u.stderr).toBe(0);
    // One note per field (two appends to generated_files: one note), in the flag's own words.
    expect(notes(u.stderr)).toEqual([
      'checkpoint: note: generated_files is written at the top level, as asked; the protocol keeps generated_files under context_primer, where a resuming session reads it: --context_primer.generated_files+=…',
      "checkpoint: note: verified_for_sha is written at the top level, as asked; the protocol keeps a skill's own state under skill_state: --skill_state.verified_for_sha=…",
    ]);
    // The note says it: the validator's line about the same field is not printed again.
    expect(u.stderr).not.toMatch(/^ {2}(warning|advice) +(generated_files|verified_for_sha):/m);
    // Written where asked, nothing moved.
    const doc = JSON.parse(read(dir, FILE));
    expect(doc.generated_files).toEqual(['a.ts', 'b.ts']);
    expect(doc.verified_for_sha).toBe('deadbeef');
    expect(doc.context_primer).toBeUndefined();
    expect(doc.skill_state).toBeUndefined();
    commitAll(dir, 'cp');
    git(dir, ['rm', '-q', 'a.ts']);
    commitAll(dir, 'delete a.ts');
    git(dir, ['mv', 'b.ts', 'c.ts']);
    commitAll(dir, 'rename b.ts');

    const strict = cli(dir, ['validate', '--strict']);
    expect(strict.code, strict.stdout).toBe(1);
    expect(strict.stdout).toMatch(/^ {2}warning generated_files: written at the top level; the protocol keeps generated_files under context_primer, where a resuming session reads it: move it to context_primer\.generated_files \(doctor checks it in either place\)$/m);
    expect(strict.stdout).toMatch(/^ {2}advice {2}verified_for_sha: written at the top level; the protocol keeps a skill's own state under skill_state: move it to skill_state\.verified_for_sha/m);
    // A warning, not an error: plain validate passes.
    expect(cli(dir, ['validate']).code).toBe(0);

    const d = cli(dir, ['doctor', '--fail-on-warnings', '--json']);
    expect(d.code, d.stdout).toBe(1);
    const findings = (JSON.parse(d.stdout).findings as F[]).filter((f) => f.check !== 'schema' && f.check !== 'hook');
    expect(findings.map((f) => [f.level, f.path, f.message])).toEqual([
      ['warning', 'generated_files[0]', expect.stringMatching(/^a\.ts is missing: deleted in [0-9a-f]{7} "delete a\.ts"; update the checkpoint \(`checkpoint update api --generated_files\.0='a\.ts \(deleted\)'`\) or restore the file$/)],
      ['warning', 'generated_files[1]', expect.stringMatching(/^b\.ts is missing: renamed to c\.ts in [0-9a-f]{7}; update the checkpoint \(`checkpoint update api --generated_files\.1='b\.ts \(renamed to c\.ts\)'`\)$/)],
      ['warning', 'verified_for_sha', 'verified_for_sha deadbeef is not a commit in this repository'],
    ]);
  });

  it('update --json stays one JSON document on stdout, the note on stderr; a list under context_primer is left as it is', () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, `${JSON.stringify(messy(), null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    const r = cli(dir, ['update', 'api', '--json', '--generated_files+=src/extra.ts (PR 14)']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.warnings.map((w: { path: string }) => w.path)).toContain('generated_files');
    expect(notes(r.stderr)).toEqual([expect.stringContaining('--context_primer.generated_files+=…')]);
    const doc = JSON.parse(read(dir, FILE));
    expect(doc.generated_files).toEqual([...messy().generated_files, 'src/extra.ts (PR 14)']);
    expect(doc.context_primer.generated_files).toEqual(messy().context_primer.generated_files);
    // An op on the home writes no note.
    const home = cli(dir, ['update', 'api', '--context_primer.generated_files+=src/home.ts']);
    expect(home.code, home.stderr).toBe(0);
    expect(notes(home.stderr)).toEqual([]);
  });
});

/** As a person leaves one: the primer's own list, another at the top level with notes, a glob, a plan, a URL; 6.0 written with its point. */
function messy() {
  return {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/someone/demo',
    created_at: '2026-06-01T09:00:00Z', updated_at: ago(120),
    phase: 'build', step: 'auth', status: 'in_progress',
    progress_summary: 'Auth in review; scored 8.0 on the nightly run.',
    progress_table: [{ id: 'design', label: 'Design', status: 'complete' }, { id: 'auth', label: 'Auth (PR 12)', status: 'in_progress' }],
    context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['src/auth.ts (PR 12)'] },
    next_actions: ['Write the session docs'],
    generated_files: ['src/session.ts (PR 12)', 'src/util.ts — helper', 'docs/**/*.md', 'docs/api.md — to write', 'https://github.com/acme/demo/blob/main/README.md'],
    verified_for_sha: 'release-v2 (base e5ea561)',
    skill_state: { pass_threshold: 6 },
  };
}

/** The checkpoint committed 2h ago, then: auth.ts edited, session.ts deleted, util.ts renamed, the only doc deleted. */
function drifted(): { dir: string; saved: string } {
  const dir = makeRepo();
  dirs.push(dir);
  for (const f of ['src/auth.ts', 'src/session.ts', 'src/util.ts', 'docs/guide.md']) write(dir, f, `${f}\n`);
  write(dir, FILE, `${JSON.stringify(messy(), null, 2).replace('"pass_threshold": 6', '"pass_threshold": 6.0')}\n`);
  const saved = commitAll(dir, 'checkpoint: api', ago(119));
  write(dir, 'src/auth.ts', 'auth, revised\n');
  commitAll(dir, 'Revise auth', ago(90));
  git(dir, ['rm', '-q', 'src/session.ts']);
  commitAll(dir, 'Drop the session module', ago(80));
  git(dir, ['mv', 'src/util.ts', 'src/helpers.ts']);
  commitAll(dir, 'Rename util', ago(70));
  git(dir, ['rm', '-q', 'docs/guide.md']);
  commitAll(dir, 'Drop the guide', ago(60));
  return { dir, saved };
}

describe.each(['native', 'isomorphic'] as const)('doctor on top-level generated_files and verified_for_sha (%s engine)', (engine) => {
  it('checks each entry as a context_primer entry, under its top-level path; the pre-push judgement blocks on them', async () => {
    const { dir, saved } = drifted();
    const before = read(dir, FILE);
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const findings = JSON.parse(r.stdout).findings as F[];
    const about = findings.filter((f) => f.check === 'generated_files' || f.check === 'verified_for_sha').map((f) => [f.level, f.path, f.message]);
    expect(about).toEqual([
      ['warning', 'context_primer.generated_files[0]', expect.stringMatching(/^src\/auth\.ts changed after the checkpoint was written \([0-9a-f]{7} "Revise auth"/)],
      ['warning', 'generated_files[0]', expect.stringMatching(/^src\/session\.ts is missing: deleted in [0-9a-f]{7} "Drop the session module"; update the checkpoint \(`checkpoint update api --generated_files\.0='src\/session\.ts \(PR 12; deleted\)'`\) or restore the file$/)],
      ['warning', 'generated_files[1]', expect.stringMatching(/^src\/util\.ts is missing: renamed to src\/helpers\.ts in [0-9a-f]{7}; update the checkpoint \(`checkpoint update api --generated_files\.1='src\/util\.ts — helper — renamed to src\/helpers\.ts'`\)$/)],
      ['warning', 'generated_files[2]', expect.stringMatching(/^docs\/\*\*\/\*\.md matches no file \(its last match docs\/guide\.md was deleted in [0-9a-f]{7} "Drop the guide"\); update the checkpoint \(`checkpoint update api --generated_files\.2='docs\/\*\*\/\*\.md \(deleted\)'`\)$/)],
      ['info', 'generated_files[3]', expect.stringMatching(/^docs\/api\.md is not made yet, as its entry says/)],
      ['info', 'generated_files[4]', expect.stringMatching(/names a URL.*not checked$/)],
      ['warning', 'verified_for_sha', 'verified_for_sha e5ea561 is not a commit in this repository'],
    ]);
    // The misplacement itself is advice in doctor, as every validator warning there.
    expect(findings.filter((f) => f.check === 'schema').map((f) => [f.level, f.path])).toEqual([['advice', 'generated_files'], ['advice', 'verified_for_sha']]);
    // A push of the drift commits is refused for the top-level entries as for the primer's.
    const pushed = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', `${saved}..${headSha(dir)}`]);
    expect(pushed.code, pushed.stdout).toBe(1);
    const blocking = (JSON.parse(pushed.stdout).findings as F[]).filter((f) => f.blocks).map((f) => f.path);
    expect(blocking).toEqual(expect.arrayContaining(['context_primer.generated_files[0]', 'generated_files[0]', 'generated_files[1]', 'generated_files[2]']));
    expect(read(dir, FILE)).toBe(before);
    // A pushed HEAD whose checkpoint now claims a sha that is no commit: refused for the top-level value too.
    const tip = headSha(dir);
    write(dir, FILE, before.replace('release-v2 (base e5ea561)', 'release-v3 (base 0badc0de1)'));
    commitAll(dir, 'api: verified');
    const claimed = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', `${tip}..${headSha(dir)}`]);
    const blocked = (JSON.parse(claimed.stdout).findings as F[]).filter((f) => f.blocks && f.check === 'verified_for_sha');
    // The pushed tip is the work tree's HEAD: one line, in the work tree's words, blocking.
    expect(blocked.map((f) => [f.path, f.message])).toEqual([['verified_for_sha', 'verified_for_sha 0badc0de1 is not a commit in this repository']]);
  });
});

describe('the MCP update tool', () => {
  it('writes a top-level generated_files as asked and gives the note in its own op words', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, `${JSON.stringify(messy(), null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    clients.push(client);
    const r = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'generated_files', op: 'append', value: 'src/x.ts (PR 3)' }] } })) as { isError?: boolean; content: { text: string }[] };
    expect(r.isError).toBeFalsy();
    expect(r.content[0]!.text).toContain('checkpoint: note: generated_files is written at the top level, as asked; the protocol keeps generated_files under context_primer, where a resuming session reads it: {"path": "context_primer.generated_files", "op": "append", "value": "…"}');
    expect(JSON.parse(read(dir, FILE)).generated_files.at(-1)).toBe('src/x.ts (PR 3)');
  });
});
