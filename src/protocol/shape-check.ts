// Structural validation read straight from schema.json, the one declaration of the
// checkpoint's shape (types.ts's types are generated from it too: scripts/gen-shapes.mjs).
// Why no compiled validator package (ajv standalone, TypeBox): the schema uses a small subset
// of JSON Schema, reading it costs less than loading generated code (this runs in the merge
// driver, where start-up is the whole cost), and each node carries the one-line message a
// user sees (`x-error`, or `x-error-<keyword>` for one keyword's failure; `x-missing`,
// `x-blank`, `x-unknown` for an object's members), so a schema change and its message are one
// edit. Messages may name {key}, {path}, {value}, {enum}, {count} (an array's length),
// {allowed} (an object's declared members), {calendar} (what the calendar says of a date-time on
// a day its month lacks, failing the `day` keyword) and the node's own numeric keywords ({maxItems},
// {minLength}, ...). Each schema node is turned, on first use, into a closure that checks only the
// keywords that node has: a command checking a dozen files walks each value once, with no
// keyword lookups or per-value dispatch on the way. test/protocol/schema-agreement.test.ts
// holds this walk to a full JSON Schema implementation (ajv) on a corpus of real, messy
// checkpoints, and the property test beside it to the plain interpreter it replaced.
//
// Subset: type (one or a list), enum, const, not+enum, pattern, minLength, minimum,
// exclusiveMinimum, minItems, maxItems, required, properties, additionalProperties, items,
// oneOf (of branches with different types: the branch of the value's type applies), allOf of
// if/then, $ref into $defs, and format "date-time" (isIsoInstant: the calendar date must
// exist, which a pattern cannot say). `checkAt` walks one subtree (the recovery capsule
// alone, as pause and resume check it).
import { isIsoInstant, missingDay } from './instant.js';
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

/**
 * A value in a message: its JSON (or, `asText`, the text given: a number as the file writes it), at
 * most 60 characters, cut before an escape it would split (`\u00` would read as other text).
 */
export function shownValue(v: unknown, asText = false): string {
  const text = asText ? String(v) : (JSON.stringify(v) ?? String(v));
  if (text.length <= 60) return text;
  const cut = text.slice(0, 57);
  // An odd run of backslashes at the end opens an escape (an even one is escaped backslashes).
  const open = /(\\+)(u[0-9a-fA-F]{0,3})?$/.exec(cut);
  return `${open && open[1]!.length % 2 === 1 ? cut.slice(0, open.index + open[1]!.length - 1) : cut}...`;
}

/** A check of one value at the current path; reports through the walk in progress. */
type Check = (v: unknown) => void;
/** The first of a node's own keywords (not its children's) that `v` of JSON type `t` fails, or null. */
type OwnTest = (v: unknown, t: string) => string | null;
/** What follows a passing own test: items, members, if/then rules. */
type Body = ((v: unknown, t: string) => void) | null;

/** A schema node with its $ref followed and its keywords read once. */
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
  /** Built on first use (recursive schemas stay cheap). */
  check: Check | null;
  own: OwnTest | null;
  members: ((v: Obj) => void) | null;
}

const noReport: ShapeReport = () => {};

/** Keywords that count an array's items: a failure still leaves each item worth checking. */
const COUNTING = new Set(['minItems', 'maxItems']);

/** Does JSON type `t` satisfy a `type` list ("number" takes integers too)? */
function typeTest(types: readonly string[]): (t: string) => boolean {
  if (types.length === 1) {
    const w = types[0]!;
    return w === 'number' ? (t) => t === 'number' || t === 'integer' : (t) => t === w;
  }
  const set = new Set(types);
  const num = set.has('number');
  return (t) => set.has(t) || (num && t === 'integer');
}

export class ShapeChecker {
  private readonly compiled = new Map<Shape, Node>();
  private readonly subtrees = new Map<string, Shape>();
  // The walk in progress: where it stands and where problems go.
  private segs: (string | number)[] = [];
  private report: ShapeReport = noReport;
  /** The values the walk's `known` documents hold where it stands (see `check`). */
  private known: readonly unknown[] = [];
  /** How the walk's document writes a number at a path (see `check`), else none. */
  private numberText: ((v: number, path: ReadonlyArray<string | number>) => string) | undefined;
  constructor(private readonly root: Shape) {}

  /**
   * Every structural problem of `value`, each reported once at the deepest path that explains it.
   * `known`: documents whose problems the caller discounts anyway (a merge's sides: it refuses only
   * what it introduced). A member of `value` that is the very same one a known document holds at
   * the same path (an equal scalar, or the same object or array) is not walked: its problems are that document's, path and message
   * alike, since a member's schema depends only on its parent's (if/then members are walked whole).
   * `numberText`: the text the file writes the number at a path with, for a message naming it
   * ({value}): `1.10`, `8.0` as written, not as the double prints.
   */
  check(value: unknown, report: ShapeReport, known: readonly unknown[] = [], numberText?: (v: number, path: ReadonlyArray<string | number>) => string): void {
    this.known = known;
    this.numberText = numberText;
    try {
      this.run(this.root, value, report, []);
    } finally {
      this.known = [];
      this.numberText = undefined;
    }
  }

