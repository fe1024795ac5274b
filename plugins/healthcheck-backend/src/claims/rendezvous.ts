/*
 * Rendezvous (highest-random-weight) hashing: every instance scores every
 * slice with a hash of the pair, and the highest score owns the slice. All
 * instances that see the same live set agree on every owner without talking,
 * and when an instance leaves, only the slices it owned move (each to its
 * runner-up); when one joins, it takes only the slices it now wins.
 */

import { stableHash } from '../hashing/stableHash';

/**
 * The score of one instance for one slice. The separator keeps
 * (`ab`, `c`) and (`a`, `bc`) apart.
 *
 * @internal
 */
export function rendezvousWeight(instanceId: string, sliceId: string): number {
  return stableHash(`${instanceId}\n${sliceId}`);
}

/**
 * Which of the instances owns the slice: the one with the highest weight,
 * ties to the smaller id. Independent of the order of `instanceIds`;
 * `undefined` when there are none.
 *
 * @internal
 */
export function ownerOf(
  sliceId: string,
  instanceIds: ReadonlyArray<string>,
): string | undefined {
  let owner: string | undefined;
  let best = -1;
  for (const instanceId of instanceIds) {
    const weight = rendezvousWeight(instanceId, sliceId);
    if (
      weight > best ||
      (weight === best && owner !== undefined && instanceId < owner)
    ) {
      owner = instanceId;
      best = weight;
    }
  }
  return owner;
}
