// The Checkpoint Protocol schema (wire "1.0" and "1.1"), as TypeScript types. Every shape is
// generated from schema.json (shapes.generated.ts, by scripts/gen-shapes.mjs); this module
// names them for the rest of the code and adds the few helpers that go with them.

export type { JsonObject, JsonValue } from './json-types.js';
export * from './shapes.generated.js';
import type { NextAction, WireVersion } from './shapes.generated.js';

export const CURRENT_WIRE_VERSION: WireVersion = '1.1';

export function actionText(action: NextAction): string {
  return typeof action === 'string' ? action : action.text;
}
