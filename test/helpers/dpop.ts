// DPoP helpers for tests: the server's current nonce as a client learns it (RFC 9449 8: a proof without
// one is answered use_dpop_nonce with a DPoP-Nonce header), proofs made with jose, and the retry that
// oauth4webapi leaves to its caller (isDPoPNonceError).
import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export interface DpopKey {
  publicKey: CryptoKey;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function dpopKey(alg = 'ES256'): Promise<DpopKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  return { ...pair, jwk: await exportJWK(pair.publicKey) };
}

/** A proof for POST `htu` (or `claims.htm`), fresh jti and iat; `nonce` only when given. */
export function dpopProof(key: DpopKey, htu: string, claims: JWTPayload = {}): Promise<string> {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu, iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);
}

/** The nonce the token endpoint hands out now, learnt as a client does: from a refused nonce-less proof. */
export async function serverNonce(tokenUrl: string): Promise<string> {
  const key = await dpopKey();
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await dpopProof(key, tokenUrl) },
    body: 'grant_type=client_credentials',
  });
  const nonce = response.headers.get('dpop-nonce');
  if (!nonce) throw new Error(`no DPoP-Nonce from ${tokenUrl} (status ${response.status})`);
  return nonce;
}

/** oauth4webapi's prescribed pattern: the DPoP handle cached the nonce of the refusal; try once more. */
export async function retryingDpopNonce<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return attempt();
  }
}
