// `update` refuses a new top-level field that is a typo of a protocol field (`--stauts`) or an
// option's name (`--json=1`): one line with the did-you-mean, exit 2, the file byte-identical.
// A field the file has, a custom field far from every protocol field, or --allow-new-field is written.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, commitAll, errorLine, GIT_ENV, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
const clients: Client[] = [];
beforeAll(assertBuilt);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  dirs.splice(0).forEach(cleanup);
});

// As a long-running agent leaves it: 6.0 written with its point, a note in a path, a months-old date.
const TEXT = `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "demo",
  "project_dir": "/demo",
  "created_at": "2026-03-01T09:00:00Z",
  "updated_at": "2026-04-02T17:30:00Z",
  "phase": "build",
  "step": "auth",
  "status": "in_progress",
  "progress_summary": "Sprint 1 passed (8.0/10).",
  "context_primer": { "key_decisions": ["JWT in cookies"], "generated_files": ["src/auth.ts (PR 12)", "docs/**/*.md"] },
  "next_actions": ["Write the auth middleware", "Add rate limiting"],
  "skill_state": { "iteration": 1, "pass_threshold": 6.0, "run_history": [] },
  "stats": { "runs": 3 }
}
`;

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, FILE, TEXT);
  commitAll(dir, 'checkpoint');
  return dir;
}
const bytes = (dir: string) => readFileSync(join(dir, FILE));

