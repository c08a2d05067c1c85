import { describe, expect, it } from 'vitest';
import { judge, parsePushRange } from '../../src/doctor/push.js';
import type { CommitInfo } from '../../src/git/types.js';
import type { Finding } from '../../src/doctor/types.js';
import { isCheckpointError } from '../../src/errors.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('--pushed ranges', () => {
  it('reads from..to, a bare to (new branch) and an all-zero from', () => {
    expect(parsePushRange(`${A}..${B}`)).toEqual({ from: A, to: B });
    expect(parsePushRange(B)).toEqual({ from: null, to: B });
    expect(parsePushRange(`${'0'.repeat(40)}..${B}`)).toEqual({ from: null, to: B });
  });
  it('reads revision names as a user types a range (origin/main..HEAD, HEAD~2, v1.2^{}-free forms)', () => {
    expect(parsePushRange('origin/main..HEAD')).toEqual({ from: 'origin/main', to: 'HEAD' });
    expect(parsePushRange(`${A}..feature/rate-limit`)).toEqual({ from: A, to: 'feature/rate-limit' });
    expect(parsePushRange('HEAD~2^2..refs/heads/main')).toEqual({ from: 'HEAD~2^2', to: 'refs/heads/main' });
    expect(parsePushRange('v1.2.0')).toEqual({ from: null, to: 'v1.2.0' });
  });
  it('reads a branch\'s upstream and an open end as git does: `@{u}..` is `@{u}..HEAD`', () => {
    expect(parsePushRange('@{u}..')).toEqual({ from: '@{u}', to: 'HEAD' });
    expect(parsePushRange(`${A}..`)).toEqual({ from: A, to: 'HEAD' });
    expect(parsePushRange('main@{upstream}~2..feature/x')).toEqual({ from: 'main@{upstream}~2', to: 'feature/x' });
    expect(parsePushRange('origin/main..@{u}')).toEqual({ from: 'origin/main', to: '@{u}' });
    expect(parsePushRange('..main')).toEqual({ from: 'HEAD', to: 'main' });
    expect(parsePushRange('..')).toEqual({ from: 'HEAD', to: 'HEAD' });
  });
  it.each(['', '...', `${A}..${B}..${A}`, `${A};rm -rf /`, '-x..HEAD', 'main@{push}..HEAD', '@{-1}..HEAD', 'main@{u..HEAD', '@{u}@{u}..HEAD', 'main.lock@{u}..HEAD', ':/fix..HEAD', 'HEAD:src/a.ts', 'a b..HEAD', 'main.lock..HEAD', '.hidden..HEAD', 'x/.y..HEAD', 'HEAD^{tree}'])('refuses %j as a usage error', (text) => {
    let err: unknown;
    try {
      parsePushRange(text);
    } catch (e) {
      err = e;
    }
    expect(isCheckpointError(err) && err.code).toBe('E_USAGE');
  });
});

describe('judging a push', () => {
  const f = (over: Partial<Finding>): Finding => ({ level: 'warning', check: 'landed', skill: 'api', path: 'next_actions[0]', message: 'm', ...over });
  const pushed: CommitInfo[] = [{ sha: B, parents: [A], subject: 's', body: '', time: 1, authorTime: 1, changes: [{ status: 'R', path: 'src/new.ts', from: 'src/old.ts' }] }];
  const rel = (skill: string) => `.checkpoints/${skill}.checkpoint.json`;

  it('without a push every error and warning blocks, never advice or info', () => {
    const out = judge([f({}), f({ level: 'advice' }), f({ level: 'info' }), f({ level: 'error' })], null, rel);
    expect(out.map((x) => x.blocks)).toEqual([true, false, false, true]);
  });
  it('with a push only what the pushed commits cause or carry blocks', () => {
    const out = judge([
      f({ evidence: { sha: B } }), // landed in a pushed commit
      f({ evidence: { sha: A } }), // landed before: not this push's doing
      f({ check: 'generated_files', evidence: { file: 'src/old.ts', missing: true } }), // renamed by the push
      f({ check: 'generated_files', evidence: { file: 'src/new.ts' } }), // uncommitted edits: not the push's doing
      f({ check: 'stale', skill: 'other' }),
      f({ level: 'error', check: 'schema', skill: 'legacy' }),
    ], pushed, rel);
    expect(out.map((x) => x.blocks)).toEqual([true, false, true, false, false, false]);
  });
  it('a pushed checkpoint carries its own drift, but not its staleness', () => {
    const carrying: CommitInfo[] = [{ ...pushed[0]!, changes: [{ status: 'M', path: rel('api') }] }];
    const out = judge([f({ evidence: { sha: A } }), f({ check: 'stale' }), f({ level: 'error', check: 'schema' })], carrying, rel);
    expect(out.map((x) => x.blocks)).toEqual([true, false, true]);
  });
});
