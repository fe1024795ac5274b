/*
 * The one non-cryptographic hash of the backend: stable, fast, well spread.
 * (Content hashes that are stored, such as config hashes and catalog
 * fingerprints, are SHA-256 from node:crypto.)
 */

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
// A second, differently mixed lane gives the 21 extra bits that make the hash
// 53 bits wide, so `hash % interval` has no visible bias even for day-long
// intervals (a 32-bit hash modulo 86,400,000 is about 2% uneven).
const SECOND_LANE_BASIS = 0x9e3779b9;
const SECOND_LANE_MULTIPLIER = 0x5bd1e995;
const LANE_FOLD_MULTIPLIER = 0x27d4eb2f;
const TWO_POW_32 = 0x1_0000_0000;

/** The 32-bit finalizer of MurmurHash3: every input bit flips each output bit with probability about one half. */
function avalanche32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A 53-bit hash of a string, uniform enough to spread ids of any shape: random
 * and time-ordered UUIDs, sequential names, and ids sharing a long prefix.
 * The same on every instance, restart and Node version (it reads UTF-16 code
 * units, no encoding). Not cryptographic; the job is spreading load, not
 * resisting an attacker.
 *
 * It places each slice in its interval (`staggerOffsetMs`) and weighs
 * instances for a slice (`rendezvousWeight`); nothing stores its values.
 * Changing it moves every slice to a new slot and new owners once, on
 * upgrade.
 *
 * @internal
 */
export function stableHash(text: string): number {
  let fnv = FNV_OFFSET_BASIS;
  let second = (SECOND_LANE_BASIS ^ text.length) >>> 0;
  for (let i = 0; i < text.length; i++) {
    const codeUnit = text.charCodeAt(i);
    fnv = Math.imul(fnv ^ codeUnit, FNV_PRIME);
    second = Math.imul(second ^ codeUnit, SECOND_LANE_MULTIPLIER);
    second ^= second >>> 15;
  }
  // FNV-1a alone mixes the last characters weakly into the low bits, which is
  // exactly where sequential ids differ: fold the lanes and finalize both.
  const high = avalanche32(second ^ Math.imul(fnv, LANE_FOLD_MULTIPLIER));
  const low = avalanche32(fnv ^ high);
  return (high >>> 11) * TWO_POW_32 + low;
}