  /**
   * `check` for the subtree at `pointer` (a JSON pointer into the schema, e.g.
   * "#/properties/capsule"), with paths starting at `base`.
   */
  checkAt(pointer: string, value: unknown, report: ShapeReport, base: readonly (string | number)[] = []): void {
    let start = this.subtrees.get(pointer);
    if (!start) this.subtrees.set(pointer, (start = { $ref: pointer }));
    this.run(start, value, report, [...base]);
  }

  /** The schema node at `pointer`, its $ref followed (what a caller may read of the shape). */
  node(pointer: string): Shape {
    return this.deref({ $ref: pointer });
  }

  private run(shape: Shape, value: unknown, report: ShapeReport, segs: (string | number)[]): void {
    const saved = [this.segs, this.report] as const;
    this.segs = segs;
    this.report = report;
    try {
      this.checkOf(shape)(value);
    } finally {
      [this.segs, this.report] = saved;
    }
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
      check: null,
      own: null,
      members: null,
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
      if (name === 'value') return typeof v === 'number' && this.numberText ? shownValue(this.numberText(v, this.segs), true) : shownValue(v);
      if (name === 'enum') return n.enumValues ? n.enumValues.join('|') : '';
      if (name === 'count') return Array.isArray(v) ? String(v.length) : '';
      if (name === 'allowed') return [...(n.props?.keys() ?? [])].join(', ');
      if (name === 'calendar') return typeof v === 'string' ? (missingDay(v) ?? '') : '';
      return typeof n.s[name] === 'number' ? String(n.s[name]) : all;
    });
  }

  /** Reports `v`'s failure of `keyword` (its own `x-error-<keyword>`, else the node's `x-error`). */
  private fail(n: Node, v: unknown, keyword = 'type'): void {
    this.report(this.path(), this.message(n, n.s[`x-error-${keyword}`] ?? n.error, v));
  }

  private checkOf(shape: Shape): Check {
    const n = this.compile(shape);
    return (n.check ??= this.buildCheck(n));
  }

  /** The check of a child schema, built when a value first reaches it. */
  private lazyCheck(shape: Shape): Check {
    let check: Check | null = null;
    return (v) => (check ??= this.checkOf(shape))(v);
  }

  private ownOf(n: Node): OwnTest {
    return (n.own ??= this.buildOwn(n));
  }

  private buildCheck(n: Node): Check {
    let check: Check;
    if (n.oneOf) {
      // The branch of the value's type applies; its own message, else the oneOf's.
      const branches = n.oneOf.map((b) => ({ n: b, accepts: b.types ? typeTest(b.types) : () => true, own: this.ownOf(b), body: this.buildBody(b) }));
      check = (v) => {
        const t = typeOf(v);
        const branch = branches.find((b) => b.accepts(t));
        if (!branch || t === 'nonfinite') return this.fail(n, v);
        const failed = branch.own(v, t);
        if (failed !== null) {
          this.fail(branch.n, v, failed);
          if (!COUNTING.has(failed)) return;
        }
        branch.body?.(v, t);
      };
    } else {
      const own = this.ownOf(n);
      const body = this.buildBody(n);
      check = body
        ? (v) => {
            const t = typeOf(v);
            const failed = own(v, t);
            if (failed !== null) {
              this.fail(n, v, failed);
              if (!COUNTING.has(failed)) return;
            }
            body(v, t);
          }
        : (v) => {
            const failed = own(v, typeOf(v));
            if (failed !== null) this.fail(n, v, failed);
          };
    }
    return check;
  }

  /** The first of this node's own keywords `v` (of type `t`) fails, or null. Only the keywords it has are tested. */
  private buildOwn(n: Node): OwnTest {
    const s = n.s;
    const typeOk = n.types ? typeTest(n.types) : null;
    const inEnum = n.enumValues ? new Set(n.enumValues) : null;
    const notIn = n.notValues ? new Set(n.notValues) : null;
    const { minLength, pattern, dateTime } = n;
    const hasString = minLength !== null || pattern !== null || dateTime;
    const minimum = typeof s.minimum === 'number' ? s.minimum : null;
    const exclusiveMinimum = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : null;
    const hasNumber = minimum !== null || exclusiveMinimum !== null;
    const minItems = typeof s.minItems === 'number' ? s.minItems : null;
    const maxItems = typeof s.maxItems === 'number' ? s.maxItems : null;
    const hasArray = minItems !== null || maxItems !== null;
    return (v, t) => {
      if (t === 'nonfinite') return 'type';
      if (typeOk !== null && !typeOk(t)) return 'type';
      if (inEnum !== null && !inEnum.has(v)) return 'enum';
      if (notIn !== null && notIn.has(v)) return 'not';
      if (t === 'string') {
        if (!hasString) return null;
        const str = v as string;
        if (minLength !== null && (str.length < minLength || (str.length < 2 * minLength && [...str].length < minLength))) return 'minLength';
        if (pattern !== null && !pattern.test(str)) return 'pattern';
        if (dateTime && !isIsoInstant(str)) return missingDay(str) === null ? 'format' : 'day';
      } else if (t === 'number' || t === 'integer') {
        if (!hasNumber) return null;
        if (minimum !== null && (v as number) < minimum) return 'minimum';
        if (exclusiveMinimum !== null && (v as number) <= exclusiveMinimum) return 'exclusiveMinimum';
      } else if (t === 'array' && hasArray) {
        if (minItems !== null && (v as unknown[]).length < minItems) return 'minItems';
        if (maxItems !== null && (v as unknown[]).length > maxItems) return 'maxItems';
      }
      return null;
    };
  }

  /** Array items, object members and if/then rules of a node, or null when it has none to check. */
  private buildBody(n: Node): Body {
    const item = n.items ? this.lazyCheck(n.items) : null;
    const members = this.membersOf(n);
    const rules = n.rules.map((r) => ({ if: r.if, then: r.then }));
    const segs = () => this.segs;
    if (!item && !members && !rules.length) return null;
    return (v, t) => {
      if (t === 'array') {
        if (item) {
          const arr = v as unknown[];
          const at = segs();
          const known = this.known;
          for (let i = 0; i < arr.length; i++) {
            const child = arr[i];
            const below = known.length ? this.knownBelow(known, child, i, true) : known;
            if (below === null) continue;
            at.push(i);
            this.known = below;
            item(child);
            at.pop();
          }
          this.known = known;
        }
        return;
      }
      if (t !== 'object') return;
      members?.(v as Obj);
      if (!rules.length) return;
      // A then-schema adds checks to members a known document may not have had them on.
      const known = this.known;
      this.known = [];
      for (const rule of rules) if (this.matches(rule.if, v)) this.membersOfThen(rule.then)(v as Obj);
      this.known = known;
    };
  }

  private membersOfThen(shape: Shape): (v: Obj) => void {
    const n = this.compile(shape);
    return (n.members ??= this.membersOf(n) ?? (() => {}));
  }

  /** Required members, then every present member against its property (or additionalProperties). */
  private membersOf(n: Node): ((v: Obj) => void) | null {
    if (n.members) return n.members;
    const { required, additional } = n;
    if (!required.length && !n.props && additional === null) return null;
    const blank = n.s['x-blank'];
    const missing = n.s['x-missing'];
    const unknown = n.s['x-unknown'];
    const requiredSet = new Set(required);
    const props = new Map<string, Check>();
    for (const [k, p] of n.props ?? []) props.set(k, this.lazyCheck(p));
    const other = additional === null || additional === false ? additional : this.lazyCheck(additional);
    const members = (v: Obj): void => {
      const segs = this.segs;
      const known = this.known;
      for (const k of required) {
        const value = Object.hasOwn(v, k) ? v[k] : undefined;
        if (value !== undefined && (blank === undefined || (value !== null && value !== ''))) continue;
        segs.push(k);
        if (value !== undefined) this.report(this.path(), this.message(n, blank, value));
        else {
          // The member's own message names its own {enum} ("row status must be one of complete|…").
          const prop = missing === undefined ? n.props?.get(k) : undefined;
          const own = prop ? this.compile(prop) : undefined;
          this.report(this.path(), this.message(own ?? n, missing ?? own?.error, undefined));
        }
        segs.pop();
      }
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const child = v[k];
        if (child === undefined) continue; // not JSON: a caller's absent field
        if (blank !== undefined && (child === null || child === '') && requiredSet.has(k)) continue; // reported above
        const check = props.get(k) ?? other;
        if (check === null) continue;
        const below = known.length ? this.knownBelow(known, child, k, false) : known;
        if (below === null) continue;
        segs.push(k);
        this.known = below;
        if (check === false) this.report(this.path(), this.message(n, unknown ?? 'unknown field "{key}"', child));
        else check(child);
        segs.pop();
      }
      this.known = known;
    };
    n.members = members;
    return members;
  }

  /**
   * What the known documents hold at member `key` (an index when `inArray`) of where the walk stands, or null when one holds
   * `child` itself there (a scalar too: run once, cold, checking one means building its schema node's check).
   */
  private knownBelow(known: readonly unknown[], child: unknown, key: string | number, inArray: boolean): unknown[] | null {
    const below: unknown[] = [];
    for (const doc of known) {
      // Only a container of the same kind: the same schema node then applies to its members.
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc) !== inArray || !Object.hasOwn(doc, key)) continue;
      const at = (doc as Record<string | number, unknown>)[key];
      if (at === child) return null;
      if (typeof at === 'object' && at !== null) below.push(at);
    }
    return below;
  }

  /** Silent match, for `if`: own keywords, required and properties' own keywords. */
  private matches(shape: Shape, v: unknown): boolean {
    const n = this.compile(shape);
    if (this.ownOf(n)(v, typeOf(v)) !== null) return false;
    if (!isObj(v)) return true;
    if (n.required.some((k) => v[k] === undefined || !Object.hasOwn(v, k))) return false;
    for (const [k, p] of n.props ?? []) if (Object.hasOwn(v, k) && v[k] !== undefined && !this.matches(p, v[k])) return false;
    return true;
  }
}
