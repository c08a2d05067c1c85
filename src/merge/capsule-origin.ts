// The recovery capsule's origin when both sides saved the same claims with origins of their own:
// most often two branches' first `pause --auto` on a checkpoint without a capsule, each writing
// the same placeholder context under an origin of its own HEAD and time. That is two sessions
// pausing, not a disagreement, so it merges by itself.
//
// recovery-capsule.md: the origin is the revision the claims were recorded at, frozen by later
// saves, and "newer HEAD does not revalidate old evidence". Of two origins of one set of claims
// the earlier (by saved_at) is where those claims were first recorded, so it is the capsule's
// origin; the later one only says the same claims were saved again, which by the spec proves
// nothing new: where and when a session saved is mechanical state, which the merge keeps from
// the later session (capsule.mechanical, a snapshot; a first `pause --auto` writes its origin's
// HEAD and time there too), and the later origin itself stays in its branch's history.
// One side that kept the base's claims under an origin of its own takes the other side's origin
// with its claims (the same reasoning: saving old claims again proves nothing new). One side whose
// claims are all `pause --auto`'s placeholders takes the other side's new claims and their origin
// (placeholders record nothing a session knew).
// Only then: different claims (a real disagreement), the base's own claims saved again (nothing
// the sides agree on is new; and a merge of the driver's own markers, whose sides and base all
// hold the claims merged outside the markers, must meet the same conflict again), or a saved_at
// that is not an instant leave the origins to the plain rules: a conflict a person settles, with
// the claims it belongs to. Pure, and symmetric: the choice depends on the two values, never on
// which side is ours.

import { onlyPlaceholders } from '../protocol/capsule-placeholder.js';
import { isIsoInstant } from '../protocol/instant.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { isJsonObject, ownValue } from '../protocol/identity.js';
import { standIn } from './conflict.js';
import { jsonEqual, setOwn } from './json-value.js';

/** `obj` with `key` set to `value`, in its place (a copy: the sides are never mutated). */
function withMember(obj: JsonObject, key: string, value: JsonValue): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(obj)) setOwn(out, k, k === key ? value : obj[k]!);
  return out;
}

/**
 * Both capsules with one origin when they hold the same claims, not the base's, under two
 * origins neither side took from the base: the earlier saved one (equal instants: the one whose canonical JSON
 * sorts first); when only one side's claims are new, that side's origin. Otherwise the capsules as they are.
 */
export function oneOriginForSameClaims(base: JsonValue | undefined, ours: JsonObject, theirs: JsonObject): [JsonObject, JsonObject] {
  const o = ownValue(ours, 'origin');
  const t = ownValue(theirs, 'origin');
  // One side's claims are all pause --auto's placeholders (a hook paused before any session said
  // what it knew), the other's are new: the real claims, with their origin, are the capsule's.
  const [oc, tc] = [ownValue(ours, 'context'), ownValue(theirs, 'context')];
  const [blankOurs, blankTheirs] = [onlyPlaceholders(oc), onlyPlaceholders(tc)];
  if (blankOurs !== blankTheirs && isJsonObject(blankOurs ? tc : oc) && !jsonEqual(blankOurs ? tc : oc, ownValue(base, 'context'))) {
    const [real, blank] = blankOurs ? [theirs, ours] : [ours, theirs];
    let filled = withMember(blank, 'context', ownValue(real, 'context')!);
    const origin = ownValue(real, 'origin');
    if (origin !== undefined) filled = withMember(filled, 'origin', origin);
    return blankOurs ? [filled, theirs] : [ours, filled];
  }
  if (!isJsonObject(o) || !isJsonObject(t) || jsonEqual(o, t)) return [ours, theirs];
  const b = ownValue(base, 'origin');
  if (jsonEqual(b, o) || jsonEqual(b, t)) return [ours, theirs]; // one side's change: the plain rules take it
  // One side kept the base's claims under an origin of its own (a hand edit or another tool
  // saved them again, which proves nothing new): the claims the merge takes are the other side's,
  // and so is their origin, whole. Field by field the two would mix, or conflict on a HEAD.
  const baseClaims = ownValue(base, 'context');
  const [keptOurs, keptTheirs] = [jsonEqual(ownValue(ours, 'context'), baseClaims), jsonEqual(ownValue(theirs, 'context'), baseClaims)];
  if (keptOurs !== keptTheirs) return keptOurs ? [withMember(ours, 'origin', t), theirs] : [ours, withMember(theirs, 'origin', o)];
  const claims = ownValue(ours, 'context');
  if (!jsonEqual(claims, ownValue(theirs, 'context')) || jsonEqual(claims, ownValue(base, 'context'))) return [ours, theirs];
  const [so, st] = [ownValue(o, 'saved_at'), ownValue(t, 'saved_at')];
  if (!isIsoInstant(so) || !isIsoInstant(st)) return [ours, theirs];
  const [to, tt] = [Date.parse(so), Date.parse(st)];
  const origin = to === tt ? standIn(o, t)! : to < tt ? o : t;
  return [withMember(ours, 'origin', origin), withMember(theirs, 'origin', origin)];
}
