// The schema walk as an interpreter (src/protocol/shape-check.ts before it was compiled into
// closures, with the per-keyword messages and checkAt), kept as the oracle the compiled walk is
// held to: same reports, same order, same text.
import { isIsoInstant, missingDay } from '../../src/protocol/instant.js';
import { joinPath } from '../../src/protocol/path.js';
// How a message shows a value is not what the interpreter checks: the checker's own words.
import { shownValue } from '../../src/protocol/shape-check.js';

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


/** A schema node with its $ref followed and its keywords read once: the walk reads these. */
interface Node {
  s: Shape;
  types: readonly string[] | null;
  enumValues: readonly unknown[] | null;
  notValues: readonly unknown[] | null;
  pattern: RegExp | null;
  dateTime: boolean;
  minLength: number | null;
  props: Map<string, Shape> | null;
  required: readonly string[];
  additional: Shape | false | null;
  items: Shape | null;
  oneOf: Node[] | null;
  rules: { if: Shape; then: Shape }[];
  error: unknown;
}

/** Keywords that count an array's items: a failure still leaves each item worth checking. */
const COUNTING = new Set(['minItems', 'maxItems']);

export class ShapeInterpreter {
  private readonly compiled = new Map<Shape, Node>();
  private readonly subtrees = new Map<string, Shape>();
  private segs: (string | number)[] = [];
  constructor(private readonly root: Shape) {}

  /** Every structural problem of `value`, each reported once at the deepest path that explains it. */
  check(value: unknown, report: ShapeReport): void {
    this.segs = [];
    this.walk(this.root, value, report);
  }

  /**
   * `check` for the subtree at `pointer` (a JSON pointer into the schema, e.g.
   * "#/properties/capsule"), with paths starting at `base`.
   */
  checkAt(pointer: string, value: unknown, report: ShapeReport, base: readonly (string | number)[] = []): void {
    let start = this.subtrees.get(pointer);
    if (!start) this.subtrees.set(pointer, (start = { $ref: pointer }));
    this.segs = [...base];
    this.walk(start, value, report);
  }

  /** The schema node at `pointer`, its $ref followed (what a caller may read of the shape). */
  node(pointer: string): Shape {
    return this.deref({ $ref: pointer });
  }

  private path(): string {
    if (!this.segs.length) return '(root)';
    let out = '';
    for (const seg of this.segs) out = joinPath(out, seg);
    return out;
  }

