// DPoP at the token endpoint (RFC 9449 4.3, 5): proofs from real clients bind the token to their key.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { calculateJwkThumbprint, decodeJwt, exportJWK, generateKeyPair, generateSecret, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../../oauth/fixtures.js';
import { retryingDpopNonce, serverNonce } from '../../helpers/dpop.js';
import { NO_LIMITS } from '../../helpers/env.js';

let t: TestApp;
let service: RegisteredClient;
let tokenUrl: string;
let keys: { publicKey: CryptoKey; privateKey: CryptoKey };
let publicJwk: JWK;
/** DPOP_NONCE_REQUIRED defaults to `token`: every proof here carries the server's nonce. */
let nonce: string;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  tokenUrl = `${t.url}/token`;
  service = await registerClient(t.core, { scope: 'orders:read' });
  keys = await generateKeyPair('ES256', { extractable: true });
  publicJwk = await exportJWK(keys.publicKey);
  nonce = await serverNonce(tokenUrl);
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);

function proof(overrides: JWTPayload = {}, header: Record<string, unknown> = {}, key: CryptoKey | Uint8Array = keys.privateKey) {
  return new SignJWT({ jti: randomUUID(), htm: 'POST', htu: tokenUrl, iat: now(), nonce, ...overrides })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk, ...header } as never)
    .sign(key);
}

const withProof = (dpop: string) => postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basicAuth(service.id, service.secret), dpop });

test('oauth4webapi with a DPoP handle gets token_type DPoP and an access token bound to its key (cnf.jkt)', async () => {
  const handle = oauth.DPoP({}, keys);
  const as = { issuer: t.url, token_endpoint: tokenUrl };
  const result = await retryingDpopNonce(async () =>
    oauth.processClientCredentialsResponse(
      as,
      { client_id: service.id },
      await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: service.id },
        oauth.ClientSecretBasic(service.secret),
        {},
        { DPoP: handle, [oauth.allowInsecureRequests]: true },
      ),
    ),
  );
  assert.equal(result.token_type, 'dpop');
  const claims = decodeJwt(result.access_token) as { cnf?: { jkt: string } };
  assert.equal(claims.cnf?.jkt, await calculateJwkThumbprint(publicJwk));
});

test('openid-client with getDPoPHandle gets a DPoP-bound token that introspects as token_type DPoP with cnf', async () => {
  const config = await client.discovery(new URL(t.url), service.id, undefined, client.ClientSecretBasic(service.secret), {
    execute: [client.allowInsecureRequests],
  });
  const tokens = await client.clientCredentialsGrant(config, {}, { DPoP: client.getDPoPHandle(config, keys) });
  assert.equal(tokens.token_type, 'dpop');
  const introspected = await client.tokenIntrospection(config, tokens.access_token);
  assert.equal(introspected.token_type, 'DPoP');
  assert.deepEqual(introspected.cnf, { jkt: await calculateJwkThumbprint(publicJwk) });
});

test('discovery advertises exactly the DPoP algorithms a proof may use', async () => {
  const metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { dpop_signing_alg_values_supported: string[] };
  for (const alg of metadata.dpop_signing_alg_values_supported) {
    const pair = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(pair.publicKey);
    const dpop = await new SignJWT({ jti: randomUUID(), htm: 'POST', htu: tokenUrl, iat: now(), nonce })
      .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk })
      .sign(pair.privateKey);
    const res = await withProof(dpop);
    assert.equal(res.status, 200, alg);
    assert.equal(res.body.token_type, 'DPoP', alg);
  }
});

test('a request without a DPoP header still gets a Bearer token', async () => {
  const res = await postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basicAuth(service.id, service.secret) });
  assert.equal(res.body.token_type, 'Bearer');
  assert.equal((decodeJwt(String(res.body.access_token)) as { cnf?: unknown }).cnf, undefined);
});

test('a replayed DPoP proof is rejected with invalid_dpop_proof', async () => {
  const dpop = await proof();
  assert.equal((await withProof(dpop)).status, 200);
  const replay = await withProof(dpop);
  assert.equal(replay.status, 400);
  assert.equal(replay.body.error, 'invalid_dpop_proof');
});

async function assertRefused(dpop: string, why: string) {
  const res = await withProof(dpop);
  assert.equal(res.status, 400, why);
  assert.equal(res.body.error, 'invalid_dpop_proof', why);
  assert.equal(res.body.access_token, undefined, why);
}

test('a DPoP proof with the wrong htm or htu is rejected', async () => {
  await assertRefused(await proof({ htm: 'GET' }), 'htm GET');
  await assertRefused(await proof({ htu: 'https://other.example/token' }), 'foreign htu');
  await assertRefused(await proof({ htu: `${t.url}/introspect` }), 'other endpoint');
});

test('a DPoP proof without jti, or stale, or issued in the future is rejected', async () => {
  await assertRefused(
    await new SignJWT({ htm: 'POST', htu: tokenUrl, iat: now() })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk } as never)
      .sign(keys.privateKey),
    'no jti',
  );
  await assertRefused(await proof({ iat: now() - 600 }), 'stale');
  await assertRefused(await proof({ iat: now() + 600 }), 'future');
});

test('a DPoP proof with the wrong typ, a private key in its jwk, or signed by another key is rejected', async () => {
  await assertRefused(await proof({}, { typ: 'JWT' }), 'typ JWT');
  await assertRefused(await proof({}, { jwk: await exportJWK(keys.privateKey) }), 'private jwk');
  const other = await generateKeyPair('ES256');
  await assertRefused(await proof({}, {}, other.privateKey), 'signed by another key');
});

test('a DPoP proof with alg HS256 or none is rejected', async () => {
  const secret = await generateSecret('HS256', { extractable: true });
  await assertRefused(
    await new SignJWT({ jti: randomUUID(), htm: 'POST', htu: tokenUrl, iat: now() })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: await exportJWK(secret) } as never)
      .sign(secret),
    'HS256',
  );
  const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'dpop+jwt', jwk: publicJwk })).toString('base64url');
  const body = Buffer.from(JSON.stringify({ jti: randomUUID(), htm: 'POST', htu: tokenUrl, iat: now() })).toString('base64url');
  await assertRefused(`${header}.${body}.`, 'alg none');
});

test('two DPoP headers, or garbage, are rejected without a 5xx', async () => {
  await assertRefused(`${await proof()}, ${await proof()}`, 'two proofs');
  await assertRefused('garbage', 'garbage');
});
