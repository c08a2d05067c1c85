// Hostile input, table-driven, one `it` per case, through the CLI's entry in this process
// (main(): the same parsing, refusals and exit codes), except what needs a process of its own:
// a FIFO or /dev/zero where a file should be (were it ever opened, the read would block this
// process rather than one child). The merge driver's cases run its entry in this process too,
// but for two run as git runs it, a process of the built driver (one of them the deepest
// input, whose stack is the process's own). Refused input:
// the documented exit code (2 unless a case says otherwise), one clear stderr line starting
// `checkpoint` (a hint rides on it, after `; hint: `), no stack trace, and the project tree
// byte-identical. Accepted-on-purpose input (a BOM, Object.prototype member names as plain
// data) must work. The merge driver, given a side with __proto__/constructor/prototype keys,
// falls back to git's line merge (exit 1, never 0) and loses nothing of %A.
// test/e2e/hostile-input.test.ts covers the command line's own mistakes (options, arguments,
// hints); this table widens every axis of hostile content (each command, each forbidden key,
// each way in).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { parseJson } from '../../src/protocol/json.js';
import { quoted } from '../../src/one-line.js';
import { cleanup, errorLine, GIT_ENV, makeRepo, tempDir, write } from '../helpers/repo.js';
import { runCli, runMergeDriverHere } from '../helpers/in-process.js';
import { assertBuilt, checkpointDoc, checkpointText, run, snapshot, STACK_LINE } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(assertBuilt);

const CP = '.checkpoints/s.checkpoint.json';
const MARKER = 'hostile.marker';
const CAPSULE = { goal: 'g', acceptance: 'a', constraints: [], decisions: [], evidence: [], pending: [], next: 'n' };
const capsuleJson = (extra: string) => JSON.stringify(CAPSULE).replace(/\}$/, `${extra}}`);

/** A checkpoint text with `raw` spliced in as the last member of skill_state (keys JSON.stringify cannot make). */
const withRaw = (raw: string, skill = 's') => checkpointText(skill, { skill_state: { ok: 1 } }).replace('"ok": 1', `"ok": 1, ${raw}`);
const withRawTop = (raw: string) => checkpointText('s').replace(/\n\}\n$/, `,\n  ${raw}\n}\n`);
const deepArrays = (n: number) => `{"skill_state": {"x": ${'['.repeat(n)}${']'.repeat(n)}}}`;
const deepObjects = (n: number) => `{"skill_state": ${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`;

interface Case {
  name: string;
  setup?: (dir: string) => void;
  args: string[];
  input?: string;
  /** Exit code; 2 for refused input (README: bad usage or bad input). */
  code?: number;
  /** The reason, matched against the first stderr line. */
  message: RegExp;
  /** First-line prefix; `checkpoint` unless documented otherwise. */
  prefix?: RegExp;
}

const FORBIDDEN = ['__proto__', 'constructor', 'prototype'] as const;
const valid = (d: string) => write(d, CP, checkpointText('s'));

// ---------------------------------------------------------------------------------------------
// The table.

const CASES: Case[] = [];
const add = (group: string, cases: Case[]) => CASES.push(...cases.map((c) => ({ ...c, name: `${group}: ${c.name}` })));

// 1. No .checkpoints/ at all.
add('missing .checkpoints/', [
  { name: 'show', args: ['show', 's'], message: /no checkpoint for skill "s"/ },
  { name: 'done', args: ['done', 's'], message: /no checkpoint for skill "s"/ },
  { name: 'done --verify', args: ['done', 's', '--verify'], message: /no checkpoint for skill "s"/ },
  { name: 'reset', args: ['reset', 's'], message: /no checkpoint for skill "s"/ },
  { name: 'pause --context', args: ['pause', 's', '--context', JSON.stringify(CAPSULE)], message: /no checkpoint for skill "s"/ },
  { name: 'resume s', args: ['resume', 's'], message: /no checkpoint for skill "s"/ },
  { name: 'restore', args: ['restore', 's.2026-01-01T00-00-00.000Z.checkpoint.json'], message: /no archive/ },
  // A named skill with no checkpoint is refused before any is rotated, in the one usual line.
  { name: 'rotate s', args: ['rotate', 's'], message: /no checkpoint for skill "s"/ },
]);

