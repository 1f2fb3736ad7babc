import * as nodeCrypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random base64url string of `bytes` bytes of entropy (default 256 bits). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

// crypto.hash (Node >= 20.12) hashes in one call without a Hash object: several per /token request.
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }).hash;

/** SHA-256 as base64url: how codes, refresh tokens, session ids and secrets are stored. */
export const sha256: (value: string) => string = oneShot
  ? (value) => oneShot('sha256', value, 'base64url')
  : (value) => createHash('sha256').update(value).digest('base64url');

/** Constant-time equality of two strings, by comparing their SHA-256 digests (equal length by construction). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** Constant-time equality of two `sha256()` values: already fixed-length digests, so no second hashing. */
export function digestsEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
