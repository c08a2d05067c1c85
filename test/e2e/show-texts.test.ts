// `checkpoint show` without a skill, and `show --json`, print every checkpoint's own text inside
// `{ "<skill>": ... }`: a number JSON.parse would round (12345678901234567890, 1e-400, -0, 8.0,
// 1.0e2) or an escape it would decode (\u00e9, \/) stays as the file wrote it, as `show <skill>`
// prints it. Hand-written files in three layouts (Python's escapes, CRLF with a BOM and tabs,
// one line), through the CLI's own entry; a property over layouts and literals for the splice.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { allOf, ERRORS_MEMBER } from '../../src/cli/commands/show.js';
import { isSkillName } from '../../src/store/skill-name.js';
import { cleanup, commitAll, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const API = `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/home/dev/shop",
  "created_at": "2026-03-01T09:00:00Z",
  "updated_at": "2026-03-03T17:45:00Z",
  "phase": "build",
  "step": "sprint-2",
  "status": "in_progress",
  "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12) and docs/**/*.md",
  "next_actions": ["Finish src/orders.ts (PR 12)", "Run evaluator on src/**/*.ts"],
  "eval_scores": [{"rubric": "audit", "score": 8.0, "max": 10, "at": "2026-03-02T00:00:00Z"}],
  "skill_state": {
    "order_id": 12345678901234567890,
    "tiny": 1e-400,
    "offset": -0,
    "hundred": 1.0e2,
    "weights": [2.50, 1.0]
  }
}
`;

// json.dump(..., indent='\t') from a Python agent on Windows: \u escapes, \/ (as PHP writes it), CRLF, a BOM.
const WEB = `\ufeff${String.raw`{
	"protocol_version": "1.1",
	"skill": "web",
	"project": "caf\u00e9-shop",
	"project_dir": "/home/dev/caf\u00e9-shop",
	"created_at": "2026-02-01T09:00:00Z",
	"updated_at": "2026-03-03T17:45:00Z",
	"phase": "build",
	"step": "Caf\u00e9 menu \ud83d\ude00",
	"status": "in_progress",
	"progress_summary": "Menu page; docs\/**\/*.md next",
	"next_actions": ["Tell Ren\u00e9 about the \u20ac rounding (PR 14)"],
	"skill_state": {"score": 9.50, "build": 98765432109876543210}
}`.replace(/\n/g, '\r\n')}\r\n`;

const DOCS = '{"protocol_version":"1.1","skill":"docs","project":"shop","project_dir":"/home/dev/shop","created_at":"2026-03-01T09:00:00Z","updated_at":"2026-03-01T09:00:00Z","phase":"draft","step":"intro","status":"not_started","progress_summary":"","next_actions":["Outline docs/guide.md"],"skill_state":{"pages":3.0}}';

function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, '.checkpoints/api.checkpoint.json', API);
  write(dir, '.checkpoints/docs.checkpoint.json', DOCS);
  write(dir, '.checkpoints/web.checkpoint.json', WEB);
  commitAll(dir, 'checkpoints');
  return dir;
}

/** A file's text as `show` prints it inside the object: LF line ends, no BOM, one level in. */
const nested = (text: string) => text.replace(/^\ufeff/, '').replace(/\r\n/g, '\n').trim().replace(/\n/g, '\n  ');

