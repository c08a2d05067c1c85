// Writes src/protocol/shapes.generated.ts from src/protocol/schema.json, the one declaration
// of the checkpoint's shape: a TypeScript type for every titled schema node, a constant
// list for every enum named by `x-const` and of the members of every object named by
// `x-keys-const`. Run by `npm run build`; `--check` exits 1 when the committed file is out
// of date (test/protocol/schema-agreement.test.ts runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCHEMA = fileURLToPath(new URL('../src/protocol/schema.json', import.meta.url));
const OUT = fileURLToPath(new URL('../src/protocol/shapes.generated.ts', import.meta.url));

export function generate(schema) {
  const named = []; // [name, text] in first-seen order
  const seen = new Map();
  const deref = (s) => (s.$ref ? { ...deref(s.$ref.replace(/^#\//, '').split('/').reduce((o, k) => o[k], schema)), ...withoutRef(s) } : s);
  const withoutRef = ({ $ref: _, ...rest }) => rest;
  const key = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));
  const doc = (s, indent) => (s.description ? `${indent}/** ${s.description} */\n` : '');

  function type(raw, indent = '') {
    const s = deref(raw);
    if (s.title && raw !== schema) return nameFor(s);
    return body(s, indent);
  }
  function nameFor(s) {
    if (!seen.has(s.title)) {
      seen.set(s.title, true);
      const slot = named.length;
      named.push(null);
      const consts = [
        s['x-const'] ? `export const ${s['x-const']} = ${JSON.stringify(s.enum)} as const;\n` : '',
        s['x-keys-const'] ? `export const ${s['x-keys-const']} = ${JSON.stringify(Object.keys(s.properties))} as const;\n` : '',
      ].join('');
      const text = s.type === 'object' && !s.oneOf
        ? `export interface ${s.title} ${body(s, '')}\n`
        : `export type ${s.title} = ${body(s, '')};\n`;
      named[slot] = [s.title, `${doc(s, '')}${text}${consts}`];
    }
    return s.title;
  }
  function body(s, indent) {
    if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
    if (s.oneOf) return s.oneOf.map((b) => type(b, indent)).join(' | ');
    const types = Array.isArray(s.type) ? s.type : [s.type];
    return types.map((t) => {
      if (t === 'string') return 'string';
      if (t === 'number' || t === 'integer') return 'number';
      if (t === 'boolean') return 'boolean';
      if (t === 'null') return 'null';
      if (t === 'array') return `${s.items ? wrap(type(s.items, indent)) : 'JsonValue'}[]`;
      if (t === 'object') return object(s, indent);
      return 'unknown';
    }).join(' | ');
  }
  const wrap = (t) => (t.includes(' ') ? `(${t})` : t);
  function object(s, indent) {
    const props = Object.entries(s.properties ?? {});
    const ap = s.additionalProperties;
    if (!props.length && ap && typeof ap === 'object') return `Record<string, ${type(ap, indent)}>`;
    if (!props.length && ap === undefined) return 'JsonObject';
    const inner = `${indent}  `;
    const required = new Set(s.required ?? []);
    const lines = props.map(([k, p]) => `${doc(deref(p), inner)}${inner}${key(k)}${required.has(k) ? '' : '?'}: ${type(p, inner)};`);
    if (ap === undefined) lines.push(`${inner}[extra: string]: unknown;`);
    return `{\n${lines.join('\n')}\n${indent}}`;
  }

  const root = `export interface ${schema.title} ${object(schema, '')}\n`;
  for (const def of Object.values(schema.$defs ?? {})) if (def.title) nameFor(def);
  const text = [...named.map(([, t]) => t), `${doc(schema, '')}${root}`].join('\n');
  const used = ['JsonObject', 'JsonValue'].filter((n) => new RegExp(`\\b${n}\\b`).test(text));
  return [
    '// Generated from schema.json by scripts/gen-shapes.mjs: do not edit; edit the schema and run `npm run build`.',
    ...(used.length ? [`import type { ${used.join(', ')} } from './json-types.js';`] : []),
    '',
    text,
  ].join('\n');
}

/** Writes the generated file when it differs; with `check`, only says whether it is current. */
export function writeShapes({ check = false } = {}) {
  const text = generate(JSON.parse(readFileSync(SCHEMA, 'utf8')));
  let current = null;
  try {
    current = readFileSync(OUT, 'utf8');
  } catch {
    // not generated yet
  }
  if (current === text) return true;
  if (!check) writeFileSync(OUT, text);
  return false;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  if (!writeShapes({ check }) && check) {
    console.error('src/protocol/shapes.generated.ts is out of date with schema.json: run `npm run build`');
    process.exit(1);
  }
}
