// `.checkpoints` committed as a link to a folder of the project (docs/commands.md) is that
// folder in a pushed tip too: the as-pushed check reads the checkpoints there, on both engines.
// A link out of the project, or an absolute one, is never followed in a tip's tree.
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkedCheckpointsDir } from '../../src/doctor/tip-dirs.js';
import { runCli } from '../helpers/in-process.js';
import { cli, commitAll, headSha, makeRepo, write } from '../helpers/repo.js';

const CHECKPOINT = (next: string) => `{"protocol_version":"1.1","skill":"api","project":"demo","project_dir":".",
 "created_at":"2026-12-01T10:00:00Z","updated_at":"2026-12-01T10:00:00Z",
 "phase":"build","step":"auth","status":"in_progress","progress_summary":"auth handler written",
 "progress_table":[{"id":"p","label":"Auth","status":"in_progress"}],
 "context_primer":{"key_decisions":["k"],"generated_files":["src/a.ts (PR 12)","src/gen/*.ts"]},
 "next_actions":["${next}","Write tests for auth"]}
`;

/** A project whose .checkpoints links to `target`, a checkpoint saved, then a commit landing #12 that edits a listed file. */
function linkedProject(target: (dir: string) => string): { dir: string; range: string } {
  const dir = makeRepo();
  write(dir, 'src/a.ts', 'a\n');
  write(dir, 'src/gen/b.ts', 'b\n');
  write(dir, 'meta/cps/.keep', '');
  symlinkSync(target(dir), join(dir, '.checkpoints'));
  commitAll(dir, 'init', '2026-11-01T00:00:00Z');
  const r = cli(dir, ['init']);
  expect(r.code, r.stderr).toBe(0);
  commitAll(dir, 'checkpoint init', '2026-11-01T00:00:01Z');
  write(dir, 'meta/cps/api.checkpoint.json', CHECKPOINT('Merge PR #12'));
  const saved = commitAll(dir, 'save checkpoint', '2026-12-01T10:00:01Z');
  write(dir, 'src/a.ts', 'a\nb\n');
  commitAll(dir, 'Feature (#12)', '2026-12-02T00:00:00Z');
  return { dir, range: `${saved}..${headSha(dir)}` };
}

async function pushedFindings(dir: string, engine: string, range: string): Promise<{ code: number; blocking: string[] }> {
  const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', range]);
  const findings = (JSON.parse(r.stdout) as { findings: { message: string; blocks: boolean }[] }).findings;
  return { code: r.code, blocking: findings.filter((f) => f.blocks).map((f) => f.message) };
}

describe('a .checkpoints link in a pushed tip', () => {
  it('a relative link to a folder of the project: the tip\'s checkpoints are judged there and block, on both engines', async () => {
    const { dir, range } = linkedProject(() => 'meta/cps');
    for (const engine of ['native', 'isomorphic']) {
      const { code, blocking } = await pushedFindings(dir, engine, range);
      expect(blocking, engine).toEqual([
        expect.stringMatching(/^src\/a\.ts changed after the checkpoint was written \([0-9a-f]{7} "Feature \(#12\)"/),
        expect.stringMatching(/^"Merge PR #12" names #12, which landed after the checkpoint/),
      ]);
      expect(code, engine).toBe(1);
    }
  });

  it('an absolute link is never followed in a tip, even to the project\'s own folder', async () => {
    // The work tree follows it (it is inside the project here); a commit's tree cannot say where it points in another clone.
    const { dir, range } = linkedProject((d) => join(d, 'meta/cps'));
    for (const engine of ['native', 'isomorphic']) expect((await pushedFindings(dir, engine, range)).blocking, engine).toEqual([]);
  });

  it('the link\'s target decides: in the project it is followed, out of it, absolute, into .git or to itself never', () => {
    expect(linkedCheckpointsDir('meta/cps')).toBe('meta/cps');
    expect(linkedCheckpointsDir('./meta//cps/')).toBe('meta/cps');
    expect(linkedCheckpointsDir('meta/../shared')).toBe('shared');
    for (const target of ['', '/home/u/w/meta/cps', '../other/cps', 'meta/../../x', '.', '..', '.git', '.git/cps', '.checkpoints', 'C:\\cps', 'a\nb']) {
      expect(linkedCheckpointsDir(target), JSON.stringify(target)).toBeNull();
    }
  });

  it('a plain .checkpoints folder is still read as before (no link asked about)', async () => {
    const dir = makeRepo();
    write(dir, 'src/a.ts', 'a\n');
    commitAll(dir, 'init', '2026-11-01T00:00:00Z');
    expect(cli(dir, ['init']).code).toBe(0);
    write(dir, '.checkpoints/api.checkpoint.json', CHECKPOINT('Merge PR #12'));
    const saved = commitAll(dir, 'save checkpoint', '2026-12-01T10:00:01Z');
    write(dir, 'src/a.ts', 'a\nb\n');
    commitAll(dir, 'Feature (#12)', '2026-12-02T00:00:00Z');
    for (const engine of ['native', 'isomorphic']) expect((await pushedFindings(dir, engine, `${saved}..${headSha(dir)}`)).blocking, engine).toHaveLength(2);
  });
});
