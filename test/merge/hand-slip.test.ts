// A hand edit that breaks the text every side shares is named at its place in the marked file
// (through the blocks before it), not as three sides invalid (red team, 12-06).
import { describe, expect, it } from 'vitest';
import { handSlipIn } from '../../src/merge/hand-slip.js';
import { parseMarkedText } from '../../src/merge/markers.js';

const marked = (lines: string[]) => parseMarkedText(`${lines.join('\n')}\n`)!.segments;

describe('handSlipIn', () => {
  const block = ['<<<<<<< ours', '    "phase": "review",', '||||||| base', '    "phase": "build",', '=======', '    "phase": "deploy",', '    "extra": 1,', '>>>>>>> theirs'];

  it('names the file line past a block before it, where every side breaks', () => {
    // Line 11 of the file: "status" after "step" lost its comma on line 10.
    const segments = marked(['{', ...block, '    "step": "auth"', '    "status": "in_progress"', '}']);
    expect(handSlipIn(segments)).toEqual({ line: 11, column: 5, reason: expect.stringMatching(/expected ','/) });
  });

  it('names a line before any block as it stands', () => {
    const segments = marked(['{', '    "step": "auth"', '    "status": "in_progress",', ...block, '    "x": 1', '}']);
    expect(handSlipIn(segments)).toMatchObject({ line: 3, column: 5 });
  });

  it('is null while some side reads (a conflict to merge, not a slip)', () => {
    expect(handSlipIn(marked(['{', ...block, '    "step": "auth"', '}']))).toBeNull();
    // Only theirs broken (its block has a trailing comma before the brace): not every side.
    expect(handSlipIn(marked(['{', '    "step": "auth",', '<<<<<<< ours', '    "phase": "review"', '=======', '    "phase": "deploy",', '>>>>>>> theirs', '}']))).toBeNull();
  });
});