describe('show without a skill keeps every text', () => {
  it('prints each file as written, inside one object, the same with --json; it parses to the files\' values', async () => {
    const dir = project();
    const plain = await runCli(dir, ['show']);
    const json = await runCli(dir, ['show', '--json']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(plain.stdout);
    expect(plain.stdout).toBe(`{\n  "api": ${nested(API)},\n  "docs": ${nested(DOCS)},\n  "web": ${nested(WEB)}\n}\n`);
    for (const literal of ['"order_id": 12345678901234567890', '"tiny": 1e-400', '"offset": -0', '"hundred": 1.0e2', '[2.50, 1.0]', '"score": 8.0', '"pages":3.0', '"score": 9.50', '"build": 98765432109876543210', String.raw`"caf\u00e9-shop"`, String.raw`docs\/**\/*.md`, String.raw`\ud83d\ude00`]) {
      expect(plain.stdout).toContain(literal);
    }
    const parsed = JSON.parse(plain.stdout) as Record<string, { skill_state: Record<string, unknown> }>;
    expect(parsed).toEqual({ api: JSON.parse(API), docs: JSON.parse(DOCS), web: JSON.parse(WEB.slice(1)) });
    expect(Object.is(parsed.api!.skill_state.offset, -0)).toBe(true);
  });

  it('matches show <skill> for each skill, and prints {} with no checkpoints', async () => {
    const dir = project();
    const all = (await runCli(dir, ['show'])).stdout;
    for (const skill of ['api', 'docs', 'web']) {
      const one = (await runCli(dir, ['show', skill])).stdout;
      expect(all).toContain(`"${skill}": ${one.trim().replace(/\n/g, '\n  ')}`);
    }
    const empty = makeRepo();
    dirs.push(empty);
    for (const args of [['show'], ['show', '--json']]) expect((await runCli(empty, args)).stdout).toBe('{}\n');
  });
});

describe('show without a skill over a checkpoint that does not parse (red team s13 #5)', () => {
  // A hand edit's duplicate key; a merge without the driver leaving its markers.
  const DUP = '{"protocol_version": "1.1", "skill": "dup", "phase": "a", "phase": "b"}\n';
  const MARKED = `{\n  "protocol_version": "1.1",\n<<<<<<< HEAD\n  "phase": "build",\n=======\n  "phase": "review",\n>>>>>>> other\n  "skill": "merged"\n}\n`;
  function mangled(extra: Record<string, string> = {}): string {
    const dir = project();
    write(dir, '.checkpoints/dup.checkpoint.json', DUP);
    write(dir, '.checkpoints/merged.checkpoint.json', MARKED);
    for (const [skill, text] of Object.entries(extra)) write(dir, `.checkpoints/${skill}.checkpoint.json`, text);
    return dir;
  }

  it('prints the readable ones, each its own exact text, and names the others on stderr, exit 1', async () => {
    const dir = mangled();
    const r = await runCli(dir, ['show']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`{\n  "api": ${nested(API)},\n  "docs": ${nested(DOCS)},\n  "web": ${nested(WEB)}\n}\n`);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      'checkpoint: not shown: dup needs repair: .checkpoints/dup.checkpoint.json:1:59: invalid JSON: duplicate key "phase" (checkpoint validate .checkpoints/dup.checkpoint.json)',
      expect.stringMatching(/^checkpoint: not shown: merged needs repair: \.checkpoints\/merged\.checkpoint\.json:3:1: .*conflict.* \(checkpoint resolve \.checkpoints\/merged\.checkpoint\.json\)$/),
    ]);
    expect(r.stderr).not.toContain('not changed');
  });

  it('a misnamed *.checkpoint.json (Deploy-Ops) is named, never dropped into a silent {} (red team, 12-07)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/Deploy-Ops.checkpoint.json', API);
    const r = await runCli(dir, ['show']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('{}\n');
    expect(r.stderr).toMatch(/^checkpoint: not shown: Deploy-Ops needs repair: \.checkpoints\/Deploy-Ops\.checkpoint\.json: "Deploy-Ops" is not a valid skill name/);
    const json = await runCli(dir, ['show', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)[ERRORS_MEMBER]).toEqual([expect.objectContaining({ skill: 'Deploy-Ops' })]);
  });

  it('--json: an _errors member shaped as status --json names them (broken), the readable texts exact, exit 1', async () => {
    const dir = mangled();
    const r = await runCli(dir, ['show', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    // status also lists docs (it parses, but is invalid): show prints its text, as always.
    const status = JSON.parse((await runCli(dir, ['status', '--json'])).stdout) as { broken: { skill: string }[] };
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['api', 'docs', 'web', '_errors']);
    expect(doc._errors).toEqual(status.broken.filter((b) => b.skill === 'dup' || b.skill === 'merged'));
    expect(doc._errors).toHaveLength(2);
    for (const text of [API, DOCS, WEB]) expect(r.stdout).toContain(nested(text));
    expect(r.stdout).toContain('"order_id": 12345678901234567890');
  });

  it('a skill named "errors" (or "_errors"-like names: none can start with "_") keeps its key and the unreadable are still in _errors: nothing lost', async () => {
    const errorsSkill = API.replace('"skill": "api"', '"skill": "errors"');
    const dir = mangled({ errors: errorsSkill });
    const r = await runCli(dir, ['show', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['api', 'docs', 'errors', 'web', '_errors']);
    expect(doc.errors).toEqual(JSON.parse(errorsSkill));
    expect((doc._errors as { skill: string }[]).map((e) => e.skill)).toEqual(['dup', 'merged']);
    // The report's member is a name no skill can have.
    expect(isSkillName(ERRORS_MEMBER)).toBe(false);
    // Without --json, stdout is skills alone and the unreadable are named on stderr, as before.
    const text = await runCli(dir, ['show']);
    expect(Object.keys(JSON.parse(text.stdout) as object)).toEqual(['api', 'docs', 'errors', 'web']);
    expect(text.stderr).toContain('checkpoint: not shown: dup needs repair');
    expect(text.stderr).toContain('checkpoint: not shown: merged needs repair');
  });

  it('show <skill> of such a file refuses as a read: exit 2, one line, no write\'s "it was not changed"', async () => {
    const dir = mangled();
    const r = await runCli(dir, ['show', 'dup']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('checkpoint: .checkpoints/dup.checkpoint.json:1:59: invalid JSON: duplicate key "phase"; hint: fix the file by hand (or `checkpoint resolve` if it holds merge conflict markers)\n');
  });
});

// JSON's tokens, whitespace dropped: two texts with the same tokens hold the same literals.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|[{}[\]:,]/g;
const tokens = (text: string) => text.match(TOKEN) ?? [];

/** A JSON text with literals JSON.stringify would not write back as they are. */
const literal = fc.constantFrom('8.0', '1e-400', '-0', '12345678901234567890', '1.0e2', '2.50', '7', '"Caf\\u00e9"', '"a\\/b"', '"\\ud83d\\ude00"', 'true', 'null', '"src/x.ts (PR 12)"');
const value: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    fc.array(tie('v'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(fc.stringMatching(/^[a-z_]{1,6}$/), tie('v')), { maxLength: 4 }).map((m) => `{${[...new Map(m)].map(([k, v]) => `"${k}":${v}`).join(',')}}`),
  ),
})).v;
/** The same text laid out as a hand, an editor or another language might: re-indented, CRLF, blank lines around. */
const layout = fc.record({ indent: fc.constantFrom('', '  ', '\t', '    '), crlf: fc.boolean(), before: fc.constantFrom('', '\n', ' \n'), after: fc.constantFrom('', '\n', '\n\n') });
function laidOut(text: string, l: { indent: string; crlf: boolean; before: string; after: string }): string {
  let depth = 0;
  const nl = l.indent ? '\n' : '';
  const body = tokens(text).map((t) => {
    if (t === '{' || t === '[') return `${t}${nl}${l.indent.repeat(++depth)}`;
    if (t === '}' || t === ']') return `${nl}${l.indent.repeat(--depth)}${t}`;
    if (t === ',') return `,${nl}${l.indent.repeat(depth)}`;
    return t === ':' ? ': ' : t;
  }).join('');
  const out = `${l.before}${body}${l.after}`;
  return l.crlf ? out.replace(/\n/g, '\r\n') : out;
}

describe('allOf (the object show prints)', () => {
  it('holds every file\'s tokens in order, and parses to the object of their values', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), fc.dictionary(fc.stringMatching(/^[a-z_]{1,6}$/), value, { maxKeys: 4 }), layout), { selector: (f) => f[0], maxLength: 4 }), (files) => {
        const texts = files.map(([skill, obj, l]) => [skill, laidOut(`{${Object.entries(obj).map(([k, v]) => `"${k}":${v}`).join(',')}}`, l)] as const);
        // As show passes them: line ends already LF (json-text.ts).
        const out = allOf(texts.map(([skill, text]) => [skill, text.replace(/\r\n/g, '\n')]));
        const expected = texts.length ? ['{', ...texts.flatMap(([skill, text], i) => [...(i ? [','] : []), JSON.stringify(skill), ':', ...tokens(text)]), '}'] : ['{', '}'];
        expect(tokens(out)).toEqual(expected);
        expect(JSON.parse(out)).toEqual(Object.fromEntries(texts.map(([skill, text]) => [skill, JSON.parse(text)])));
      }),
      { numRuns: 300 },
    );
  });
});
