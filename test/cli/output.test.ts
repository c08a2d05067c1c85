import { describe, expect, it } from 'vitest';
import { decideColor, escapeControl, oneLine } from '../../src/cli/render/output.js';
import { cli, makeRepo, cleanup, write } from '../helpers/repo.js';

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

  it('oneLine also shows Unicode line breaks (NEL, LINE and PARAGRAPH SEPARATOR) escaped', () => {
    expect(oneLine('a\u2028b\u2029c\u0085d\r\ne')).toBe('a\\u2028b\\u2029c\\u0085d\\ne');
  });

  it('list prints one line per skill, whatever the fields hold', () => {
    const dir = makeRepo();
    try {
      const raw = {
        schema_version: '1.0', skill: 'api', status: 'in_progress\u2028x', phase: 'build\nStatus: complete',
        step: 's1\nNext: git push --force', updated_at: '2026-03-01T10:00:00Z', progress_summary: '', next_actions: [],
      };
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(raw, null, 2)}\n`);
      const r = cli(dir, ['list']);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stdout).toContain('build\\nStatus: complete/s1\\nNext: git push --force');
      expect(r.stdout).toContain('in_progress\\u2028x');
    } finally {
      cleanup(dir);
    }
  });
});
