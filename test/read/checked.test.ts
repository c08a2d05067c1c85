// Verdicts (store/verdicts.ts) through readChecked and the built binary: a read-only command (or doctor)
// reuses a file's validation verdict only while the file is exactly the one judged, so its
// answer is always what a fresh validation gives.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChecked } from '../../src/read/checked.js';
import { Verdicts } from '../../src/store/verdicts.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { checkpointPath } from '../../src/store/checkpoints.js';
import { nonAsciiRuns } from '../../src/store/trusted-json.js';
import { assertBuilt, cleanup, cli, makeRepo, write } from '../helpers/repo.js';

const BUILD = 'test-build';
const NOW = new Date('2026-11-20T00:00:00.000Z');

// Messy, the way real files are: an 8.0, a status outside the enum in a row, a path with a note.
const doc = (status: string, skill = 'api') =>
  `${JSON.stringify(
    {
      protocol_version: '1.1',
      skill,
      project: 'demo',
      project_dir: '/demo',
      created_at: '2026-06-01T00:00:00Z',
      updated_at: '2026-06-02T00:00:00Z',
      phase: 'build',
      step: 's1',
      status,
      progress_summary: 'Building (see PR 12).',
      progress_table: [{ id: 's1', label: 'S1', status: 'in_progress' }],
      context_primer: { key_decisions: ['a'], generated_files: ['src/x.ts (PR 12)'] },
      next_actions: ['go'],
    },
    null,
    2,
  ).replace('"step": "s1"', '"step": "s1", "score": 8.0')}\n`;

/** What a fresh validation says of the file at `path` now. */
function fresh(path: string, now = NOW) {
  const text = readFileSync(path, 'utf8');
  return validateCheckpoint(JSON.parse(text), { fileName: basename(path), now, sizeBytes: Buffer.byteLength(text) });
}

/** Replaces the file's text by one of the same size and puts its mtime back: only ctime tells. */
function sneakyEdit(path: string, from: string, to: string): void {
  const st = statSync(path);
  const text = readFileSync(path, 'utf8');
  expect(to.length).toBe(from.length);
  writeFileSync(path, text.replace(from, to));
  utimesSync(path, st.atime, st.mtime);
}

let dir: string;
let path: string;
/** Left alone by the readChecked tests (their edits are racy for a while): the binary's own. */
let opsPath: string;

beforeAll(async () => {
  assertBuilt();
  dir = makeRepo();
  write(dir, '.checkpoints/api.checkpoint.json', doc('in_progress'));
  path = checkpointPath(dir, 'api');
  write(dir, '.checkpoints/ops.checkpoint.json', doc('in_progress', 'ops'));
  opsPath = checkpointPath(dir, 'ops');
  // Older than the racy margin (2 s), so a verdict on it may be kept.
  await new Promise((r) => setTimeout(r, 2200));
});
afterAll(() => cleanup(dir));

const check = (verdicts: Verdicts, needValue: boolean, now = NOW) => readChecked(dir, path, { fileName: 'api.checkpoint.json', now, verdicts, needValue })!;

