// A package of a monorepo keeping its own .checkpoints/ (the protocol's project-dir may be any
// folder with a package.json): checkpoint keeps a repository's checkpoints at its top, so from
// inside such a folder every command refuses in one line naming both places and the move, rather
// than say "start fresh" over them or write a second file for the same skill (red team, 12-04).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, errorLine, git, GIT_ENV, makeRepo, write } from '../helpers/repo.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const NESTED = 'packages/app/.checkpoints/api.checkpoint.json';
const MOVE = 'mkdir -p .checkpoints && git mv packages/app/.checkpoints/*.checkpoint.json .checkpoints/';

describe('checkpoints kept in a folder below the repository top', () => {
  it('every command run in or below that folder refuses (exit 2), nothing written; moved to the top as told, they read', async () => {
    const dir = makeRepo();
    write(dir, 'packages/app/package.json', '{"name":"app"}\n');
    write(dir, NESTED, `${JSON.stringify(checkpointDoc({ skill: 'api', next_actions: ['Finish the auth middleware'] }), null, 2)}\n`);
    commitAll(dir, 'app with its checkpoint');
    const before = readFileSync(join(dir, NESTED));
    for (const cwd of [join(dir, 'packages/app'), join(dir, 'packages/app/.checkpoints')]) {
      for (const args of [['resume'], ['status'], ['list'], ['update', 'api', '--step=x'], ['doctor']]) {
        const r = await runCli(cwd, args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(errorLine(r.stderr)).toEqual({
          lines: 1,
          message: `packages/app/.checkpoints/ holds a checkpoint, but checkpoint keeps this repository's at its top (${join(dir, '.checkpoints')}/); nothing was read or written`,
          // git mv into a folder not there fails (`destination directory does not exist`): made first (red team 62b 2).
          hint: 'from the top, move it there (mkdir -p .checkpoints && git mv packages/app/.checkpoints/*.checkpoint.json .checkpoints/), then run checkpoint anywhere in the repository',
        });
      }
    }
    expect(readFileSync(join(dir, NESTED)).equals(before)).toBe(true);
    expect(readdirSync(dir)).not.toContain('.checkpoints');
    // The move as told, pasted at the top, makes the checkpoint read from anywhere.
    execFileSync('sh', ['-c', MOVE], { cwd: dir, env: { ...process.env, ...GIT_ENV } });
    const resumed = await runCli(join(dir, 'packages/app'), ['resume', 'api']);
    expect(resumed.stderr).toBe('');
    expect(resumed.stdout.split('\n')[0]).toMatch(/^RESUMING: api on /);
    expect(resumed.stdout).toContain('Next: Finish the auth middleware');
  });

  it('a folder named .checkpoints holding no checkpoint file (another tool\'s) is not in the way', async () => {
    const dir = makeRepo();
    write(dir, 'models/.checkpoints/epoch-3.pt', 'weights\n');
    const r = await runCli(join(dir, 'models'), ['status']);
    expect(r.code, r.stderr).toBe(0);
  });
});

// From the top, those files were invisible: status, doctor and the pre-push hook said nothing,
// so drift in them was never caught (red team 62b 2). git's index names them (no walk of the
// work tree): status and doctor say each folder once, with the move the refusal above names.
describe('checkpoints below the top, seen from the top', () => {
  // Hand-written, as agents leave them: a status off the enum, a note after a path, 8.0.
  const handWritten = (skill: string) => `{
  "protocol_version": "1.1", "skill": "${skill}", "project": "${skill}", "project_dir": "/home/dev/mono/packages/${skill}",
  "created_at": "2026-11-01T00:00:00Z", "updated_at": "2026-11-02T09:30:00Z",
  "phase": "build", "step": "auth middleware", "status": "in-progress",
  "progress_summary": "Auth middleware at 8.0/10; rate limits next.",
  "context_primer": { "key_decisions": ["Hono over Express (PR 12)"], "generated_files": ["src/auth.ts (PR 12)"] },
  "next_actions": ["Finish the auth middleware"], "skill_state": { "score": 8.0 }
}
`;
  const line = (dir: string, folder: string, count: string, pronoun: string, move: string) =>
    `${folder}/ holds ${count}, but checkpoint keeps this repository's at its top (${join(dir, '.checkpoints')}/), so ${pronoun} never read or checked; from the top, move ${pronoun === 'it is' ? 'it' : 'them'} there (${move}), then run checkpoint anywhere in the repository`;

  function monorepo(): string {
    const dir = makeRepo();
    write(dir, '.checkpoints/site.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'site', updated_at: new Date().toISOString() }), null, 2)}\n`);
    write(dir, 'packages/app/package.json', '{"name":"app"}\n');
    write(dir, NESTED, handWritten('api'));
    write(dir, 'packages/app/.checkpoints/README.md', 'Our checkpoints.\n'); // not a checkpoint: not counted
    write(dir, 'packages/web/.checkpoints/web.checkpoint.json', handWritten('web'));
    write(dir, 'packages/web/.checkpoints/ui.checkpoint.json', handWritten('ui'));
    write(dir, 'models/.checkpoints/epoch-3.pt', 'weights\n'); // another tool's folder
    commitAll(dir, 'packages with their checkpoints');
    return dir;
  }

  it('status and doctor (text, --json, both engines) name each folder git holds, with the move; the move as told clears them (red team 62b 2)', async () => {
    const dir = monorepo();
    const moves = ['git mv packages/app/.checkpoints/*.checkpoint.json .checkpoints/', 'git mv packages/web/.checkpoints/*.checkpoint.json .checkpoints/'];
    const lines = [line(dir, 'packages/app/.checkpoints', 'a checkpoint', 'it is', moves[0]!), line(dir, 'packages/web/.checkpoints', '2 checkpoints', 'they are', moves[1]!)];
    const status = await runCli(dir, ['status']);
    expect(status.code, status.stderr).toBe(1);
    expect(status.stdout.trimEnd().split('\n').slice(-3)).toEqual(['', ...lines]);
    const json = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.nested_checkpoints).toEqual([
      { folder: 'packages/app/.checkpoints/', message: lines[0], move: moves[0] },
      { folder: 'packages/web/.checkpoints/', message: lines[1], move: moves[1] },
    ]);
    for (const engine of ['native', 'isomorphic']) {
      const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine]);
      expect(r.code, engine).toBe(1);
      const findings = (JSON.parse(r.stdout).findings as { check: string; blocks: boolean }[]).filter((f) => f.blocks);
      expect(findings, engine).toEqual(lines.map((message, i) => ({
        level: 'warning', check: 'nested_checkpoints', skill: null, path: '', message, evidence: { file: json.nested_checkpoints[i].folder }, fix: moves[i], blocks: true,
      })));
    }
    const text = await runCli(dir, ['doctor']);
    for (const l of lines) expect(text.stdout.split('\n')).toContain(`  warning ${l}`);
    // Each move as doctor gives it, pasted at the top: every checkpoint is read there.
    for (const move of moves) execFileSync('sh', ['-c', move], { cwd: dir, env: GIT_ENV });
    commitAll(dir, 'checkpoints at the top');
    const after = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(after.nested_checkpoints).toEqual([]);
    expect(after.skills.map((s: { skill: string }) => s.skill).sort()).toEqual(['api', 'site', 'ui', 'web']);
    expect((await runCli(dir, ['doctor', '--json'])).stdout).not.toContain('nested_checkpoints');
  });

  it('reads git\'s index as git writes it: version 4 (names share prefixes), a split index; a file staged counts, one never added is not seen', async () => {
    const dir = monorepo();
    const folders = async () => (JSON.parse((await runCli(dir, ['status', '--json'])).stdout).nested_checkpoints as { folder: string }[]).map((n) => n.folder);
    const both = ['packages/app/.checkpoints/', 'packages/web/.checkpoints/'];
    // An entry with extended flags (skip-worktree) makes git write version 3.
    git(dir, ['update-index', '--skip-worktree', 'packages/web/.checkpoints/ui.checkpoint.json']);
    expect(readFileSync(join(dir, '.git/index')).readUInt32BE(4)).toBe(3);
    expect(await folders()).toEqual(both);
    git(dir, ['update-index', '--no-skip-worktree', 'packages/web/.checkpoints/ui.checkpoint.json']);
    git(dir, ['update-index', '--index-version', '4']);
    expect(await folders()).toEqual(both);
    // Where a name shares `packages/web/.checkpoints` with the one before it, v4 stores only
    // `/ui.checkpoint.json`: the file's bytes hold no `/.checkpoints/`, and the names are rebuilt.
    const shared = makeRepo();
    write(shared, 'packages/web/.checkpoints-old/notes.md', 'old\n');
    write(shared, 'packages/web/.checkpoints/ui.checkpoint.json', handWritten('ui'));
    commitAll(shared, 'web');
    git(shared, ['update-index', '--index-version', '4']);
    expect(readFileSync(join(shared, '.git/index')).includes('/.checkpoints/')).toBe(false);
    expect(JSON.parse((await runCli(shared, ['status', '--json'])).stdout).nested_checkpoints.map((n: { folder: string }) => n.folder)).toEqual(['packages/web/.checkpoints/']);
    git(dir, ['update-index', '--index-version', '2']);
    git(dir, ['update-index', '--split-index']);
    write(dir, 'packages/lib/.checkpoints/lib.checkpoint.json', handWritten('lib'));
    expect(await folders()).toEqual(both); // not added: no walk of the work tree finds it
    git(dir, ['add', 'packages/lib']);
    expect(readdirSync(join(dir, '.git')).some((n) => n.startsWith('sharedindex.'))).toBe(true);
    expect(await folders()).toEqual([...both, 'packages/lib/.checkpoints/'].sort());
  });

  it('a large index (v4, walked whole) is read once per write of it: the answer kept follows every change git makes to it', async () => {
    const dir = monorepo();
    // 30,000 entries (one blob, no files in the work tree): an index of several MiB, in version 4.
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: dir, input: 'x\n', encoding: 'utf8' }).trim();
    execFileSync('git', ['update-index', '--index-info'], { cwd: dir, input: Array.from({ length: 30_000 }, (_, i) => `100644 ${blob}\tvendor/m${i % 300}/f${i}.js\n`).join('') });
    git(dir, ['update-index', '--index-version', '4']);
    expect(statSync(join(dir, '.git/index')).size).toBeGreaterThan(1 << 20);
    const folders = async () => (JSON.parse((await runCli(dir, ['status', '--json'])).stdout).nested_checkpoints as { folder: string }[]).map((n) => n.folder);
    const both = ['packages/app/.checkpoints/', 'packages/web/.checkpoints/'];
    const kept = join(dir, '.git/checkpoint/index-paths.json');
    expect(await folders()).toEqual(both);
    expect(existsSync(kept)).toBe(false); // an index written in the last two seconds may be written again unseen
    await new Promise((r) => setTimeout(r, 2_100));
    expect(await folders()).toEqual(both);
    expect(JSON.parse(readFileSync(kept, 'utf8')).paths).toHaveLength(3);
    expect(await folders()).toEqual(both); // from the kept answer
    git(dir, ['rm', '-q', '--cached', 'packages/web/.checkpoints/web.checkpoint.json', 'packages/web/.checkpoints/ui.checkpoint.json']);
    expect(await folders()).toEqual(['packages/app/.checkpoints/']);
  });
});
