// A checkpoint committed as a symlink to a file inside the project: reset and resolve
// --accept-deletion put a plain copy of its content in history/ (never a link, never written
// through one) and remove the link alone; the file it pointed at stays, byte for byte. Every
// other write replaces the link with a regular file and says so in one note (update's own is
// in typo-skill-link.test.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import { lstatSync, readdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, cli, commitAll, git, gitTry, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const FILE = '.checkpoints/api.checkpoint.json';
const text = (over: Record<string, unknown> = {}) => `${JSON.stringify(checkpointDoc(over), null, 2)}\n`;

/** The archives in history/, each checked to be a plain file (never a link), with its bytes. */
function archives(dir: string): { name: string; bytes: string }[] {
  const history = join(dir, '.checkpoints/history');
  return readdirSync(history).map((name) => {
    expect(lstatSync(join(history, name)).isFile(), `${name} is a plain file`).toBe(true);
    return { name, bytes: readFileSync(join(history, name), 'utf8') };
  });
}

describe('a checkpoint committed as a link to a file in the project', () => {
  it('reset archives a plain copy of its content and removes only the link; the target is kept as it was', () => {
    const dir = makeRepo();
    write(dir, 'data/api.json', text());
    write(dir, '.checkpoints/.keep', '');
    symlinkSync('../data/api.json', join(dir, FILE));
    commitAll(dir, 'api, linked');
    const before = readFileSync(join(dir, 'data/api.json'), 'utf8');
    const r = cli(dir, ['reset', 'api']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ archived api to \.checkpoints\/history\/api\.\S+\.checkpoint\.json \(bring it back with `checkpoint restore \S+`\); \.checkpoints\/api\.checkpoint\.json was a link: the archive is a copy of its content, and the file it pointed at is left as it is\n$/);
    expect(archives(dir)).toEqual([{ name: expect.stringMatching(/^api\..+\.checkpoint\.json$/), bytes: before }]);
    expect(readFileSync(join(dir, 'data/api.json'), 'utf8')).toBe(before);
    expect(() => lstatSync(join(dir, FILE))).toThrow();
    // The archive restores as a plain file; the user's file is still untouched.
    const back = cli(dir, ['restore', archives(dir)[0]!.name]);
    expect(back.code, back.stderr).toBe(0);
    expect(lstatSync(join(dir, FILE)).isFile()).toBe(true);
    expect(readFileSync(join(dir, FILE), 'utf8')).toBe(before);
    expect(readFileSync(join(dir, 'data/api.json'), 'utf8')).toBe(before);
  });

  it('resolve --accept-deletion archives a plain copy of the changed side (a relinked checkpoint); both link targets are kept', () => {
    const dir = makeRepo();
    write(dir, 'data/a.json', text());
    write(dir, 'data/b.json', text({ step: 's2' }));
    write(dir, '.checkpoints/.keep', '');
    symlinkSync('../data/a.json', join(dir, FILE));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'drop']);
    git(dir, ['rm', '-q', FILE]);
    commitAll(dir, 'drop api');
    git(dir, ['checkout', '-q', 'main']);
    unlinkSync(join(dir, FILE));
    symlinkSync('../data/b.json', join(dir, FILE));
    commitAll(dir, 'api now names b');
    git(dir, ['checkout', '-q', 'drop']);
    expect(gitTry(dir, ['merge', '-q', 'main']).status).not.toBe(0);
    expect(readlinkSync(join(dir, FILE))).toBe('../data/b.json');
    const [a, b] = ['data/a.json', 'data/b.json'].map((f) => readFileSync(join(dir, f), 'utf8'));
    const r = cli(dir, ['resolve', '--accept-deletion', FILE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ accepted the deletion by our side (HEAD) and staged it');
    expect(archives(dir)).toEqual([{ name: expect.stringMatching(/^api\..+\.checkpoint\.json$/), bytes: b }]);
    expect(readFileSync(join(dir, 'data/a.json'), 'utf8')).toBe(a);
    expect(readFileSync(join(dir, 'data/b.json'), 'utf8')).toBe(b);
    expect(() => lstatSync(join(dir, FILE))).toThrow();
    expect(git(dir, ['ls-files', '-u'])).toBe('');
  });
});

