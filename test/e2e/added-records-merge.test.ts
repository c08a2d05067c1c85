// A progress_table row both branches added under one id the base has none of, each its own way,
// through a real `git merge` (the merge driver is the built binary, as init installs it): the
// markers' base holds no such row, never the row with its conflicted members left out
// (`{"id": "p2"}`), in formatJson's layout and in a hand-made one (dist/merge-layout.cjs). Taking a
// side, with `resolve` or git's own `checkout --ours/--theirs`, gives that side's row exactly.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { splitConflictMarkers } from '../../src/merge/markers.js';
import { parseJson } from '../../src/protocol/json.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { builtOnce } from '../helpers/built-once.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { runCli } from '../helpers/in-process.js';
import { assertBuilt, cleanup, commitAll, git, gitTry, initialized, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const P1 = { id: 'p1', label: 'Plan', status: 'complete' };
const ROWS = { ours: { id: 'p2', label: 'Build: API', status: 'in_progress' }, theirs: { id: 'p2', label: 'Build: UI', status: 'not_started' } };

const doc = (rows: JsonValue[], updated: string): JsonObject =>
  checkpointDoc({ project: 'shop', project_dir: '/home/u/shop', updated_at: updated, progress_table: rows, next_actions: ['Ship the API'] });

const LAYOUTS = {
  "formatJson's": (d: JsonObject) => `${JSON.stringify(d, null, 2)}\n`,
  'a hand-made': (d: JsonObject) => `${JSON.stringify(d, null, 4).replace(/\{\n\s+("id": "[^"]*",)\n\s+("label": "[^"]*",)\n\s+("status": "[^"]*")\n\s+\}/g, '{$1 $2 $3}')}\n`,
};
type LayoutName = keyof typeof LAYOUTS;
const sideText = (layout: LayoutName, side: 'ours' | 'theirs') => LAYOUTS[layout](doc([P1, ROWS[side]], side === 'ours' ? '2026-11-02T10:00:00Z' : '2026-11-02T11:00:00Z'));

const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

/** main holds the base; for each layout, branch `ours-<n>` adds ours' row and `theirs-<n>` theirs'. Built once per file. */
function branches(): string {
  const { dir } = builtOnce('branches', () => {
    const repo = makeRepo();
    initialized(repo);
    write(repo, FILE, LAYOUTS["formatJson's"](doc([P1], '2026-11-01T10:00:00Z')));
    commitAll(repo, 'base');
    Object.keys(LAYOUTS).forEach((layout, n) => {
      for (const side of ['ours', 'theirs'] as const) {
        git(repo, ['checkout', '-q', '-b', `${side}-${n}`, 'main']);
        write(repo, FILE, sideText(layout as LayoutName, side));
        commitAll(repo, side);
      }
    });
    return { dir: repo };
  });
  dirs.push(dir);
  return dir;
}

const rowsOf = (text: string) => (parseJson(text).value as { progress_table: JsonValue[] }).progress_table;

describe('a row both branches added under one id, through git merge', () => {
  Object.keys(LAYOUTS).forEach((layout, n) => {
    const take = n === 0 ? 'ours' : 'theirs';
    it(`in ${layout} layout: the markers' base holds no such row; resolve --${take} and git checkout --ours/--theirs give each side's row exactly`, async () => {
      const dir = branches();
      git(dir, ['checkout', '-q', `ours-${n}`]);
      const merge = gitTry(dir, ['merge', '--no-edit', `theirs-${n}`]);
      expect(merge.status, merge.stdout + merge.stderr).toBe(1);
      expect(merge.stderr).toContain('conflict at progress_table[1].label: ours "Build: API" vs theirs "Build: UI" (base absent)');
      const marked = read(dir, FILE);
      expect(marked).toMatch(/^\|{7} base$/m);
      const sides = splitConflictMarkers(marked)!;
      expect(sides.base).not.toContain('p2');
      expect(rowsOf(sides.base!)).toEqual([P1]);
      expect(rowsOf(sides.ours)).toEqual([P1, ROWS.ours]);
      expect(rowsOf(sides.theirs)).toEqual([P1, ROWS.theirs]);

      const r = await runCli(dir, ['resolve', `--${take}`, 'progress_table[1]']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(rowsOf(read(dir, FILE))).toEqual([P1, ROWS[take]]);
      for (const side of ['ours', 'theirs'] as const) {
        git(dir, ['checkout', `--${side}`, '--', FILE]);
        expect(read(dir, FILE)).toBe(sideText(layout as LayoutName, side));
      }
    });
  });
});
