// The JSON Schema (draft 2020-12) for checkpoint files, for editors via "$schema".
// test/protocol/schema-agreement.test.ts keeps it in agreement with validate.ts.
import schema from './schema.json' with { type: 'json' };

export const SCHEMA_FILE = 'checkpoint.schema.json';

export function schemaText(): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
