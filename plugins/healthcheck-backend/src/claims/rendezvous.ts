/*
 * Rendezvous (highest-random-weight) hashing: every instance scores every
 * slice with a hash of the pair, and the highest score owns the slice. All
 * instances that see the same live set agree on every owner without talking,
 * and when an instance leaves, only the slices it owned move (each to its
 * runner-up); when one joins, it takes only the slices it now wins.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Reused to hash without allocating; ids are short. */
let scratch = new Uint8Array(1024);
const encoder = new TextEncoder();

function utf8(text: string): Uint8Array {
  // A UTF-16 code unit becomes at most 3 UTF-8 bytes.
  if (scratch.length < text.length * 3) {
    scratch = new Uint8Array(text.length * 3);
  }
  const { written } = encoder.encodeInto(text, scratch);
  return scratch.subarray(0, written);
}

/**
 * MurmurHash3 (x86, 32-bit) of the UTF-8 bytes of `text`: fast, well mixed,
 * and the same on every instance and Node version.
 *
 * @internal
 */
export function murmur3(text: string, seed = 0): number {
  const bytes = utf8(text);
  const length = bytes.length;
  const blocks = length & ~3;
  let hash = seed >>> 0;

  for (let at = 0; at < blocks; at += 4) {
    let k =
      bytes[at] |
      (bytes[at + 1] << 8) |
      (bytes[at + 2] << 16) |
      (bytes[at + 3] << 24);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    hash ^= k;
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }

  const tail = length & 3;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) {
      k ^= bytes[blocks + 2] << 16;
    }
    if (tail >= 2) {
      k ^= bytes[blocks + 1] << 8;
    }
    k ^= bytes[blocks];
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    hash ^= k;
  }

  hash ^= length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * The score of one instance for one slice. The separator keeps
 * (`ab`, `c`) and (`a`, `bc`) apart.
 *
 * @internal
 */
export function rendezvousWeight(instanceId: string, sliceId: string): number {
  return murmur3(`${instanceId}\n${sliceId}`);
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
