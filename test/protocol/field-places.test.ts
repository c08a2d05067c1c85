// Where generated_files and verified_for_sha are read: their home (context_primer, skill_state)
// first, then a copy written at the top level, each entry under its own JSON path.
import { describe, expect, it } from 'vitest';
import { fieldPlaces, homedField, homePath, listEntries } from '../../src/protocol/field-places.js';

describe('field places', () => {
  it('reads the home first, then the top level, each entry under its own path', () => {
    const doc = {
      context_primer: { key_decisions: ['JWT'], generated_files: ['src/auth.ts (PR 12)', 'docs/**/*.md'] },
      generated_files: ['src/x.ts — draft', 42, 'lib/{a,b}.ts'],
      skill_state: { pass_threshold: 6.0, verified_for_sha: 'release-v1 (pre-commit; base e5ea561)' },
      verified_for_sha: 'deadbeef',
    };
    expect(listEntries(doc, 'generated_files')).toEqual([
      { path: 'context_primer.generated_files[0]', entry: 'src/auth.ts (PR 12)' },
      { path: 'context_primer.generated_files[1]', entry: 'docs/**/*.md' },
      { path: 'generated_files[0]', entry: 'src/x.ts — draft' },
      { path: 'generated_files[1]', entry: 42 },
      { path: 'generated_files[2]', entry: 'lib/{a,b}.ts' },
    ]);
    expect(fieldPlaces(doc, 'verified_for_sha')).toEqual([
      { path: 'skill_state.verified_for_sha', value: 'release-v1 (pre-commit; base e5ea561)' },
      { path: 'verified_for_sha', value: 'deadbeef' },
    ]);
  });

  it('a top-level list alone, one string written for the list, and homes that hold nothing', () => {
    expect(listEntries({ generated_files: ['a.ts'] }, 'generated_files')).toEqual([{ path: 'generated_files[0]', entry: 'a.ts' }]);
    expect(listEntries({ generated_files: 'src/a.ts, src/b.ts' }, 'generated_files')).toEqual([{ path: 'generated_files', entry: 'src/a.ts, src/b.ts' }]);
    // A primer written as prose, a skill_state that is no object: no place there.
    expect(listEntries({ context_primer: 'all in src/', generated_files: ['a.ts'] }, 'generated_files')).toEqual([{ path: 'generated_files[0]', entry: 'a.ts' }]);
    expect(fieldPlaces({ skill_state: 'n/a', verified_for_sha: 8.0 }, 'verified_for_sha')).toEqual([{ path: 'verified_for_sha', value: 8 }]);
    expect(listEntries({ generated_files: { a: 1 } }, 'generated_files')).toEqual([]);
    expect(fieldPlaces(null, 'generated_files')).toEqual([]);
    expect(fieldPlaces({ context_primer: {} }, 'generated_files')).toEqual([]);
  });

  it('names each field and its home', () => {
    expect(homedField('generated_files')).toBe('generated_files');
    expect(homedField('verified_for_sha')).toBe('verified_for_sha');
    expect(homedField('key_decisions_x')).toBeNull();
    expect(homedField('constructor')).toBeNull();
    expect(homePath('generated_files')).toBe('context_primer.generated_files');
    expect(homePath('verified_for_sha')).toBe('skill_state.verified_for_sha');
  });
});
