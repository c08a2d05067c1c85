// `context_primer.key_decisions` through a real `git merge` (the merge driver is the built binary).
// Red team rtA 02: a decision one branch moved up came back in the base's order beside the other
// branch's append. rtA 03: one decision rewritten on both branches merged clean, both contradicting
// texts kept; it is a conflict at that entry, and `resolve --ours/--theirs` takes that side's text
// with the other branch's appended decision kept.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, git, gitTry, initialized, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

const checkpoint = (decisions: string[]) => `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/home/u/shop",
  "created_at": "2026-11-01T10:00:00Z",
  "updated_at": "2026-11-02T10:00:00Z",
  "phase": "build",
  "step": "auth",
  "status": "in_progress",
  "progress_summary": "Auth half done.",
  "context_primer": {
    "key_decisions": [
${decisions.map((d) => `      ${JSON.stringify(d)}`).join(',\n')}
    ]
  },
  "next_actions": ["Write auth middleware"]
}
`;

const decisions = (dir: string) => (JSON.parse(read(dir, FILE)) as { context_primer: { key_decisions: string[] } }).context_primer.key_decisions;

/** A repository whose main holds `base`; branch a writes `a` by hand, branch b writes `b` by hand and appends "Use zod" with `update`; a checked out. */
function branches(base: string[], a: string[], b: string[]): string {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, checkpoint(base));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'a']);
  write(dir, FILE, checkpoint(a));
  commitAll(dir, 'a');
  git(dir, ['checkout', '-q', '-b', 'b', 'main']);
  write(dir, FILE, checkpoint(b));
  expect(cli(dir, ['update', 'api', '--context_primer.key_decisions+=Use zod']).code).toBe(0);
  commitAll(dir, 'b');
  git(dir, ['checkout', '-q', 'a']);
  return dir;
}

describe('key_decisions through git merge', () => {
  it('a decision one branch moved up stays there beside the other branch appending one (rtA 02)', () => {
    const base = ['Stack: Hono + D1', 'Use passkeys', 'Rate limit via KV', 'NEVER store plaintext tokens'];
    const dir = branches(base, ['Stack: Hono + D1', 'NEVER store plaintext tokens', 'Use passkeys', 'Rate limit via KV'], base);
    const merge = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(merge.status, merge.stdout + merge.stderr).toBe(0);
    expect(decisions(dir)).toEqual(['Stack: Hono + D1', 'NEVER store plaintext tokens', 'Use passkeys', 'Rate limit via KV', 'Use zod']);
  });

  for (const [side, text] of [
    ['ours', 'Auth: passkeys only, no passwords'],
    ['theirs', 'Auth: passwords + TOTP (passkeys dropped)'],
  ] as const) {
    it(`one decision rewritten on both branches stops the merge at that entry; resolve --${side} takes its text and keeps the appended one (rtA 03)`, () => {
      const dir = branches(['Stack: Hono + D1', 'Auth: passkeys', 'Rate limit via KV'], ['Stack: Hono + D1', 'Auth: passkeys only, no passwords', 'Rate limit via KV'], ['Stack: Hono + D1', 'Auth: passwords + TOTP (passkeys dropped)', 'Rate limit via KV']);
      const merge = gitTry(dir, ['merge', '--no-edit', 'b']);
      expect(merge.status).toBe(1);
      expect(merge.stdout + merge.stderr).toContain('context_primer.key_decisions[1]');
      const r = cli(dir, ['resolve', `--${side}`, 'context_primer.key_decisions[1]', '--add']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(decisions(dir)).toEqual(['Stack: Hono + D1', text, 'Rate limit via KV', 'Use zod']);
      expect(git(dir, ['status', '--porcelain', '--', FILE]).trim()).toBe(`M  ${FILE}`);
    });
  }

  it('one decision rewritten on one branch, another appended on the other: clean, the rewrite and the new one', () => {
    const base = ['Stack: Hono + D1', 'Auth: passkeys', 'Rate limit via KV'];
    const dir = branches(base, ['Stack: Hono + D1', 'Auth: passkeys only, no passwords', 'Rate limit via KV'], base);
    const merge = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(merge.status, merge.stdout + merge.stderr).toBe(0);
    expect(decisions(dir)).toEqual(['Stack: Hono + D1', 'Auth: passkeys only, no passwords', 'Rate limit via KV', 'Use zod']);
  });
});
