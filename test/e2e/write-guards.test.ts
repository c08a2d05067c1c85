// What a write may leave on disk: never a file the readers then refuse (too big, nested too
// deep), and never a refusal for a problem the file already had and the write left as it was.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, errorLine, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { MAX_READ_BYTES } from '../../src/store/checkpoints.js';
import { MAX_JSON_DEPTH } from '../../src/protocol/json.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

const FILE = (skill: string) => `.checkpoints/${skill}.checkpoint.json`;

/** A hand-kept checkpoint: CRLF line ends, prose in paths, a score written 8.0, a months-old date. */
function messy(dir: string, skill: string, over: Record<string, unknown> = {}): string {
  const doc = freshCheckpoint(skill, {
    created_at: '2026-06-01T09:00:00Z',
    context_primer: { key_decisions: ['JWT in cookies (see PR 12)'], generated_files: ['src/x.ts (PR 12)', 'src/**/*.test.ts', 'the migration notes'] },
    eval_scores: [{ rubric: 'audit', score: 8, max: 10, at: '2026-06-01T00:00:00Z' }],
    ...over,
  });
  const text = `${JSON.stringify(doc, null, 2).replace('"score": 8,', '"score": 8.0,').replace(/\n/g, '\r\n')}\r\n`;
  write(dir, FILE(skill), text);
  return text;
}

describe('a write never leaves a file the readers refuse', () => {
  it('refuses an update whose result passes the read size limit; the file stays readable and byte-identical', async () => {
    const dir = repo();
    // Just under the limit already (a long-running skill that kept dumps in skill_state).
    const before = messy(dir, 'old', { skill_state: { dump: 'x'.repeat(MAX_READ_BYTES - 100_000) } });
    const r = await runCli(dir, ['update', 'old', `--skill_state.blob2=${'y'.repeat(120_000)}`]);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(new RegExp(`^refused: the result would be \\d+ bytes, over the ${MAX_READ_BYTES}-byte limit`));
    expect(line.hint).toContain('was not changed');
    expect(read(dir, FILE('old'))).toBe(before);
    expect((await runCli(dir, ['show', 'old'])).code).toBe(0);
    // A write that fits still goes through.
    expect((await runCli(dir, ['update', 'old', '--step=trimmed'])).code).toBe(0);
  });

  it('refuses a value nested past the read depth limit, wherever it lands; one level less is written and reads back', async () => {
    const dir = repo();
    const before = messy(dir, 'crlf');
    // skill_state.deep sits at depth 2: 255 more levels make 257, one past the reader's 256.
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const r = await runCli(dir, ['update', 'crlf', `--skill_state.deep:json=${nest(MAX_JSON_DEPTH - 1)}`]);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(/^refused: the result would nest deeper than 256 levels at skill_state\.deep\[0\]/);
    expect(read(dir, FILE('crlf'))).toBe(before);
    // A long dotted path nests too: refused the same way, never a stack overflow.
    const path = Array.from({ length: 1_000 }, () => 'a').join('.');
    const long = await runCli(dir, ['update', 'crlf', `--skill_state.${path}=x`]);
    expect(long.code).toBe(2);
    expect(errorLine(long.stderr).message).toMatch(/^refused: the result would nest deeper than 256 levels at skill_state\.a\.a/);
    expect(read(dir, FILE('crlf'))).toBe(before);
    // At the limit: written, and every reader still takes it.
    expect((await runCli(dir, ['update', 'crlf', `--skill_state.deep:json=${nest(MAX_JSON_DEPTH - 2)}`])).code).toBe(0);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
    expect((await runCli(dir, ['update', 'crlf', '--step=next'])).code).toBe(0);
  });
});
