// private_key_jwt as client libraries send it (RFC 7523 3): assertions living up to an hour (Authlib's
// default exp = iat + 3600) are accepted, longer ones refused, and each jti is remembered until its exp.
// Refusals are logged with a reason code and the client_id, never the assertion.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import * as oauth from 'oauth4webapi';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { expiredRecordsPurge } from '../../../src/oauth/housekeeping.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { postForm, registerClient, type RegisteredClient } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const clock = manualClock(Date.now());
let t: TestApp;
let client: RegisteredClient;
let key: CryptoKey;
let log = '';

before(async () => {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
  t = await startTestApp({ clock, env: NO_LIMITS, logStream: stream });
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  client = await registerClient(t.core, {
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1' }] },
  });
});
after(() => t.close());

const now = () => Math.floor(clock.now() / 1000);
const sign = (overrides: JWTPayload = {}) =>
  new SignJWT({ iss: client.id, sub: client.id, aud: t.url, iat: now(), exp: now() + 60, jti: randomUUID(), ...overrides })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .sign(key);
const present = (assertion: string) =>
  postForm(`${t.url}/token`, { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: assertion });

test('private_key_jwt: an assertion living 60 minutes, as Authlib sends it (exp = iat + 3600), is accepted', async () => {
  const response = await oauth.clientCredentialsGrantRequest(
    { issuer: t.url, token_endpoint: `${t.url}/token` },
    { client_id: client.id },
    oauth.PrivateKeyJwt(key, {
      [oauth.modifyAssertion]: (_header, payload) => {
        payload.exp = (payload.iat as number) + 3600;
      },
    }),
    { scope: 'orders:read' },
    { [oauth.allowInsecureRequests]: true },
  );
  assert.equal(response.status, 200);
  assert.equal((await present(await sign({ exp: now() + 3600 }))).status, 200, 'exp - iat = 3600');
  assert.equal((await present(await sign({ iat: now() - 20, exp: now() - 20 + 3600 + 30 }))).status, 200, 'within the 30 s clock skew');
});

test('private_key_jwt: an assertion living longer than 60 minutes is refused', async () => {
  const refused = [
    await sign({ exp: now() + 3600 + 31 + 10 }),
    await sign({ iat: now() - 600, exp: now() + 3500 }),
    await sign({ iat: now() + 120, exp: now() + 600 }),
  ];
  for (const assertion of refused) {
    const res = await present(assertion);
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  }
});

test('private_key_jwt: a jti is remembered until its exp, so a replay 59 minutes later (after a purge) is refused', async () => {
  const assertion = await sign({ exp: now() + 3600 });
  assert.equal((await present(assertion)).status, 200);
  clock.advance(59 * 60_000);
  await expiredRecordsPurge(t.core)();
  const replay = await present(assertion);
  assert.equal(replay.status, 401);
  assert.equal(replay.body.error, 'invalid_client');
});

test('a refused client assertion is logged with a reason code and the client_id, never the assertion', async () => {
  const tooLong = await sign({ exp: now() + 7200 });
  assert.equal((await present(tooLong)).status, 401);
  const lines = log
    .split('\n')
    .filter((l) => l.includes('request refused'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const entry = lines.find((l) => l.reason === 'assertion_lifetime_too_long');
  assert.ok(entry, log);
  assert.equal(entry.client_id, client.id);
  assert.ok(
    lines.some((l) => l.reason === 'assertion_replayed'),
    'the replay was logged with its own code',
  );
  for (const part of [tooLong, ...tooLong.split('.')]) assert.ok(!log.includes(part), 'no part of the assertion is in the log');
});
