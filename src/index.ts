// The programmatic API for other tools: validate, read, merge and doctor findings.
export { validateCheckpoint, type Issue, type ValidationResult, type ValidateContext } from './protocol/validate.js';
export { parseJson, JsonSyntaxError } from './protocol/json.js';
export type * from './protocol/types.js';
export { CheckpointError, type ErrorCode } from './errors.js';
export { readCheckpoint, listSkills } from './store/checkpoints.js';
export { findRoot } from './store/root.js';
