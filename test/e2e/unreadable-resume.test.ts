// A checkpoint that exists but cannot be read (a merge's conflict markers, a hand edit's trailing
// comma) is never "no checkpoint: start fresh": resume names it and its repair and asks the user
// (exit 3); reset and rotate refuse to archive a conflicted file mid-merge; resolve says how to
// bring back a conflicted file missing from the work tree. Real git merges, no driver installed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, commitAll, errorLine, git, GIT_ENV, gitTry, makeRepo, read, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
const clients: Client[] = [];
beforeAll(assertBuilt);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  dirs.splice(0).forEach(cleanup);
});

// Messy, like a real one: a note in a path list, a glob, a months-old date, a score written 8.0.
const cp = (skill: string, over: Record<string, unknown> = {}) => ({
  protocol_version: '1.1', skill, project: 'demo', project_dir: '/demo',
  created_at: '2026-06-01T00:00:00Z', updated_at: new Date().toISOString(),
  phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Sprint 1 passed (8.0/10).',
  progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }],
  context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['src/x.ts (PR 12)', 'docs/**/*.md'] },
  next_actions: ['Write the auth middleware', 'Add rate limiting'],
  skill_state: { iteration: 1, pass_threshold: 6.0, run_history: [] },
  ...over,
});
const save = (dir: string, doc: unknown, rel = FILE) => write(dir, rel, `${JSON.stringify(doc, null, 2).replace('"pass_threshold": 6', '"pass_threshold": 6.0')}\n`);

/** A repository stopped in a real merge: both sessions set phase differently, git left UU and its line markers. */
let template: string | undefined;
function conflicted(): string {
  if (!template) {
    const dir = makeRepo();
    save(dir, cp('api'));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp('api', { phase: 'p-theirs' }));
    commitAll(dir, 'other session');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp('api', { phase: 'p-ours' }));
    commitAll(dir, 'main session');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    template = dir; // copied for each test; removed with the run's temp dirs
  }
  const dir = join(tempDir('cp-unreadable-'), 'work');
  cpSync(template, dir, { recursive: true });
  dirs.push(dir);
  expect(read(dir, FILE)).toContain('<<<<<<<');
  return dir;
}

