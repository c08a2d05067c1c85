// The programmatic API as a user gets it: the BUILT dist/index.js (run `npm run build`
// first; `npm test` does), exercised on real data, its declarations in dist/types, and
// what importing it loads (never yargs, never isomorphic-git until that engine is chosen).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, commitAll, makeRepo, ROOT, tempDir, write } from '../helpers/repo.js';

type Api = typeof import('../../src/index.js');

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const INDEX = join(ROOT, 'dist/index.js');
const TYPES = join(ROOT, PKG.types as string);
const FIXTURES = join(ROOT, 'test/fixtures/corpus');

/** The names the API promises, each a value export of dist/index.js and declared in its .d.ts. */
const VALUES = ['validateCheckpoint', 'readCheckpoint', 'listSkills', 'findRoot', 'mergeCheckpointTexts', 'mergeCheckpointValues', 'runDoctor', 'parseJson', 'CheckpointError', 'JsonSyntaxError', 'compileExtraLogs'] as const;
const TYPE_NAMES = ['Finding', 'Checkpoint', 'Issue', 'ValidationResult', 'MergeTextsResult', 'MergeResult', 'Conflict', 'DoctorReport', 'DoctorOptions', 'CheckpointFile', 'ErrorCode', 'JsonValue'] as const;

let api: Api;
const dirs: string[] = [];

beforeAll(async () => {
  expect(existsSync(INDEX), 'dist/index.js is missing: run `npm run build` first').toBe(true);
  api = (await import(pathToFileURL(INDEX).href)) as Api;
});
afterAll(() => dirs.splice(0).forEach(cleanup));

const fixture = (kind: string, name: string) => readFileSync(join(FIXTURES, kind, name), 'utf8');

function checkpoint(over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.1',
    skill: 'api',
    project: 'demo',
    project_dir: '/demo',
    created_at: '2026-11-01T00:00:00Z',
    updated_at: '2026-11-01T00:00:00Z',
    phase: 'build',
    step: 'auth',
    status: 'in_progress',
    progress_summary: 'Building auth.',
    progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }],
    context_primer: { key_decisions: ['JWT'], generated_files: [] },
    next_actions: ['Write the auth middleware'],
    ...over,
  };
}
const text = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

describe('package.json points at the API', () => {
  it('exports "." as { types, import: ./dist/index.js } and "types" at the declarations', () => {
    expect(PKG.exports['.']).toEqual({ types: PKG.types, import: './dist/index.js' });
    expect(Object.keys(PKG.exports['.'])[0]).toBe('types'); // "types" must come first to be seen
    expect(existsSync(TYPES)).toBe(true);
  });
});

