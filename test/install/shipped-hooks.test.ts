// The digests of the pre-push hooks checkpoint shipped: the current template is one of them (a
// change to hooks/pre-push must add its digest, or init would keep the hook it just wrote as
// "edited"), and a rendered hook is recognised whatever node and launcher init baked in.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/repo.js';
import { renderHook } from '../../src/install/hook.js';
import { isShippedHook } from '../../src/install/shipped-hooks.js';

const template = readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8');

describe('shipped pre-push hooks', () => {
  it('the current hooks/pre-push is listed (add its digest to src/install/shipped-hooks.ts when it changes)', () => {
    expect(isShippedHook(template)).toBe(true);
  });

  it('a rendered hook is recognised whatever paths were baked in, quotes and newlines too; an edit is not', () => {
    for (const [node, bin] of [['/usr/bin/node', '/x/bin/checkpoint.js'], ["/o'dd/node", '/with\nnewline/$&/checkpoint.js']]) {
      expect(isShippedHook(renderHook(template, node!, bin!))).toBe(true);
    }
    expect(isShippedHook(readFileSync(join(ROOT, 'test/fixtures/hooks/pre-push.8d74bca'), 'utf8'))).toBe(true);
    expect(isShippedHook(`${renderHook(template, '/n', '/b')}npm run lint\n`)).toBe(false);
    expect(isShippedHook(renderHook(template, '/n', '/b').replace('exit 1', 'exit 0'))).toBe(false);
  });
});
