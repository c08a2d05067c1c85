// The programmatic API for other tools: validate, read, merge and doctor findings.
// `import { validateCheckpoint, runDoctor } from 'checkpoint-protocol'`. Every export here is
// loaded eagerly and cheaply: no yargs, no chalk, no isomorphic-git (runDoctor loads a git
// history engine on first call, isomorphic-git only when it is the engine chosen).

// Validate
export { validateCheckpoint, type Issue, type ValidationResult, type ValidateContext } from './protocol/validate.js';
export { parseJson, JsonSyntaxError, type ParseOptions, type Parsed } from './protocol/json.js';
export type * from './protocol/types.js';
export { CheckpointError, type ErrorCode } from './errors.js';

// Read
export { readCheckpoint, listSkills, type CheckpointFile } from './store/checkpoints.js';
export { findRoot } from './store/root.js';

// Merge
export { mergeCheckpointTexts, type MergeSide, type MergeTextsInput, type MergeTextsResult } from './merge/driver.js';
export { mergeCheckpointValues, type Conflict, type ExtraRules, type MergeOptions, type MergeResult, type PathSegment } from './merge/merge.js';
export type { ConflictLabels } from './merge/render.js';
/** Project-declared logs (`.checkpoints/config.json` "logs") as merge rules for `extraRules`. */
export { compileExtraLogs, type PolicyConfig, type PolicyRule, type MergePolicy } from './protocol/fields.js';

// Doctor
export { runDoctor, type DoctorOptions, type DoctorReport } from './doctor/run.js';
export type { Finding, Level as FindingLevel } from './doctor/types.js';
