// private_key_jwt (RFC 7523 3, RFC 7521 4.2, OIDC Core 9).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { exportJWK, generateKeyPair, importJWK, SignJWT, base64url, type CryptoKey, type JWTPayload } from 'jose';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { postForm, registerClient, type RegisteredClient } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let t: TestApp;
let ec: RegisteredClient;
let rsa: RegisteredClient;
let ecKey: CryptoKey;
let rsaKey: CryptoKey;
let ecPublicJwk: Record<string, unknown>;
let tokenUrl: string;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  tokenUrl = `${t.url}/token`;
  const ecPair = await generateKeyPair('ES256', { extractable: true });
  const rsaPair = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  ecKey = ecPair.privateKey;
  rsaKey = rsaPair.privateKey;
  ecPublicJwk = { ...(await exportJWK(ecPair.publicKey)), kid: 'ec-1' };
  ec = await registerClient(t.core, { token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [ecPublicJwk] } });
  rsa = await registerClient(t.core, {
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [{ ...(await exportJWK(rsaPair.publicKey)), kid: 'rsa-1' }] },
  });
});
after(() => t.close());

const now = () => Math.floor(Date.now() / 1000);

function claims(clientId: string, overrides: JWTPayload = {}): JWTPayload {
  return { iss: clientId, sub: clientId, aud: t.url, iat: now(), exp: now() + 60, jti: randomUUID(), ...overrides };
}

const sign = (payload: JWTPayload, key: CryptoKey = ecKey, alg = 'ES256') => new SignJWT(payload).setProtectedHeader({ alg, kid: 'ec-1' }).sign(key);

const present = (assertion: string, extra: Record<string, string> = {}) =>
  postForm(tokenUrl, { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: assertion, ...extra });

const withoutClaim = (payload: JWTPayload, name: string): JWTPayload => Object.fromEntries(Object.entries(payload).filter(([k]) => k !== name));

async function assertRejected(assertion: string, why: string) {
  const res = await present(assertion);
  assert.equal(res.status, 401, why);
  assert.equal(res.body.error, 'invalid_client', why);
}

test('oauth4webapi authenticates with private_key_jwt (ES256)', async () => {
  const response = await oauth.clientCredentialsGrantRequest(
    { issuer: t.url, token_endpoint: tokenUrl },
    { client_id: ec.id },
    oauth.PrivateKeyJwt(ecKey),
    { scope: 'orders:read' },
    { [oauth.allowInsecureRequests]: true },
  );
  assert.equal(response.status, 200);
});

test('an assertion whose aud is the token endpoint URL is accepted', async () => {
  assert.equal((await present(await sign(claims(ec.id, { aud: tokenUrl })))).status, 200);
});

test('RS256 and PS256 assertions are accepted for a registered RSA key', async () => {
  for (const alg of ['RS256', 'PS256']) {
    const key = await importJWK(await exportJWK(rsaKey), alg);
    const res = await present(await new SignJWT(claims(rsa.id)).setProtectedHeader({ alg }).sign(key));
    assert.equal(res.status, 200, alg);
  }
});

test('an assertion with aud of another server is rejected', async () => {
  await assertRejected(await sign(claims(ec.id, { aud: 'https://other.example' })), 'foreign aud');
});

test('an assertion with an array aud is rejected, even one containing the issuer', async () => {
  await assertRejected(await sign(claims(ec.id, { aud: [t.url] })), 'array aud');
  await assertRejected(await sign(claims(ec.id, { aud: [t.url, 'https://other.example'] })), 'array aud');
});

test('an assertion that expired 5 minutes ago is rejected', async () => {
  await assertRejected(await sign(claims(ec.id, { iat: now() - 600, exp: now() - 300 })), 'expired');
});

test('an assertion without exp, or living longer than 60 minutes, is rejected', async () => {
  await assertRejected(await sign(withoutClaim(claims(ec.id), 'exp')), 'no exp');
  await assertRejected(await sign(claims(ec.id, { exp: now() + 7200 })), 'exp two hours ahead');
});

