// history/: reset archives (never deletes, never overwrites), restore copies back (never
// over a live checkpoint, never from outside history/).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { archiveCheckpoint, fileStamp, listArchives, parseArchiveName, resolveArchive } from '../../src/store/history.js';
import { restoreArchive } from '../../src/store/restore.js';
import { CheckpointError } from '../../src/errors.js';
import { cleanup, makeRepo, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const NOW = new Date('2026-05-01T12:00:00.000Z');
const TEXT = '{\n  "skill": "api"\n}\n';

let root: string;
beforeEach(() => {
  root = tempDir();
  mkdirSync(join(root, '.checkpoints'));
});
afterEach(() => cleanup(root));

const live = (skill = 'api') => join(root, '.checkpoints', `${skill}.checkpoint.json`);
const hist = () => join(root, '.checkpoints', 'history');

async function rejectsWith(p: Promise<unknown>, code: string): Promise<CheckpointError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    expect((e as CheckpointError).code).toBe(code);
    return e as CheckpointError;
  }
  throw new Error(`expected ${code}`);
}

describe('names', () => {
  it('stamps are colon-free and sortable', () => {
    expect(fileStamp(NOW)).toBe('2026-05-01T12-00-00.000Z');
  });

  it('parses archive and rotation names, rejecting others', () => {
    expect(parseArchiveName('api.2026-05-01T12-00-00.000Z.checkpoint.json')).toEqual({ skill: 'api', kind: 'checkpoint' });
    expect(parseArchiveName('api.2026-05-01T12-00-00.000Z-2.checkpoint.json')).toEqual({ skill: 'api', kind: 'checkpoint' });
    expect(parseArchiveName('oc-git-ops.2026-05-01.json')).toEqual({ skill: 'oc-git-ops', kind: 'rotation' });
    expect(parseArchiveName('api.checkpoint.json')).toBeNull();
    // Named like an archive, but for a skill name restore refuses: no archive, so none is listed as restorable.
    for (const skill of ['con', 'aux.x', 'a..b', 'x'.repeat(101)]) expect(parseArchiveName(`${skill}.2026-05-01T12-00-00.000Z.checkpoint.json`), skill).toBeNull();
    expect(parseArchiveName('notes.txt')).toBeNull();
  });
});

describe('archive (reset)', () => {
  it('moves the file into history/ byte for byte', async () => {
    writeFileSync(live(), TEXT);
    const target = await archiveCheckpoint(root, 'api', NOW);
    expect(target).toBe(join(hist(), 'api.2026-05-01T12-00-00.000Z.checkpoint.json'));
    expect(existsSync(live())).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe(TEXT);
  });

  it('archives a checkpoint that does not parse, and one over the read limit', async () => {
    writeFileSync(live(), '{"broken": ');
    const target = await archiveCheckpoint(root, 'api', NOW);
    expect(readFileSync(target, 'utf8')).toBe('{"broken": ');
    writeFileSync(live('big'), `{"pad": "${'x'.repeat(5 * 1024 * 1024)}"}`);
    await archiveCheckpoint(root, 'big', NOW);
    expect(existsSync(live('big'))).toBe(false);
  });

  it('refuses a directory named like a checkpoint', async () => {
    mkdirSync(live());
    await rejectsWith(archiveCheckpoint(root, 'api', NOW), 'E_PATH');
    expect(existsSync(hist())).toBe(false);
  });

  it('never overwrites an archive of the same instant', async () => {
    writeFileSync(live(), TEXT);
    await archiveCheckpoint(root, 'api', NOW);
    writeFileSync(live(), '{"second": true}');
    const second = await archiveCheckpoint(root, 'api', NOW);
    expect(second.endsWith('api.2026-05-01T12-00-00.000Z-1.checkpoint.json')).toBe(true);
    expect(readdirSync(hist()).length).toBe(2);
    expect(readFileSync(join(hist(), 'api.2026-05-01T12-00-00.000Z.checkpoint.json'), 'utf8')).toBe(TEXT);
  });

  it('refuses a missing checkpoint, also when .checkpoints/ does not exist', async () => {
    await rejectsWith(archiveCheckpoint(root, 'api', NOW), 'E_NOT_FOUND');
    const bare = tempDir();
    await rejectsWith(archiveCheckpoint(bare, 'api', NOW), 'E_NOT_FOUND');
    expect(existsSync(join(bare, '.checkpoints'))).toBe(false);
    cleanup(bare);
  });

  it('lists archives, per skill when asked', async () => {
    writeFileSync(live('api'), TEXT);
    writeFileSync(live('web'), TEXT);
    await archiveCheckpoint(root, 'api', NOW);
    await archiveCheckpoint(root, 'web', NOW);
    writeFileSync(join(hist(), 'web.2026-05-01.json'), '[]');
    writeFileSync(join(hist(), 'stray.txt'), 'x');
    expect(listArchives(root).map((e) => [e.skill, e.kind])).toEqual([
      ['api', 'checkpoint'],
      ['web', 'rotation'], // sorted by file name: "web.2026-05-01.json" < "web.2026-05-01T…"
      ['web', 'checkpoint'],
    ]);
    expect(listArchives(root, 'api').map((e) => e.file)).toEqual(['api.2026-05-01T12-00-00.000Z.checkpoint.json']);
    expect(listArchives(root, 'api')[0]!.bytes).toBe(TEXT.length);
  });

  it('lists a numbered archive after the one it follows, -10 after -2: the last line is the newest', async () => {
    for (let i = 0; i < 12; i++) {
      writeFileSync(live('api'), TEXT);
      await archiveCheckpoint(root, 'api', NOW);
    }
    for (const n of ['', '-1', '-2', '-10']) writeFileSync(join(hist(), `api.2026-05-01${n}.json`), '[]');
    const files = listArchives(root, 'api').map((e) => e.file);
    expect(files.slice(0, 4)).toEqual(['api.2026-05-01.json', 'api.2026-05-01-1.json', 'api.2026-05-01-2.json', 'api.2026-05-01-10.json']);
    expect(files.slice(4)).toEqual(['', ...Array.from({ length: 11 }, (_, i) => `-${i + 1}`)].map((n) => `api.2026-05-01T12-00-00.000Z${n}.checkpoint.json`));
  });
});

