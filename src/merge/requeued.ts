// Actions a side did and queued again since the base. `checkpoint done` pops an action into
// recently_done; an agent that must run it again later appends it anew. By text alone that new
// copy is the base's copy kept in place, which the other side's pop of the same action removes:
// the merge dropped it while a rebase, replaying the commits, kept it (red team, 12-06). So a
// side's unticked copies beyond what the base can still lend it (its copies less those the side
// logged done) are new actions: wrapped for the queue merge so they align with nothing in the
// base and count apart, unwrapped in what it returns.
import { canonicalJson, isJsonObject } from '../protocol/identity.js';
import { actionWords, markedDone } from '../protocol/marked-done.js';
import type { JsonValue } from '../protocol/types.js';

const WRAP = '\u0000checkpoint:requeued';
const wrapped = new WeakSet<object>();

/** How many entries with each action's words `side`'s recently_done holds that `base`'s does not. */
export function doneSinceBase(base: JsonValue | undefined, side: JsonValue | undefined): Map<string, number> {
  const log = (doc: JsonValue | undefined): JsonValue[] => {
    const v = isJsonObject(doc) ? doc.recently_done : undefined;
    return Array.isArray(v) ? v : [];
  };
  const inBase = new Map<string, number>();
  for (const entry of log(base)) {
    const key = canonicalJson(entry);
    inBase.set(key, (inBase.get(key) ?? 0) + 1);
  }
  const done = new Map<string, number>();
  for (const entry of log(side)) {
    const key = canonicalJson(entry);
    const left = inBase.get(key) ?? 0;
    if (left > 0) {
      inBase.set(key, left - 1);
      continue;
    }
    const words = isJsonObject(entry) && entry.action !== undefined ? actionWords(entry.action) : actionWords(entry);
    if (words !== undefined) done.set(words, (done.get(words) ?? 0) + 1);
  }
  return done;
}

/** `side` with its re-queued copies (the last ones, unticked) wrapped; the same array when there are none. */
export function wrapRequeued(base: readonly JsonValue[], side: readonly JsonValue[], done: ReadonlyMap<string, number>): readonly JsonValue[] {
  if (done.size === 0) return side;
  let out: JsonValue[] | undefined;
  for (const [words, d] of done) {
    const inBase = base.filter((item) => actionWords(item) === words).length;
    const open = side.flatMap((item, i) => (actionWords(item) === words && !markedDone(item) && !isRequeued(item) ? [i] : []));
    const fresh = open.length - Math.max(0, inBase - d);
    for (const i of open.slice(open.length - Math.max(0, fresh))) {
      out ??= [...side];
      const box = { [WRAP]: side[i]! };
      wrapped.add(box);
      out[i] = box;
    }
  }
  return out ?? side;
}

export const isRequeued = (item: JsonValue): boolean => typeof item === 'object' && item !== null && wrapped.has(item);

/** The item a wrapped copy stands for; any other item as it is. */
export const unwrapped = (item: JsonValue): JsonValue => (isRequeued(item) ? (item as Record<string, JsonValue>)[WRAP]! : item);
