// lefthook's config files read as lefthook reads them: YAML by the yaml library (YAML 1.2, with
// the `<<` merge keys go-yaml takes, anchors, aliases and block scalars), TOML by the toml library,
// JSON with comments and trailing commas by a small stripper. Its own bundle (dist/lefthook-read.cjs),
// loaded only when a lefthook config exists: doctor, status and the merge driver never load it.
import { extname } from 'node:path';
import { parse as parseToml } from 'toml';
import { parseDocument } from 'yaml';

/** The config `text` (the file `file`, its format told by its extension) as plain values; throws where lefthook could not read it either. */
export function readLefthookConfig(file: string, text: string): unknown {
  const ext = extname(file);
  if (ext === '.json' || ext === '.jsonc') return JSON.parse(stripJsonc(text));
  if (ext === '.toml') return parseToml(text);
  // A duplicate key is an error here, as it is for lefthook; an alias bomb is refused by toJS.
  const doc = parseDocument(text, { merge: true });
  if (doc.errors.length) throw doc.errors[0];
  return doc.toJS();
}

/** JSONC as JSON: comments and trailing commas out, strings as they are. */
function stripJsonc(text: string): string {
  return text
    .replace(/"(?:[^"\\]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) => (m.startsWith('"') ? m : ''))
    .replace(/"(?:[^"\\]|\\.)*"|,(\s*[}\]])/g, (m, end: string | undefined) => (end === undefined ? m : end));
}
