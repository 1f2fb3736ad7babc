// Every forged-token case of RFC 8725 / RFC 9068 §4 against a resource route: algorithms, signatures,
// typing, and each claim, with a test-controlled key published at the JWKS_URL the API trusts
// (probe-world.ts). The requests around the token (scheme, placement, scope, kids) are in bearer-requests.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { CompactEncrypt, exportJWK, exportSPKI, generateKeyPair, type JWK } from 'jose';
import type { TestApp } from '../../helpers/app.js';
import { b64, rawJws, sign, type JwksServer, type TestIssuerKeys } from './forge.js';
import { closeProbeWorld, probeRequests, startProbeWorld } from './probe-world.js';

let t: TestApp;
let jwks: JwksServer;
let keys: TestIssuerKeys;
let published: JWK[];
before(async () => {
  ({ t, jwks, keys, published } = await startProbeWorld());
});
after(() => closeProbeWorld({ t, jwks }));
const { good, es256, call, assertInvalidToken } = probeRequests(() => ({ t, keys }));

test('alg none in every spelling, with an empty signature, is refused', async () => {
  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    const token = rawJws({ alg, typ: 'at+jwt', kid: keys.kid }, good());
    await assertInvalidToken(await call(token), token);
  }
});

test('HS256 keyed with the public key (JWK JSON, PEM, DER, x coordinate) is refused: algorithm confusion', async () => {
  const publicKey = createPublicKey({ key: keys.publicJwk as never, format: 'jwk' });
  const pem = await exportSPKI(publicKey as never);
  const secrets = [JSON.stringify(keys.publicJwk), pem, publicKey.export({ format: 'der', type: 'spki' }), Buffer.from(keys.publicJwk.x!, 'base64url')];
  for (const secret of secrets) {
    const token = await sign(good(), new Uint8Array(Buffer.from(secret)), { alg: 'HS256', typ: 'at+jwt', kid: keys.kid });
    await assertInvalidToken(await call(token), token);
  }
});

test('RS256 and PS256 are outside the pinned algorithm list even with a published key: refused', async () => {
  const rs256 = await sign(good(), keys.rsa.privateKey, { alg: 'RS256', typ: 'at+jwt', kid: keys.rsa.kid });
  await assertInvalidToken(await call(rs256), rs256);
  const ps = await generateKeyPair('PS256', { extractable: true });
  published.push({ ...(await exportJWK(ps.publicKey)), kid: 'test-ps', alg: 'PS256', use: 'sig' });
  const ps256 = await sign(good(), ps.privateKey, { alg: 'PS256', typ: 'at+jwt', kid: 'test-ps' });
  await assertInvalidToken(await call(ps256), ps256);
});

test('the r = s = 0 "psychic signature" on ES256 is refused (CVE-2022-21449)', async () => {
  const token = rawJws({ alg: 'ES256', typ: 'at+jwt', kid: keys.kid }, good(), Buffer.alloc(64).toString('base64url'));
  await assertInvalidToken(await call(token), token);
});

test('a tampered payload under a genuine signature is refused', async () => {
  const [h, , s] = (await es256()).split('.');
  const token = `${h}.${b64(good({ scope: 'users:read users:write' }))}.${s}`;
  await assertInvalidToken(await call(token), token);
});

test('typ missing, JWT or JOSE is refused: explicit typing required', async () => {
  for (const typ of [undefined, 'JWT', 'JOSE', 'jwt']) {
    const token = await sign(good(), keys.privateKey, { alg: 'ES256', kid: keys.kid, ...(typ ? { typ } : {}) });
    await assertInvalidToken(await call(token), token);
  }
});

test('typ application/at+jwt and AT+JWT are accepted (media type compared case-insensitively)', async () => {
  for (const typ of ['application/at+jwt', 'AT+JWT', 'Application/AT+JWT']) {
    const res = await call(await es256(good(), { typ }));
    assert.equal(res.status, 200, typ);
  }
});

test('an id_token (typ JWT, aud = client_id) sent as the bearer token is refused', async () => {
  const idToken = await sign(good({ aud: 'client-1', nonce: 'n', scope: undefined }), keys.privateKey, { alg: 'ES256', typ: 'JWT', kid: keys.kid });
  await assertInvalidToken(await call(idToken), idToken);
  const idTokenAtTyp = await es256(good({ aud: 'client-1' }));
  await assertInvalidToken(await call(idTokenAtTyp), idTokenAtTyp);
});

test('aud missing, for another API, or an array without this API is refused', async () => {
  for (const aud of [undefined, 'https://other.example/v1', ['https://a.example', 'https://b.example'], `${t.config.API_AUDIENCE}/`]) {
    const token = await es256(good({ aud }));
    await assertInvalidToken(await call(token), token);
  }
});

test('iss of another issuer, or differing only by a trailing slash, is refused', async () => {
  for (const iss of ['https://evil.example', `${t.config.ISSUER}/`, undefined]) {
    const token = await es256(good({ iss }));
    await assertInvalidToken(await call(token), token);
  }
});

test('exp missing, a string, in milliseconds, or in the past beyond the skew is refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  for (const exp of [undefined, String(now + 300), (now + 300) * 1000, now - t.config.CLOCK_SKEW - 5]) {
    const token = await es256(good({ exp }));
    await assertInvalidToken(await call(token), token);
  }
});

test('exp just past but within the documented clock skew is accepted', async () => {
  const now = Math.floor(Date.now() / 1000);
  const res = await call(await es256(good({ iat: now - 60, exp: now - 5 })));
  assert.equal(res.status, 200);
});

test('nbf beyond the skew in the future is refused; iat in the future beyond the skew is refused', async () => {
  const now = Math.floor(Date.now() / 1000);
  for (const extra of [{ nbf: now + t.config.CLOCK_SKEW + 30 }, { iat: now + t.config.CLOCK_SKEW + 30 }]) {
    const token = await es256(good(extra));
    await assertInvalidToken(await call(token), token);
  }
});

test('a missing sub, client_id, iat or jti is refused, and so are those claims with the wrong JSON type', async () => {
  const cases = [
    { sub: undefined },
    { client_id: undefined },
    { iat: undefined },
    { jti: undefined },
    { sub: 42 },
    { client_id: ['x'] },
    { iat: '1700000000' },
    { jti: '' },
    { scope: ['users:read'] },
  ];
  for (const overrides of cases) {
    const token = await es256(good(overrides));
    await assertInvalidToken(await call(token), token);
  }
});

test('crit headers (unknown, empty, naming alg) and zip are refused', async () => {
  for (const extra of [{ crit: ['x-unknown'], 'x-unknown': 1 }, { crit: [] }, { crit: ['alg'] }, { zip: 'DEF' }]) {
    const header = { alg: 'ES256', typ: 'at+jwt', kid: keys.kid, ...extra };
    // jose will not sign some of these headers, so sign the bytes through a crafted input where needed.
    const token = await signRaw(header, good());
    await assertInvalidToken(await call(token), token);
  }
});

test('a 5-segment JWE is refused when no encryption is configured', async () => {
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(good())))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: keys.kid, typ: 'at+jwt' })
    .encrypt(new Uint8Array(32));
  await assertInvalidToken(await call(jwe), jwe);
});

/** Signs arbitrary protected-header bytes with the trusted key (jose refuses to build crit/zip headers). */
async function signRaw(header: Record<string, unknown>, payload: unknown): Promise<string> {
  const { subtle } = globalThis.crypto;
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = await subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, keys.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}
