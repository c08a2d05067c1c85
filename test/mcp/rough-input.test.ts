// `checkpoint mcp` fed what a careless or hostile host may send, as raw lines, in real git
// repositories: every request gets one clear answer, nothing in a refused line runs, and no file
// changes that was not asked to. The lines go to the server in-process (test/helpers/mcp-in-process.ts:
// the same bytes on in-memory streams); the oversized line goes through a real pipe to the built
// binary, since how a pipe hands it over (in pieces) is what that test is about.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, commitAll, git, GIT_ENV, makeRepo, tempDir, write, cli } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { endSessions, pipeMcp } from '../helpers/mcp-in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(async () => {
  await endSessions();
  dirs.splice(0).forEach(cleanup);
});

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

/** A hand-kept checkpoint: prose in paths, an off-enum status, 8.0 scores, old dates. */
function messy(dir: string): string {
  const text = `${JSON.stringify(
    freshCheckpoint('api', {
      progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }, { id: 'old', label: 'Legacy (parked, see notes)', status: 'parked' }],
      context_primer: { key_decisions: ['JWT in cookies (see PR 12)'], generated_files: ['src/x.ts (PR 12)', 'src/**/*.test.ts'] },
      next_actions: ['Write the auth middleware tests', { text: 'Ship it', done_when: 'true' }],
      eval_scores: [{ rubric: 'audit', score: 8, max: 10, at: '2026-01-05T00:00:00Z' }],
      skill_state: { 'a.b': 1, café: 'x' },
      updated_at: '2026-03-02T09:14:00Z',
    }),
    null,
    2,
  ).replace('"score": 8', '"score": 8.0')}\n`;
  write(dir, FILE, text);
  return text;
}

type Answer = { jsonrpc: string; id: unknown; result?: { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown> }; error?: { code: number; message: string; data?: unknown } };

/**
 * The server fed raw `lines` (after initialize) through its stdin, which then closes: every answer
 * but initialize's. In-process, or (`process`) the built binary through a real pipe.
 */
