// The store: reading refuses what is not a plain checkpoint inside the project; writing goes
// only through mutateCheckpoint (a value) or replaceCheckpointText (resolve's whole text),
// which validate, keep formatting, and leave a refused file byte-identical.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkpointPath,
  listSkills,
  MAX_READ_BYTES,
  lockPathFor,
  mutateCheckpoint,
  readCheckpoint,
  replaceCheckpointText,
  readCheckpointFile,
  requireCheckpoint,
} from '../../src/store/checkpoints.js';
import { CheckpointError } from '../../src/errors.js';
import { withLock } from '../../src/store/lock.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { cleanup, tempDir } from '../helpers/repo.js';

const NOW = new Date('2026-05-01T12:00:00.000Z');

function checkpoint(skill: string, patch: JsonObject = {}): JsonObject {
  return {
    protocol_version: '1.1',
    skill,
    project: 'p',
    project_dir: '/p',
    created_at: '2026-05-01T10:00:00Z',
    updated_at: '2026-05-01T11:00:00Z',
    phase: 'build',
    step: 's1',
    status: 'in_progress',
    progress_summary: 'going',
    next_actions: ['next'],
    ...patch,
  };
}

let root: string;
beforeEach(() => {
  root = tempDir();
  mkdirSync(join(root, '.checkpoints'));
});
afterEach(() => cleanup(root));

const file = (skill: string) => join(root, '.checkpoints', `${skill}.checkpoint.json`);
const put = (skill: string, text: string) => writeFileSync(file(skill), text);

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string> {
  try {
    if (typeof p === 'function') p();
    else await p;
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return (e as CheckpointError).code;
  }
  throw new Error('expected a CheckpointError');
}

describe('paths and listing', () => {
  it('checkpointPath stays inside .checkpoints/ and checks the name', async () => {
    expect(checkpointPath(root, 'api')).toBe(file('api'));
    for (const bad of ['../x', '..', 'a/b', '/etc/passwd', 'API', '.hidden', '', 'a..b']) {
      expect(await codeOf(() => checkpointPath(root, bad)), bad).toBe('E_SKILL_NAME');
    }
  });

  it('lists checkpoint files only: no temp files, no history, no other files', () => {
    put('b', '{}');
    put('a', '{}');
    writeFileSync(join(root, '.checkpoints', '.a.checkpoint.json.123.abcd.tmp'), '{}');
    writeFileSync(join(root, '.checkpoints', 'README.md'), '#');
    writeFileSync(join(root, '.checkpoints', 'Upper.checkpoint.json'), '{}');
    mkdirSync(join(root, '.checkpoints', 'history'));
    writeFileSync(join(root, '.checkpoints', 'history', 'c.2026-01-01T00-00-00.000Z.checkpoint.json'), '{}');
    expect(listSkills(root)).toEqual(['a', 'b']);
  });

  it('lists nothing without .checkpoints/', () => {
    const bare = tempDir();
    expect(listSkills(bare)).toEqual([]);
    cleanup(bare);
  });
});

