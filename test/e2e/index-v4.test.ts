// A repository whose index git writes as version 4 (feature.manyFiles, index.version=4: large
// repositories, the ones where a process per command costs most). doctor and status answer from
// the index file there as they do from a v2 one, with no `git status` process, and say what git says.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, cli, commitAll, git, initialized, makeRepo, settleIndex, write } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** The built CLI's output, and the git commands it ran (GIT_TRACE). */
function traced(dir: string, args: string[]): { code: number; stdout: string; gitRan: string[] } {
  const traceDir = mkdtempSync(join(tmpdir(), 'cp-trace-'));
  const trace = join(traceDir, 'trace');
  try {
    const r = cli(dir, args, { env: { GIT_TRACE: trace } });
    const gitRan = existsSync(trace) ? [...readFileSync(trace, 'utf8').matchAll(/built-in: git (\S+)/g)].map((m) => m[1]!) : [];
    return { code: r.code, stdout: r.stdout, gitRan };
  } finally {
    rmSync(traceDir, { recursive: true, force: true });
  }
}

describe('an index of version 4', () => {
  it('doctor and status read it as a v2 one: the same findings, and no git status process', () => {
    const dir = makeRepo();
    dirs.push(dir);
    initialized(dir);
    write(dir, 'src/app.ts', 'app\n');
    write(dir, 'src/gone.ts', 'gone\n');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { context_primer: { key_decisions: [], generated_files: ['src/app.ts', 'src/gone.ts'] } }), null, 2)}\n`);
    commitAll(dir, 'app and its checkpoint');
    settleIndex(dir);
    const v2 = { doctor: traced(dir, ['doctor', '--json']), status: traced(dir, ['status', '--json']) };
    expect(v2.doctor.gitRan).not.toContain('status');
    git(dir, ['config', 'index.version', '4']);
    git(dir, ['update-index', '--index-version', '4']);
    expect(readFileSync(join(dir, '.git', 'index')).readUInt32BE(4)).toBe(4);
    const doctor = traced(dir, ['doctor', '--json']);
    expect(doctor.gitRan).not.toContain('status');
    expect(doctor.stdout).toBe(v2.doctor.stdout);
    expect(traced(dir, ['status', '--json']).code).toBe(v2.status.code);
    // A file deleted in the work tree: found missing from the v4 index too.
    rmSync(join(dir, 'src/gone.ts'));
    const missing = traced(dir, ['doctor', '--json']);
    expect(missing.gitRan).not.toContain('status');
    expect(missing.stdout).toContain('src/gone.ts is missing');
  });
});