async function pipe(dir: string, lines: (string | Buffer)[], opts: { process?: boolean } = {}): Promise<Answer[]> {
  const init = [
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  ];
  const chunks = [...init, ...lines].map((l) => (Buffer.isBuffer(l) ? l : `${l}\n`));
  const out = opts.process ? await spawned(dir, chunks) : await pipeMcp(dir, chunks);
  return out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Answer).filter((m) => m.id !== 0);
}
/** The built binary's stdout, fed `chunks` through a pipe that then closes. */
function spawned(dir: string, chunks: (string | Buffer)[]): Promise<string> {
  assertBuilt();
  return new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: dir, env: GIT_ENV, stdio: ['pipe', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.on('error', fail).on('exit', () => done(text));
    for (const c of chunks) child.stdin.write(c);
    child.stdin.end();
  });
}
/** Answers in the order of their (numeric) ids: concurrent calls are answered as they finish. */
const byOrder = (answers: Answer[]) => [...answers].sort((a, b) => Number(a.id) - Number(b.id));
const toolCall = (id: unknown, name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('checkpoint mcp: an oversized line', () => {
  it('16 MiB of blanks and then a call on one line: one refusal, and the call at its end never runs', async () => {
    const dir = repo();
    const before = messy(dir);
    const update = toolCall(7, 'update', { skill: 'api', ops: [{ path: 'step', value: 'smuggled' }] });
    const answers = await pipe(dir, [Buffer.from(`${' '.repeat(16 * 1024 * 1024)}${update}\n`), toolCall(8, 'next', {})], { process: true });
    expect(answers.map((a) => [a.id, a.error?.code ?? 'result'])).toEqual([[null, -32600], [8, 'result']]);
    expect(answers[0]!.error!.message).toBe('Invalid Request: a line over 8388608 bytes; it was dropped up to its newline and nothing in it ran');
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });
});

describe('checkpoint mcp: update never changes a number on the way', () => {
  /** A raw update line: `ops` as JSON text, so a number is sent as written (1e400, -0.0), as a host's JSON may hold it. */
  const rawUpdate = (id: number, ops: string, tool = 'update', more = '') => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":{"skill":"api",${more}"ops":${ops}}}}`;

  it('an update of more ops than one call takes is refused at once, the file byte-identical, and the server keeps answering (red team 61g, 06)', async () => {
    const dir = repo();
    const before = messy(dir);
    const many = JSON.stringify(Array.from({ length: 30_000 }, (_, i) => ({ path: 'skill_state.runs', op: 'append', value: { n: i } })));
    const answers = await pipe(dir, [rawUpdate(1, many), '{"jsonrpc":"2.0","id":2,"method":"ping"}']);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(1)!.result!.isError).toBe(true);
    expect(byId.get(1)!.result!.content[0]!.text).toBe('checkpoint: invalid argument ops for tool update: at most 1000 ops in one call: send the rest in further calls; hint: tools/list gives each tool\'s input schema');
    expect(byId.get(2)).toMatchObject({ result: {} });
    expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).toBe(before);
  });

  it('a number JSON-RPC cannot carry exactly (1e400, 12345678901234567890) is one E_USAGE tool error naming where and how to send it; the file stays byte-identical', async () => {
    const dir = repo();
    const before = messy(dir);
    const answers = await pipe(dir, [
      rawUpdate(1, '[{"path":"skill_state.x","value":1e400}]'),
      rawUpdate(2, '[{"path":"step","value":"fine"},{"path":"skill_state.x","value":{"big":[1,-1e400]}}]'),
      rawUpdate(3, '[{"path":"skill_state.id","value":12345678901234567890}]'),
      rawUpdate(4, '[{"path":"skill_state.id","op":"append","value":{"n":-9007199254740993}}]'),
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"pause","arguments":{"skill":"api","capsule":{"goal":"g","acceptance":"a","constraints":[],"decisions":[],"evidence":[1e999],"pending":[],"next":"n"}}}}`,
    ]);
    const byId = new Map(answers.map((a) => [a.id, a]));
    const texts = [1, 2, 3, 4, 5].map((id) => {
      const r = byId.get(id)!.result!;
      expect(r.isError, String(id)).toBe(true);
      expect(r.structuredContent).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
      expect(r.content[0]!.text).not.toContain('\n');
      return r.content[0]!.text;
    });
    expect(texts[0]).toBe('checkpoint: ops[0].value: a number too large for JSON-RPC to carry (such as 1e400) arrived as Infinity; nothing was changed; hint: a checkpoint cannot hold it as a number either (the CLI refuses 1e400 too): send it as a string');
    expect(texts[1]).toMatch(/^checkpoint: ops\[1\]\.value\.big\[1\]: a number too large .* arrived as -Infinity; nothing was changed/);
    expect(texts[2]).toBe(
      'checkpoint: ops[0].value: the integer 12345678901234567000 is past 9007199254740991, so JSON-RPC may have rounded it on the way; nothing was changed; hint: send its exact digits as JSON text, e.g. {"path": "…", "value": "12345678901234567890", "json": true}, or as a string',
    );
    expect(texts[3]).toMatch(/^checkpoint: ops\[0\]\.value\.n: the integer -9007199254740992 is past/);
    expect(texts[4]).toMatch(/^checkpoint: capsule\.evidence\[0\]: a number too large/);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });

  it('-0 keeps its sign; "json": true takes the value as JSON text, numbers written exactly as sent (as --path:json= does)', async () => {
    const dir = repo();
    messy(dir);
    const answers = await pipe(dir, [
      rawUpdate(1, '[{"path":"skill_state.zero","value":-0.0},{"path":"skill_state.list","value":[0,-0,9007199254740991,0.1]}]'),
      rawUpdate(2, '[{"path":"skill_state.id","value":"12345678901234567890","json":true},{"path":"skill_state.scores","value":"[8.0, 1E5, -0.0]","json":true},{"path":"next_actions","op":"append","value":"\\"Deploy (see PR 12)\\"","json":true}]'),
    ]);
    for (const a of answers) expect(a.result?.isError, JSON.stringify(a)).toBeFalsy();
    const text = readFileSync(join(dir, FILE), 'utf8');
    expect(text).toContain('"zero": -0,');
    expect(text).toMatch(/"list": \[\s*0,\s*-0,\s*9007199254740991,\s*0\.1\s*\]/);
    expect(text).toContain('"id": 12345678901234567890');
    expect(text).toMatch(/"scores": \[\s*8\.0,\s*1E5,\s*-0\.0\s*\]/);
    expect(JSON.parse(text).next_actions.at(-1)).toBe('Deploy (see PR 12)');
    // What was not touched keeps its text.
    expect(text).toContain('"score": 8.0');
  });

  it("update's refusals name the op as sent (ops[i]) and hint at ops and options as the tool takes them, never a CLI flag", async () => {
    const dir = repo();
    const before = messy(dir);
    const answers = await pipe(dir, [
      rawUpdate(1, '[{"path":"step","value":"s2"},{"path":"stauts","value":"blocked"}]'),
      rawUpdate(2, '[{"path":"nxt_actions","op":"append","value":"Ship"}]'),
      rawUpdate(3, '[{"path":"progress_table.0.stauts","value":"complete"}]'),
      rawUpdate(4, '[{"path":"eval_scores.0.score","op":"append","value":9}]'),
      rawUpdate(5, '[{"path":"status","op":"append","value":"blocked"}]'),
      rawUpdate(6, '[{"path":"next_actions-","value":"Ship it"}]'),
      rawUpdate(7, '[{"path":"updated_at","value":"2026-01-01T00:00:00Z"}]'),
      rawUpdate(8, '[{"path":"next_actions.7","value":"x"}]'),
    ]);
    const texts = byOrder(answers).map((a) => {
      expect(a.result?.isError).toBe(true);
      expect(a.result!.structuredContent).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
      return a.result!.content[0]!.text;
    });
    expect(texts).toHaveLength(8);
    expect(texts[0]).toMatch(/^checkpoint: ops\[1\] \(set "stauts"\): stauts is not a protocol field; did you mean "status"\?; hint: .*rerun with "allow_new_field": true, or keep it under skill_state: \{"path": "skill_state\.stauts", "value": "\.\.\."\}$/);
    expect(texts[1]).toMatch(/^checkpoint: ops\[0\] \(append to "nxt_actions"\): .*did you mean "next_actions"\?; hint: .*\{"path": "skill_state\.nxt_actions", "op": "append", "value": "\.\.\."\}$/);
    expect(texts[2]).toMatch(/^checkpoint: ops\[0\] \(set "progress_table\.0\.stauts"\): stauts is not a member of a progress_table row; did you mean status\?; hint: .*"allow_new_field": true$/);
    expect(texts[3]).toMatch(/^checkpoint: ops\[0\] \(append to "eval_scores\.0\.score"\): cannot append: .* not an array \(it is 8\.0\); hint: make it a list first \(\{"path": "eval_scores\.0\.score", "value": \[8\.0\]\}\)/);
    expect(texts[4]).toMatch(/^checkpoint: ops\[0\] \(append to "status"\): cannot append: status holds one text .*; hint: set it instead: \{"path": "status", "value": "<status>"\}/);
    expect(texts[5]).toMatch(/^checkpoint: ops\[0\] \(set "next_actions-"\): there is no removing op .*; hint: to set the list without that item: \{"path": "next_actions", "value": \[\.\.\.\]\}; to record the action next names as done: the done tool/);
    expect(texts[6]).toMatch(/^checkpoint: ops\[0\] \(set "updated_at"\): updated_at is stamped by every write .*; hint: leave the op on updated_at out/);
    expect(texts[7]).toMatch(/^checkpoint: ops\[0\] \(set "next_actions\.7"\): index 7 is past the end of next_actions \(length 2\); hint: the checkpoint was not changed$/);
    // No flag a caller of the tool never typed, and no option spelled as the CLI's.
    for (const t of texts) expect(t).not.toMatch(/(^|[\s(])--[a-z]|allow-new-field|:json=/);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });

  it("done's, pause's and a capsule op's refusals name the tool call to make, never a CLI command (red team 61g, 03)", async () => {
    const dir = repo();
    messy(dir);
    const answers = await pipe(dir, [
      rawUpdate(1, '[{"path":"capsule.next","value":"x"}]'),
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pause","arguments":{"skill":"newskill","capsule":{"goal":"g","acceptance":"a","constraints":[],"decisions":[],"evidence":[],"pending":[],"next":"n"}}}}',
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"done","arguments":{"skill":"nothing"}}}',
    ]);
    const hints = byOrder(answers).map((a) => (a.result!.structuredContent as { error: { hint: string } }).error.hint);
    expect(hints[0]).toBe('save it again with the pause tool with {"skill": "api", "capsule": {…}} (or "auto": true for its mechanical state); the checkpoint was not changed');
    expect(hints[1]).toBe('create it first: the update tool with {"skill": "newskill", "ops": [{"path": "phase", "value": "<phase>"}, {"path": "step", "value": "<step>"}, {"path": "next_actions", "op": "append", "value": "<first action>"}]}');
    for (const h of hints) expect(h).not.toMatch(/checkpoint (update|done|pause) |(^|[\s(])--[a-z]/);
  });

  it('a set over a list with entries (op "append" left out) is refused with the append to send, as the CLI refuses --list=text; a list sent replaces it (red team 12-07)', async () => {
    const dir = repo();
    const before = messy(dir);
    const answers = await pipe(dir, [
      toolCall(1, 'update', { skill: 'api', ops: [{ path: 'next_actions', value: 'Write the tests' }] }),
      toolCall(2, 'update', { skill: 'api', ops: [{ path: 'context_primer', value: { generated_files: 'src/y.ts' } }] }),
    ]);
    const texts = byOrder(answers).map((a) => {
      expect(a.result?.isError, JSON.stringify(a)).toBe(true);
      return a.result!.content[0]!.text;
    });
    expect(texts[0]).toBe('checkpoint: ops[0] (set "next_actions"): next_actions is a list of 2 entries; this would replace them all with "Write the tests"; hint: to add an entry: {"path": "next_actions", "op": "append", "value": "Write the tests"}; to replace the whole list: {"path": "next_actions", "value": [...]}; the checkpoint was not changed');
    // Inside an object merged into an object, key by key.
    expect(texts[1]).toMatch(/^checkpoint: ops\[0\] \(set "context_primer"\): context_primer\.generated_files is a list of 2 entries; .*hint: to add an entry: \{"path": "context_primer\.generated_files", "op": "append", "value": "src\/y\.ts"\}/);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
    const replaced = await pipe(dir, [toolCall(1, 'update', { skill: 'api', ops: [{ path: 'next_actions', value: ['Write the tests'] }] })]);
    expect(replaced[0]!.result!.isError, JSON.stringify(replaced[0])).toBeFalsy();
    expect(JSON.parse(readFileSync(join(dir, FILE), 'utf8')).next_actions).toEqual(['Write the tests']);
  });

  it('"json": true with a value that is not a string, or not JSON, is one E_USAGE tool error; the file stays byte-identical', async () => {
    const dir = repo();
    const before = messy(dir);
    const answers = await pipe(dir, [
      rawUpdate(1, '[{"path":"skill_state.x","value":12,"json":true}]'),
      rawUpdate(2, '[{"path":"skill_state.x","value":"{\\"a\\":","json":true}]'),
      rawUpdate(3, '[{"path":"skill_state.x","value":"1e400","json":true}]'),
    ]);
    const texts = byOrder(answers).map((a) => {
      expect(a.result?.isError).toBe(true);
      expect(a.result!.structuredContent).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
      return a.result!.content[0]!.text;
    });
    expect(texts[0]).toMatch(/^checkpoint: ops\[0\]: "json": true takes the value as JSON text, a string; got a number; hint: /);
    expect(texts[1]).toMatch(/^checkpoint: ops\[0\] \(set "skill_state\.x"\): value is not valid JSON .*; hint: send valid JSON text, or drop "json"/);
    expect(texts[2]).toMatch(/number 1e400 .* beyond what a JSON number can hold/);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });
});

describe('checkpoint mcp: a call works only in the server\'s own project', () => {
  const stepOp = [{ path: 'next_actions', op: 'append', value: 'Write the tests (src/x.ts, PR 12)' }];

  it('a cwd outside it (/dev, another repository) is one E_USAGE error, nothing created there; inside it, or in a worktree of its repository, calls work', async () => {
    const dir = repo();
    messy(dir);
    commitAll(dir, 'checkpoint');
    mkdirSync(join(dir, 'src/deep'), { recursive: true });
    const other = repo();
    const worktree = join(tempDir(), 'wt');
    dirs.push(dirname(worktree));
    git(dir, ['worktree', 'add', '-q', '-b', 'side', worktree]);
    const answers = await pipe(dir, [
      toolCall(1, 'update', { cwd: '/dev', skill: 'zz', ops: stepOp }),
      toolCall(2, 'update', { cwd: other, skill: 'api', ops: stepOp }),
      toolCall(3, 'status', { cwd: other }),
      toolCall(4, 'update', { cwd: join(dir, 'src/deep'), skill: 'api', ops: [{ path: 'step', value: 'from-src' }] }),
      toolCall(5, 'update', { cwd: worktree, skill: 'api', ops: [{ path: 'step', value: 'in-worktree' }] }),
      JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'prompts/get', params: { name: 'resume-session', arguments: { cwd: other } } }),
    ]);
    const byId = new Map(answers.map((a) => [a.id, a]));
    for (const [id, where] of [[1, '/dev'], [2, other], [3, other]] as const) {
      const r = byId.get(id)!.result!;
      expect(r.isError, String(id)).toBe(true);
      expect(r.structuredContent).toMatchObject({ ok: false, error: { code: 'E_USAGE' } });
      expect(r.content[0]!.text).toBe(
        `checkpoint: cwd "${where}" is outside this server's project (${dir}) and the host's roots; refused; hint: pass a folder inside it (or a worktree of its repository), or start a server for that project (checkpoint mcp -C <folder>)`,
      );
    }
    expect(byId.get(6)!.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^checkpoint: cwd ".*" is outside this server's project/) });
    expect(existsSync('/dev/.checkpoints')).toBe(false);
    expect(existsSync(join(other, '.checkpoints'))).toBe(false);
    expect(byId.get(4)!.result!.isError).toBeFalsy();
    expect(JSON.parse(readFileSync(join(dir, FILE), 'utf8')).step).toBe('from-src');
    expect(byId.get(5)!.result!.isError).toBeFalsy();
    expect(JSON.parse(readFileSync(join(worktree, FILE), 'utf8')).step).toBe('in-worktree');
  });

  it('started in a folder that is no project, a write is refused in one line and creates nothing; after `checkpoint init` there it works', async () => {
    const plain = tempDir();
    dirs.push(plain);
    write(plain, 'notes/todo.md', '- ship it\n');
    const call = (id: number) => toolCall(id, 'update', { skill: 'api', ops: stepOp });
    const [refused] = await pipe(plain, [call(1)]);
    expect(refused!.result!.isError).toBe(true);
    expect(refused!.result!.content[0]!.text).toBe(`checkpoint: ${plain} is not a git work tree and holds no .checkpoints/; refused to start one there; hint: run \`checkpoint -C ${plain} init\` there first (or git init), or check the folder`);
    expect(readdirSync(plain)).toEqual(['notes']);
    expect(cli(plain, ['init']).code).toBe(0);
    const [ok] = await pipe(plain, [call(2)]);
    expect(ok!.result!.isError).toBeFalsy();
    expect(existsSync(join(plain, FILE))).toBe(true);
  });
  it('pause with auto=true in a folder that is no project answers as the CLI: nothing to refresh, not an error', async () => {
    const plain = tempDir();
    dirs.push(plain);
    const [r] = await pipe(plain, [toolCall(1, 'pause', { skill: 'api', auto: true })]);
    expect(r!.result!.isError).toBeFalsy();
    expect(r!.result!.structuredContent).toMatchObject({ ok: true, refreshed: false, message: 'no checkpoint for skill "api"; nothing to refresh' });
    expect(cli(plain, ['pause', 'api', '--auto']).stdout).toBe('no checkpoint for skill "api"; nothing to refresh\n');
    expect(readdirSync(plain)).toEqual([]);
  });
});

