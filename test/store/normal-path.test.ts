// isNormalAbsolute (store/safe-fs.ts) lets the read path skip path.resolve: it may say true only
// for a path resolve gives back unchanged, and must say true for the paths the store builds.
import { posix } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNormalAbsolute } from '../../src/store/safe-fs.js';
import { checkpointPath } from '../../src/store/checkpoints.js';

describe('isNormalAbsolute', () => {
  it('is true only where path.resolve changes nothing', () => {
    const part = fc.constantFrom('', '.', '..', '...', 'a', '.x', 'x.', 'b c', 'é', '.checkpoints', 'api.checkpoint.json');
    fc.assert(
      fc.property(fc.boolean(), fc.array(part, { maxLength: 6 }), (abs, parts) => {
        const p = (abs ? '/' : '') + parts.join('/');
        if (isNormalAbsolute(p)) expect(posix.resolve('/elsewhere', p)).toBe(p);
        if (posix.resolve('/elsewhere', p) === p && p !== '/') expect(isNormalAbsolute(p)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('checkpointPath gives what resolve gives, for a normal root and for one that is not', () => {
    for (const root of ['/srv/app', '/srv/./app/', '/srv//app', '/srv/x/../app', '/']) {
      expect(checkpointPath(root, 'api.v2')).toBe(posix.resolve(root, '.checkpoints', 'api.v2.checkpoint.json'));
    }
  });
});