describe('resume over a checkpoint that cannot be read', () => {
  it('mid-merge: names the file and `checkpoint resolve`, asks the user (exit 3), never "start fresh"', async () => {
    const dir = conflicted();
    const r = await runCli(dir, ['resume']);
    expect(r.code).toBe(3);
    expect(r.stdout).not.toMatch(/start fresh\b(?! over)/);
    expect(r.stdout).toContain('✗ needs repair: api: .checkpoints/api.checkpoint.json');
    expect(r.stdout).toContain('checkpoint resolve');
    expect(r.stdout).toMatch(/^ASK THE USER before starting work: repair it/m);
    expect(r.stderr).toContain('left out unreadable or invalid checkpoint: api (see `checkpoint resolve`)');
    const json = await runCli(dir, ['resume', '--json']);
    expect(json.code).toBe(3);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ ok: false, ask_user: true, candidates: [] });
    expect(doc.resume).toBeUndefined();
    expect(doc.needs_repair).toEqual([{ skill: 'api', problem: expect.stringContaining('checkpoint resolve'), conflict: 'UU' }]);
    // --context: the capsule may be in that file: not "none saved". Exit 0: the compaction hooks run it unwrapped.
    const context = await runCli(dir, ['resume', '--context']);
    expect(context.code).toBe(0);
    expect(context.stdout).toMatch(/^ASK THE USER before starting work: repair it/m);
    expect(context.stdout).not.toContain('no recovery capsule saved');
    expect(context.stdout).toMatch(/✗ api: .*conflict marker.*\(checkpoint resolve\)/);
    const contextJson = JSON.parse((await runCli(dir, ['resume', '--context', '--json'])).stdout);
    expect(contextJson).toMatchObject({ ok: false, ask_user: true, capsule: null, needs_repair: [{ skill: 'api' }] });
  });

  it('mid-merge beside a healthy skill: still asks, listing both', async () => {
    const dir = conflicted();
    save(dir, cp('web', { next_actions: ['Ship the landing page'] }), '.checkpoints/web.checkpoint.json');
    const r = await runCli(dir, ['resume']);
    expect(r.code).toBe(3);
    expect(r.stdout).not.toContain('RESUMING');
    expect(r.stdout).toMatch(/needs repair: api: .*checkpoint resolve/);
    expect(r.stdout).toMatch(/^ {2}web {2}in_progress/m);
    // The one other skill by name: a command that runs as pasted, never a template (red team 64 r4).
    expect(r.stdout).toContain('or resume another (`checkpoint resume web`)');
  });

  it('a hand edit that does not parse: names it with `checkpoint validate`; beside a healthy one, resumes that and says so on stdout', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, `${JSON.stringify(cp('api'), null, 2).replace(/\n}$/, ',\n}')}\n`); // a trailing comma
    const alone = await runCli(dir, ['resume']);
    expect(alone.code).toBe(3);
    expect(alone.stdout).toMatch(/needs repair: api: .*invalid JSON.*\(checkpoint validate \.checkpoints\/api\.checkpoint\.json\)/);
    expect(alone.stdout).not.toContain('no checkpoint to resume');
    save(dir, cp('web', { next_actions: ['Ship the landing page'] }), '.checkpoints/web.checkpoint.json');
    const beside = await runCli(dir, ['resume']);
    expect(beside.code).toBe(0);
    expect(beside.stdout).toContain('RESUMING: web');
    expect(beside.stdout).toMatch(/^needs repair: api: .*checkpoint validate/m);
    expect(JSON.parse((await runCli(dir, ['resume', '--json'])).stdout).needs_repair).toEqual([{ skill: 'api', problem: expect.stringContaining('invalid JSON') }]);
  });

  it('resume --context passes over an empty file (touch): named on stderr with a command that clears it, no question (red team rt61a 05)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp('api'));
    write(dir, '.checkpoints/scratch.checkpoint.json', '');
    const r = await runCli(dir, ['resume', '--context']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toBe('no recovery capsule saved in any checkpoint\n');
    expect(r.stderr).toBe('checkpoint: skipped scratch: its checkpoint file is empty, so it holds no recovery capsule (clear it away: checkpoint reset scratch)\n');
    expect(JSON.parse((await runCli(dir, ['resume', '--context', '--json'])).stdout)).toMatchObject({ ok: true, capsule: null });
    // Blanks and a BOM alone hold nothing either; a file cut short beside it still may, and asks.
    write(dir, '.checkpoints/scratch.checkpoint.json', '\uFEFF\r\n');
    write(dir, '.checkpoints/web.checkpoint.json', '{\n  "protocol_version": "1.1",\n  "skill": "web",\n  "capsule": {');
    const cut = await runCli(dir, ['resume', '--context']);
    expect(cut.code).toBe(0);
    expect(cut.stdout).toMatch(/✗ web: .*invalid JSON/);
    expect(cut.stdout).toMatch(/^ASK THE USER before starting work/m);
    expect(cut.stdout).not.toContain('scratch');
    rmSync(join(dir, '.checkpoints/web.checkpoint.json'));
    // The command named does clear it: archived, nothing lost, nothing skipped after.
    expect((await runCli(dir, ['reset', 'scratch'])).code).toBe(0);
    expect(existsSync(join(dir, '.checkpoints/scratch.checkpoint.json'))).toBe(false);
    const after = await runCli(dir, ['resume', '--context']);
    expect([after.code, after.stderr]).toEqual([0, '']);
  });

  it('resume <skill> on a conflicted file points at `checkpoint resolve`, not reset', async () => {
    const dir = conflicted();
    const r = await runCli(dir, ['resume', 'api']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr.split('\n').filter((l) => !l.includes('warning')).join('\n'));
    expect(line.hint).toContain('checkpoint resolve');
    expect(line.hint).not.toContain('reset');
  });

  it('a key JavaScript gives a meaning ("prototype" as a milestone) is named with the rename, never "invalid JSON" nor reset (red team, 12-07)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const text = `${JSON.stringify(cp('api', { skill_state: { milestones: { alpha: '2026-01-02', prototype: '2026-01-10' } } }), null, 4)}\n`;
    write(dir, FILE, text);
    const r = await runCli(dir, ['resume', 'api']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(/api\.checkpoint\.json:\d+:\d+: forbidden key "prototype" \(no checkpoint may hold __proto__, prototype or constructor as a key: rename it, e\.g\. "prototype_"\)/);
    expect(line.message).not.toContain('invalid JSON');
    expect(line.hint).toContain('rename that key by hand');
    expect(line.hint).not.toContain('reset');
    expect(read(dir, FILE)).toBe(text);
  });

  it('the MCP resume tool and resume-session prompt ask the user instead of "start fresh"', async () => {
    const dir = conflicted();
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    clients.push(client);
    const tool = (await client.callTool({ name: 'resume', arguments: {} })) as { content: { text: string }[]; structuredContent?: Record<string, unknown> };
    const text = tool.content.map((c) => c.text).join('\n');
    expect(text).not.toContain('no checkpoint to resume');
    expect(text).toContain('ASK THE USER');
    expect(text).toContain('checkpoint resolve');
    expect(tool.structuredContent).toMatchObject({ ok: false, ask_user: true });
    const prompt = await client.getPrompt({ name: 'resume-session', arguments: {} });
    const said = (prompt.messages[0]!.content as { text: string }).text;
    expect(said).toContain('ASK THE USER');
    expect(said).not.toContain('no checkpoint to resume');
  });
});