describe('restore', () => {
  it('copies the archive back and keeps it in history/', async () => {
    writeFileSync(live(), TEXT);
    const archive = await archiveCheckpoint(root, 'api', NOW);
    const r = await restoreArchive(root, 'api.2026-05-01T12-00-00.000Z.checkpoint.json', NOW);
    expect(r).toMatchObject({ skill: 'api', path: live() });
    expect(readFileSync(live(), 'utf8')).toBe(TEXT);
    expect(existsSync(archive)).toBe(true);
  });

  it('refuses to overwrite a live checkpoint', async () => {
    writeFileSync(live(), TEXT);
    await archiveCheckpoint(root, 'api', NOW);
    writeFileSync(live(), '{"newer": true}');
    const e = await rejectsWith(restoreArchive(root, 'api.2026-05-01T12-00-00.000Z.checkpoint.json', NOW), 'E_EXISTS');
    expect(e.hint).toMatch(/checkpoint reset api/);
    expect(readFileSync(live(), 'utf8')).toBe('{"newer": true}');
  });

  it('puts a rotation file\'s entries back into the live checkpoint, once', async () => {
    const doc = {
      protocol_version: '1.1', skill: 'api', project: 'p', project_dir: root, created_at: '2026-05-01T00:00:00Z',
      updated_at: '2026-05-01T00:00:00Z', phase: 'p', step: 's', status: 'complete', progress_summary: 'Done.',
      skill_state: { run_history: [{ id: 'r3', at: '2026-05-01T03:00:00Z' }] },
    };
    writeFileSync(live(), JSON.stringify(doc, null, 2));
    mkdirSync(hist());
    const moved = [{ id: 'r1', at: '2026-05-01T01:00:00Z' }, { id: 'r2', at: '2026-05-01T02:00:00Z' }];
    writeFileSync(join(hist(), 'api.2026-05-01.json'), JSON.stringify({ skill: 'api', rotated_at: '2026-05-01T04:00:00Z', entries: { 'skill_state.run_history': moved } }));
    const r = await restoreArchive(root, 'api.2026-05-01.json', NOW);
    expect(r.entries).toBe(2);
    const ids = () => JSON.parse(readFileSync(live(), 'utf8')).skill_state.run_history.map((e: { id: string }) => e.id);
    expect(ids()).toEqual(['r1', 'r2', 'r3']);
    expect((await restoreArchive(root, 'api.2026-05-01.json', NOW)).entries).toBe(0);
    expect(ids()).toEqual(['r1', 'r2', 'r3']);
    expect(existsSync(join(hist(), 'api.2026-05-01.json'))).toBe(true);
  });

  it('refuses broken rotation files and anything outside history/', async () => {
    mkdirSync(hist());
    writeFileSync(join(hist(), 'api.2026-05-01.json'), '[]');
    await rejectsWith(restoreArchive(root, 'api.2026-05-01.json', NOW), 'E_INVALID');
    writeFileSync(join(root, 'api.2026-05-01T12-00-00.000Z.checkpoint.json.bak'), TEXT);
    expect(() => resolveArchive(root, '../../api.checkpoint.json')).toThrow(CheckpointError);
    expect(() => resolveArchive(root, '/etc/passwd')).toThrow(/no archive/);
    expect(() => resolveArchive(root, 'nope.checkpoint.json')).toThrow(/no archive/);
  });

  it('a path to a file inside history/ works as well as its name', async () => {
    writeFileSync(live(), TEXT);
    const archive = await archiveCheckpoint(root, 'api', NOW);
    expect(resolveArchive(root, archive)).toBe(archive);
  });
});

