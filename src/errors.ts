// Typed errors, caught once at the CLI entry and printed as one line plus a hint.
// `exit` is the process exit code: 2 for bad usage or bad input, 1 for findings.
import type { OpSpelling } from './protocol/op-spelling.js';

export type ErrorCode =
  | 'E_USAGE'
  | 'E_SKILL_NAME'
  | 'E_PATH'
  | 'E_JSON'
  | 'E_INVALID'
  | 'E_NOT_FOUND'
  | 'E_EXISTS'
  | 'E_LOCKED'
  | 'E_UNSAFE'
  | 'E_NO_ROOT'
  | 'E_GIT'
  | 'E_CAPSULE'
  /** A write refused on a checkpoint a merge left unfinished (git's index holds it unmerged, or its file holds markers). */
  | 'E_CONFLICT'
  /** A write refused where git's index holds the checkpoint out of the work tree (a sparse checkout, skip-worktree). */
  | 'E_SPARSE'
  /** The MCP host cancelled the call before anything was written. */
  | 'E_CANCELLED';

export class CheckpointError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  /**
   * The hint as a caller spells the calls it names (spelledHint in op-spelling.ts): `hint` is its
   * command-line form; the MCP server asks for the tool form, so no refusal sends an agent a CLI command.
   */
  readonly hintFor?: (spelling: OpSpelling) => string;
  readonly exit: 1 | 2;

  constructor(code: ErrorCode, message: string, options: { hint?: string; hintFor?: (spelling: OpSpelling) => string; exit?: 1 | 2; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CheckpointError';
    this.code = code;
    this.hint = options.hint;
    this.hintFor = options.hintFor;
    this.exit = options.exit ?? 2;
  }
}

export function isCheckpointError(e: unknown): e is CheckpointError {
  return e instanceof CheckpointError;
}
