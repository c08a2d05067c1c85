// A checkpoint committed as a symlink to a file inside the project: reset and resolve
// --accept-deletion put a plain copy of its content in history/ (never a link, never written
// through one) and remove the link alone; the file it pointed at stays, byte for byte.
import { beforeAll, describe, expect, it } from 'vitest';
import { lstatSync, readdirSync, readFileSync, readlinkSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, cli, commitAll, git, gitTry, makeRepo, write } from '../helpers/repo.js';
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
