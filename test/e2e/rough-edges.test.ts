// The rough edges a first use on a real repository hit: archives that validate, history that
// hides nothing, aligned tables with wide characters, helpful unknown-skill and prose-check errors.
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { displayWidth } from '../../src/cli/render/width.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

const save = (dir: string, skill: string, over: Record<string, unknown> = {}) =>
  write(dir, `.checkpoints/${skill}.checkpoint.json`, `${JSON.stringify(freshCheckpoint(skill, over), null, 2)}\n`);

describe('archives and history', () => {
  it('validate accepts the archives reset writes, under their own naming rule', async () => {
    const dir = repo();
    save(dir, 'api');
    expect((await runCli(dir, ['reset', 'api'])).code).toBe(0);
    const [archive] = readdirSync(join(dir, '.checkpoints/history'));
    const ok = await runCli(dir, ['validate', `.checkpoints/history/${archive}`]);
    expect(ok.code, ok.stdout).toBe(0);
    // An archive of another skill's content under api's name is still refused.
    write(dir, '.checkpoints/history/api.2026-11-30T23-35-49.795Z.checkpoint.json', JSON.stringify(freshCheckpoint('web')));
    const bad = await runCli(dir, ['validate', '.checkpoints/history/api.2026-11-30T23-35-49.795Z.checkpoint.json']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('must be "web.checkpoint.json"');
  });

  it('history lists every JSON file there and says which it cannot restore', async () => {
    const dir = repo();
    write(dir, '.checkpoints/history/api-before-rewrite.json', JSON.stringify(freshCheckpoint('api')));
    write(dir, '.checkpoints/history/api.2026-10-01T00-00-00Z.checkpoint.json', JSON.stringify(freshCheckpoint('api')));
    const r = await runCli(dir, ['history']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^checkpoint {2}api\.2026-10-01T00-00-00Z\.checkpoint\.json/m);
    expect(r.stdout).toMatch(/^other {7}api-before-rewrite\.json .*cannot restore/m);
    const json = JSON.parse((await runCli(dir, ['history', '--json'])).stdout);
    expect(json.map((e: { file: string; restorable: boolean }) => [e.file, e.restorable])).toEqual([
      ['api.2026-10-01T00-00-00Z.checkpoint.json', true],
      ['api-before-rewrite.json', false],
    ]);
  });
});

describe('tables', () => {
  it('status keeps its columns aligned past 30 characters and with wide characters', async () => {
    const dir = repo();
    save(dir, 'api', { phase: 'build', step: 'a step name well past thirty characters long' });
    save(dir, 'web', { phase: '設計', step: '実装' });
    const lines = (await runCli(dir, ['status'])).stdout.split('\n');
    const table = lines.slice(0, 3);
    // The last column ("updated", "0s ago") starts at the same display column on every line.
    const updated = table.map((l) => displayWidth(l.slice(0, l.search(/(updated|\S+ ago|just now)$/))));
    expect(new Set(updated).size, table.join('\n')).toBe(1);
    expect(updated[0]).toBeGreaterThan(30);
  });
});

describe('errors that help', () => {
  it('resume of an unknown skill lists the skills that exist', async () => {
    const dir = repo();
    save(dir, 'api');
    save(dir, 'web');
    const r = await runCli(dir, ['resume', 'nonexist']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no checkpoint for skill "nonexist"');
    expect(r.stderr).toContain('checkpoints here: api, web (e.g. checkpoint resume api)');
    expect(r.stderr).not.toContain('reset');
  });

  it('done --verify on a prose done_when says it is not a runnable check and runs nothing', async () => {
    const dir = repo();
    save(dir, 'api', { next_actions: [{ text: 'Open the PR', done_when: 'PR opened' }, 'Then review'] });
    const before = read(dir, '.checkpoints/api.checkpoint.json');
    const r = await runCli(dir, ['done', 'api', '--verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('done_when "PR opened" of next_actions[0] is not a runnable check');
    expect(r.stderr).toContain('checkpoint done api` without --verify');
    expect(r.stderr).not.toContain('127');
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
  });
});
