import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { manualClock } from '../../src/clock.js';
import { atHash, idTokenIssuer } from '../../src/oauth/issued-tokens/id-token.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeGrantTokens, createClient, type ClientFixture } from '../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';
import { createUser } from '../helpers/users.js';

const clock = manualClock();
let t: TestApp;
let fixture: ClientFixture;

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
  fixture = await createClient(t.core.db, clock);
});
after(async () => {
  await t.close();
});

const PROFILE = ['name', 'given_name', 'family_name', 'updated_at'];
const EMAIL = ['email', 'email_verified'];
const ADDRESS = ['address'];
const PHONE = ['phone_number', 'phone_number_verified'];
const ALL_USER_CLAIMS = [...PROFILE, ...EMAIL, ...ADDRESS, ...PHONE];

async function idTokenFor(scope: string[], options: { fixture?: ClientFixture } = {}): Promise<{ payload: JWTPayload; token: string; accessToken: string }> {
  const user = await createUser(t.core.db, clock);
  const tokens = await codeGrantTokens(t, options.fixture ?? fixture, user, scope);
  const token = tokens.id_token as string;
  const { payload } = await jwtVerify(token, createLocalJWKSet(await t.core.keys.jwks()), {
    issuer: t.config.ISSUER,
    audience: (options.fixture ?? fixture).client.id,
    currentDate: new Date(clock.now()),
  });
  return { payload, token, accessToken: tokens.access_token as string };
}

const userClaimNames = (payload: JWTPayload) =>
  Object.keys(payload)
    .filter((k) => ALL_USER_CLAIMS.includes(k))
    .sort();

describe('id_token', () => {
  test('id_token claims by scope: openid alone releases no profile, email, address or phone claim', async () => {
    const { payload } = await idTokenFor(['openid']);
    assert.deepEqual(userClaimNames(payload), []);
  });

  test('id_token claims by scope: each scope releases exactly its OIDC Core 5.4 claims', async () => {
    for (const [scope, claims] of [
      ['profile', PROFILE],
      ['email', EMAIL],
      ['address', ADDRESS],
      ['phone', PHONE],
    ] as const) {
      const { payload } = await idTokenFor(['openid', scope]);
      assert.deepEqual(userClaimNames(payload), [...claims].sort(), scope);
    }
    const { payload } = await idTokenFor(['openid', 'profile', 'email', 'address', 'phone']);
    assert.deepEqual(userClaimNames(payload), [...ALL_USER_CLAIMS].sort());
  });

  test('id_token claim types follow OIDC Core 5.1: booleans are booleans, updated_at is a number, address an object', async () => {
    const { payload } = await idTokenFor(['openid', 'profile', 'email', 'address', 'phone']);
    assert.equal(typeof payload.email_verified, 'boolean');
    assert.equal(typeof payload.phone_number_verified, 'boolean');
    assert.equal(typeof payload.updated_at, 'number');
    assert.equal(typeof payload.address, 'object');
  });

  test('id_token carries iss, sub, aud = client_id, exp, iat and auth_time', async () => {
    const { payload } = await idTokenFor(['openid']);
    assert.equal(payload.iss, t.config.ISSUER);
    assert.equal(payload.aud, fixture.client.id);
    assert.equal(typeof payload.sub, 'string');
    assert.equal((payload.exp as number) - (payload.iat as number), t.config.ID_TOKEN_TTL);
    assert.equal(payload.auth_time, Math.floor(clock.now() / 1000));
    assert.equal(payload.azp, undefined, 'azp only with several audiences');
    assert.equal(payload.nonce, undefined, 'nonce absent when none was sent');
  });

  test('id_token at_hash is the left half of SHA-256 of the access token', async () => {
    const { payload, accessToken } = await idTokenFor(['openid']);
    const expected = createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
    assert.equal(payload.at_hash, expected);
    assert.equal(atHash(accessToken), expected);
  });

  test('id_token is RS256 by default and ES256 when the client registered it, with a kid from the JWKS', async () => {
    const jwks = await t.core.keys.jwks();
    const rs = decodeProtectedHeader((await idTokenFor(['openid'])).token);
    assert.equal(rs.alg, 'RS256');
    assert.equal(rs.typ, 'JWT');
    assert.ok(jwks.keys.some((k) => k.kid === rs.kid && k.alg === 'RS256'));
    const esClient = await createClient(t.core.db, clock, { idTokenSignedResponseAlg: 'ES256' });
    const es = decodeProtectedHeader((await idTokenFor(['openid'], { fixture: esClient })).token);
    assert.equal(es.alg, 'ES256');
    assert.ok(jwks.keys.some((k) => k.kid === es.kid && k.alg === 'ES256'));
  });

  test('id_token nonce is echoed byte-exact, even 384 characters long', async () => {
    const user = await createUser(t.core.db, clock);
    const nonce = `${'n'.repeat(190)}-._~${'Z'.repeat(190)}`;
    const token = await idTokenIssuer(t.core).issue({ client: fixture.client, user, scope: ['openid'], authTime: 1, nonce });
    const { payload } = await jwtVerify(token, createLocalJWKSet(await t.core.keys.jwks()), { currentDate: new Date(clock.now()) });
    assert.equal(payload.nonce, nonce);
  });

  test('id_token azp names the client when there are several audiences', async () => {
    const user = await createUser(t.core.db, clock);
    const token = await idTokenIssuer(t.core).issue({
      client: fixture.client,
      user,
      scope: ['openid'],
      authTime: 1,
      extraAudiences: ['https://other.example'],
    });
    const { payload } = await jwtVerify(token, createLocalJWKSet(await t.core.keys.jwks()), { currentDate: new Date(clock.now()) });
    assert.deepEqual(payload.aud, [fixture.client.id, 'https://other.example']);
    assert.equal(payload.azp, fixture.client.id);
  });
});
