// A clone may be hostile: a checkpoint's action or entry, a commit subject or a `.git` file holding
// a megabyte-long run of blanks or punctuation. Regexes anchored at the end retried from each
// character of such a run (minutes per text); these read them in one pass, with the same answers
// as on ordinary text.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { entryNote, goneNote, listParts, parseEntry, proseMentions, unquote } from '../../src/doctor/entries.js';
import { projectNames, projectSubfolder } from '../../src/doctor/checks.js';
import { contextWork } from '../../src/doctor/context-refs.js';
import { attributesDeclareDriver } from '../../src/doctor/health.js';
import { landingText } from '../../src/doctor/landed.js';
import { pullUrlRepo, remoteName } from '../../src/doctor/repo-names.js';
import { resolveGitDirsSync } from '../../src/git/locate.js';
import { actionWords, markedDone } from '../../src/protocol/marked-done.js';
import type { Checkpoint } from '../../src/protocol/types.js';
import { makeRepo, write } from '../helpers/repo.js';

const RUN = 1 << 20;
const blanks = ' '.repeat(RUN);

describe('a megabyte-long run inside a hostile text', () => {
  it('an action: a mark after the words is still found, and none is made up', () => {
    expect(markedDone(`Write tests${blanks}x`)).toBe(false);
    expect(markedDone(`Write tests${blanks}x (done)`)).toBe(true);
    expect(actionWords(`Write tests${blanks}x \u2705`)).toBe(`Write tests${blanks}x`);
    expect(actionWords(`Write tests \u2705${blanks}`)).toBe('Write tests');
  });

  it('a generated_files entry: the words read as paths, their brackets and punctuation taken off', () => {
    expect(proseMentions(`see (src/a.ts${')'.repeat(RUN)}x and docs/b.md.`)).toEqual(['docs/b.md']);
    expect(proseMentions(`see ${'('.repeat(RUN)}src/a.ts${')'.repeat(RUN)} now`)).toEqual(['src/a.ts']);
  });

  it('a merge subject: the branch it merged into is still read', () => {
    expect(landingText(`Merge branch 'feature/x'${blanks}y into main`, true)).not.toBeNull();
    expect(landingText(`Merge branch 'main' into main${blanks}`, true)).toBeNull();
  });

  it('a .git file: its gitdir line is still read', () => {
    const dir = makeRepo();
    const linked = join(dir, 'linked');
    mkdirSync(linked);
    writeFileSync(join(linked, '.git'), `gitdir: ${join(dir, '.git')}${blanks}\n`);
    expect(resolveGitDirsSync(linked).gitdir).toBe(join(dir, '.git'));
    writeFileSync(join(linked, '.git'), `gitdir: ../x${blanks}y\r\n`);
    expect(resolveGitDirsSync(linked).gitdir).toBe(join(dir, `x${blanks}y`));
  });

  it('a generated_files entry: its path and note are still read past a run of blanks', () => {
    const known = (p: string) => p === 'src/auth/session.ts' || p === 'docs/api.md';
    expect(entryNote(`src/auth/session.ts${blanks}x`)).toBe('');
    expect(parseEntry(`src/auth/session.ts${blanks}(deleted in PR 40)`, known)).toEqual({ kind: 'path', path: 'src/auth/session.ts' });
    expect(entryNote(`src/auth/session.ts (removed in PR 40${blanks})`)).toBe('removed in PR 40');
    expect(goneNote(`src/auth/session.ts (obsolete${blanks}x, removed)`)).toBe(`obsolete${blanks}x, removed`);
    expect(goneNote(`src/auth/session.ts (obsolete${blanks}x)`)).toBeNull();
  });

  it('a generated_files entry: a list, a link\'s query, a place in the file, emphasis and braces', () => {
    const known = (p: string) => p === 'docs/api.md' || p === 'src/auth/session.ts';
    expect(listParts(`src/a.ts, src/b.ts${blanks}etc.`)).toEqual(['src/a.ts', 'src/b.ts']);
    expect(listParts(`src/a.ts, src/b.ts${blanks}x`)).toHaveLength(1);
    expect(listParts(`src/a.ts and 0${'*'.repeat(RUN)} x`)).toHaveLength(1);
    // Forty pairs backtracked exponentially (hours), not a megabyte.
    expect(parseEntry(`docs/api.md?plain=1${'&0='.repeat(40)}/`, known).kind).not.toBe('path');
    expect(parseEntry('docs/api.md?plain=1&lang=en', known)).toEqual({ kind: 'path', path: 'docs/api.md' });
    expect(parseEntry(`src/auth${'.0::C'.repeat(RUN / 5)} z`, known).kind).toBe('note');
    expect(parseEntry('src/auth/session.ts::test_login', known)).toEqual({ kind: 'path', path: 'src/auth/session.ts' });
    const dotted = `**a${'.0#'.repeat(RUN / 3)} x**`;
    expect(unquote(dotted)).toBe(dotted);
    expect(unquote('**src/auth/session.ts**')).toBe('src/auth/session.ts');
    expect(parseEntry(`${'{'.repeat(RUN)}${','.repeat(RUN)}`, known).kind).toBe('note');
    expect(parseEntry('src/{a,b}.ts', known)).toMatchObject({ kind: 'pattern', alternatives: ['src/a.ts', 'src/b.ts'] });
  });

  it('a path with a run of slashes inside: project_dir and a pull request\'s URL are still read', () => {
    const slashes = '/'.repeat(RUN);
    const cp = { project_dir: `/home/claude/${slashes}demo` } as unknown as Checkpoint;
    expect(projectNames(cp, '/tmp/work/demo')).toEqual(['demo']);
    expect(projectSubfolder(cp, '/tmp/work/demo')).toBeNull();
    expect(remoteName(`https://github.com/acme${slashes}api`)).toEqual({ host: 'github.com', path: `acme${slashes}api` });
    expect(pullUrlRepo(`https://github.com/acme${slashes}api`)).toEqual({ host: 'github.com', path: `acme${slashes}api` });
    expect(remoteName('git@github.com:acme/api.git/')).toEqual({ host: 'github.com', path: 'acme/api' });
  });

  it('an action saying "before" again and again: what it waits on is still read', () => {
    const befores = 'before '.repeat(RUN / 7);
    expect([...contextWork(`Fix what #126 broke ${befores}x`)]).toEqual(['#126']);
    expect([...contextWork(`Check that #126 didn't break login ${befores}x`)]).toEqual(['#126']);
    expect([...contextWork('Check that #126 fixed the flake before it ships')]).toEqual([]);
    expect([...contextWork('Check that #126 fixed the flake before\nit ships')]).toEqual(['#126']);
  });

  it('a .gitattributes line whose pattern repeats ".checkpoints/": the driver line is still found, and none made up', () => {
    const dir = makeRepo();
    const odd = `${'.checkpoints/'.repeat(RUN / 13)} -diff`;
    write(dir, '.gitattributes', `*.png binary\n${odd}\n`);
    expect(attributesDeclareDriver(dir).declared).toBe(false);
    write(dir, '.gitattributes', `*.png binary\n${odd}\n.checkpoints/*.checkpoint.json merge=checkpoint\n`);
    expect(attributesDeclareDriver(dir).declared).toBe(true);
  });
});
