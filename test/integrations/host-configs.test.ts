// The example host configurations run exactly as written (read from examples/, never copied):
// each MCP server entry is started as its host starts it and answers over stdio; the Gemini CLI
// hooks run through `sh -c` with Gemini's event JSON on stdin; and the session-start hooks stay
// under the hosts' 10,000-character cap on a checkpoint far larger than that.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, commitAll, GIT_ENV, installedProject, read, ROOT, write, HANG_GUARD_MS } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { runCli } from '../helpers/in-process.js';
import { withNpxShim } from '../helpers/npx-shim.js';

const example = (f: string) => JSON.parse(readFileSync(join(ROOT, 'examples', f), 'utf8'));
const ENV: Record<string, string> = Object.fromEntries(
  Object.entries({ ...GIT_ENV, npm_config_update_notifier: 'false', npm_config_loglevel: 'warn' }).filter((e): e is [string, string] => !/^npm_(?!config_(update_notifier|loglevel))/i.test(e[0]) && typeof e[1] === 'string'),
);
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** A project with the package installed under its distinctive bin name only, and one checkpoint. */
function project(): string {
  const dir = installedProject({ '.checkpoints/my-skill.checkpoint.json': `${JSON.stringify(freshCheckpoint('my-skill'), null, 2)}\n` });
  dirs.push(dir);
  return dir;
}