describe('readChecked with verdicts', () => {
  it('reuses a kept verdict without reading the file, and answers as a fresh validation', () => {
    const first = Verdicts.open(dir, BUILD);
    const a = check(first, false);
    expect(a.file).not.toBeNull(); // nothing known yet: read and judged
    first.save();
    const b = check(Verdicts.open(dir, BUILD), false);
    expect(b.file).toBeNull(); // known: not even read
    expect(b.validation).toEqual(fresh(path));
    const c = check(Verdicts.open(dir, BUILD), true);
    expect(c.file?.value).toEqual(JSON.parse(readFileSync(path, 'utf8')));
    expect(c.validation).toEqual(fresh(path));
  });

  it('runs the clock rule live: a kept verdict still warns of a future updated_at', () => {
    const v = Verdicts.open(dir, BUILD);
    check(v, false);
    v.save();
    const past = new Date('2026-05-01T00:00:00.000Z');
    const r = check(Verdicts.open(dir, BUILD), false, past);
    expect(r.file).toBeNull();
    expect(r.validation.warnings[0]?.path).toBe('updated_at');
    expect(r.validation).toEqual(fresh(path, past));
  });

  it('misses for a file changed in place with its size and mtime kept', () => {
    const v = Verdicts.open(dir, BUILD);
    check(v, false);
    v.save();
    sneakyEdit(path, '"status": "in_progress"', '"status": "in_limbo_11"');
    const r = check(Verdicts.open(dir, BUILD), false);
    expect(r.file).not.toBeNull();
    expect(r.validation.errors.map((e) => e.path)).toContain('status');
    expect(r.validation).toEqual(fresh(path));
    sneakyEdit(path, '"status": "in_limbo_11"', '"status": "in_progress"');
  });

  it('keeps no verdict on a file changed within the racy margin', () => {
    write(dir, '.checkpoints/web.checkpoint.json', doc('in_progress').replace('"skill": "api"', '"skill": "web"'));
    const web = checkpointPath(dir, 'web');
    const v = Verdicts.open(dir, BUILD);
    readChecked(dir, web, { fileName: 'web.checkpoint.json', now: NOW, verdicts: v, needValue: false });
    v.save();
    const again = readChecked(dir, web, { fileName: 'web.checkpoint.json', now: NOW, verdicts: Verdicts.open(dir, BUILD), needValue: false });
    expect(again?.file).not.toBeNull();
    rmSync(web);
  });

  it('misses for another build, and caches nothing without a build id', () => {
    const v = Verdicts.open(dir, BUILD);
    check(v, false);
    v.save();
    expect(check(Verdicts.open(dir, 'other-build'), false).file).not.toBeNull();
    const none = Verdicts.open(dir, null);
    check(none, false);
    none.save();
    expect(check(Verdicts.open(dir, null), false).file).not.toBeNull();
  });

  it('treats a hostile cache file as a miss: a link to /dev/zero, a FIFO, garbage, wrong shapes', () => {
    const file = join(dir, '.git/checkpoint/verdicts.json');
    const plant = (make: () => void) => {
      rmSync(file, { force: true });
      make();
      const r = check(Verdicts.open(dir, BUILD), false);
      expect(r.file).not.toBeNull();
      expect(r.validation).toEqual(fresh(path));
    };
    mkdirSync(join(dir, '.git/checkpoint'), { recursive: true });
    plant(() => symlinkSync('/dev/zero', file));
    plant(() => execFileSync('mkfifo', [file]));
    plant(() => writeFileSync(file, '{"build":"test-build","entries":'));
    plant(() => writeFileSync(file, JSON.stringify({ build: BUILD, entries: [[`${path}\0api.checkpoint.json`, { id: 'x', ctimeNs: 'no', errors: 'none', warnings: [] }]] })));
    rmSync(file, { force: true });
  });

  it('treats a cache file larger than ours ever are as a miss, even holding a right entry', () => {
    const file = join(dir, '.git/checkpoint/verdicts.json');
    rmSync(file, { force: true });
    // The entry a run would keep for this file as it is now (the racy rule aside).
    const st = statSync(path, { bigint: true });
    const v = fresh(path);
    const entry = [`${path}\0api.checkpoint.json`, { errors: v.errors, warnings: v.warnings, updatedAt: JSON.parse(readFileSync(path, 'utf8')).updated_at, nonAscii: nonAsciiRuns(readFileSync(path, 'utf8')), id: `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`, ctimeNs: String(st.ctimeNs) }];
    mkdirSync(join(dir, '.git/checkpoint'), { recursive: true });
    writeFileSync(file, JSON.stringify({ build: BUILD, entries: [entry] }));
    expect(check(Verdicts.open(dir, BUILD), false).file).toBeNull(); // the right entry alone: a hit
    // 9 MiB of padding before it: a file no run of ours writes (256 entries at most).
    const padding = Array.from({ length: 9 * 1024 }, (_, i) => [`pad-${i}`, 'x'.repeat(1024)]);
    writeFileSync(file, JSON.stringify({ build: BUILD, entries: [...padding, entry] }));
    const r = check(Verdicts.open(dir, BUILD), false);
    expect(r.file).not.toBeNull();
    expect(r.validation).toEqual(fresh(path));
    rmSync(file, { force: true });
  });

  it('writes nothing through a link planted in place of the cache folder', () => {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    rmSync(join(dir, '.git/checkpoint'), { recursive: true, force: true });
    symlinkSync(elsewhere, join(dir, '.git/checkpoint'));
    const v = Verdicts.open(dir, BUILD);
    check(v, false);
    v.save();
    expect(() => statSync(join(elsewhere, 'verdicts.json'))).toThrow();
    rmSync(join(dir, '.git/checkpoint'));
    rmSync(elsewhere, { recursive: true });
  });
});

describe('the built binary', () => {
  it('validate, status and doctor keep verdicts, and see an in-place edit that kept size and mtime', () => {
    const doctor = cli(dir, ['doctor']);
    expect(doctor.code).toBe(0);
    expect(doctor.stdout).toContain('0 errors');
    const kept = JSON.parse(readFileSync(join(dir, '.git/checkpoint/verdicts.json'), 'utf8')) as { entries: [string, unknown][] };
    expect(kept.entries.map(([key]) => key)).toContain(`${opsPath}\0ops.checkpoint.json`);
    expect(cli(dir, ['validate']).code).toBe(0);
    expect(cli(dir, ['validate']).code).toBe(0); // the second run answers from the verdict
    sneakyEdit(opsPath, '"status": "in_progress"', '"status": "in_limbo_11"');
    const v = cli(dir, ['validate']);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('status "in_limbo_11" must be one of');
    expect(cli(dir, ['status']).stdout).toMatch(/note: ops: status: status "in_limbo_11" is not one of .*; fix: checkpoint update ops --status='</);
    const d = cli(dir, ['doctor']);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/error +status: status "in_limbo_11" must be one of/);
    sneakyEdit(opsPath, '"status": "in_limbo_11"', '"status": "in_progress"');
    expect(cli(dir, ['validate']).code).toBe(0);
    expect(cli(dir, ['doctor']).code).toBe(0);
  });
});