// 2. Broken content, through every writer and the single-skill readers.
const brokenFiles: [string, string, RegExp][] = [
  ['empty file', '', /s\.checkpoint\.json:1:1: invalid JSON: empty file/],
  ['whitespace-only file', ' \n\t\n', /invalid JSON: empty file/],
  ['invalid JSON (file:line:column)', '{\n  "skill": "s",\n  "phase": "build"\n  "step": "s1"\n}\n', /s\.checkpoint\.json:4:3: invalid JSON: expected ',' or '\}' in object/],
  ['a file cut off mid-string', checkpointText('s').slice(0, 120), /s\.checkpoint\.json:\d+:\d+: invalid JSON: the text ends inside a string \(cut short\?\)$/],
  ['a file cut off mid-object', checkpointText('s').slice(0, checkpointText('s').indexOf('"phase"')), /s\.checkpoint\.json:\d+:\d+: invalid JSON: the text ends inside an object \(cut short\?\)$/],
  ['a 10 MB file', checkpointText('s', { skill_state: { blob: 'x'.repeat(10 * 1024 * 1024) } }), /is 10\d{6} bytes, over the 4194304-byte limit/],
  ['10,000-deep arrays', deepArrays(10_000), /invalid JSON: nesting deeper than 256 levels/],
  ['10,000-deep objects', deepObjects(10_000), /invalid JSON: nesting deeper than 256 levels/],
  ['NaN-like token', checkpointText('s').replace('"step": "s1"', '"step": NaN'), /invalid JSON: unexpected character "N"/],
  ['a number out of range', checkpointText('s').replace('"step": "s1"', '"step": 1e999'), /s\.checkpoint\.json:\d+:\d+: number 1e999 at step is beyond what a JSON number can hold here \(it would read as Infinity\); write it as a string/],
];
// Every shape through a writer (update) and a reader (show); every other command through one
// shape of each kind the reader refuses (syntax, size cap, depth). All of them read through the
// one checkpoint reader, whose every refusal is unit-tested in test/protocol/json.test.ts.
const EVERY_COMMAND = new Set(['empty file', 'a 10 MB file', '10,000-deep arrays']);
for (const [name, text, message] of brokenFiles) {
  const setup = (d: string) => write(d, CP, text);
  add(name, [
    { name: 'update', setup, args: ['update', 's', '--step=s2'], message },
    { name: 'show', setup, args: ['show', 's'], message },
    ...(EVERY_COMMAND.has(name) ? [
      { name: 'done', setup, args: ['done', 's'], message },
      { name: 'pause --auto', setup, args: ['pause', 's', '--auto'], message },
      { name: 'pause --context', setup, args: ['pause', 's', '--context', JSON.stringify(CAPSULE)], message },
      { name: 'resume s', setup, args: ['resume', 's'], message },
      { name: 'rotate s', setup, args: ['rotate', 's'], message, prefix: /^✗ s: / },
    ] : []),
  ]);
}

// 3. What stands where the file should be.
const outsideLink = (target: (outside: string, dir: string) => string) => (d: string) => {
  const outside = tempDir();
  dirs.push(outside);
  writeFileSync(join(outside, 'secret.json'), checkpointText('s'));
  mkdirSync(join(d, '.checkpoints'), { recursive: true });
  symlinkSync(target(outside, d), join(d, CP));
};
const notFiles: [string, (d: string) => void, RegExp][] = [
  ['a directory named like a checkpoint', (d) => void mkdirSync(join(d, CP), { recursive: true }), /s\.checkpoint\.json is a folder, not a plain file/],
  ['a symlink pointing outside the repository', outsideLink((o) => join(o, 'secret.json')), /s\.checkpoint\.json is a symlink to .*secret\.json, outside the project/],
  ['a relative symlink climbing out (../../..)', outsideLink((o, d) => relative(join(d, '.checkpoints'), join(o, 'secret.json'))), /is a symlink to .*secret\.json, outside the project/],
  ['a symlink to /dev/zero', (d) => { mkdirSync(join(d, '.checkpoints')); symlinkSync('/dev/zero', join(d, CP)); }, /is a symlink to \/dev\/zero, outside the project/],
  ['a FIFO named like a checkpoint (must not hang)', (d) => { mkdirSync(join(d, '.checkpoints')); execFileSync('mkfifo', [join(d, CP)]); }, /s\.checkpoint\.json is a FIFO, not a plain file/],
];
for (const [name, setup, message] of notFiles) {
  add(name, [
    { name: 'update', setup, args: ['update', 's', '--step=s2'], message },
    { name: 'done', setup, args: ['done', 's'], message },
    { name: 'show', setup, args: ['show', 's'], message },
    { name: 'pause --auto', setup, args: ['pause', 's', '--auto'], message },
    { name: 'resume s --context', setup, args: ['resume', 's', '--context'], message },
  ]);
}

