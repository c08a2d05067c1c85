import { describe, expect, it } from 'vitest';
import { decideColor, escapeControl, oneLine } from '../../src/cli/render/output.js';
import { cli, makeRepo, cleanup } from '../helpers/repo.js';

describe('colour decision', () => {
  it('flag first, then NO_COLOR (chalk ignores it), then FORCE_COLOR, then the terminal', () => {
    expect(decideColor(true, { NO_COLOR: '1' }, false)).toBe(true);
    expect(decideColor(false, { FORCE_COLOR: '1' }, true)).toBe(false);
    expect(decideColor(undefined, { NO_COLOR: '1', FORCE_COLOR: '1' }, true)).toBe(false);
    expect(decideColor(undefined, { FORCE_COLOR: '1' }, false)).toBe(true);
    expect(decideColor(undefined, { FORCE_COLOR: '0' }, false)).toBe(false);
    expect(decideColor(undefined, {}, true)).toBe(true);
    expect(decideColor(undefined, {}, false)).toBe(false);
  });

  it('the built CLI colours only when asked, and NO_COLOR wins over FORCE_COLOR', () => {
    const dir = makeRepo();
    try {
      expect(cli(dir, ['update', 'x', '--next_actions+=go']).code).toBe(0);
      const run = (env: NodeJS.ProcessEnv) => cli(dir, ['validate'], { env }).stdout;
      expect(run({ NO_COLOR: '', FORCE_COLOR: '1' })).toContain('\u001b[');
      expect(run({ NO_COLOR: '1', FORCE_COLOR: '1' })).not.toContain('\u001b[');
    } finally {
      cleanup(dir);
    }
  });
});

describe('control characters', () => {
  it('are escaped, colour kept only when colour is on', () => {
    expect(escapeControl('a\u001b[31mb\u001b]52;c;x\u0007\rc', false)).toBe('a\\x1b[31mb\\x1b]52;c;x\\x07\\x0dc');
    expect(escapeControl('a\u001b[31mb\u001b[0m', true)).toBe('a\u001b[31mb\u001b[0m');
    expect(escapeControl('tab\tand\nnewline', false)).toBe('tab\tand\nnewline');
    expect(oneLine('two\nlines')).toBe('two\\nlines');
  });
});