/** A checkpoint whose orientation is far over 10,000 characters: 300 key decisions, long blockers. */
function huge(dir: string): void {
  const doc = freshCheckpoint('my-skill', {
    blockers: [{ id: 'B1', description: 'Redis or Postgres for sessions? (see docs/adr/0007.md)', needs: 'user_decision' }],
    context_primer: { key_decisions: Array.from({ length: 300 }, (_, i) => `decision ${i}: keep the v1 token format until PR ${i} lands ${'·'.repeat(60)}`), generated_files: ['src/x.ts (PR 12)', 'src/**/*.test.ts'] },
  });
  write(dir, '.checkpoints/my-skill.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
  commitAll(dir, 'huge');
}

describe('MCP server entries', () => {
  const entries: [string, { command: string; args: string[] }][] = [
    ['claude-code/.mcp.json', example('claude-code/.mcp.json').mcpServers.checkpoint],
    ['vscode/mcp.json', example('vscode/mcp.json').servers.checkpoint],
    ['gemini-cli/settings.json', example('gemini-cli/settings.json').mcpServers.checkpoint],
  ];
  // The first entry starts through the real npx; the others (the same command) through test/helpers/npx-shim.ts's.
  for (const [i, [file, server]] of entries.entries()) {
    it(`${file} starts a server that answers`, async () => {
      const dir = project();
      const client = new Client({ name: 'host', version: '1' });
      await client.connect(new StdioClientTransport({ command: server.command, args: server.args, cwd: dir, env: i === 0 ? ENV : withNpxShim(ENV), stderr: 'pipe' }));
      try {
        const r = (await client.callTool({ name: 'next', arguments: {} })) as { structuredContent?: Record<string, unknown> };
        expect(r.structuredContent).toMatchObject({ next: { skill: 'my-skill', text: 'Write the auth middleware tests' } });
      } finally {
        await client.close();
      }
    });
  }
});

describe('Gemini CLI hooks', () => {
  const settings = example('gemini-cli/settings.json');
  const START = settings.hooks.SessionStart[0].hooks[0].command as string;
  const PRE_COMPRESS = settings.hooks.PreCompress[0].hooks[0].command as string;
  const hook = (dir: string, cmd: string, event: Record<string, unknown>, npx: 'real' | 'shim' = 'shim') =>
    spawnSync('sh', ['-c', cmd], { cwd: dir, env: { ...(npx === 'real' ? ENV : withNpxShim(ENV)), GEMINI_PROJECT_DIR: dir }, input: JSON.stringify({ session_id: 's', transcript_path: '/tmp/t.json', cwd: dir, timestamp: new Date().toISOString(), ...event }), encoding: 'utf8', timeout: HANG_GUARD_MS });

  it('are in the docs as written', () => {
    const docs = readFileSync(join(ROOT, 'docs/integrations.md'), 'utf8');
    for (const cmd of [START, PRE_COMPRESS]) expect(docs).toContain(JSON.stringify(cmd).slice(1, -1));
  });

  it('SessionStart prints only JSON (Gemini parses stdout), carrying the orientation as additionalContext', () => {
    const dir = project();
    const r = hook(dir, START, { hook_event_name: 'SessionStart', source: 'startup' }, 'real');
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toContain('Next: Write the auth middleware tests');
  });

  it('SessionStart on a blocked checkpoint still hands over ASK THE USER', () => {
    const dir = project();
    write(dir, '.checkpoints/my-skill.checkpoint.json', `${JSON.stringify(freshCheckpoint('my-skill', { status: 'blocked', blockers: [{ id: 'b1', description: 'Which store?', needs: 'user_decision' }] }), null, 2)}\n`);
    const r = hook(dir, START, { hook_event_name: 'SessionStart', source: 'resume' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toMatch(/ASK THE USER/);
  });

  it('PreCompress refreshes the capsule and prints only {} on stdout', async () => {
    const dir = project();
    const capsule = { goal: 'Auth', acceptance: 'tests pass', constraints: [], decisions: [], evidence: ['vitest green'], pending: [], next: 'expiry test' };
    expect((await runCli(dir, ['pause', 'my-skill', '--context', JSON.stringify(capsule)])).code).toBe(0);
    write(dir, 'src/auth.ts', 'done\n');
    commitAll(dir, 'capsule');
    write(dir, 'src/auth.ts', 'wip\n'); // uncommitted work at compression time
    const r = hook(dir, PRE_COMPRESS, { hook_event_name: 'PreCompress', trigger: 'auto' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({});
    expect(r.stderr).toMatch(/refreshed the capsule's mechanical state/);
    expect(JSON.parse(read(dir, '.checkpoints/my-skill.checkpoint.json')).capsule.mechanical.uncommitted).toContain('src/auth.ts');
  });

  it('SessionStart stays within budget on a huge checkpoint', () => {
    const dir = project();
    huge(dir);
    const r = hook(dir, START, { hook_event_name: 'SessionStart', source: 'startup' });
    const ctx = JSON.parse(r.stdout).hookSpecificOutput.additionalContext as string;
    expect(ctx.length).toBeLessThanOrEqual(9001);
    expect(ctx).toContain('⛔ B1');
    expect(ctx.trimEnd().split('\n').at(-1)).toMatch(/^… left out to fit the output budget: key decisions \(\d+ of 300\).*; everything: checkpoint show my-skill$/);
  });
});

describe('Claude Code hooks and the 10,000-character cap', () => {
  const settings = example('claude-code/settings.json');
  const commandOf = (matcher: string) => settings.hooks.SessionStart.find((e: { matcher: string }) => e.matcher === matcher).hooks[0].command as string;

  it('session start (startup and after compaction) prints at most 9,000 characters with the omissions line', async () => {
    const dir = project();
    huge(dir);
    const capsule = { goal: 'Auth', acceptance: 'tests pass', constraints: [], decisions: [], evidence: Array.from({ length: 12 }, (_, i) => `run ${i}: ${'e'.repeat(900)}`), pending: [], next: 'expiry test' };
    expect((await runCli(dir, ['pause', 'my-skill', '--context', JSON.stringify(capsule)])).code).toBe(0);
    for (const [matcher, source] of [['startup|resume', 'startup'], ['compact', 'compact']] as const) {
      const r = spawnSync('sh', ['-c', commandOf(matcher)], { cwd: dir, env: { ...withNpxShim(ENV), CLAUDE_PROJECT_DIR: dir }, input: JSON.stringify({ session_id: 's', hook_event_name: 'SessionStart', source }), encoding: 'utf8', timeout: HANG_GUARD_MS });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.length, matcher).toBeLessThanOrEqual(9001);
      expect(r.stdout.trimEnd().split('\n').at(-1), matcher).toMatch(/^… left out to fit the output budget: .*; everything: checkpoint show my-skill$/);
    }
  });
});