describe('reading', () => {
  it('returns null for a missing checkpoint; requireCheckpoint names the known ones', async () => {
    expect(readCheckpoint(root, 'api')).toBeNull();
    put('web', JSON.stringify(checkpoint('web')));
    try {
      requireCheckpoint(root, 'api');
      throw new Error('no error');
    } catch (e) {
      expect((e as CheckpointError).code).toBe('E_NOT_FOUND');
      expect((e as CheckpointError).hint).toBe('known skills: web');
    }
  });

  it('reports invalid JSON as file:line:column', () => {
    put('api', '{\n  "a": 1,\n  oops\n}\n');
    try {
      readCheckpoint(root, 'api');
      throw new Error('no error');
    } catch (e) {
      expect((e as CheckpointError).code).toBe('E_JSON');
      expect((e as CheckpointError).message).toBe('.checkpoints/api.checkpoint.json:3:3: invalid JSON: expected a double-quoted property name');
    }
  });

  it('a file cut short inside a character says so; other bytes that are not UTF-8 say to re-save it as UTF-8 (red team 12-07)', () => {
    const message = (bytes: Buffer) => {
      writeFileSync(file('api'), bytes);
      try {
        readCheckpoint(root, 'api');
        return 'no error';
      } catch (e) {
        return `${(e as CheckpointError).message} | ${(e as CheckpointError).hint}`;
      }
    };
    const text = Buffer.from('{"progress_summary": "caf\u00e9 \u2014');
    for (const cut of [1, 2]) expect(message(text.subarray(0, text.length - cut))).toMatch(/^\.checkpoints\/api\.checkpoint\.json: not valid UTF-8: the text ends inside a character \(cut short\?\) \| restore the rest/);
    expect(message(Buffer.concat([Buffer.from('{"a": "'), Buffer.from([0xff]), Buffer.from('"}')]))).toBe('.checkpoints/api.checkpoint.json: not valid UTF-8 | checkpoints are UTF-8 JSON; re-save the file as UTF-8');
    // A Latin-1 file ends on a lone high byte too: not a cut when the bytes before it are not UTF-8 either.
    expect(message(Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x20, 0x22, 0xe9]))).toMatch(/not valid UTF-8 \| checkpoints are UTF-8 JSON/);
  });

  it('refuses a directory named like a checkpoint', async () => {
    mkdirSync(file('api'));
    expect(await codeOf(() => readCheckpoint(root, 'api'))).toBe('E_PATH');
  });

  it('refuses a symlink leading out of the project, follows one inside', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'x.json'), JSON.stringify(checkpoint('api')));
    symlinkSync(join(outside, 'x.json'), file('api'));
    expect(await codeOf(() => readCheckpoint(root, 'api'))).toBe('E_PATH');
    writeFileSync(join(root, 'real.json'), JSON.stringify(checkpoint('web')));
    symlinkSync(join(root, 'real.json'), file('web'));
    expect((readCheckpoint(root, 'web')!.value as JsonObject).skill).toBe('web');
    cleanup(outside);
  });

  it('refuses a .checkpoints/ folder that is a link out of the project, for reads and writes', async () => {
    const outside = tempDir();
    const linked = tempDir();
    writeFileSync(join(outside, 'api.checkpoint.json'), JSON.stringify(checkpoint('api')));
    symlinkSync(outside, join(linked, '.checkpoints'));
    expect(await codeOf(() => readCheckpoint(linked, 'api'))).toBe('E_PATH');
    const before = readFileSync(join(outside, 'api.checkpoint.json'));
    expect(await codeOf(mutateCheckpoint(linked, 'web', { now: NOW, change: () => checkpoint('web') }))).toBe('E_PATH');
    expect(existsSync(join(outside, 'web.checkpoint.json'))).toBe(false);
    expect(readFileSync(join(outside, 'api.checkpoint.json')).equals(before)).toBe(true);
    cleanup(outside);
    cleanup(linked);
  });

  it('a file named outside the project on purpose (validate x.json) is read as given', () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'api.checkpoint.json'), JSON.stringify(checkpoint('api')));
    expect(readCheckpointFile(root, join(outside, 'api.checkpoint.json')).skill).toBe('api');
    cleanup(outside);
  });

  it(`refuses files over ${MAX_READ_BYTES} bytes without parsing them`, async () => {
    put('api', `{"pad": "${'x'.repeat(MAX_READ_BYTES)}"}`);
    expect(await codeOf(() => readCheckpoint(root, 'api'))).toBe('E_INVALID');
  });

  it('refuses invalid UTF-8', async () => {
    writeFileSync(file('api'), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]));
    expect(await codeOf(() => readCheckpoint(root, 'api'))).toBe('E_JSON');
  });

  it('reading many files in one go (the folder walked once) answers each as reading it alone', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'x.json'), JSON.stringify(checkpoint('out')));
    put('good', JSON.stringify(checkpoint('good'), null, 2));
    put('dup', '{"skill": "dup", "skill": "again"}');
    put('big', `{"pad": "${'x'.repeat(MAX_READ_BYTES)}"}`);
    writeFileSync(join(root, 'real.json'), JSON.stringify(checkpoint('inlink')));
    symlinkSync(join(root, 'real.json'), file('inlink'));
    symlinkSync(join(outside, 'x.json'), file('outlink'));
    symlinkSync(join(root, 'nowhere.json'), file('dangling'));
    mkdirSync(file('folder'));
    execFileSync('mkfifo', [file('fifo')]);
    const skills = ['good', 'dup', 'big', 'inlink', 'outlink', 'dangling', 'folder', 'fifo', 'missing'];
    const answer = (skill: string) => {
      try {
        const cp = readCheckpoint(root, skill);
        return cp && { skill: cp.skill, value: cp.value, size: cp.sizeBytes };
      } catch (e) {
        return { code: (e as CheckpointError).code, message: (e as CheckpointError).message, hint: (e as CheckpointError).hint };
      }
    };
    const together = skills.map(answer);
    const alone = [];
    for (const skill of skills) {
      await new Promise((r) => setImmediate(r));
      alone.push(answer(skill));
    }
    expect(together).toEqual(alone);
    expect(together.map((a) => (a && 'code' in a ? a.code : a === null ? null : 'ok'))).toEqual(['ok', 'E_JSON', 'E_INVALID', 'ok', 'E_PATH', 'E_PATH', 'E_PATH', 'E_PATH', null]);
    cleanup(outside);
  });

  it('a folder walked for one read is walked again once the code that read it has returned', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'api.checkpoint.json'), JSON.stringify(checkpoint('api')));
    put('api', JSON.stringify(checkpoint('api')));
    expect(readCheckpoint(root, 'api')).not.toBeNull();
    await new Promise((r) => setImmediate(r));
    // What a checkout of a hostile branch under a long-lived process (the MCP server) does.
    rmSync(join(root, '.checkpoints'), { recursive: true });
    symlinkSync(outside, join(root, '.checkpoints'));
    expect(await codeOf(() => readCheckpoint(root, 'api'))).toBe('E_PATH');
    cleanup(outside);
  });

  it('reads a BOM file and keeps the BOM in text and format', () => {
    put('api', `\uFEFF${JSON.stringify(checkpoint('api'), null, 2)}\n`);
    const cp = readCheckpoint(root, 'api')!;
    expect(cp.format.bom).toBe(true);
    expect(cp.text.charCodeAt(0)).toBe(0xfeff);
    expect((cp.value as JsonObject).skill).toBe('api');
  });
});

