// Actions ticked off by a leading "[DONE]" or "(done)" (red team, 12-06): done for `next`, and the
// same action for the merge driver, which matches a ticked action to its queued words.
import { describe, expect, it } from 'vitest';
import { actionWords, markedDone, marksDone } from '../../src/protocol/marked-done.js';

describe('a leading "[DONE]" or "(done)" marks an action done', () => {
  const ticked = ['[DONE] Write tests', '[Done] Write tests', '[done] Write tests', '(done) Write tests', '(DONE) Write tests', '- [DONE] Write tests', '  (Done) Write tests'];
  // The past tense as people also write it: `[completed] …`, `Completed: …` (helper note, 12-06).
  const completed = ['[completed] Write tests', '[COMPLETED] Write tests', '(Completed) Write tests', 'Completed: Write tests', 'COMPLETED — Write tests'];

  it.each([...ticked, ...completed])('%s is done, its words "Write tests"', (text) => {
    expect(markedDone(text)).toBe(true);
    expect(markedDone({ text })).toBe(true);
    expect(actionWords(text)).toBe('Write tests');
    expect(marksDone(text, 'Write tests')).toBe(true);
  });

  it.each(['(done when CI is green) Write tests', '[DONE?] Write tests', '[done]Write tests', '(done)', 'Write tests [DONE', 'Write (done) tests', '[not done] Write tests', '(undone) Write tests', '[completed?] Write tests', 'Completed tests need review', '(complete) Write tests', 'Complete: Write tests'])('%s is not done', (text) => {
    expect(markedDone(text)).toBe(false);
  });

  it('words without a tick are kept as written', () => {
    expect(actionWords('(done when CI is green) Write tests')).toBe('(done when CI is green) Write tests');
    expect(actionWords('[DONE?] Write tests')).toBe('[DONE?] Write tests');
    expect(marksDone('[DONE] Write docs', 'Write tests')).toBe(false);
  });
});

describe('a leading check mark marks an action done, as the same mark after the words does', () => {
  // `✓` (U+2713) was read as a tick after the words and inside a box (`[✓]`), not in front: next
  // recommended "✓ Write tests" as the work to do now.
  it.each(['✓ Write tests', '✓Write tests', '- ✓ Write tests', 'Write tests ✓', '[✓] Write tests', '✔ Write tests', '✅ Write tests'])('%s is done, its words "Write tests"', (text) => {
    expect(markedDone(text)).toBe(true);
    expect(actionWords(text)).toBe('Write tests');
    expect(marksDone(text, 'Write tests')).toBe(true);
  });

  it.each(['✗ Write tests', '✘ Write tests', 'Write ✓ tests'])('%s is not done', (text) => {
    expect(markedDone(text)).toBe(false);
  });
});