describe('every write to a checkpoint linked inside the project says it replaced the link', () => {
  // Kept by hand in data/ (tabs, a wire-1.0 stamp, 8.0, a note in a path) and linked from .checkpoints/.
  const LINKED = [
    '{',
    '\t"protocol_version": "1.0",',
    '\t"skill": "api",',
    '\t"project": "shop",',
    '\t"project_dir": "/home/dev/shop",',
    '\t"created_at": "2026-03-01T09:00:00Z",',
    '\t"updated_at": "2026-03-04T17:45:00Z",',
    '\t"phase": "build",',
    '\t"step": "rate-limit",',
    '\t"status": "in_progress",',
    '\t"progress_summary": "Rate limiter half done; café menu untouched.",',
    '\t"context_primer": { "key_decisions": ["Token bucket, not leaky"], "generated_files": ["src/limit.ts (PR 12)"] },',
    '\t"next_actions": ["Write the limiter tests", "Wire it into the router"],',
    `\t"skill_state": { "pass_threshold": 8.0, "run_history": [${Array.from({ length: 12 }, (_, i) => `{ "at": "2026-03-0${(i % 4) + 1}T0${i % 10}:00:00Z", "run": ${i} }`).join(', ')}] }`,
    '}',
    '',
  ].join('\n');
  const NOTE = 'checkpoint: note: .checkpoints/api.checkpoint.json was a symlink to ../data/api.json; the write replaced the link with a regular file (../data/api.json is unchanged; git shows a type change)';

  function linkedRepo(text = LINKED): string {
    const dir = makeRepo();
    write(dir, 'data/api.json', text);
    write(dir, '.checkpoints/.keep', '');
    symlinkSync('../data/api.json', join(dir, FILE));
    commitAll(dir, 'api, linked');
    return dir;
  }

  function expectReplaced(dir: string, target = LINKED): void {
    expect(lstatSync(join(dir, FILE)).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'data/api.json'), 'utf8')).toBe(target);
    expect(git(dir, ['status', '--porcelain', '--', FILE])).toContain('T .checkpoints/api.checkpoint.json');
  }

  it.each([
    ['done', ['done', 'api']],
    ['pause --auto', ['pause', 'api', '--auto']],
    ['pause --context', ['pause', 'api', '--context', JSON.stringify({ goal: 'g', acceptance: 'a', constraints: [], decisions: [], evidence: [], pending: [], next: 'n' })]],
    ['rotate', ['rotate', 'api', '--keep=2']],
  ])('%s', async (_name, args) => {
    const dir = linkedRepo();
    const r = await runCli(dir, args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('symlink'))).toEqual([NOTE]);
    expectReplaced(dir);
    const json = await runCli(linkedRepo(), [...args, '--json']);
    expect(JSON.parse(json.stdout).replaced_link ?? JSON.parse(json.stdout).skills?.[0]?.replaced_link).toBe('../data/api.json');
  });

  it('done of several actions at once (the first one ticked by hand) says it once', async () => {
    const dir = linkedRepo(LINKED.replace('"next_actions": ["Write', '"next_actions": ["Ship it", "[x] Write').replace('"next_actions": ["Ship it", ', '"next_actions": [').replace('"Wire it into the router"]', '"Wire it into the router", "Deploy"]'));
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('also done');
    expect(r.stderr.split('\n').filter((l) => l.includes('symlink'))).toEqual([NOTE]);
  });

  it('migrate says it under the file it changed', async () => {
    const dir = linkedRepo();
    const r = await runCli(dir, ['migrate']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`    note was a symlink to ../data/api.json; the write replaced the link with a regular file (../data/api.json is unchanged; git shows a type change)`);
    expectReplaced(dir);
  });

  it('restore of a rotation file into it', async () => {
    const dir = makeRepo();
    write(dir, '.checkpoints/.keep', '');
    write(dir, 'data/api.json', LINKED);
    symlinkSync('../data/api.json', join(dir, FILE));
    commitAll(dir, 'api, linked');
    expect((await runCli(dir, ['rotate', 'api', '--keep=2'])).code).toBe(0);
    // Linked again, to what rotate left: the rotated checkpoint, kept by hand in data/.
    const rotated = readFileSync(join(dir, FILE), 'utf8');
    write(dir, 'data/api.json', rotated);
    unlinkSync(join(dir, FILE));
    symlinkSync('../data/api.json', join(dir, FILE));
    commitAll(dir, 'rotated, linked again');
    const [file] = readdirSync(join(dir, '.checkpoints/history'));
    const r = await runCli(dir, ['restore', file!]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ put 10 rotated entries back/);
    expect(r.stderr.split('\n').filter((l) => l.includes('symlink'))).toEqual([NOTE]);
    expectReplaced(dir, rotated);
  });
});
