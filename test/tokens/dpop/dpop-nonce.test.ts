// Server-provided DPoP nonces (RFC 9449 §8 at /token, §9 at the resource server). Nonces are stateless
// (a time window and an HMAC under a key derived from the shared key-encryption key), so one handed out by
// an instance is accepted by every instance sharing the database, and none outlives two windows.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { DPOP_NONCE_WINDOW_SECONDS, dpopNonces } from '../../../src/tokens/dpop/nonce.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/database.js';
import { dpopKey, dpopProof, retryingDpopNonce, serverNonce, type DpopKey } from '../../helpers/dpop.js';
import { basicAuth, registerClient, type RegisteredClient } from '../../oauth/fixtures.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { NO_LIMITS } from '../../helpers/env.js';

const clock = manualClock();
const KEK = randomBytes(32).toString('base64url');
let database: Database;
/** Two instances of one deployment: one database, one key-encryption key. */
let a: TestApp;
let b: TestApp;
let service: RegisteredClient;
let key: DpopKey;

before(async () => {
  database = await createTestDatabase();
  const env = { ...NO_LIMITS, KEY_ENCRYPTION_KEY: KEK };
  a = await startTestApp({ env, clock, database });
  b = await startTestApp({ env, clock, database });
  service = await registerClient(a.core, { scope: 'orders:read' });
  key = await dpopKey();
});
after(async () => {
  await a.close();
  await b.close();
  await database.close();
});

const iat = () => Math.floor(clock.now() / 1000);

/** client_credentials at `app`'s /token with a proof of `key` carrying `nonce` (none when undefined). */
async function tokenRequest(app: TestApp, nonce: string | undefined) {
  const dpop = await dpopProof(key, `${app.url}/token`, { iat: iat(), ...(nonce !== undefined ? { nonce } : {}) });
  const response = await fetch(`${app.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(service.id, service.secret), dpop },
    body: 'grant_type=client_credentials',
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, string> };
}

function assertUseNonce(res: { status: number; headers: Headers; body: Record<string, string> }, why: string): string {
  assert.equal(res.status, 400, why);
  assert.equal(res.body.error, 'use_dpop_nonce', why);
  assert.equal(res.body.access_token, undefined, why);
  assert.equal(res.headers.get('cache-control'), 'no-store', why);
  const nonce = res.headers.get('dpop-nonce');
  assert.ok(nonce, `${why}: a fresh nonce comes with the error`);
  return nonce;
}

test('RFC 9449 §8: a proof without a nonce at /token is 400 use_dpop_nonce with a DPoP-Nonce header; the retry with that nonce succeeds and offers the next one', async () => {
  const nonce = assertUseNonce(await tokenRequest(a, undefined), 'no nonce');
  const retried = await tokenRequest(a, nonce);
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  assert.equal(retried.body.token_type, 'DPoP');
  assert.ok(retried.headers.get('dpop-nonce'));
});

test('RFC 9449 §8: oauth4webapi learns the nonce from use_dpop_nonce and its retry gets a DPoP-bound token', async () => {
  const handle = oauth.DPoP({}, key);
  const as = { issuer: a.url, token_endpoint: `${a.url}/token` };
  let attempts = 0;
  const result = await retryingDpopNonce(async () => {
    attempts++;
    return oauth.processClientCredentialsResponse(
      as,
      { client_id: service.id },
      await oauth.clientCredentialsGrantRequest(
        as,
        { client_id: service.id },
        oauth.ClientSecretBasic(service.secret),
        {},
        { DPoP: handle, [oauth.allowInsecureRequests]: true },
      ),
    );
  });
  assert.equal(attempts, 2, 'the first attempt had no nonce');
  assert.equal((decodeJwt(result.access_token) as { cnf?: { jkt: string } }).cnf?.jkt, await calculateJwkThumbprint(key.jwk));
});

test('a forged nonce (altered MAC, another window number under the old MAC, arbitrary text) is refused with use_dpop_nonce', async () => {
  const real = await serverNonce(`${a.url}/token`);
  const bytes = Buffer.from(real, 'base64url');
  bytes[bytes.length - 1]! ^= 1;
  assertUseNonce(await tokenRequest(a, bytes.toString('base64url')), 'MAC altered');
  const future = Buffer.from(real, 'base64url');
  future.writeUIntBE(future.readUIntBE(0, 6) + 1, 0, 6);
  assertUseNonce(await tokenRequest(a, future.toString('base64url')), 'next window, old MAC');
  future.writeUIntBE(future.readUIntBE(0, 6) + 1, 0, 6);
  assertUseNonce(await tokenRequest(a, future.toString('base64url')), 'two windows ahead, old MAC');
  assertUseNonce(await tokenRequest(a, 'x'.repeat(30)), 'arbitrary string');
  assertUseNonce(await tokenRequest(a, ''), 'empty');
});

test('a nonce from an instance with another key-encryption key (another deployment) is refused', async () => {
  const foreign = await startTestApp({ env: NO_LIMITS, clock });
  try {
    assertUseNonce(await tokenRequest(a, await serverNonce(`${foreign.url}/token`)), 'foreign deployment');
  } finally {
    await foreign.close();
  }
});

test('a nonce handed out by one instance is accepted by another instance sharing the database (stateless, keyed by the shared KEK)', async () => {
  const fromA = assertUseNonce(await tokenRequest(a, undefined), 'learn at A');
  const atB = await tokenRequest(b, fromA);
  assert.equal(atB.status, 200, JSON.stringify(atB.body));
  const fromB = atB.headers.get('dpop-nonce')!;
  assert.equal((await tokenRequest(a, fromB)).status, 200, 'and back');
});

test('a nonce is accepted through the next window and refused as stale after that; one minted by an instance a window ahead is accepted', async () => {
  const ahead = manualClock(clock.now() + DPOP_NONCE_WINDOW_SECONDS * 1000);
  // What an instance of this deployment whose clock is one window ahead hands out.
  const fromFastInstance = dpopNonces(Buffer.from(KEK, 'base64url'), ahead).current();
  const early = await tokenRequest(a, fromFastInstance);
  assert.equal(early.status, 200, `next window: ${JSON.stringify(early.body)}`);
  ahead.advance(DPOP_NONCE_WINDOW_SECONDS * 1000);
  assertUseNonce(await tokenRequest(a, dpopNonces(Buffer.from(KEK, 'base64url'), ahead).current()), 'two windows ahead');
  const nonce = await serverNonce(`${a.url}/token`);
  clock.advance(DPOP_NONCE_WINDOW_SECONDS * 1000);
  assert.equal((await tokenRequest(a, nonce)).status, 200, 'previous window');
  clock.advance(DPOP_NONCE_WINDOW_SECONDS * 1000);
  const stale = assertUseNonce(await tokenRequest(b, nonce), 'two windows later');
  assert.notEqual(stale, nonce);
  assert.equal((await tokenRequest(b, stale)).status, 200);
});