// 4. The command line.
add('unknown command', [
  { name: 'near miss', args: ['updaet', 's'], message: /^unknown command "updaet"$/ },
  { name: 'uppercase', args: ['UPDATE', 's', '--x=1'], message: /^unknown command "UPDATE"$/ },
  { name: 'empty string', args: [''], message: /^unknown command ""$/ },
  { name: 'a shell payload', args: ['$(touch hostile.marker)'], message: /^unknown command "\$\(touch hostile\.marker\)"$/ },
]);
// Which names are refused is unit-tested on the rule itself (test/store/root.test.ts, every
// shape: traversal, absolute, dot names, case, slashes, non-ASCII, length). Here only the way
// in: each command refuses through the same check, with the name quoted on one line, including
// one that carries a newline, and bounded (a 101-character name is cut, its length named).
const badSkills = ['../evil', '/etc/passwd', 'a\nb', 'x'.repeat(101)];
for (const skill of badSkills) {
  const message = new RegExp(`^invalid skill name ${quoted(skill).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  add(`skill name ${JSON.stringify(skill).slice(0, 24)}`, [
    { name: 'update', args: ['update', skill, '--next_actions+=x'], message },
    { name: 'show', setup: valid, args: ['show', skill], message },
  ]);
}
add('skill name, other commands', [
  { name: 'done ../s', setup: valid, args: ['done', '../s'], message: /^invalid skill name "\.\.\/s"$/ },
  { name: 'reset /abs', setup: valid, args: ['reset', '/abs'], message: /^invalid skill name "\/abs"$/ },
  { name: 'pause ..', setup: valid, args: ['pause', '..', '--auto'], message: /^invalid skill name "\.\."$/ },
  { name: 'resume UPPER', setup: valid, args: ['resume', 'S'], message: /^invalid skill name "S"$/ },
  { name: 'rotate empty', setup: valid, args: ['rotate', ''], message: /^invalid skill name ""$/ },
  { name: 'history ../', setup: valid, args: ['history', '../'], message: /^invalid skill name "\.\.\/"$/ },
]);

// 5. update paths with forbidden segments.
const badPaths = [
  '--__proto__.polluted=1',
  '--__proto__:json={"polluted":true}',
  '--skill_state.__proto__.polluted=1',
  '--prototype=1',
  '--skill_state.prototype:json=1',
  '--constructor+=x',
  '--skill_state.constructor.prototype.polluted:json=true',
  '--next_actions.0.__proto__=x',
  '--progress_table.0.constructor=1',
  '--__proto__+:json={}',
  '--context_primer.key_decisions.__proto__=x',
];
add('update path', badPaths.map((op) => ({ name: op, setup: valid, args: ['update', 's', op], message: /path segment "(__proto__|prototype|constructor)" is forbidden/ })));
add('update path, no checkpoint yet', [{ name: '--__proto__.polluted=1 creates nothing', args: ['update', 's', '--__proto__.polluted=1'], message: /path segment "__proto__" is forbidden/ }]);

// 6. :json values carrying the keys.
const badValues = [
  '--skill_state:json={"__proto__":{"polluted":true}}',
  '--skill_state:json={"a":{"constructor":{"prototype":{"polluted":true}}}}',
  '--skill_state:json={"prototype":1}',
  '--skill_state:json={"\\u005f_proto__":{"polluted":true}}',
  '--skill_state:json={"\\u0063onstructor":1}',
  '--eval_scores+:json={"rubric":"r","score":1,"__proto__":{}}',
  '--next_actions+:json={"text":"t","constructor":"x"}',
  '--skill_state.runs:json=[{"ok":1},{"prototype":null}]',
  '--blockers+:json={"id":"b","description":"d","__proto__":null}',
];
add(':json value', badValues.map((op) => ({ name: op, setup: valid, args: ['update', 's', op], message: /value holds a key no checkpoint may hold \(forbidden key "(__proto__|prototype|constructor)"/ })));

// 7. Checkpoint files carrying the keys, through every command that writes.
for (const key of FORBIDDEN) {
  const variants: [string, string][] = [
    [`"${key}" in skill_state`, withRaw(`"${key}": {"polluted": true}`)],
    [`"${key}" at top level`, withRawTop(`"${key}": {"polluted": true}`)],
    [`"${key}" in a next_actions record`, checkpointText('s').replace('"first"', `{"text": "first", "${key}": {"prototype": {"polluted": true}}}`)],
    [`"${key}" escaped as \\u`, withRaw(`"\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}": 1`)],
  ];
  // Every variant through update; every writer through the first variant (the same reader
  // refuses them all; the variants themselves are unit-tested in test/protocol/json.test.ts).
  for (const [i, [name, text]] of variants.entries()) {
    const setup = (d: string) => write(d, CP, text);
    const message = new RegExp(`s\\.checkpoint\\.json:\\d+:\\d+: forbidden key "${key}" \\(no checkpoint may hold __proto__, prototype or constructor as a key: rename it`);
    add(`file with ${name}`, [
      { name: 'update', setup, args: ['update', 's', '--step=s2'], message },
      ...(i === 0 ? [
        { name: 'done', setup, args: ['done', 's'], message },
        { name: 'pause --auto', setup, args: ['pause', 's', '--auto'], message },
        { name: 'pause --context', setup, args: ['pause', 's', '--context', JSON.stringify(CAPSULE)], message },
        { name: 'rotate s', setup, args: ['rotate', 's'], message, prefix: /^✗ s: / },
        { name: 'rotate (all)', setup, args: ['rotate'], message, prefix: /^✗ s: / },
      ] : []),
      // migrate reports per file on stdout and exits 1 ("need attention"): checked in its own table.
    ]);
  }
}

// 8. Capsule input carrying the keys.
const capsuleFile = (d: string, body: string) => {
  valid(d);
  write(d, 'capsule-input.json', body);
};
add('capsule input', [
  { name: '__proto__ inline', setup: valid, args: ['pause', 's', '--context', capsuleJson(',"__proto__":{"polluted":true}')], message: /refused: capsule input \(--context\) holds a key no checkpoint may hold: forbidden key "__proto__"/ },
  { name: 'constructor inline', setup: valid, args: ['pause', 's', '--context', capsuleJson(',"constructor":{"prototype":{}}')], message: /forbidden key "constructor"/ },
  { name: 'prototype nested in a list field', setup: valid, args: ['pause', 's', '--context', JSON.stringify({ ...CAPSULE, constraints: ['c'] }).replace('["c"]', '[{"prototype":1}]')], message: /forbidden key "prototype"/ },
  { name: '\\u-escaped __proto__ inline', setup: valid, args: ['pause', 's', '--context', capsuleJson(',"\\u005f_proto__":1')], message: /forbidden key "__proto__"/ },
  { name: '__proto__ through stdin', setup: valid, args: ['pause', 's', '--context', '-'], input: capsuleJson(',"__proto__":{"polluted":true}'), message: /capsule input \(stdin\) holds a key no checkpoint may hold: forbidden key "__proto__"/ },
  { name: 'constructor through --context-file', setup: (d) => capsuleFile(d, capsuleJson(',"constructor":1')), args: ['pause', 's', '--context-file', 'capsule-input.json'], message: /capsule input \(capsule-input\.json\) holds a key no checkpoint may hold: forbidden key "constructor"/ },
  { name: 'a capsule already stored with __proto__ (resume --context)', setup: (d) => write(d, CP, checkpointText('s').replace(/\n\}\n$/, `,\n  "capsule": {"context": ${capsuleJson(',"__proto__":{}')}}\n}\n`)), args: ['resume', 's', '--context'], message: /: forbidden key "__proto__" \(no checkpoint may hold/ },
  { name: 'a capsule already stored with constructor (pause --auto)', setup: (d) => write(d, CP, checkpointText('s').replace(/\n\}\n$/, `,\n  "capsule": {"context": ${capsuleJson(',"constructor":{}')}}\n}\n`)), args: ['pause', 's', '--auto'], message: /: forbidden key "constructor" \(no checkpoint may hold/ },
  { name: 'a 300-deep capsule', setup: valid, args: ['pause', 's', '--context', capsuleJson(`,"x":${'['.repeat(300)}${']'.repeat(300)}`)], message: /nesting deeper than 256 levels/ },
  // Measured as compact JSON once parsed (red team 62e 4), so its nesting is what is refused first.
  { name: 'a 10,000-deep capsule (refused for its nesting, before its size can be measured)', setup: valid, args: ['pause', 's', '--context', capsuleJson(`,"x":${'['.repeat(10_000)}${']'.repeat(10_000)}`)], message: /capsule input \(--context\) is not valid JSON: nesting deeper than 256 levels/ },
]);

describe.concurrent('hostile input is refused cleanly', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    c.setup?.(dir);
    const before = snapshot(dir);

    const r = await (/FIFO|\/dev\/zero/.test(c.name) ? run : runCli)(dir, c.args, { input: c.input });
    const after = snapshot(dir);

    const all = `exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`;
    expect(r.code, all).toBe(c.code ?? 2);
    const prefix = c.prefix ?? /^checkpoint: /;
    expect(r.stderr, all).toMatch(prefix);
    const line = errorLine(r.stderr, prefix);
    expect(line.message, all).toMatch(c.message);
    expect(line.lines, all).toBe(1);
    if (line.hint !== null) expect(line.hint, all).toMatch(/^\S/);
    expect(r.stderr, all).not.toMatch(STACK_LINE);
    expect(r.stderr, all).not.toMatch(/internal error|TypeError|RangeError|SyntaxError/);
    expect(after).toEqual(before); // also proves the shell payload created no MARKER
    expect(after.has(MARKER)).toBe(false);
  });
});

// Multi-file commands report a bad checkpoint as a finding: exit 1, the file named, nothing changed.
const FINDINGS: { name: string; text: string; args: string[]; out: RegExp }[] = [];
for (const key of FORBIDDEN) {
  for (const args of [['migrate'], ['migrate', '--dry-run'], ['validate'], ['list'], ['status'], ['next'], ['doctor']]) {
    FINDINGS.push({ name: `file with "${key}": ${args.join(' ')}`, text: withRaw(`"${key}": {"polluted": true}`), args, out: new RegExp(`forbidden key "${key}"|fix: s`) });
  }
}

describe.concurrent('readers and multi-file commands report such a file as a finding', () => {
  it.each(FINDINGS.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, CP, c.text);
    const before = snapshot(dir);
    const r = await runCli(dir, c.args);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toMatch(c.out);
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE);
    expect(r.stdout + r.stderr).not.toMatch(/internal error|TypeError/);
    expect(snapshot(dir)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------
// Accepted on purpose.

const PROTO_NAMES = { toString: 'x', valueOf: 'y', hasOwnProperty: 'z', toJSON: 'w', then: 't', isPrototypeOf: 1, __defineGetter__: 2, __lookupGetter__: 3, length: 5 };

describe('accepted on purpose', () => {
  it('a UTF-8 BOM: update, done, pause, show and validate all work, and the BOM is kept', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, CP, `\uFEFF${checkpointText('s')}`);
    for (const args of [['update', 's', '--step=s2'], ['done', 's'], ['pause', 's', '--context', JSON.stringify(CAPSULE)], ['pause', 's', '--auto'], ['show', 's'], ['validate'], ['resume', 's', '--context']]) {
      const r = await runCli(dir, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).not.toMatch(STACK_LINE);
    }
    const bytes = readFileSync(join(dir, CP));
    expect([...bytes.subarray(0, 4)]).toEqual([0xef, 0xbb, 0xbf, 0x7b]);
    const doc = JSON.parse(bytes.toString('utf8').slice(1)) as { step: string; next_actions: string[] };
    expect(doc.step).toBe('s2');
    expect(doc.next_actions).toEqual(['second']);
  });

  it('Object.prototype member names (toString, valueOf, hasOwnProperty, toJSON, then, ...) are plain data everywhere', async () => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    const doc = checkpointDoc('s', {
      ...PROTO_NAMES,
      skill_state: { ...PROTO_NAMES },
      context_primer: { ...PROTO_NAMES, key_decisions: ['k'] },
      progress_table: [{ ...PROTO_NAMES, id: 's1', label: 'S1', status: 'in_progress' }],
      next_actions: [{ ...PROTO_NAMES, text: 'first' }, 'second', 'third'],
      blockers: [{ ...PROTO_NAMES, id: 'b1', description: 'decide', needs: 'user_decision' }],
    });
    write(dir, CP, `${JSON.stringify(doc, null, 2)}\n`);
    const reads = [['validate'], ['list'], ['list', '--json'], ['show', 's'], ['status'], ['status', '--json'], ['next'], ['next', '--json'], ['resume', 's'], ['resume', 's', '--json'], ['doctor'], ['history', 's']];
    const writes = [['update', 's', '--skill_state.toString=changed', '--propertyIsEnumerable.x=1', '--__lookupSetter__:json={"a":1}'], ['done', 's'], ['pause', 's', '--context', JSON.stringify(CAPSULE)], ['pause', 's', '--auto'], ['rotate', 's'], ['migrate', '--dry-run']];
    for (const args of [...reads, ...writes, ...reads]) {
      const r = await runCli(dir, args);
      expect([0, 3], `${args.join(' ')}: exit ${r.code}\n${r.stdout}\n${r.stderr}`).toContain(r.code);
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(STACK_LINE);
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(/internal error|TypeError|is not a function|Cannot convert/);
    }
    const after = JSON.parse(readFileSync(join(dir, CP), 'utf8')) as Record<string, unknown> & { skill_state: Record<string, unknown> };
    expect(after.skill_state.toString).toBe('changed');
    expect(after.propertyIsEnumerable).toEqual({ x: '1' });
    expect(after.__lookupSetter__).toEqual({ a: 1 });
    expect(after.valueOf).toBe('y');
    expect(after.then).toBe('t');
  });
});

// ---------------------------------------------------------------------------------------------
// The merge driver: `checkpoint merge-driver %O %A %B %P %L`.

interface DriverCase {
  name: string;
  base: string;
  ours: string;
  theirs: string;
}

const base = checkpointText('s');
const oursText = checkpointText('s', { step: 's2', updated_at: '2026-01-02T00:00:00Z' });
const theirsWith = (raw: string) => withRaw(raw).replace('"updated_at": "2026-01-01T01:00:00Z"', '"updated_at": "2026-01-03T00:00:00Z"');
/** The key lands at the end of the file, far from ours' change near the top: git's line merge is clean there. */
const theirsFar = (raw: string) => withRawTop(raw);

const DRIVER: DriverCase[] = [];
for (const key of FORBIDDEN) {
  DRIVER.push(
    { name: `theirs has "${key}" (overlapping change)`, base, ours: oursText, theirs: theirsWith(`"${key}": {"polluted": true}`) },
    { name: `theirs has "${key}" away from our change (clean line merge)`, base, ours: oursText, theirs: theirsFar(`"${key}": {"polluted": true}`) },
    { name: `ours has "${key}"`, base, ours: withRaw(`"${key}": {"polluted": true}`), theirs: checkpointText('s', { phase: 'ship' }) },
    { name: `theirs has "${key}" \\u-escaped`, base, ours: oursText, theirs: theirsWith(`"\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}": {"polluted": true}`) },
    { name: `theirs has "${key}" inside a next_actions record`, base, ours: oursText, theirs: base.replace('"second"', `{"text": "second", "${key}": {"prototype": {"polluted": true}}}`) },
  );
}
DRIVER.push(
  { name: 'theirs has "__proto__": null', base, ours: oursText, theirs: theirsWith('"__proto__": null') },
  { name: 'both sides add the same __proto__ key', base, ours: withRaw('"__proto__": {"polluted": true}'), theirs: withRaw('"__proto__": {"polluted": true}') },
  { name: 'theirs is 10,000 levels deep', base, ours: oursText, theirs: deepArrays(10_000) },
);

/** A base holding the key, the sides clean: the base is not read, the sides merge against what both hold alike. */
const BASE_CASES = FORBIDDEN.map((key) => ({ key, base: withRaw(`"${key}": 1`), ours: oursText, theirs: checkpointText('s', { phase: 'ship' }) }));

/** `needle`'s lines appear in `hay`'s lines in order (markers and other sides may sit between). */
function isSubsequence(needle: string[], hay: string[]): boolean {
  let j = 0;
  for (const line of hay) if (j < needle.length && line === needle[j]) j++;
  return j === needle.length;
}

/** The cases run as a process of the built driver (the rest run its entry in this process). */
const AS_PROCESS = new Set([DRIVER[0]!.name, 'theirs is 10,000 levels deep']);

describe.concurrent('the merge driver with polluting keys', () => {
  it.each(DRIVER.map((c) => [c.name, c] as const))('%s: exit 1, line merge, %%A kept, never data', async (_name, c) => {
    const dir = makeRepo({ commit: false });
    dirs.push(dir);
    write(dir, 'O', c.base);
    write(dir, 'A', c.ours);
    write(dir, 'B', c.theirs);
    const args = ['O', 'A', 'B', CP, '7'];
    const r = AS_PROCESS.has(c.name) ? await run(dir, ['merge-driver', ...args]) : await runMergeDriverHere(dir, args);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.replace(/\n$/, '').split('\n');
    for (const l of lines) expect(l).toMatch(/^checkpoint[: ]/);
    expect(r.stderr).toMatch(/cannot merge .* semantically: (base|ours|theirs) (is not valid JSON|cannot be read) at \d+:\d+: (forbidden key|nesting deeper)/);
    expect(r.stderr).not.toMatch(STACK_LINE);
    const result = readFileSync(join(dir, 'A'), 'utf8');
    // %A is not lost: every line ours changed or added is still there, in order (as one side of
    // the markers, or merged); lines ours left as in base may take theirs' version.
    const baseLines = new Set(c.base.split('\n'));
    const oursOwn = c.ours.split('\n').filter((l) => !baseLines.has(l));
    expect(oursOwn.length).toBeGreaterThan(0);
    expect(isSubsequence(oursOwn, result.split('\n')), result).toBe(true);
    // %O and %B are untouched.
    expect(readFileSync(join(dir, 'O'), 'utf8')).toBe(c.base);
    expect(readFileSync(join(dir, 'B'), 'utf8')).toBe(c.theirs);
    // Nothing the checkpoint reader accepts: the forbidden key never becomes data.
    expect(() => parseJson(result)).toThrow();
    // The driver did not merge semantically: the result is git's own line merge of the three.
    write(dir, 'A2', c.ours);
    const gitMerge = execFileSync('sh', ['-c', 'git merge-file --diff3 -L "ours (line merge)" -L "base (line merge)" -L "theirs (line merge)" --marker-size=7 A2 O B || true'], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
    expect(gitMerge).toBe('');
    expect(result).toBe(readFileSync(join(dir, 'A2'), 'utf8'));
  });
});

describe('the semantic merge in this process, fed polluting keys', () => {
  it.each(DRIVER.map((c) => [c.name, c] as const))('%s: unparseable, Object.prototype untouched', (_name, c) => {
    const r = mergeCheckpointTexts({ base: c.base, ours: c.ours, theirs: c.theirs, fileName: CP });
    expect(r.status).toBe('unparseable');
    expect(r.text).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });
});

describe('a base with a polluting key and clean sides (red team 64 r2: a broken base merges the sides)', () => {
  it.each(BASE_CASES.map((c) => [c.key, c] as const))('base has "%s": never read, the key never data, both sides\' changes kept', (key, c) => {
    const r = mergeCheckpointTexts({ base: c.base, ours: c.ours, theirs: c.theirs, fileName: CP });
    expect(r.status).not.toBe('unparseable');
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(r.text).not.toContain(`"${key}"`);
    // Neither side's change is lost: ours' step and theirs' phase (the base cannot say who changed what).
    expect(r.text).toContain('"s2"');
    expect(r.text).toContain('"ship"');
  });
});