describe('exports of dist/index.js', () => {
  it('has every promised value export', () => {
    for (const name of VALUES) expect(typeof api[name], name).toBe('function');
  });

  it('validateCheckpoint: a valid fixture passes, an invalid one names the JSON path', () => {
    const good = api.validateCheckpoint(api.parseJson(fixture('valid', 'minimal-in-progress.json')).value, { fileName: 'api.checkpoint.json' });
    expect(good.errors).toEqual([]);
    const bad = api.validateCheckpoint(api.parseJson(fixture('invalid', 'blocker-bad-needs.json')).value);
    expect(bad.errors.length).toBeGreaterThan(0);
    expect(bad.errors.map((e) => e.path).join(' ')).toMatch(/blockers\[0\]\.needs/);
    const warned = api.validateCheckpoint(checkpoint({ progress_table: undefined }));
    expect(warned.errors).toEqual([]);
    expect(warned.warnings.map((w) => w.path)).toContain('progress_table');
  });

  it('parseJson: strict, located errors as JsonSyntaxError', () => {
    expect(api.parseJson('{"a": [1, 2]}').value).toEqual({ a: [1, 2] });
    expect(api.parseJson('\uFEFF{}').hadBom).toBe(true);
    let caught: unknown;
    try {
      api.parseJson('{\n  "a": 1,\n  "a": 2\n}');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(api.JsonSyntaxError);
    expect(caught).toMatchObject({ line: 3 });
    expect(() => api.parseJson('{"__proto__": {}}')).toThrow(api.JsonSyntaxError);
  });

  it('findRoot, listSkills, readCheckpoint on a real repository; CheckpointError for a bad skill name', () => {
    const repo = makeRepo();
    dirs.push(repo);
    write(repo, '.checkpoints/web.checkpoint.json', text(checkpoint({ skill: 'web' })));
    write(repo, '.checkpoints/api.checkpoint.json', text(checkpoint()));
    write(repo, '.checkpoints/history/api.2026-01-01T00-00-00.000Z.checkpoint.json', text(checkpoint()));
    write(repo, 'src/deep/file.ts', 'export {};\n');
    expect(api.findRoot(join(repo, 'src/deep'))).toBe(repo);
    expect(api.listSkills(repo)).toEqual(['api', 'web']);
    const file = api.readCheckpoint(repo, 'api');
    expect(file).toMatchObject({ skill: 'api', path: join(repo, '.checkpoints/api.checkpoint.json'), value: checkpoint() });
    expect(file!.sizeBytes).toBe(Buffer.byteLength(text(checkpoint())));
    expect(api.readCheckpoint(repo, 'nope')).toBeNull();
    let caught: unknown;
    try {
      api.readCheckpoint(repo, '../etc/passwd');
    } catch (e) {
      caught = e;
    }
    // One class across the bundle's chunks: instanceof works for callers.
    expect(caught).toBeInstanceOf(api.CheckpointError);
    expect(caught).toMatchObject({ code: 'E_SKILL_NAME', exit: 2 });
    const own = new api.CheckpointError('E_USAGE', 'bad', { hint: 'h' });
    expect(own).toBeInstanceOf(Error);
    expect(own).toMatchObject({ name: 'CheckpointError', code: 'E_USAGE', hint: 'h', exit: 2 });
  });

  it('mergeCheckpointTexts: clean when sessions only append, markers only around a real collision', () => {
    const base = checkpoint();
    const ours = checkpoint({ updated_at: '2026-11-02T00:00:00Z', next_actions: ['Write the auth middleware', 'Add rate limits'] });
    const theirs = checkpoint({ updated_at: '2026-11-03T00:00:00Z', next_actions: ['Write the auth middleware', 'Document the API'] });
    const clean = api.mergeCheckpointTexts({ base: text(base), ours: text(ours), theirs: text(theirs), fileName: '.checkpoints/api.checkpoint.json' });
    expect(clean.status).toBe('clean');
    const merged = JSON.parse(clean.text!);
    expect(merged.next_actions).toEqual(expect.arrayContaining(['Write the auth middleware', 'Add rate limits', 'Document the API']));
    expect(merged.updated_at).toBe('2026-11-03T00:00:00Z');

    const collide = api.mergeCheckpointTexts({ base: text(base), ours: text({ ...ours, phase: 'test' }), theirs: text({ ...theirs, phase: 'deploy' }) });
    expect(collide.status).toBe('conflict');
    expect(collide.conflicts.map((c) => c.display)).toEqual(['phase']);
    expect(collide.text).toMatch(/^<{7} /m);

    const broken = api.mergeCheckpointTexts({ base: null, ours: '{', theirs: text(theirs) });
    expect(broken.status).toBe('unparseable');
    expect(broken.messages[0]).toMatch(/ours is not valid JSON/);
  });

  it('mergeCheckpointValues: the pure merge, symmetric in conflicts', () => {
    const base = checkpoint();
    const a = checkpoint({ step: 'tokens', recently_done: [{ at: '2026-11-02T00:00:00Z', action: 'a' }] });
    const b = checkpoint({ step: 'sessions', recently_done: [{ at: '2026-11-03T00:00:00Z', action: 'b' }] });
    const ab = api.mergeCheckpointValues(base, a, b);
    const ba = api.mergeCheckpointValues(base, b, a);
    expect(ab.conflicts.map((c) => c.display)).toEqual(['step']);
    expect(ba.conflicts.map((c) => c.display)).toEqual(['step']);
    expect((ab.value as { recently_done: unknown[] }).recently_done).toHaveLength(2);
    const rules = api.compileExtraLogs({ logs: ['skill_state.notes'] });
    const logs = api.mergeCheckpointValues(
      checkpoint({ skill_state: { notes: ['x'] } }),
      checkpoint({ skill_state: { notes: ['x', 'from a'] } }),
      checkpoint({ skill_state: { notes: ['x', 'from b'] } }),
      { extraRules: rules },
    );
    expect(logs.conflicts).toEqual([]);
    expect((logs.value as { skill_state: { notes: string[] } }).skill_state.notes).toEqual(expect.arrayContaining(['x', 'from a', 'from b']));
  });

  it('runDoctor: findings against git history, the same from both engines', async () => {
    const repo = makeRepo();
    dirs.push(repo);
    write(repo, 'src/auth.ts', 'export const v = 1;\n');
    commitAll(repo, 'auth scaffold', '2026-10-31T00:00:00Z');
    write(repo, '.checkpoints/api.checkpoint.json', text(checkpoint({ context_primer: { key_decisions: [], generated_files: ['src/auth.ts', 'src/gone.ts'] } })));
    commitAll(repo, 'checkpoint', '2026-11-01T00:00:00Z');
    write(repo, 'src/auth.ts', 'export const v = 2;\n');
    commitAll(repo, 'rework auth', '2026-11-05T00:00:00Z');

    const now = new Date('2026-11-06T00:00:00Z');
    const report = await api.runDoctor({ root: repo, now, engine: 'native' });
    expect(report.checkpoints).toBe(1);
    expect(report.engine).toBe('native');
    expect(report.head).toMatch(/^[0-9a-f]{40}$/);
    const drift = report.findings.filter((f) => f.check === 'generated_files');
    expect(drift).toEqual([
      expect.objectContaining({ level: 'warning', skill: 'api', path: 'context_primer.generated_files[0]', message: expect.stringMatching(/src\/auth\.ts changed after the checkpoint was written .*rework auth/) }),
      expect.objectContaining({ level: 'warning', skill: 'api', path: 'context_primer.generated_files[1]', message: "src/gone.ts is missing; no commit in HEAD's history dated since 2025-11-06 deleted or renamed it (an older or misdated one may have: `git log --full-history -1 -- src/gone.ts`)" }),
    ]);
    const iso = await api.runDoctor({ root: repo, now, engine: 'isomorphic' });
    expect(iso.engine).toBe('isomorphic');
    expect(iso.findings).toEqual(report.findings);
  });
});

describe('declarations', () => {
  it('dist/types declares every export', () => {
    const dts = readFileSync(TYPES, 'utf8');
    const exported = [...dts.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)].flatMap((m) => m[1]!.split(',').map((s) => s.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!));
    for (const name of VALUES) expect(exported, name).toContain(name);
    for (const name of TYPE_NAMES.filter((n) => n !== 'Checkpoint' && n !== 'JsonValue')) expect(exported, name).toContain(name);
    // The protocol types come through `export type *`.
    expect(dts).toMatch(/export type \* from '\.\/protocol\/types\.js'/);
    // types.ts re-exports the shapes generated from schema.json and the JSON value types.
    const protocol = readFileSync(join(ROOT, 'dist/types/protocol/types.d.ts'), 'utf8');
    expect(protocol).toMatch(/export \* from '\.\/shapes\.generated\.js'/);
    expect(protocol).toMatch(/export type \{ JsonObject, JsonValue \} from '\.\/json-types\.js'/);
    expect(readFileSync(join(ROOT, 'dist/types/protocol/shapes.generated.d.ts'), 'utf8')).toMatch(/export interface Checkpoint\b/);
    expect(readFileSync(join(ROOT, 'dist/types/protocol/json-types.d.ts'), 'utf8')).toMatch(/export type JsonValue\b/);
    // Every relative import in the declarations resolves to a file that exists.
    const seen = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)\.js'/g)) {
        const next = join(file, '..', `${m[1]}.d.ts`);
        expect(existsSync(next), `${file} -> ${m[1]}`).toBe(true);
        walk(next);
      }
    };
    walk(TYPES);
    expect(seen.size).toBeGreaterThan(5);
  });
});

