import { createHash, randomBytes } from 'node:crypto';

/** 24 random bytes: 192 bits, 32 URL-safe characters. */
const TOKEN_BYTES = 24;
const HINT_LENGTH = 4;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** A new ping token: random, URL-safe. */
export function createPingToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * What is stored of a token: its SHA-256 (hex). A token is looked up by
 * this hash through a unique index, so no secret is compared byte by byte.
 */
export function hashPingToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The last characters of a token, so a person can tell which one a job has. */
export function pingTokenHint(token: string): string {
  return `…${token.slice(-HINT_LENGTH)}`;
}

/**
 * Whether a text has the shape of a token; one that does not is unknown
 * without a database read. Hashing and looking up every other text alike
 * keeps the answer's time independent of which tokens exist.
 */
export function isPingTokenShaped(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}
