// An MCP write into a hand-formatted checkpoint keeps its layout: the built binary over stdio
// with the SDK's Client, a real repository; `git diff` shows only the lines the tool changed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, commitAll, git, GIT_ENV, makeRepo, read, write, initialized } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
let client: Client | undefined;
afterEach(async () => {
  await client?.close().catch(() => {});
  dirs.splice(0).forEach(cleanup);
});

const HAND = `{
    "protocol_version": "1.1", "skill": "api", "project": "shop", "project_dir": "/home/dev/shop",
    "created_at": "2026-02-01T09:00:00Z",
    "updated_at": "2026-03-03T17:45:00Z",
    "phase": "build", "step": "orders", "status": "stalled (waiting on infra)",
    "progress_summary": "Orders half done; see src/orders.ts (PR 12)",
    "context_primer": {"generated_files": ["src/x.ts (PR 12)", "src/**/*.test.ts"]},
    "next_actions": ["Ship PR #12"],
    "eval_scores": [{"rubric": "audit", "score": 8.0, "max": 10, "at": "2026-06-01T00:00:00Z"}]
}
`;

it('the update tool changes only the lines it changed, in the file\'s own layout', async () => {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, HAND);
  commitAll(dir, 'base');
  assertBuilt();
  client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' }));
  const r = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'context_primer.generated_files', op: 'append', value: 'src/y.ts (PR 13)' }] } })) as { isError?: boolean };
  expect(r.isError).toBeFalsy();
  const changed = git(dir, ['diff', '-U0', '--', FILE]).split('\n').filter((l) => /^[-+](?![-+])/.test(l));
  expect(changed).toEqual([
    '-    "updated_at": "2026-03-03T17:45:00Z",',
    expect.stringMatching(/^\+ {4}"updated_at": "[^"]+",$/),
    '-    "context_primer": {"generated_files": ["src/x.ts (PR 12)", "src/**/*.test.ts"]},',
    '+    "context_primer": {"generated_files": ["src/x.ts (PR 12)", "src/**/*.test.ts", "src/y.ts (PR 13)"]},',
  ]);
  expect(read(dir, FILE)).toContain('"score": 8.0');
});

it('a number an agent sends again over an equal one (8 over 8.0) leaves its text; another value is written', async () => {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, HAND);
  commitAll(dir, 'base');
  assertBuilt();
  client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' }));
  const same = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'eval_scores[0].score', value: 8 }] } })) as { isError?: boolean };
  expect(same.isError).toBeFalsy();
  expect(read(dir, FILE)).toContain('"score": 8.0,');
  expect(git(dir, ['diff', '-U0', '--', FILE]).split('\n').filter((l) => /^[-+](?![-+])/.test(l) && !l.includes('updated_at'))).toEqual([]);
  const other = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'eval_scores[0].score', value: 9.5 }] } })) as { isError?: boolean };
  expect(other.isError).toBeFalsy();
  expect(read(dir, FILE)).toContain('"score": 9.5,');
});

it('a string an agent sends stays a string over a number (typed JSON, not text a person typed)', async () => {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, HAND);
  commitAll(dir, 'base');
  assertBuilt();
  client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' }));
  // eval_scores' score must be a number: the string is refused there, not turned into one.
  const refused = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'eval_scores[0].score', value: '9' }] } })) as { isError?: boolean };
  expect(refused.isError).toBe(true);
  expect(read(dir, FILE)).toBe(HAND);
  for (const value of [8, '9']) {
    const r = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'skill_state.n', value }] } })) as { isError?: boolean; content?: unknown };
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  }
  expect(JSON.parse(read(dir, FILE)).skill_state.n).toBe('9');
});