describe('archiving writes refuse a conflicted checkpoint', () => {
  it('reset refuses conflict markers: one line, exit 2, the file byte-identical and still unmerged', async () => {
    const dir = conflicted();
    const before = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['reset', 'api']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toBe('refused to reset api: .checkpoints/api.checkpoint.json holds merge conflict markers; the file was not changed');
    expect(line.hint).toContain('checkpoint resolve');
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    expect(existsSync(join(dir, '.checkpoints/history'))).toBe(false);
    expect(git(dir, ['ls-files', '-u', '--', FILE])).not.toBe('');
  });

  it('restore over a conflicted checkpoint points at resolve, not at reset (which refuses it too)', async () => {
    const dir = conflicted();
    const before = readFileSync(join(dir, FILE));
    const archive = '.checkpoints/history/api.2026-11-01T00-00-00Z.checkpoint.json';
    write(dir, archive, git(dir, ['show', `HEAD:${FILE}`]));
    const r = await runCli(dir, ['restore', 'api.2026-11-01T00-00-00Z.checkpoint.json']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.message).toMatch(/^refused to restore api\.2026-11-01T00-00-00Z\.checkpoint\.json over it: \.checkpoints\/api\.checkpoint\.json holds merge conflict markers/);
    expect(line.hint).toContain('checkpoint resolve');
    expect(line.hint).not.toContain('reset');
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
  });

  it('reset and rotate refuse a file settled by hand that git still holds unmerged', async () => {
    const dir = conflicted();
    git(dir, ['checkout', '--ours', '--', FILE]); // no markers, index still unmerged
    const before = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['reset', 'api']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.message).toBe("refused to reset api: .checkpoints/api.checkpoint.json: merge not marked resolved (UU: both sides changed it): no conflict markers in the file, but git's index still holds it unmerged; the file was not changed");
    // The way out resume names for it.
    expect(line.hint).toBe('finish the merge first: if it is the merge you want, checkpoint resolve --add .checkpoints/api.checkpoint.json checks and stages it');
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    // Rotate with old telemetry to move out: refused the same way, nothing written.
    const old = JSON.parse(before.toString());
    old.skill_state.run_history = Array.from({ length: 40 }, (_, i) => ({ id: `run-${i}`, at: `2026-0${1 + (i % 5)}-0${1 + (i % 9)}T00:00:00Z`, score: 8.0 }));
    save(dir, old);
    const mid = readFileSync(join(dir, FILE));
    const rot = await runCli(dir, ['rotate', 'api', '--keep', '1']);
    expect(rot.code).toBe(2);
    // rotate reports per skill ("✗ api: ..."), one line.
    expect(rot.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^✗ api: refused to rotate api: .*\(UU: both sides changed it\).*git's index still holds it unmerged/)]);
    expect(readFileSync(join(dir, FILE)).equals(mid)).toBe(true);
    expect(existsSync(join(dir, '.checkpoints/history'))).toBe(false);
  });

  it('reset of a clean checkpoint still archives it', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp('api'));
    commitAll(dir, 'cp');
    const r = await runCli(dir, ['reset', 'api']);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, FILE))).toBe(false);
  });
});

describe('resolve with the conflicted file gone from the work tree', () => {
  it('names the exact git command that brings it back, and works after it', async () => {
    const dir = conflicted();
    rmSync(join(dir, FILE));
    for (const args of [['resolve'], ['resolve', FILE]]) {
      const r = await runCli(dir, args);
      expect(r.code).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.message).toBe(".checkpoints/api.checkpoint.json: missing from the work tree, but git's index still holds its merge");
      expect(line.hint).toBe('bring it back with `git checkout --merge -- .checkpoints/api.checkpoint.json`, then rerun `checkpoint resolve`');
    }
    git(dir, ['checkout', '--merge', '--', FILE]);
    const again = await runCli(dir, ['resolve', '--theirs', 'phase', '--add']);
    expect(again.code).toBe(0);
    expect(JSON.parse(read(dir, FILE)).phase).toBe('p-theirs');
  });
});