  /** A node with its $ref followed: the referencing node's own keywords win over the target's. */
  private deref(s: Shape): Shape {
    const ref = s.$ref;
    if (typeof ref !== 'string') return s;
    const target = ref.replace(/^#\//, '').split('/').reduce<unknown>((o, k) => (o as Obj)[k], this.root) as Shape;
    const { $ref: _, ...own } = s;
    return { ...this.deref(target), ...own };
  }

  private compile(shape: Shape): Node {
    let n = this.compiled.get(shape);
    if (n) return n;
    const s = this.deref(shape);
    const not = s.not as Shape | undefined;
    const dateTime = s.format === 'date-time';
    n = {
      s,
      types: s.type === undefined ? null : Array.isArray(s.type) ? (s.type as string[]) : [s.type as string],
      enumValues: Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : null,
      notValues: not && Array.isArray(not.enum) ? not.enum : null,
      // isIsoInstant checks all the pattern says and more (the calendar date exists).
      pattern: typeof s.pattern === 'string' && !dateTime ? new RegExp(s.pattern, 'u') : null,
      dateTime,
      minLength: typeof s.minLength === 'number' ? s.minLength : null,
      props: isObj(s.properties) ? new Map(Object.entries(s.properties as Record<string, Shape>)) : null,
      required: Array.isArray(s.required) ? (s.required as string[]) : [],
      additional: s.additionalProperties === false ? false : isObj(s.additionalProperties) ? (s.additionalProperties as Shape) : null,
      items: isObj(s.items) ? (s.items as Shape) : null,
      oneOf: null,
      rules: ((s.allOf as Shape[] | undefined) ?? []).flatMap((r) => (r.if && r.then ? [{ if: r.if as Shape, then: r.then as Shape }] : [])),
      error: s['x-error'],
    };
    this.compiled.set(shape, n);
    // A branch without its own message says the oneOf's.
    if (Array.isArray(s.oneOf)) n.oneOf = (s.oneOf as Shape[]).map((b) => this.compile(b['x-error'] === undefined ? { ...b, 'x-error': s['x-error'] } : b));
    return n;
  }

  private message(n: Node, template: unknown, v: unknown): string {
    const path = this.path();
    const last = this.segs[this.segs.length - 1];
    const text = typeof template === 'string' ? template : `${path} does not have the expected shape`;
    // One pass, so a value's own text is never read as a placeholder.
    return text.replace(/\{(\w+)\}/g, (all, name: string) => {
      if (name === 'key') return last === undefined ? '' : String(last);
      if (name === 'path') return path;
      if (name === 'value') return shownValue(v);
      if (name === 'enum') return n.enumValues ? n.enumValues.join('|') : '';
      if (name === 'count') return Array.isArray(v) ? String(v.length) : '';
      if (name === 'allowed') return [...(n.props?.keys() ?? [])].join(', ');
      if (name === 'calendar') return typeof v === 'string' ? (missingDay(v) ?? '') : '';
      return typeof n.s[name] === 'number' ? String(n.s[name]) : all;
    });
  }

  /** The message for a failed keyword: its own `x-error-<keyword>`, else the node's `x-error`. */
  private failure(n: Node, keyword: string, v: unknown): string {
    return this.message(n, n.s[`x-error-${keyword}`] ?? n.error, v);
  }

  /** The first of this node's own keywords (not its children's) that `v` fails, or null. */
  private failed(n: Node, v: unknown): string | null {
    const t = typeOf(v);
    if (t === 'nonfinite') return 'type';
    if (n.types && !n.types.some((w) => w === t || (w === 'number' && t === 'integer'))) return 'type';
    if (n.enumValues && !n.enumValues.includes(v)) return 'enum';
    if (n.notValues && n.notValues.includes(v)) return 'not';
    const s = n.s;
    if (t === 'string') {
      const str = v as string;
      if (n.minLength !== null && (str.length < n.minLength || (str.length < 2 * n.minLength && [...str].length < n.minLength))) return 'minLength';
      if (n.pattern && !n.pattern.test(str)) return 'pattern';
      if (n.dateTime && !isIsoInstant(str)) return missingDay(str) === null ? 'format' : 'day';
    } else if (t === 'number' || t === 'integer') {
      if (typeof s.minimum === 'number' && (v as number) < s.minimum) return 'minimum';
      if (typeof s.exclusiveMinimum === 'number' && (v as number) <= s.exclusiveMinimum) return 'exclusiveMinimum';
    } else if (t === 'array') {
      if (typeof s.minItems === 'number' && (v as unknown[]).length < s.minItems) return 'minItems';
      if (typeof s.maxItems === 'number' && (v as unknown[]).length > s.maxItems) return 'maxItems';
    }
    return null;
  }

  private walk(shape: Shape, v: unknown, report: ShapeReport): void {
    let n = this.compile(shape);
    if (n.oneOf) {
      const t = typeOf(v);
      const branch = n.oneOf.find((b) => !b.types || b.types.some((w) => w === t || (w === 'number' && t === 'integer')));
      if (!branch || t === 'nonfinite') return report(this.path(), this.message(n, n.error, v));
      n = branch;
    }
    const failed = this.failed(n, v);
    if (failed !== null) {
      report(this.path(), this.failure(n, failed, v));
      if (!COUNTING.has(failed)) return;
    }
    if (Array.isArray(v)) {
      if (n.items) {
        for (let i = 0; i < v.length; i++) {
          this.segs.push(i);
          this.walk(n.items, v[i], report);
          this.segs.pop();
        }
      }
      return;
    }
    if (!isObj(v)) return;
    this.members(n, v, report);
    for (const rule of n.rules) if (this.matches(rule.if, v)) this.members(this.compile(rule.then), v, report);
  }

  private members(n: Node, v: Obj, report: ShapeReport): void {
    const blank = n.s['x-blank'];
    for (const k of n.required) {
      const value = Object.hasOwn(v, k) ? v[k] : undefined;
      if (value !== undefined && (blank === undefined || (value !== null && value !== ''))) continue;
      this.segs.push(k);
      if (value !== undefined) report(this.path(), this.message(n, blank, value));
      else {
        const prop = n.s['x-missing'] === undefined ? n.props?.get(k) : undefined;
        const own = prop ? this.compile(prop) : undefined;
        report(this.path(), this.message(own ?? n, n.s['x-missing'] ?? own?.error, undefined));
      }
      this.segs.pop();
    }
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const child = v[k];
      if (child === undefined) continue; // not JSON: a caller's absent field
      if (blank !== undefined && (child === null || child === '') && n.required.includes(k)) continue; // reported above
      const prop = n.props?.get(k);
      const sub = prop ?? (n.additional === false ? false : n.additional);
      if (sub === null) continue;
      this.segs.push(k);
      if (sub === false) report(this.path(), this.message(n, n.s['x-unknown'] ?? 'unknown field "{key}"', child));
      else this.walk(sub, child, report);
      this.segs.pop();
    }
  }

  /** Silent match, for `if`: own keywords, required and properties' own keywords. */
  private matches(shape: Shape, v: unknown): boolean {
    const n = this.compile(shape);
    if (this.failed(n, v) !== null) return false;
    if (!isObj(v)) return true;
    if (n.required.some((k) => v[k] === undefined || !Object.hasOwn(v, k))) return false;
    for (const [k, p] of n.props ?? []) if (Object.hasOwn(v, k) && v[k] !== undefined && !this.matches(p, v[k])) return false;
    return true;
  }
}
