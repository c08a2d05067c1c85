// `checkpoint mcp` fed what a careless or hostile host may send, as raw lines through a real pipe
// to the built binary, in real git repositories: every request gets one clear answer, nothing
// in a refused line runs, and no file changes that was not asked to.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, GIT_ENV, makeRepo, write } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

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

/** The built server fed raw `lines` (after initialize) through a pipe that then closes: every answer but initialize's. */
async function pipe(dir: string, lines: (string | Buffer)[]): Promise<Answer[]> {
  assertBuilt();
  const init = [
    JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  ];
  const out = await new Promise<string>((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: dir, env: GIT_ENV, stdio: ['pipe', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.on('error', fail).on('exit', () => done(text));
    for (const l of [...init, ...lines]) child.stdin.write(Buffer.isBuffer(l) ? l : `${l}\n`);
    child.stdin.end();
  });
  return out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Answer).filter((m) => m.id !== 0);
}
const toolCall = (id: unknown, name: string, args: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('checkpoint mcp: an oversized line', () => {
  it('16 MiB of blanks and then a call on one line: one refusal, and the call at its end never runs', async () => {
    const dir = repo();
    const before = messy(dir);
    const update = toolCall(7, 'update', { skill: 'api', ops: [{ path: 'step', value: 'smuggled' }] });
    const answers = await pipe(dir, [Buffer.from(`${' '.repeat(16 * 1024 * 1024)}${update}\n`), toolCall(8, 'next', {})]);
    expect(answers.map((a) => [a.id, a.error?.code ?? 'result'])).toEqual([[null, -32600], [8, 'result']]);
    expect(answers[0]!.error!.message).toBe('Invalid Request: a line over 8388608 bytes; it was dropped up to its newline and nothing in it ran');
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
  });
});