describe('checkpoint mcp: refusal hints name tool calls, never a command line', () => {
  it('a first update without an action, a done --landed with nothing landed and the last actions taken by landed: each hint spells the tool call', async () => {
    const dir = repo();
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(freshCheckpoint('web', { next_actions: ['[x] Merge PR #3', '[x] Write docs'] }), null, 2)}\n`);
    write(dir, FILE, `${JSON.stringify(freshCheckpoint('api', { next_actions: ['Write the auth middleware'] }), null, 2)}\n`);
    const [first, none, last] = byOrder(await pipe(dir, [
      toolCall(1, 'update', { skill: 'new', ops: [{ path: 'phase', value: 'build' }] }),
      toolCall(2, 'done', { skill: 'api', landed: true }),
      toolCall(3, 'done', { skill: 'web', landed: true }),
    ]));
    const hint = (a: Answer | undefined) => (a!.result!.structuredContent as { error: { hint: string } }).error.hint;
    expect(hint(first)).toBe('add the op {"path": "next_actions", "op": "append", "value": "<first action>"} to the same call (or {"path": "status", "value": "complete"} if the work is done); .checkpoints/new.checkpoint.json was not created');
    expect(hint(none)).toBe('the next tool with {} shows what is queued; the done tool with {"skill": "api"} records the action it names');
    expect(hint(last)).toBe('queue the next one first (the update tool with {"skill": "web", "ops": [{"path": "next_actions", "op": "append", "value": "..."}]}) or finish: the done tool with {"skill": "web", "landed": true, "complete": true}');
    for (const a of [first, none, last]) expect(hint(a)).not.toMatch(/checkpoint |--/);
  });
});

describe('checkpoint mcp: edge cases get one clear answer', () => {
  it('a request whose id is an object, a list, a boolean or null is one Invalid Request with id null, and never runs', async () => {
    const dir = repo();
    const before = messy(dir);
    const update = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"update","arguments":{"skill":"api","ops":[{"path":"step","value":"ran"}]}}}`;
    const answers = await pipe(dir, [update('{"a":1}'), update('[7]'), update('true'), update('null'), '{"jsonrpc":"2.0","id":false,"method":"ping"}', toolCall(9, 'next', {})]);
    expect(answers.map((a) => [a.id, a.error?.code ?? 'result'])).toEqual([[null, -32600], [null, -32600], [null, -32600], [null, -32600], [null, -32600], [9, 'result']]);
    expect(answers[0]!.error!.message).toBe('Invalid Request: the id must be a string or a number');
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });

  it('a line that is JSON but no request ({}, 42, null, a method that is no name) is one Invalid Request with id null; a notification or a response gets none, and nothing runs (rtB/05)', async () => {
    const dir = repo();
    const before = messy(dir);
    const answers = await pipe(dir, [
      '{}',
      '{"jsonrpc":"2.0","method":1,"params":"bar"}',
      '42',
      'null',
      '{"jsonrpc":"2.0","method":"notifications/made-up","params":{"skill":"api"}}',
      '{"jsonrpc":"2.0","id":77,"result":{"ops":[{"path":"step","value":"ran"}]}}',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}',
      '{"jsonrpc":"2.0","method":"tools/call","params":"update api step=ran"}',
      toolCall(9, 'next', {}),
    ]);
    expect(answers.map((a) => [a.id, a.error?.code ?? 'result'])).toEqual([[null, -32600], [null, -32600], [null, -32600], [null, -32600], [null, -32600], [9, 'result']]);
    expect(answers[0]!.error!.message).toBe('Invalid Request: not a JSON-RPC 2.0 message (check method and params)');
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });

  it('a cwd holding a NUL byte, or /proc/self, is one clear tool error (never "internal error")', async () => {
    const dir = repo();
    const before = messy(dir);
    const answers = await pipe(dir, [toolCall(1, 'status', { cwd: '/x\u0000' }), toolCall(2, 'update', { cwd: '/x\u0000y', skill: 'api', ops: [{ path: 'step', value: 'x' }] }), toolCall(3, 'update', { cwd: '/proc/self', skill: 'api', ops: [{ path: 'step', value: 'x' }] }), toolCall(4, 'status', { cwd: '/proc/self/' })]);
    const texts = byOrder(answers).map((a) => {
      expect(a.result!.isError).toBe(true);
      expect(a.result!.content[0]!.text).not.toMatch(/internal error|\n/);
      return a.result!.content[0]!.text;
    });
    expect(texts[0]).toBe('checkpoint: cwd "/x\\x00" holds a NUL byte; refused; hint: pass the project folder as an absolute path');
    expect(texts[1]).toMatch(/^checkpoint: cwd "\/x\\x00y" holds a NUL byte/);
    expect(texts[2]).toMatch(/^checkpoint: cwd "\/proc\/self" is outside this server's project/);
    expect(texts[3]).toMatch(/^checkpoint: cwd "\/proc\/self\/" is outside this server's project/);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });

  it('resources/list with .checkpoints a symlink out of the project is Invalid params saying so, not Internal error', async () => {
    const dir = repo();
    messy(dir);
    const outside = tempDir();
    dirs.push(outside);
    renameSync(join(dir, '.checkpoints'), join(outside, 'cps'));
    symlinkSync(join(outside, 'cps'), join(dir, '.checkpoints'));
    const [list] = await pipe(dir, ['{"jsonrpc":"2.0","id":1,"method":"resources/list"}']);
    expect(list!.error).toMatchObject({ code: -32602, data: { code: 'E_PATH' } });
    expect(list!.error!.message).toMatch(/^checkpoint: \.checkpoints is a symlink to .*, outside the project; refused; hint: /);
  });

  it('update reaches keys holding dots, "=" or other letters by the CLI\'s bracket paths; forbidden keys and "=" outside brackets stay refused', async () => {
    const dir = repo();
    messy(dir);
    const answers = await pipe(dir, [
      toolCall(1, 'update', { skill: 'api', ops: [{ path: 'skill_state["a.b"]', value: 2 }, { path: 'skill_state["café"]', value: 'y' }, { path: 'progress_table[1].status', value: 'in_progress' }, { path: 'skill_state["new key (PR 12)"].n', value: 1 }, { path: 'skill_state["mode=fast"]', value: 'C' }] }),
    ]);
    expect(answers[0]!.result!.isError, JSON.stringify(answers[0])).toBeFalsy();
    const doc = JSON.parse(readFileSync(join(dir, FILE), 'utf8'));
    // A key holding "=" is reached as conflicts print it (red team 12-07).
    expect(doc.skill_state).toEqual({ 'a.b': 2, café: 'y', 'new key (PR 12)': { n: 1 }, 'mode=fast': 'C' });
    expect(doc.progress_table[1].status).toBe('in_progress');
    expect(readFileSync(join(dir, FILE), 'utf8')).toContain('"score": 8.0');

    const dir2 = repo();
    const before2 = messy(dir2);
    const refused = await pipe(dir2, [
      toolCall(1, 'update', { skill: 'api', ops: [{ path: 'skill_state["__proto__"].x', value: 1 }] }),
      toolCall(2, 'update', { skill: 'api', ops: [{ path: 'skill_state.a=b', value: 1 }] }),
      toolCall(3, 'update', { skill: 'api', ops: [{ path: 'skill_state.x+', value: 1 }] }),
      toolCall(4, 'update', { skill: 'api', ops: [{ path: 'skill_state["a', value: 1 }] }),
    ]);
    const texts = byOrder(refused).map((a) => {
      expect(a.result!.isError, JSON.stringify(a)).toBe(true);
      expect(a.result!.content[0]!.text).not.toContain('\n');
      return a.result!.content[0]!.text;
    });
    expect(texts[0]).toMatch(/path segment "__proto__" is forbidden/);
    expect(texts[1]).toMatch(/^checkpoint: invalid argument ops\.0\.path for tool update: a path like a.b, a\[1\].b or a\["k=j"\]: any "=" inside brackets, no "\+" at its end; hint: /);
    expect(texts[2]).toMatch(/^checkpoint: invalid argument ops\.0\.path for tool update/);
    expect(texts[3]).toMatch(/invalid path/);
    expect(readFileSync(join(dir2, FILE), 'utf8')).toBe(before2);
  });
});
