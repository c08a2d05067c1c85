// The relay (sh-relay.ts) runs a command as spawnSync would: the same stdout, stderr, status,
// cwd, environment (extras set, an undefined one unset, nothing of sh's own) and stdin at end of
// file, for arguments with quotes, newlines and spaces.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { relayRun } from './sh-relay.js';
import { commitAll, git, GIT_ENV, gitTry, makeRepo, tempDir, write } from './repo.js';

const direct = (cwd: string, argv: string[], extra: NodeJS.ProcessEnv = {}) => {
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd, env: { ...GIT_ENV, ...extra }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('the sh relay', () => {
  it('gives what spawnSync gives: output, status, cwd, environment and an empty stdin', () => {
    const dir = tempDir();
    const cases: [string[], NodeJS.ProcessEnv][] = [
      [['env'], {}],
      [['env'], { GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z it's", HOME: undefined, NEW_ONE: 'a\nb' }],
      [['pwd'], {}],
      [['cat'], {}],
      [['sh', '-c', 'printf "%s|" "$@"; echo oops >&2; exit 3', 'sh', "it's", 'two words', 'new\nline', ''], {}],
      [['git', 'rev-parse', '--git-dir'], {}],
    ];
    for (const [argv, extra] of cases) {
      const relayed = relayRun(dir, [argv], GIT_ENV, extra);
      expect(relayed, argv.join(' ')).not.toBeNull();
      const sorted = (r: { stdout: string }) => (argv[0] === 'env' ? r.stdout.split('\n').sort().join('\n') : r.stdout);
      expect({ ...relayed!, stdout: sorted(relayed!) }, argv.join(' ')).toEqual({ ...direct(dir, argv, extra), stdout: sorted(direct(dir, argv, extra)) });
    }
  });

  it('git() throws as execFileSync does, gitTry() gives the status; commitAll() stops at a failing add', () => {
    const dir = makeRepo();
    expect(() => git(dir, ['rev-parse', 'no-such-rev'])).toThrow(/^Command failed: git rev-parse no-such-rev\n.*no-such-rev/s);
    const r = gitTry(dir, ['rev-parse', 'no-such-rev']);
    expect(r.status).toBe(128);
    expect(r.stderr).toMatch(/no-such-rev/);
    write(dir, 'a.txt', 'a\n');
    expect(git(dir, ['log', '-1', '--format=%B', commitAll(dir, "it's a\nmessage", '2026-02-01T00:00:00Z')])).toBe("it's a\nmessage\n\n");
    expect(git(dir, ['log', '-1', '--format=%cI'])).toBe('2026-02-01T00:00:00+00:00\n');
    expect(() => commitAll(tempDir(), 'not a repository')).toThrow(/^Command failed: git add -A && git commit/);
  });
});
