// The commands a slip note prints are pasted into a shell by people: each word must come back
// exactly as meant, and nothing else may run or be redirected. Proven in real bash and sh.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pasteArg, pasteWord, PLACEHOLDER, placeholder } from '../../src/shell-words.js';
import { oneLine } from '../../src/one-line.js';
import { readableView } from '../../src/protocol/repairable.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { parses, paste } from '../helpers/paste.js';

// Text as people and hostile clones write it: quotes, shell syntax, newlines, bidi and C1 controls.
const nasty = fc.oneof(
  fc.string({ unit: fc.constantFrom(...`'"\\$\`!;&|<>(){}[]*?~#= \t\n\r\x1b\x85\u2028\u202e\u2066é✅-_aZ0`.split('')), maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
);

describe('pasteWord', () => {
  it('gives back exactly the text in bash and in sh (dash), prints on one line as it stands, and runs nothing', () => {
    const texts = fc.sample(nasty, 300).filter((t) => !t.endsWith('\n'));
    // A newline then a quote is where bash's $'…' and sh part ways (red team, 12-04).
    texts.push('', "it's", '$(touch pwned)', '`touch pwned`', 'a\nb', '\u202egnirts', '> out', 'x\\', '\\x41', "'\\''", "x\n';touch pwned; #", '-n\nx', '100%\n%s', '\\012\nx');
    for (const t of texts) expect(oneLine(pasteWord(t)!), JSON.stringify(t)).toBe(pasteWord(t));
    for (const shell of ['/bin/bash', '/bin/sh']) {
      const r = paste(texts.map((t) => `checkpoint ${pasteWord(t)}`), shell);
      expect(r.stderr, shell).toBe('');
      expect(r.created, shell).toEqual([]);
      expect(r.runs, shell).toEqual(texts.map((t) => ['checkpoint', t]));
    }
  });

  it('has no word for a text ending in a newline (command substitution would drop it), holding a NUL or a lone surrogate', () => {
    expect(pasteWord('a\n')).toBeNull();
    expect(pasteWord('a\u0000b')).toBeNull();
    // No argument holds a lone surrogate: printf would give U+FFFD's bytes, not the text.
    expect(pasteWord('fix \ud800 parser')).toBeNull();
    expect(pasteArg('dir/a\n')).toBe("'dir/a\n'");
  });

  it('pasteArg leaves a plain path bare and quotes any other', () => {
    expect(pasteArg('/repo/.git/refs/heads/main')).toBe('/repo/.git/refs/heads/main');
    expect(pasteArg('/tmp/a b;rm x')).toBe("'/tmp/a b;rm x'");
    expect(placeholder('in_progress|blocked')).toBe("'<in_progress|blocked>'");
  });
});

describe('slip fixes pasted into bash', () => {
  const doc = (over: Record<string, unknown>) => ({ ...checkpointDoc(), ...over });
  const notesOf = (d: unknown) => readableView(d, validateCheckpoint(d).errors)?.notes ?? [];

  it('every fix runs only `checkpoint update` and sets exactly the text it was read from (any status, any action words)', () => {
    fc.assert(
      fc.property(fc.array(nasty, { minLength: 1, maxLength: 6 }), (words) => {
        const cases = words.flatMap((w) => [
          doc({ status: w, progress_table: [{ id: 'a', label: 'A', status: w }], blockers: [{ id: 'b', description: 'B', needs: w }] }),
          doc({ next_actions: [{ action: w, done_when: 5 }, { title: w }] }),
          doc({ next_actions: w }),
        ]);
        const lines: string[] = [];
        const expected: string[][] = [];
        for (const d of cases) {
          for (const n of notesOf(d)) {
            if (n.fix === null) continue;
            const line = `checkpoint update api ${n.fix}`;
            expect(oneLine(line)).toBe(line);
            expect(parses(line)).toBe(true);
            lines.push(line);
            expected.push(expectedArgs(d as Record<string, unknown>, n.path, n.meant));
          }
        }
        const r = paste(lines);
        expect(r.stderr).toBe('');
        expect(r.created).toEqual([]);
        expect(r.runs).toEqual(expected.map((args) => ['checkpoint', 'update', 'api', ...args]));
      }),
      { numRuns: 6 },
    );
  });

  it('a status with no clear meaning is a quoted placeholder; no text placeholder is ever printed', () => {
    const notes = notesOf(doc({ status: 'Paused', progress_table: [{ id: 'a', label: 'A', status: 'half way' }] }));
    expect(notes.map((n) => n.fix)).toEqual(["--status='<in_progress|blocked|complete|failed>'", "--progress_table.0.status='<complete|in_progress|not_started|blocked|failed>'"]);
    const r = paste([`checkpoint update q ${notes.map((n) => n.fix).join(' ')}`]);
    expect([r.stderr, r.created]).toEqual(['', []]);
    expect(r.runs).toEqual([['checkpoint', 'update', 'q', '--status=<in_progress|blocked|complete|failed>', '--progress_table.0.status=<complete|in_progress|not_started|blocked|failed>']]);
    // Multi-line and bidi text is spelled out by printf's octal escapes; text too long for a line is said by hand.
    expect(notesOf(doc({ next_actions: [{ action: 'two\nlines' }] }))[0]!.fix).toBe(`--next_actions.0.text="$(printf -- 'two\\012lines')"`);
    expect(notesOf(doc({ next_actions: [{ action: '\u202egnirts' }] }))[0]!.fix).toBe(`--next_actions.0.text="$(printf -- '\\342\\200\\256gnirts')"`);
    const long = notesOf(doc({ next_actions: [{ action: `Migrate ${'the tables '.repeat(60)}` }] }))[0]!;
    expect(long.fix).toBeNull();
    expect(long.byHand).toMatch(/^copy its words \(\d+ characters\) into next_actions\[0\]\.text$/);
    // Words ending in a newline have no pasteable form (command substitution drops it): copied by hand, done_when still fixed.
    const trailing = notesOf(doc({ next_actions: [{ action: "it's\n", done_when: 5 }] }))[0]!;
    expect([trailing.fix, trailing.byHand]).toEqual(["--next_actions.0.done_when='5'", 'copy its words (5 characters) into next_actions[0].text']);
  });
});

/** The arguments a note's fix must pass: every value exactly as the file holds it (or the did-you-mean, or the placeholder). */
function expectedArgs(d: Record<string, unknown>, path: string, meant: string | undefined): string[] {
  const enumArg = (flag: string, allowed: string) => [`--${flag}=${meant ?? `<${allowed}>`}`];
  if (path === 'status') return enumArg('status', 'in_progress|blocked|complete|failed');
  if (path === 'progress_table[0].status') return enumArg('progress_table.0.status', 'complete|in_progress|not_started|blocked|failed');
  if (path === 'blockers[0].needs') return enumArg('blockers.0.needs', 'user_decision|code_fix|external_dep');
  if (path === 'next_actions') return [`--next_actions:json=${JSON.stringify([d.next_actions])}`];
  const i = Number(/^next_actions\[(\d)\]$/.exec(path)![1]);
  const a = (d.next_actions as Record<string, unknown>[])[i]!;
  const words = (a.action ?? a.title) as string;
  // Words with no pasteable form (ending in a newline) are left to a hand edit (its byHand), the rest still fixed;
  // words update would not take as plain text (":json…", "<placeholder>") are set as a JSON string.
  const plain = !words.startsWith(':json') && !PLACEHOLDER.test(words);
  const value = plain ? words : JSON.stringify(words);
  const text = pasteWord(value) === null ? [] : [`--next_actions.${i}.text${plain ? '' : ':json'}=${value}`];
  return [...text, ...(a.done_when === 5 ? ['--next_actions.0.done_when=5'] : [])];
}
