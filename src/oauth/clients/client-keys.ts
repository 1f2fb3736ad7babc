// Keys a client registers for private_key_jwt (RFC 7523 2.2). Only public asymmetric keys are accepted,
// and the algorithms an assertion may use are pinned from them — never HS* (the key would be public) or none.
import { importJWK, type JWK } from 'jose';

export const CLIENT_ASSERTION_ALGS = ['ES256', 'RS256', 'PS256'] as const;
export type ClientAssertionAlg = (typeof CLIENT_ASSERTION_ALGS)[number];

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/** The assertion algorithms one registered key may verify. */
function algorithmsForKey(jwk: JWK): ClientAssertionAlg[] {
  const candidates: ClientAssertionAlg[] = jwk.kty === 'EC' && jwk.crv === 'P-256' ? ['ES256'] : jwk.kty === 'RSA' ? ['RS256', 'PS256'] : [];
  return jwk.alg ? candidates.filter((alg) => alg === jwk.alg) : candidates;
}

export const algorithmsForKeys = (keys: readonly JWK[]): ClientAssertionAlg[] => [...new Set(keys.flatMap(algorithmsForKey))];

/** A reason the JWKS is unacceptable, or undefined. */
export async function clientJwksProblem(jwks: unknown): Promise<string | undefined> {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'jwks must be an object with a non-empty "keys" array';
  for (const key of keys as JWK[]) {
    if (typeof key !== 'object' || key === null) return 'every key must be a JWK object';
    if (PRIVATE_MEMBERS.some((m) => m in key)) return 'jwks must hold public keys only';
    if (key.use !== undefined && key.use !== 'sig') return 'keys must be signing keys (use "sig")';
    const algs = algorithmsForKey(key);
    if (algs.length === 0) return `every key must be an EC P-256 or RSA key usable with ${CLIENT_ASSERTION_ALGS.join('/')}`;
    if (key.kty === 'RSA' && Buffer.from(key.n ?? '', 'base64url').length * 8 < 2048) return 'RSA keys must have at least 2048 bits';
    try {
      await importJWK(key, algs[0]);
    } catch {
      return 'a key in jwks cannot be imported';
    }
  }
  return undefined;
}