describe('update refuses a likely typo of a field', () => {
  it('near misses of protocol fields and option names: exit 2, one line, did you mean, file byte-identical', async () => {
    const dir = repo();
    const before = bytes(dir);
    const cases: [string, RegExp][] = [
      ['--stauts=blocked', /^--stauts=blocked: stauts is not a protocol field; did you mean --status\?$/],
      ['--next_action+=Fix it', /^--next_action\+=Fix it: next_action is not a protocol field; did you mean --next_actions\?$/],
      ['--blocker+:json={"id":"b","description":"x"}', /did you mean --blockers\?$/],
      ['--Status=blocked', /did you mean --status\?$/],
      ['--json=1', /^--json=1: json is the name of an option, not a protocol field/],
      ['--help=x', /help is the name of an option/],
      ['--color=1', /color is the name of an option/],
      ['--version=2', /version is the name of an option/],
      ['--C=x', /C is the name of an option/],
    ];
    for (const [flag, message] of cases) {
      const r = await runCli(dir, ['update', 'api', '--phase=deploy', flag]);
      expect(r.code, flag).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, flag).toBe(1);
      expect(line.message, flag).toMatch(message);
      expect(line.hint).toContain('--allow-new-field');
      expect(r.stdout).not.toContain('✓');
      expect(bytes(dir).equals(before), flag).toBe(true);
    }
  });

  it('a field the file has, a custom field far from every protocol field, and --allow-new-field are written', async () => {
    const dir = repo();
    expect((await runCli(dir, ['update', 'api', '--stats.runs:json=4'])).code).toBe(0); // "stats" is one from "status", but the file has it
    expect((await runCli(dir, ['update', 'api', '--owner=team-a'])).code).toBe(0);
    // Near misses whose value does not fit the field they nearly name are a project's own fields;
    // so is another command's option name.
    for (const flag of ['--state=draft', '--host=db1', '--steps+=lint', '--created_by=alice', '--verify=1']) expect((await runCli(dir, ['update', 'api', flag])).code, flag).toBe(0);
    const forced = await runCli(dir, ['update', 'api', '--stauts=blocked', '--allow-new-field']);
    expect(forced.code).toBe(0);
    const doc = JSON.parse(bytes(dir).toString());
    expect(doc).toMatchObject({ stats: { runs: 4 }, owner: 'team-a', state: 'draft', host: 'db1', steps: ['lint'], created_by: 'alice', verify: '1', stauts: 'blocked', status: 'in_progress' });
    expect(bytes(dir).toString()).toContain('"pass_threshold": 6.0');
    // Once there it is the project's field: no refusal, validate names the near miss as advice only.
    expect((await runCli(dir, ['update', 'api', '--stauts=complete'])).code).toBe(0);
    const v = await runCli(dir, ['validate', '--strict']);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('advice  stauts: unknown top-level field "stauts"; did you mean status?');
    expect(v.stdout).not.toMatch(/advice {2}(state|host|steps|created_by):/);
  });

  it('a member one level down that nearly names the protocol\'s there (a blocker\'s "neds", context_primer.key-decisions) is refused the same way; a member the file keeps, one far from every name, or --allow-new-field is written (red team, 12-05)', async () => {
    const dir = repo();
    const before = bytes(dir);
    const cases: [string, RegExp][] = [
      ['--blockers+:json={"id":"b1","description":"Prod deploy needs sign-off","neds":"user_decision"}', /: neds is not a member of a blocker; did you mean needs\?$/],
      ['--context_primer.key-decisions+=Use JWT', /^--context_primer\.key-decisions\+=Use JWT: key-decisions is not a member of context_primer; did you mean key_decisions\?$/],
      ['--context_primer:json={"key_decisions":[],"generated_fies":["src/a.ts"]}', /generated_fies is not a member of context_primer; did you mean generated_files\?$/],
      ['--progress_table:json=[{"id":"p1","label":"Auth","stauts":"complete"}]', /stauts is not a member of a progress_table row; did you mean status\?$/],
      ['--cost.total-usd:json=3.50', /total-usd is not a member of cost; did you mean total_usd\?$/],
      ['--next_actions+:json={"text":"Run the evals","don_when":"npm test"}', /don_when is not a member of an action; did you mean done_when\?$/],
      // Two letters swapped in a short name (red team round 2).
      ['--recently_done+:json={"ta":"2026-11-02T10:00:00Z","action":"Wrote the tests"}', /ta is not a member of a recently_done entry; did you mean at\?$/],
      ['--eval_scores+:json={"rubric":"audit","score":12,"amx":10}', /amx is not a member of an eval_scores entry; did you mean max\?$/],
    ];
    for (const [flag, message] of cases) {
      const r = await runCli(dir, ['update', 'api', flag]);
      expect(r.code, flag).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, flag).toBe(1);
      expect(line.message, flag).toMatch(message);
      expect(line.hint).toContain('--allow-new-field');
      expect(bytes(dir).equals(before), flag).toBe(true);
    }
    for (const flag of [
      '--context_primer.notes+=mine',
      '--blockers+:json={"id":"b2","description":"x","needs":"user_decision","owner":"alice"}',
      '--cost.total_usd:json=3.50',
      // Near a protocol member, but members of their own (red team, 12-05): given beside the member
      // they nearly name, or holding what that member could not.
      '--pm_refs+:json={"provider":"gitlab","id":123456,"iid":42}',
      '--eval_scores+:json={"rubric":"audit","score":7,"scorer":"claude-opus"}',
      '--cost.updated_by=oc-cost-ops',
      '--next_actions+:json={"text":"Run the evals","test":"unit"}',
      '--progress_table+:json={"id":"p2","label":"UI","status":"in_progress","level":"high"}',
      '--progress_table.0.state=draft',
    ])
      expect((await runCli(dir, ['update', 'api', flag])).code, flag).toBe(0);
    // A member the file keeps on one row is the project's on another row too ("complete" would fit status).
    expect((await runCli(dir, ['update', 'api', '--progress_table+:json={"id":"p3","label":"API","status":"complete"}'])).code).toBe(0);
    expect((await runCli(dir, ['update', 'api', '--progress_table.1.state=complete'])).code).toBe(0);
    // Set alone on a row that has a status, a near miss holding a status is still a slip.
    expect((await runCli(dir, ['update', 'api', '--progress_table.1.stauts=blocked'])).code).toBe(2);
    expect((await runCli(dir, ['update', 'api', '--context_primer.key-decisions+=Use JWT', '--allow-new-field'])).code).toBe(0);
    // Once there it is the project's member: written again without a word.
    expect((await runCli(dir, ['update', 'api', '--context_primer.key-decisions+=Rotate keys'])).code).toBe(0);
    expect(JSON.parse(bytes(dir).toString()).context_primer).toMatchObject({ 'key-decisions': ['Use JWT', 'Rotate keys'], notes: ['mine'] });
  });

  it('the MCP update tool takes the same rule', async () => {
    const dir = repo();
    const before = bytes(dir);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    clients.push(client);
    const refused = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'stauts', value: 'blocked' }] } })) as { isError?: boolean; content: { text: string }[] };
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^checkpoint: ops\[0\] \(set "stauts"\): stauts is not a protocol field; did you mean "status"\?; hint: .*rerun with "allow_new_field": true/);
    expect(bytes(dir).equals(before)).toBe(true);
    const forced = (await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'stauts', value: 'blocked' }], allow_new_field: true } })) as { isError?: boolean };
    expect(forced.isError).toBeFalsy();
    expect(JSON.parse(bytes(dir).toString()).stauts).toBe('blocked');
  });
});
