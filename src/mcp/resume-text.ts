// The resume tool's text: the briefing and the notes the command wrote beside it (a checkpoint
// left out as unreadable, git history that could not be read), within max_chars together. The
// CLI budgets only its stdout; a tool result is one text, so the notes count too. The briefing's
// own rule holds: its first line and next action are never dropped, and a budget that cannot hold
// them (the action at its shortest, marked cut) is refused.
import { DEFAULT_MAX_CHARS } from '../cli/render/budget.js';
import { invoke, ToolFailure } from './invoke.js';

/**
 * `argvFor(n)`: the command's argv with --max-chars=n. The notes are kept whole and the briefing
 * gives way around them (naming what it left out), as far as its first line still fits beside
 * them; past that, notes are left out from the end. As the CLI counts the newline that ends its
 * output, the text is at most `maxChars - 1` characters.
 */
export async function resumeText(argvFor: (maxChars: number) => string[], dir: string, notes: readonly string[], maxChars = DEFAULT_MAX_CHARS): Promise<string> {
  const briefing = async (room: number) => (await invoke('resume', argvFor(room), dir, false)).out.join('\n');
  // Refused here as by the CLI when even the briefing's first line and cut next action do not fit.
  const whole = await briefing(maxChars);
  const all = [whole, ...notes].join('\n');
  if (all.length + 1 <= maxChars) return all;
  for (let n = notes.length; n > 0; n--) {
    const kept = notes.slice(0, n);
    const room = maxChars - kept.reduce((sum, note) => sum + note.length + 1, 0);
    if (room < 1) continue;
    try {
      return [await briefing(room), ...kept].join('\n');
    } catch (e) {
      // The same call with a smaller budget can only be refused for it: its least did not fit beside these notes.
      if (!(e instanceof ToolFailure) || e.code !== 'E_USAGE') throw e;
    }
  }
  return whole;
}
