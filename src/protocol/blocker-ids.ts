// The blockers as every reader reads them, one written loosely included: a string is a blocker of
// that description, an object without an id has the id its fix gives it (`b<n>`, unused in the
// file). Apart from repairable.ts so validate, which names such a blocker by that id, and the
// merge driver's bundle with it, load only this. Pure.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasWords = (v: unknown): v is string => typeof v === 'string' && /\S/.test(v);

/** `prefix<n>` for the entry at index i (n = i + 1, or the next number free), none of them in `taken` nor given twice. */
export function idsUnusedIn(taken: readonly string[], prefix: string): (i: number) => string {
  const used = new Set(taken);
  return (i) => {
    let n = i + 1;
    while (used.has(`${prefix}${n}`)) n++;
    used.add(`${prefix}${n}`);
    return `${prefix}${n}`;
  };
}

/**
 * Each blocker as it reads: a string with words is `{id, description}`, an object without an id
 * but with a description gets an id; anything else as written, null where it is no blocker. One
 * list for status, resume, its context, validate and the repair notes.
 */
export function blockersAsRead(blockers: unknown): (Obj | null)[] {
  if (!Array.isArray(blockers)) return [];
  const freshId = idsUnusedIn(blockers.flatMap((b) => (isObj(b) && b.id !== undefined ? [String(b.id)] : [])), 'b');
  return blockers.map((b, i) => {
    if (typeof b === 'string') return hasWords(b) ? { id: freshId(i), description: b } : null;
    if (!isObj(b)) return null;
    return b.id === undefined && hasWords(b.description) ? { id: freshId(i), ...b } : b;
  });
}
