// The update a missing listed file's finding names when its entry lists other files too
// (splitGoneCommand): the entry left reads as the others, as written; the file gone, marked, on its own.
import { describe, expect, it } from 'vitest';
import { entryParts } from '../../src/doctor/entries.js';
import { splitGoneCommand } from '../../src/doctor/fix-commands.js';

const THERE = new Set(['src/a.ts', 'src/a.test.ts', 'src/x.ts', 'lib/util.ts', 'src/b.ts.orig']);
const split = (text: string) => entryParts(text, (p) => THERE.has(p));
const parts = (entry: string) => split(entry).map((p) => p.trim());
const command = (entry: string, gone: string, what = 'deleted', path = 'context_primer.generated_files[3]') => splitGoneCommand('api', path, entry, parts(entry), gone, what, split);

describe('splitGoneCommand (stop 62 known limit)', () => {
  it.each([
    ['src/a.ts, src/b.ts (PR 12, 4cb0b09)', 'src/b.ts (PR 12, 4cb0b09)', "--context_primer.generated_files.3='src/a.ts' --context_primer.generated_files+='src/b.ts (PR 12, 4cb0b09; deleted)'"],
    ['src/b.ts and src/a.ts', 'src/b.ts', "--context_primer.generated_files.3='src/a.ts' --context_primer.generated_files+='src/b.ts (deleted)'"],
    ['src/x.ts,src/b.ts', 'src/b.ts', "--context_primer.generated_files.3='src/x.ts' --context_primer.generated_files+='src/b.ts (deleted)'"],
    // The middle one of three: the joiners either side of what is left kept as written.
    ['src/a.ts + src/b.ts + src/a.test.ts', 'src/b.ts', "--context_primer.generated_files.3='src/a.ts + src/a.test.ts' --context_primer.generated_files+='src/b.ts (deleted)'"],
    // A part another starts with ("src/b.ts" of "src/b.ts.orig"): the part at its own place is cut.
    ['src/b.ts.orig, src/b.ts', 'src/b.ts', "--context_primer.generated_files.3='src/b.ts.orig' --context_primer.generated_files+='src/b.ts (deleted)'"],
    // A note of its own, in other words than brackets, and a rename.
    ['lib/util.ts; src/a.ts — generated', 'src/a.ts — generated', "--context_primer.generated_files.3='lib/util.ts' --context_primer.generated_files+='src/a.ts — generated — renamed to src/c.ts'", 'renamed to src/c.ts'],
  ])('%j without %j', (entry, gone, flags, what = 'deleted') => {
    expect(command(entry, gone, what)).toBe(`checkpoint update api ${flags}`);
  });

  it('none where the entry left would read otherwise (a list trailing off), or the field is no list item', () => {
    expect(command('src/a.ts, src/b.ts etc', 'src/b.ts')).toBeNull();
    expect(command('src/a.ts, src/b.ts', 'src/b.ts', 'deleted', 'context_primer.generated_files')).toBeNull();
    expect(command('src/a.ts, src/b.ts', 'src/c.ts')).toBeNull();
  });
});
