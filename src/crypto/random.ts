import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random base64url string of `bytes` bytes of entropy (default 256 bits). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** SHA-256 as base64url: how codes, refresh tokens, session ids and secrets are stored. */
export const sha256 = (value: string): string => createHash('sha256').update(value).digest('base64url');

/** Constant-time equality of two strings, by comparing their SHA-256 digests (equal length by construction). */
export function safeEqual(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
