// PKCE pairs (RFC 7636 4.1, 4.2): a fresh S256 pair per use, and the RFC's own example for fixed values.
import { createHash, randomBytes } from 'node:crypto';

export interface Pkce {
  verifier: string;
  challenge: string;
}

export const challengeOf = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

export function pkcePair(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: challengeOf(verifier) };
}

/** RFC 7636 Appendix B. */
export const RFC7636 = { verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' } as const;
