import { createHmac } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/**
 * Live keys remembered per deployment key: every read of a system answers
 * its key, and an HMAC costs more than the rest of a rollup read from
 * memory.
 */
const LIVE_KEYS_REMEMBERED = 50_000;

/**
 * Characters of a live key: 132 bits of the HMAC, base64url. Enough that no
 * two systems share one and nobody guesses one.
 * @internal
 */
export const LIVE_KEY_LENGTH = 22;

/**
 * A system's live key: the opaque name its status signals carry, so every
 * browser may receive them and none learns which system changed unless the
 * API, which answers only what the caller may read, gave it the key. An
 * HMAC-SHA256 of the canonical system ref under the deployment's key: the
 * same on every instance, and not to be computed, or reversed, without it.
 * @internal
 */
export function liveKeyOf(
  deploymentKey: Uint8Array,
  systemRef: string,
): string {
  return createHmac('sha256', deploymentKey)
    .update(systemRef.toLocaleLowerCase('en-US'))
    .digest('base64url')
    .slice(0, LIVE_KEY_LENGTH);
}

/**
 * The live key of each system under one deployment key.
 * @internal
 */
export type LiveKeyOf = (systemRef: string) => string;

/**
 * The live keys under one deployment key, the last
 * {@link LIVE_KEYS_REMEMBERED} systems' remembered.
 * @internal
 */
export function liveKeysUnder(deploymentKey: Uint8Array): LiveKeyOf {
  const key = Buffer.from(deploymentKey);
  const remembered = new LRUCache<string, string>({
    max: LIVE_KEYS_REMEMBERED,
  });
  return systemRef => {
    let liveKey = remembered.get(systemRef);
    if (liveKey === undefined) {
      liveKey = liveKeyOf(key, systemRef);
      remembered.set(systemRef, liveKey);
    }
    return liveKey;
  };
}