test('nbf 8 seconds ahead still passes; nbf more than 60 seconds ahead is rejected', async () => {
  assert.equal((await present(await sign(claims(ec.id, { nbf: now() + 8 })))).status, 200);
  await assertRejected(await sign(claims(ec.id, { nbf: now() + 90 })), 'nbf 90 s ahead');
});

test('an assertion whose sub is missing or is not the client_id is rejected', async () => {
  await assertRejected(await sign(withoutClaim(claims(ec.id), 'sub')), 'no sub');
  await assertRejected(await sign(claims(ec.id, { sub: rsa.id })), 'sub of another client');
  const res = await present(await sign(claims(ec.id, { sub: 'someone-else' })), { client_id: ec.id });
  assert.equal(res.status, 401);
});

test('an assertion whose iss is not the client_id is rejected', async () => {
  await assertRejected(await sign(claims(ec.id, { iss: 'https://attacker.example' })), 'iss');
});

test('an assertion without jti is rejected', async () => {
  await assertRejected(await sign(withoutClaim(claims(ec.id), 'jti')), 'no jti');
});

test('private_key_jwt replay: a jti is accepted once and rejected after', async () => {
  const assertion = await sign(claims(ec.id));
  assert.equal((await present(assertion)).status, 200);
  await assertRejected(assertion, 'replay');
});

test('private_key_jwt replay: 10 parallel uses of one assertion yield exactly one success', async () => {
  const assertion = await sign(claims(ec.id));
  const statuses = (await Promise.all(Array.from({ length: 10 }, () => present(assertion)))).map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 200).length, 1);
  assert.equal(statuses.filter((s) => s === 401).length, 9);
});

test('private_key_jwt replay is refused across instances sharing the database', async () => {
  // A second instance behind the same issuer URL, on the same database (as behind a load balancer).
  const other = await startTestApp({ database: t.database, env: { ...NO_LIMITS, ISSUER: t.url, KEY_ENCRYPTION_KEY: t.config.KEY_ENCRYPTION_KEY! } });
  try {
    const assertion = await sign(claims(ec.id));
    assert.equal((await present(assertion)).status, 200);
    const replay = await postForm(`http://127.0.0.1:${other.config.PORT}/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: assertion,
    });
    assert.equal(replay.status, 401);
    assert.equal(replay.body.error, 'invalid_client');
  } finally {
    await other.close();
  }
});

test('alg none is rejected', async () => {
  const header = base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }));
  const body = base64url.encode(JSON.stringify(claims(ec.id)));
  await assertRejected(`${header}.${body}.`, 'alg none');
});

test('HS256 keyed with the registered public key is rejected (algorithm confusion)', async () => {
  const secret = new TextEncoder().encode(JSON.stringify(ecPublicJwk));
  await assertRejected(await new SignJWT(claims(ec.id)).setProtectedHeader({ alg: 'HS256', kid: 'ec-1' }).sign(secret), 'HS256');
});

test('an assertion signed by an unregistered key is rejected', async () => {
  const { privateKey } = await generateKeyPair('ES256');
  await assertRejected(await sign(claims(ec.id), privateKey), 'unregistered key');
});

test('an algorithm the registered key does not allow is rejected (RS256 key, ES256 assertion)', async () => {
  await assertRejected(await sign(claims(rsa.id)), 'ES256 for an RSA client');
});

test('a garbage client_assertion or a wrong client_assertion_type never yields 5xx', async () => {
  await assertRejected('not.a.jwt', 'garbage');
  const wrongType = await postForm(tokenUrl, { grant_type: 'client_credentials', client_assertion_type: 'urn:x', client_assertion: await sign(claims(ec.id)) });
  assert.equal(wrongType.status, 400);
  assert.equal(wrongType.body.error, 'invalid_request');
});

test('a private_key_jwt client cannot fall back to a secret or to client_id alone', async () => {
  const res = await postForm(tokenUrl, { grant_type: 'client_credentials', client_id: ec.id });
  assert.equal(res.status, 401);
});
