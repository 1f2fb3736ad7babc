// Test-side token forging: an attacker-controlled (or test-issuer) key published at a JWKS URL the API is
// pointed at, so every header and claim of a token can be chosen, plus raw JWS assembly for the cases
// jose refuses to produce (alg none, r=s=0 signatures).
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type JWTHeaderParameters, type CryptoKey } from 'jose';

export interface TestIssuerKeys {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  rsa: { kid: string; privateKey: CryptoKey; publicJwk: JWK };
}

export async function testIssuerKeys(): Promise<TestIssuerKeys> {
  const ec = await generateKeyPair('ES256', { extractable: true });
  const rsa = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 });
  const kid = `test-es-${randomUUID()}`;
  const rsaKid = `test-rs-${randomUUID()}`;
  return {
    kid,
    privateKey: ec.privateKey,
    publicJwk: { ...(await exportJWK(ec.publicKey)), kid, alg: 'ES256', use: 'sig' },
    rsa: { kid: rsaKid, privateKey: rsa.privateKey, publicJwk: { ...(await exportJWK(rsa.publicKey)), kid: rsaKid, use: 'sig' } },
  };
}

export interface JwksServer {
  url: string;
  fetches(): number;
  close(): Promise<void>;
}

/** Serves `{keys}` and counts every fetch (to prove there is no JWKS amplification). */
export async function startJwksServer(keys: () => JWK[]): Promise<JwksServer> {
  let count = 0;
  const server: Server = createServer((_req, res) => {
    count += 1;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: keys() }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    fetches: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

export function claims(issuer: string, audience: string, overrides: Record<string, unknown> = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  const base: Record<string, unknown> = {
    iss: issuer,
    sub: 'user-1',
    aud: audience,
    exp: now + 300,
    iat: now,
    jti: randomUUID(),
    client_id: 'client-1',
    scope: 'users:read',
    auth_time: now,
  };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) delete base[k];
    else base[k] = v;
  }
  return base as JWTPayload;
}

export async function sign(payload: JWTPayload, key: CryptoKey | Uint8Array, header: Partial<JWTHeaderParameters> & { alg: string }): Promise<string> {
  return new SignJWT(payload).setProtectedHeader(header as JWTHeaderParameters).sign(key);
}

/** header.payload. with an arbitrary signature part, built by hand. */
export const rawJws = (header: Record<string, unknown>, payload: unknown, signature = '') => `${b64(header)}.${b64(payload)}.${signature}`;