describe('restore validates what it writes (red team s12 #6)', () => {
  const STAMP = '2026-11-01T00-00-00.000Z';
  const archiveText = (over: Record<string, unknown>) => `${JSON.stringify(checkpointDoc({ context_primer: { key_decisions: ['src/x.ts (PR 12)'] }, ...over }), null, 2)}\n`;

  it('refuses an archive that holds another skill\'s checkpoint: exit 2, one line naming both and the rename, nothing written', async () => {
    const dir = makeRepo();
    write(dir, `.checkpoints/history/api.${STAMP}.checkpoint.json`, archiveText({ skill: 'web' }));
    const r = await runCli(dir, ['restore', `api.${STAMP}.checkpoint.json`]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`api.${STAMP}.checkpoint.json holds the checkpoint of skill "web", not "api"`);
    expect(r.stderr).toContain(`rename it to .checkpoints/history/web.${STAMP}.checkpoint.json and restore that`);
    expect(existsSync(join(dir, '.checkpoints/api.checkpoint.json'))).toBe(false);
    expect(existsSync(join(dir, '.checkpoints/web.checkpoint.json'))).toBe(false);
    // Done as the hint says, it comes back as web's, valid.
    write(dir, `.checkpoints/history/web.${STAMP}.checkpoint.json`, archiveText({ skill: 'web' }));
    expect((await runCli(dir, ['restore', `web.${STAMP}.checkpoint.json`])).code).toBe(0);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
  });

  it('refuses an archive that is JSON but no checkpoint object', async () => {
    const dir = makeRepo();
    write(dir, `.checkpoints/history/api.${STAMP}.checkpoint.json`, '["api"]\n');
    const r = await runCli(dir, ['restore', `api.${STAMP}.checkpoint.json`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a checkpoint \(its JSON is a list, not an object\)/);
    expect(existsSync(join(dir, '.checkpoints/api.checkpoint.json'))).toBe(false);
  });

  it('restores an archive with errors of its own (a status outside the enum, a date in prose) byte for byte, and says so in a note', async () => {
    const dir = makeRepo();
    const text = archiveText({ status: 'Done', created_at: 'yesterday' });
    write(dir, `.checkpoints/history/api.${STAMP}.checkpoint.json`, text);
    const r = await runCli(dir, ['restore', `api.${STAMP}.checkpoint.json`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ restored api to \.checkpoints\/api\.checkpoint\.json/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^checkpoint: note: \.checkpoints\/api\.checkpoint\.json is restored with 2 errors the archive already had: .* \(\+1 more\); fix it by hand or with `checkpoint update`, then `checkpoint validate`/);
    expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).toBe(text);
    await runCli(dir, ['reset', 'api']);
    const j = await runCli(dir, ['restore', `api.${STAMP}.checkpoint.json`, '--json']);
    expect(JSON.parse(j.stdout).kept_errors.map((e: { path: string }) => e.path).sort()).toEqual(['created_at', 'status']);
  });

  it('gives back the exact bytes of a checkpoint reset set aside because it did not parse (JSON cut short, not UTF-8), with the parse error as a note', async () => {
    const dir = makeRepo();
    mkdirSync(join(dir, '.checkpoints'));
    for (const [bytes, note] of [
      [Buffer.from('{"skill": "api", "phase": "half-written'), 'line 1, column 27: invalid JSON: the text ends inside a string (cut short?)'],
      [Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), 'the file: not valid UTF-8'],
    ] as const) {
      writeFileSync(join(dir, '.checkpoints/api.checkpoint.json'), bytes);
      const reset = await runCli(dir, ['reset', 'api']);
      const name = /restore (api\.\S+\.checkpoint\.json)/.exec(reset.stdout)![1]!;
      const listed = JSON.parse((await runCli(dir, ['history', '--json'])).stdout).find((e: { file: string }) => e.file === name);
      expect(listed).toMatchObject({ restorable: true });
      const r = await runCli(dir, ['restore', name]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`checkpoint: note: .checkpoints/api.checkpoint.json is restored with an error the archive already had: ${note}; fix it by hand or with \`checkpoint update\`, then \`checkpoint validate\`\n`);
      expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json')).equals(bytes)).toBe(true);
    }
  });

  it('an archive named for a skill name no command takes: history says why it cannot restore it, restore refuses it naming the rule', async () => {
    const dir = makeRepo();
    write(dir, `.checkpoints/history/con.${STAMP}.checkpoint.json`, archiveText({}));
    const listed = JSON.parse((await runCli(dir, ['history', '--json'])).stdout);
    expect(listed).toEqual([expect.objectContaining({ kind: 'other', restorable: false, reason: 'cannot restore: "con" is no skill name a checkpoint can have (rename it, or copy it back by hand)' })]);
    const r = await runCli(dir, ['restore', `con.${STAMP}.checkpoint.json`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^checkpoint: invalid skill name "con": Windows reserves "con" for a device/);
    expect(existsSync(join(dir, '.checkpoints/con.checkpoint.json'))).toBe(false);
  });

  it('a rotation file put back into a checkpoint with an error of its own: written, with the note', async () => {
    const dir = makeRepo();
    write(dir, '.checkpoints/api.checkpoint.json', archiveText({ status: 'WIP', skill_state: { run_history: ['r3'] } }));
    write(dir, '.checkpoints/history/api.2026-11-01.json', JSON.stringify({ skill: 'api', rotated_at: '2026-11-01T00:00:00Z', entries: { 'skill_state.run_history': ['r1', 'r2'] } }));
    const r = await runCli(dir, ['restore', 'api.2026-11-01.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^checkpoint: note: \.checkpoints\/api\.checkpoint\.json is written with an error it already had: status: status "WIP"/);
    expect(JSON.parse(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).skill_state.run_history).toEqual(['r1', 'r2', 'r3']);
  });
});

describe('history/ committed as a link elsewhere in the project (red team, 12-04)', () => {
  it('reset, rotate and done refuse to write archives through it, in one line (exit 2), every file as it was', async () => {
    const dir = makeRepo();
    try {
      const full = Array.from({ length: 10 }, (_, i) => ({ at: `2026-11-0${(i % 9) + 1}T09:00:00Z`, action: `old ${i}` }));
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ next_actions: ['Ship', 'Tag'], recently_done: full, skill_state: { run_history: full } }), null, 2)}\n`);
      write(dir, 'src/app.ts', 'export {};\n');
      symlinkSync('../src', join(dir, '.checkpoints/history'));
      const before = readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8');
      for (const args of [['reset', 'api'], ['rotate', 'api', '--keep', '2'], ['done', 'api']]) {
        const r = await runCli(dir, args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(/^(?:checkpoint:|✗ api:) \.checkpoints\/history is a link to src, not a folder of \.checkpoints\/; refused to write archives there; hint: replace the link with a real folder/)]);
        expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).toBe(before);
        expect(readdirSync(join(dir, 'src'))).toEqual(['app.ts']);
      }
      const STAMP = '2026-11-01T00-00-00.000Z';
      // Reading archives through it is refused the same way: history and restore never list or
      // bring back a file of src/ as an archive.
      write(dir, `src/api.${STAMP}.checkpoint.json`, before);
      for (const args of [['history'], ['restore', `api.${STAMP}.checkpoint.json`]]) {
        const r = await runCli(dir, args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr.trim().split('\n'), args.join(' ')).toEqual([expect.stringMatching(/^checkpoint: \.checkpoints\/history is a link to src, not a folder of \.checkpoints\/; refused to read archives there; hint: replace the link with a real folder/)]);
      }
      expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).toBe(before);
      // A link to another folder of .checkpoints/ is a link too (12-05: the rule is "a real folder,
      // never a link", one lstat, whatever the link points at): refused, nothing written.
      rmSync(join(dir, '.checkpoints/history'));
      mkdirSync(join(dir, '.checkpoints/archive'));
      symlinkSync('archive', join(dir, '.checkpoints/history'));
      const r = await runCli(dir, ['reset', 'api']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^checkpoint: \.checkpoints\/history is a link to \.checkpoints\/archive, not a folder of \.checkpoints\/; refused to write archives there; hint: /);
      expect(readdirSync(join(dir, '.checkpoints/archive'))).toEqual([]);
      expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).toBe(before);
    } finally {
      cleanup(dir);
    }
  });

  it('.checkpoints/ itself linked by the user to a folder of the project (a shared one) is that folder: reset archives into its real history/', async () => {
    const dir = makeRepo();
    try {
      write(dir, 'tools/agent-state/api.checkpoint.json', `${JSON.stringify(checkpointDoc(), null, 2)}\n`);
      symlinkSync('tools/agent-state', join(dir, '.checkpoints'));
      const r = await runCli(dir, ['reset', 'api']);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(join(dir, 'tools/agent-state/history'))).toHaveLength(1);
      expect(readdirSync(join(dir, 'tools/agent-state'))).toEqual(['history']);
      expect((await runCli(dir, ['history'])).stdout).toMatch(/api\./);
    } finally {
      cleanup(dir);
    }
  });
});
