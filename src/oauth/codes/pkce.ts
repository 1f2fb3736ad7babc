// PKCE verification at the token endpoint (RFC 7636 4.6). Only S256 exists here: /authorize refuses
// `plain` and missing challenges, so every stored code carries an S256 challenge.
import { createHash } from 'node:crypto';
import { safeEqual } from '../../crypto/random.js';

/** RFC 7636 4.1: code-verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export const isWellFormedVerifier = (verifier: string): boolean => VERIFIER.test(verifier);

/** base64url(SHA-256(ASCII(code_verifier))) — RFC 7636 4.2. */
export const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** Whether the verifier is well formed and hashes to the stored challenge (compared in constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return isWellFormedVerifier(verifier) && safeEqual(s256(verifier), challenge);
}
