// The README's first quick-start command ends in `node scripts/demo.mjs`: the main job end to end
// in a throw-away repository, each step checking what it claims. Run here as a user runs it, so a
// change that breaks a step fails the suite, not only a fresh clone (stop 49: a `done` change
// broke step 8 and only the fresh clone's demo run caught it).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, ROOT } from '../helpers/repo.js';

describe('npm run demo', () => {
  it('every step behaves, and it leaves no repository behind', () => {
    assertBuilt();
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/demo.mjs')], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.stderr).not.toContain('did not behave');
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/\nEvery step behaved\.\n$/);
    // Every step the script has was reached.
    const steps = readFileSync(join(ROOT, 'scripts/demo.mjs'), 'utf8').match(/^\s*say\(/gm)!.length;
    expect(r.stdout.match(/^\d+\. /gm)).toHaveLength(steps);
    expect(r.stdout).not.toContain('repository kept at');
  });
});