describe('mutateCheckpoint', () => {
  const bytes = (skill: string) => readFileSync(file(skill));

  it('creates a checkpoint and reports the warnings', async () => {
    const r = await mutateCheckpoint(root, 'api', { now: NOW, change: (cur) => (expect(cur).toBeNull(), checkpoint('api')) });
    expect(r.changed).toBe(true);
    expect(r.before).toBeNull();
    expect(JSON.parse(readFileSync(file('api'), 'utf8'))).toEqual(checkpoint('api'));
    expect(r.warnings.map((w) => w.path)).toEqual(['progress_table', 'context_primer']);
  });

  it('refuses an invalid result and leaves the file byte-identical', async () => {
    const text = `{\n    "keep":   "odd spacing is kept",\n${JSON.stringify(checkpoint('api'), null, 4).slice(2)}`;
    put('api', text);
    const before = bytes('api');
    const p = mutateCheckpoint(root, 'api', { now: NOW, change: (cur) => ({ ...(cur as JsonObject), status: 'done' }) });
    await expect(p).rejects.toMatchObject({ code: 'E_INVALID', message: expect.stringMatching(/refused: the result would be invalid at status/) });
    expect(bytes('api').equals(before)).toBe(true);
    expect(readdirSync(join(root, '.checkpoints')).sort()).toEqual(['api.checkpoint.json']);
  });

  it('counts further errors in the refusal', async () => {
    put('api', JSON.stringify(checkpoint('api')));
    await expect(mutateCheckpoint(root, 'api', { now: NOW, change: () => ({}) })).rejects.toThrow(/\(\+9 more\)/);
  });

  it('refuses a result whose skill does not match the file name', async () => {
    await expect(mutateCheckpoint(root, 'api', { now: NOW, change: () => checkpoint('web') })).rejects.toThrow(/file name "api.checkpoint.json" must be "web.checkpoint.json"/);
    expect(existsSync(file('api'))).toBe(false);
  });

  it('keeps the formatting of the file it rewrites: indent, EOL, final newline, BOM', async () => {
    const variants: [string, (v: JsonValue) => string][] = [
      ['four', (v) => `${JSON.stringify(v, null, 4)}\n`],
      ['tabs', (v) => `${JSON.stringify(v, null, '\t')}\n`],
      ['crlf', (v) => `${JSON.stringify(v, null, 2).replace(/\n/g, '\r\n')}\r\n`],
      ['nonl', (v) => JSON.stringify(v, null, 2)],
      ['bom', (v) => `\uFEFF${JSON.stringify(v, null, 2)}\n`],
      ['flat', (v) => JSON.stringify(v)],
    ];
    for (const [skill, render] of variants) {
      put(skill, render(checkpoint(skill)));
      await mutateCheckpoint(root, skill, { now: NOW, change: (cur) => ({ ...(cur as JsonObject), step: 's2' }) });
      expect(readFileSync(file(skill), 'utf8'), skill).toBe(render(checkpoint(skill, { step: 's2' })));
    }
  });

  it('does not rewrite a file when nothing changed', async () => {
    put('api', JSON.stringify(checkpoint('api'), null, 2));
    const r = await mutateCheckpoint(root, 'api', { now: NOW, change: (cur) => cur! });
    expect(r.changed).toBe(false);
  });

  it('leaves no lock or temp file behind, after success and after refusal', async () => {
    await mutateCheckpoint(root, 'api', { now: NOW, change: () => checkpoint('api') });
    await mutateCheckpoint(root, 'api', { now: NOW, change: () => ({ broken: true }) }).catch(() => undefined);
    await mutateCheckpoint(root, 'api', { now: NOW, change: () => { throw new CheckpointError('E_USAGE', 'no'); } }).catch(() => undefined);
    expect(readdirSync(join(root, '.checkpoints'))).toEqual(['api.checkpoint.json']);
  });

  it('reads a clock once, under the lock, and gives the change, beforeWrite, refused and validation that one instant', async () => {
    put('api', JSON.stringify(checkpoint('api', { log: [] }), null, 2));
    // The lock held by someone else (this process, another owner) while the write starts.
    const lock = lockPathFor(root, 'api');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'someone-else', at: Date.now() }));
    const reads: string[] = [];
    const instant = new Date('2026-05-01T12:34:56.789Z');
    const seen: Date[] = [];
    const p = mutateCheckpoint(root, 'api', {
      now: () => {
        // Who holds the lock when the clock is read: this write, never the other owner.
        reads.push((JSON.parse(readFileSync(lock, 'utf8')) as { nonce: string }).nonce);
        return instant;
      },
      change: (cur, _texts, now) => (seen.push(now), { ...(cur as JsonObject), updated_at: now.toISOString(), log: [now.toISOString()] }),
      beforeWrite: (next, _text, _texts, now) => (seen.push(now), next),
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(reads).toEqual([]);
    rmSync(lock);
    const r = await p;
    expect(reads).toHaveLength(1);
    expect(reads[0]).not.toBe('someone-else');
    expect(seen).toEqual([instant, instant]);
    expect((r.after as JsonObject).updated_at).toBe('2026-05-01T12:34:56.789Z');
    // Judged with that instant too: two days after it is "in the future" (it is long past by the wall clock).
    const far = new Date(instant.getTime() + 2 * 86_400_000).toISOString();
    const judged = await mutateCheckpoint(root, 'api', { now: () => instant, change: (cur) => ({ ...(cur as JsonObject), updated_at: far }) });
    expect(judged.warnings.map((w) => w.message).join('\n')).toContain(`updated_at (${far}) is more than a day in the future`);
    let advised: Date | undefined;
    const big = 'x'.repeat(MAX_READ_BYTES);
    await expect(mutateCheckpoint(root, 'api', { now: () => instant, change: (cur) => ({ ...(cur as JsonObject), log: [big] }), refused: (_next, now) => void (advised = now) })).rejects.toMatchObject({ code: 'E_INVALID' });
    expect(advised).toEqual(instant);
  });

  it('serializes concurrent writers in one process', async () => {
    await mutateCheckpoint(root, 'api', { now: NOW, change: () => checkpoint('api', { log: [] }) });
    const tick = () => new Promise((r) => setTimeout(r, 1));
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        mutateCheckpoint(root, 'api', {
          now: NOW,
          change: (cur) => {
            const d = cur as JsonObject;
            return { ...d, log: [...(d.log as JsonValue[]), i] };
          },
          beforeWrite: (v) => (void tick(), v),
        }),
      ),
    );
    const log = (JSON.parse(readFileSync(file('api'), 'utf8')) as { log: number[] }).log;
    expect([...log].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('replaceCheckpointText (resolve\'s write)', () => {
  const bytes = (skill: string) => readFileSync(file(skill));
  // A merged text as the merge writes it: its own layout, an 8.0 kept as written.
  const merged = (patch: JsonObject = {}) => JSON.stringify(checkpoint('api', { skill_state: { score: 1 }, ...patch }), null, 4).replace('"score": 1', '"score": 8.0') + '\n';
  const sides = (patch: JsonObject = {}) => [JSON.stringify(checkpoint('api', patch)), JSON.stringify(checkpoint('api', { step: 'theirs', ...patch }))];

  it('writes the text byte for byte, under the skill\'s lock, leaving nothing else behind', async () => {
    put('api', '<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs\n');
    await replaceCheckpointText(root, 'api', file('api'), { text: merged(), mergedFrom: sides() });
    expect(readFileSync(file('api'), 'utf8')).toBe(merged());
    expect(readdirSync(join(root, '.checkpoints'))).toEqual(['api.checkpoint.json']);
  });

  it('waits for the lock a writer holds', async () => {
    put('api', JSON.stringify(checkpoint('api')));
    const before = bytes('api');
    let pending: Promise<unknown> | undefined;
    await withLock(lockPathFor(root, 'api'), async () => {
      pending = replaceCheckpointText(root, 'api', file('api'), { text: merged(), mergedFrom: sides() });
      await new Promise((r) => setTimeout(r, 50));
      expect(bytes('api').equals(before)).toBe(true);
    });
    await pending;
    expect(readFileSync(file('api'), 'utf8')).toBe(merged());
  });

  it('refuses an error the merge introduced: E_INVALID, the file byte-identical', async () => {
    put('api', '<<<<<<< ours\n{}\n=======\n{}\n>>>>>>> theirs\n');
    const before = bytes('api');
    const p = replaceCheckpointText(root, 'api', file('api'), { text: merged({ status: 'done' }), mergedFrom: sides() });
    await expect(p).rejects.toMatchObject({ code: 'E_INVALID', message: expect.stringMatching(/refused: the result would be invalid at status/) });
    expect(bytes('api').equals(before)).toBe(true);
    expect(readdirSync(join(root, '.checkpoints'))).toEqual(['api.checkpoint.json']);
  });

  it('lets through an error a side it was merged from already had (the merge driver\'s rule)', async () => {
    put('api', '{}');
    await replaceCheckpointText(root, 'api', file('api'), { text: merged({ status: 'done' }), mergedFrom: sides({ status: 'done' }) });
    expect(readFileSync(file('api'), 'utf8')).toBe(merged({ status: 'done' }));
  });

  it('writes a conflict rendering that splits back into sides; refuses malformed markers', async () => {
    put('api', '{}');
    const marked = '{\n<<<<<<< ours\n  "phase": "a",\n=======\n  "phase": "b",\n>>>>>>> theirs\n  "step": "s"\n}\n';
    await replaceCheckpointText(root, 'api', file('api'), { text: marked, mergedFrom: sides() });
    expect(readFileSync(file('api'), 'utf8')).toBe(marked);
    const before = bytes('api');
    const p = replaceCheckpointText(root, 'api', file('api'), { text: '{\n<<<<<<< ours\n  "phase": "a"\n}\n', mergedFrom: sides() });
    await expect(p).rejects.toMatchObject({ code: 'E_JSON' });
    expect(bytes('api').equals(before)).toBe(true);
  });

  it('judges a history file by its name: a rotation file must be one', async () => {
    mkdirSync(join(root, '.checkpoints', 'history'));
    const rotation = join(root, '.checkpoints', 'history', 'api.2026-05-01.json');
    writeFileSync(rotation, '{}');
    await expect(replaceCheckpointText(root, 'api', rotation, { text: JSON.stringify(checkpoint('api')), mergedFrom: [] })).rejects.toThrow(/not a rotation file/);
    expect(readFileSync(rotation, 'utf8')).toBe('{}');
    const good = `${JSON.stringify({ skill: 'api', rotated_at: '2026-05-01T00:00:00Z', entries: { recently_done: [{ at: '2025-11-02T08:00:00Z', action: 'old (PR 3)' }] } }, null, 2)}\n`;
    await replaceCheckpointText(root, 'api', rotation, { text: good, mergedFrom: [] });
    expect(readFileSync(rotation, 'utf8')).toBe(good);
  });

  it('refuses a link out of the project put in the file\'s place, and a path outside .checkpoints/', async () => {
    const outside = tempDir();
    try {
      writeFileSync(join(outside, 'target.json'), 'precious');
      symlinkSync(join(outside, 'target.json'), file('api'));
      await expect(replaceCheckpointText(root, 'api', file('api'), { text: merged(), mergedFrom: sides() })).rejects.toBeInstanceOf(CheckpointError);
      expect(readFileSync(join(outside, 'target.json'), 'utf8')).toBe('precious');
      expect(await codeOf(replaceCheckpointText(root, 'api', join(root, 'api.checkpoint.json'), { text: merged(), mergedFrom: sides() }))).toBe('E_PATH');
    } finally {
      cleanup(outside);
    }
  });
});
