// The RFC 9068 verifier both faces share answers with a value, never a response: `{ ok: true, claims }`, or
// `{ ok: false, reason }` with `invalid` (the token is at fault) or `keys_unavailable` (it is not). Each face
// renders its own answer: the resource API an RFC 6750 §3 challenge or a 503 Problem, the authorization
// server's endpoints `undefined` (their own error format) or the same 503. Real KeyService, real database.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { createCore, type Core } from '../../src/core.js';
import type { Database } from '../../src/storage/driver/database.js';
import { accessTokenIssuer } from '../../src/oauth/issued-tokens/access-tokens.js';
import { bearerAccessTokenVerifier } from '../../src/oauth/issued-tokens/bearer-access-token.js';
import { bearerAuthenticator } from '../../src/resource-server/auth/index.js';
import { accessTokenVerifier } from '../../src/tokens/access-token-verifier.js';
import { keyServiceSource, localKeySource } from '../../src/tokens/key-source.js';
import { ProblemError } from '../../src/http/errors.js';
import { createTestDatabase } from '../helpers/database.js';
import { testConfig } from '../helpers/app.js';

const clock = manualClock(Date.parse('2026-03-01T10:00:00Z'));
let database: Database;
let core: Core;

before(async () => {
  database = await createTestDatabase();
  core = createCore({ config: testConfig(3998), clock, database });
  await core.keys.ensureKeys();
});
after(() => database.close());

const issue = async () =>
  (await accessTokenIssuer({ keys: core.keys, clock, config: core.config }).issue({ sub: 'u1', clientId: 'c1', scope: ['users:read'], authTime: 1 })).token;

/** Keys that cannot be loaded (a JWKS endpoint or a database that is down): not the token's fault. */
const keysDown = () => localKeySource(() => Promise.reject(new Error('connect ECONNREFUSED')), clock);
const notRevoked = { isRevoked: async () => false };

test('the access-token verifier answers ok with the claims, or invalid with a fixed description, and throws nothing', async () => {
  const verifier = accessTokenVerifier({ keySource: keyServiceSource(core.keys), clock, config: core.config });
  const accepted = await verifier.verify(await issue());
  assert.equal(accepted.ok, true);
  assert.equal(accepted.ok && accepted.claims.sub, 'u1');

  const token = await issue();
  const tampered = `${token.slice(0, -4)}AAAA`;
  for (const bad of ['not-a-jwt', tampered, `${token.split('.')[0]}.e30.`]) {
    const refused = await verifier.verify(bad);
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.reason, 'invalid');
    assert.match(!refused.ok && refused.reason === 'invalid' ? refused.description : '', /^The access token /);
  }
});

test('unavailable signing keys are keys_unavailable, not an invalid token', async () => {
  const verifier = accessTokenVerifier({ keySource: keysDown(), clock, config: core.config });
  const refused = await verifier.verify(await issue());
  assert.equal(refused.ok, false);
  assert.equal(!refused.ok && refused.reason, 'keys_unavailable');
});

test('the resource API maps invalid to an RFC 6750 invalid_token challenge and unavailable keys to 503 with Retry-After', async () => {
  const authenticate = (keySource: ReturnType<typeof keysDown>) =>
    bearerAuthenticator({ verifier: accessTokenVerifier({ keySource, clock, config: core.config }), keySource, revocations: notRevoked, clock });
  await assert.rejects(authenticate(keyServiceSource(core.keys)).authenticate('not-a-jwt'), (e: unknown) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.status, 401);
    assert.match(e.headers['www-authenticate'] ?? '', /^Bearer error="invalid_token"/);
    return true;
  });
  await assert.rejects(authenticate(keysDown()).authenticate(await issue()), (e: unknown) => {
    assert.ok(e instanceof ProblemError);
    assert.equal(e.status, 503);
    assert.equal(e.headers['retry-after'], '5');
    return true;
  });
});

test("the authorization server's endpoints get undefined for an invalid token and a 503 when the keys are unavailable", async () => {
  const verify = bearerAccessTokenVerifier({ ...core, revocations: notRevoked });
  assert.equal((await verify(await issue()))?.sub, 'u1');
  assert.equal(await verify('not-a-jwt'), undefined);

  const down = { ...core.keys, jwks: () => Promise.reject(new Error('connect ECONNREFUSED')) } as Core['keys'];
  const verifyWithKeysDown = bearerAccessTokenVerifier({ ...core, keys: down, revocations: notRevoked });
  await assert.rejects(verifyWithKeysDown(await issue()), (e: unknown) => e instanceof ProblemError && e.status === 503);
});