describe('what importing the API loads', () => {
  /** Runs `script` (ESM) in a fresh node with a loader hook that logs every module it loads. */
  function loadedBy(script: string): string[] {
    const dir = tempDir('cp-load-');
    dirs.push(dir);
    const log = join(dir, 'loaded.log');
    writeFileSync(join(dir, 'hooks.mjs'), "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.CP_LOAD_LOG, url + '\\n'); return next(url, context); }\n");
    writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n");
    writeFileSync(join(dir, 'main.mjs'), script);
    const r = spawnSync(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, join(dir, 'main.mjs')], { cwd: dir, encoding: 'utf8', env: { ...process.env, CP_LOAD_LOG: log } });
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file:') && u.includes('/dist/'));
  }
  const heavy = (urls: string[]) =>
    urls.filter((u) => {
      const body = readFileSync(new URL(u), 'utf8');
      return /yargs|isomorphic-git|help/.test(u) || body.includes('Not enough non-option arguments') || body.includes('isomorphic-git@');
    });

  it('import loads neither yargs nor isomorphic-git; runDoctor on the native engine still does not', () => {
    const repo = makeRepo();
    dirs.push(repo);
    write(repo, '.checkpoints/api.checkpoint.json', text(checkpoint()));
    const onImport = loadedBy(`await import(${JSON.stringify(pathToFileURL(INDEX).href)});\n`);
    expect(onImport.some((u) => u.endsWith('/dist/index.js'))).toBe(true);
    expect(heavy(onImport)).toEqual([]);
    const onDoctor = loadedBy(
      `const api = await import(${JSON.stringify(pathToFileURL(INDEX).href)});\nconst r = await api.runDoctor({ root: ${JSON.stringify(repo)}, now: new Date(), engine: 'native' });\nif (r.engine !== 'native') throw new Error(String(r.engine));\n`,
    );
    expect(onDoctor.length).toBeGreaterThan(onImport.length); // the git engine chunk, on demand
    expect(heavy(onDoctor)).toEqual([]);
  });
});
