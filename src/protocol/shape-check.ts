// Structural validation read straight from schema.json, the one declaration of the
// checkpoint's shape (types.ts's types are generated from it too: scripts/gen-shapes.mjs).
// Why an interpreter and not a compiled validator (ajv standalone, TypeBox): the schema uses
// a small subset of JSON Schema, walking it costs less than loading generated code (this
// runs in the merge driver, where start-up is the whole cost), and each node carries the
// one-line message a user sees (`x-error`, `x-missing`, `x-blank`), so a schema change and
// its message are one edit. test/protocol/schema-agreement.test.ts holds this walk to a full
// JSON Schema implementation (ajv) on a corpus of real, messy checkpoints.
//
// Subset: type (one or a list), enum, const, not+enum, pattern, minLength, minimum,
// exclusiveMinimum, minItems, maxItems, required, properties, additionalProperties, items,
// oneOf (of branches with different types: the branch of the value's type applies), allOf of
// if/then, $ref into $defs, and format "date-time" (isIsoInstant: the calendar date must
// exist, which a pattern cannot say). A node with `x-checked-by` is left to that checker.
import { isIsoInstant } from './instant.js';
import { joinPath } from './path.js';

export interface Shape {
  [keyword: string]: unknown;
}

export type ShapeReport = (path: string, message: string) => void;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isFinite(v) ? (Number.isInteger(v) ? 'integer' : 'number') : 'nonfinite';
  return typeof v;
}

function typeMatches(want: unknown, v: unknown): boolean {
  if (want === undefined) return true;
  const t = typeOf(v);
  const list = Array.isArray(want) ? want : [want];
  return list.some((w) => w === t || (w === 'number' && t === 'integer'));
}

const patterns = new Map<string, RegExp>();
function regex(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source, 'u')));
  return re;
}

function show(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

export class ShapeChecker {
  private readonly resolved = new Map<Shape, Shape>();
  constructor(private readonly root: Shape) {}

  /** Every structural problem of `value`, each reported once at the deepest path that explains it. */
  check(value: unknown, report: ShapeReport, checkers: Record<string, (value: unknown, path: string) => void> = {}): void {
    this.node(this.root, value, '', '(root)', report, checkers);
  }

  /** A node with its $ref followed: the referencing node's own keywords win over the target's. */
  private deref(s: Shape): Shape {
    const ref = s.$ref;
    if (typeof ref !== 'string') return s;
    let out = this.resolved.get(s);
    if (!out) {
      const target = ref.replace(/^#\//, '').split('/').reduce<unknown>((o, k) => (o as Obj)[k], this.root) as Shape;
      const { $ref: _, ...own } = s;
      this.resolved.set(s, (out = { ...this.deref(target), ...own }));
    }
    return out;
  }

  private message(s: Shape, template: unknown, key: string, path: string, v: unknown): string {
    const text = typeof template === 'string' ? template : `${path} does not have the expected shape`;
    return text
      .replace(/\{key\}/g, key)
      .replace(/\{path\}/g, path)
      .replace(/\{value\}/g, () => show(v))
      .replace(/\{enum\}/g, () => (Array.isArray(s.enum) ? s.enum.join('|') : ''));
  }

  /** Does `v` satisfy this node's own keywords (not its children)? */
  private ownOk(s: Shape, v: unknown): boolean {
    if (!typeMatches(s.type, v)) return false;
    if (typeOf(v) === 'nonfinite') return false;
    if (Array.isArray(s.enum) && !s.enum.includes(v as never)) return false;
    if (s.const !== undefined && s.const !== v) return false;
    const not = s.not as Shape | undefined;
    if (not && Array.isArray(not.enum) && not.enum.includes(v as never)) return false;
    if (typeof v === 'string') {
      if (typeof s.pattern === 'string' && !regex(s.pattern).test(v)) return false;
      if (typeof s.minLength === 'number' && [...v].length < s.minLength) return false;
      if (s.format === 'date-time' && !isIsoInstant(v)) return false;
    }
    if (typeof v === 'number') {
      if (typeof s.minimum === 'number' && v < s.minimum) return false;
      if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) return false;
    }
    if (Array.isArray(v)) {
      if (typeof s.minItems === 'number' && v.length < s.minItems) return false;
      if (typeof s.maxItems === 'number' && v.length > s.maxItems) return false;
    }
    return true;
  }

  private node(shape: Shape, v: unknown, key: string, path: string, report: ShapeReport, checkers: Record<string, (value: unknown, path: string) => void>): void {
    const s = this.deref(shape);
    const delegate = s['x-checked-by'];
    if (typeof delegate === 'string' && checkers[delegate]) return checkers[delegate]!(v, path);
    if (Array.isArray(s.oneOf)) {
      const branch = (s.oneOf as Shape[]).map((b) => this.deref(b)).find((b) => typeMatches(b.type, v) && typeOf(v) !== 'nonfinite');
      if (!branch) return report(path, this.message(s, s['x-error'], key, path, v));
      return this.node({ ...branch, 'x-error': branch['x-error'] ?? s['x-error'] }, v, key, path, report, checkers);
    }
    if (!this.ownOk(s, v)) return report(path, this.message(s, s['x-error'], key, path, v));
    if (Array.isArray(v) && s.items) v.forEach((item, i) => this.node(s.items as Shape, item, String(i), joinPath(path, i), report, checkers));
    if (isObj(v)) this.members(s, v, path, report, checkers);
    for (const rule of (s.allOf as Shape[] | undefined) ?? []) {
      if (rule.if && rule.then && this.matches(rule.if as Shape, v) && isObj(v)) this.members(rule.then as Shape, v, path, report, checkers);
    }
  }

  private members(s: Shape, v: Obj, path: string, report: ShapeReport, checkers: Record<string, (value: unknown, path: string) => void>): void {
    const props = (s.properties as Record<string, Shape> | undefined) ?? {};
    const required = new Set((s.required as string[] | undefined) ?? []);
    for (const k of required) {
      const at = joinPath(path === '(root)' ? '' : path, k);
      if (!Object.hasOwn(v, k) || v[k] === undefined) {
        const prop = props[k] ? this.deref(props[k]!) : {};
        report(at, this.message(prop, s['x-missing'] ?? prop['x-error'], k, at, undefined));
      } else if (s['x-blank'] !== undefined && (v[k] === null || v[k] === '')) report(at, this.message(s, s['x-blank'], k, at, v[k]));
    }
    for (const [k, child] of Object.entries(v)) {
      if (child === undefined) continue; // not JSON: a caller's absent field
      const at = joinPath(path === '(root)' ? '' : path, k);
      if (s['x-blank'] !== undefined && required.has(k) && (child === null || child === '')) continue;
      const prop = Object.hasOwn(props, k) ? props[k] : undefined;
      if (prop) this.node(prop, child, k, at, report, checkers);
      else if (s.additionalProperties === false) report(at, `unknown field "${k}"`);
      else if (isObj(s.additionalProperties)) this.node(s.additionalProperties as Shape, child, k, at, report, checkers);
    }
  }

  /** Silent match, for `if`: own keywords, required and properties' own keywords. */
  private matches(shape: Shape, v: unknown): boolean {
    const s = this.deref(shape);
    if (!this.ownOk(s, v)) return false;
    if (!isObj(v)) return true;
    if (((s.required as string[] | undefined) ?? []).some((k) => v[k] === undefined || !Object.hasOwn(v, k))) return false;
    return Object.entries((s.properties as Record<string, Shape> | undefined) ?? {}).every(([k, p]) => v[k] === undefined || !Object.hasOwn(v, k) || this.matches(p, v[k]));
  }
}
