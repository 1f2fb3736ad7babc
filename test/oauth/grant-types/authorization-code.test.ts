import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { authorizationCodes } from '../../../src/oauth/codes/index.js';
import { s256 } from '../../../src/oauth/codes/pkce.js';
import type { User } from '../../../src/storage/repositories/users-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, postToken, REDIRECT_URI, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser } from '../../helpers/users.js';

const clock = manualClock();
let t: TestApp;

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
});
after(async () => {
  await t.close();
});

interface Minted {
  fixture: ClientFixture;
  user: User;
  code: string;
  verifier: string;
}

async function mint(options: { scope?: string[]; fixture?: ClientFixture; challenge?: string; nonce?: string } = {}): Promise<Minted> {
  const fixture = options.fixture ?? (await createClient(t.core.db, clock));
  const user = await createUser(t.core.db, clock);
  const { verifier, challenge } = pkcePair();
  const code = await authorizationCodes(t.core).issue({
    clientId: fixture.client.id,
    redirectUri: REDIRECT_URI,
    codeChallenge: options.challenge ?? challenge,
    scope: options.scope ?? ['openid', 'offline_access', 'profile'],
    ...(options.nonce ? { nonce: options.nonce } : {}),
    userId: user.id,
    authTime: Math.floor(clock.now() / 1000),
  });
  return { fixture, user, code, verifier };
}

const exchange = (m: Minted, overrides: Record<string, string> = {}, fixture = m.fixture) =>
  postToken(t.url, fixture, { grant_type: 'authorization_code', code: m.code, redirect_uri: REDIRECT_URI, code_verifier: m.verifier, ...overrides });

async function userinfoStatus(accessToken: string): Promise<number> {
  return (await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
}

describe('grant_type=authorization_code', () => {
  test('RFC 7636 Appendix B vector: S256 of the example verifier is the example challenge', () => {
    assert.equal(s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'), 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  test('RFC 7636 Appendix B vector redeems a code bound to its challenge', async () => {
    const m = await mint({ challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' });
    const response = await exchange({ ...m, verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk' });
    assert.equal(response.status, 200);
  });

  test('a valid exchange returns access, id and refresh tokens with the granted scope and no-store', async () => {
    const m = await mint({ nonce: 'n-0S6_WzA2Mj' });
    const { status, body, headers } = await exchange(m);
    assert.equal(status, 200);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.scope, 'openid offline_access profile');
    assert.equal(typeof body.refresh_token, 'string');
    const access = decodeJwt(body.access_token as string);
    assert.deepEqual(access.aud, [t.config.API_AUDIENCE, `${t.config.ISSUER}/userinfo`], 'an openid token names /userinfo too');
    assert.equal(access.sub, m.user.id);
    const { payload } = await jwtVerify(body.id_token as string, createLocalJWKSet(await t.core.keys.jwks()), {
      issuer: t.config.ISSUER,
      audience: m.fixture.client.id,
      currentDate: new Date(clock.now()),
    });
    assert.equal(payload.nonce, 'n-0S6_WzA2Mj');
  });

  test('id_token only when openid was granted', async () => {
    const { body } = await exchange(await mint({ scope: ['orders:read'] }));
    assert.equal(body.id_token, undefined);
    assert.equal(typeof body.access_token, 'string');
  });

  test('refresh token only with offline_access under OIDC', async () => {
    const oidc = await exchange(await mint({ scope: ['openid', 'profile'] }));
    assert.equal(oidc.body.refresh_token, undefined);
    const plain = await exchange(await mint({ scope: ['orders:read'] }));
    assert.equal(typeof plain.body.refresh_token, 'string');
  });

  test('no refresh token for a client not registered for refresh_token', async () => {
    const fixture = await createClient(t.core.db, clock, { grantTypes: ['authorization_code'] });
    const { body } = await exchange(await mint({ fixture }));
    assert.equal(body.refresh_token, undefined);
  });

  test('PKCE: a wrong but well-formed code_verifier is invalid_grant', async () => {
    const m = await mint();
    const { status, body } = await exchange(m, { code_verifier: pkcePair().verifier });
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_grant');
  });

  test('PKCE: a missing code_verifier is invalid_grant', async () => {
    const m = await mint();
    const { status, body } = await postToken(t.url, m.fixture, { grant_type: 'authorization_code', code: m.code, redirect_uri: REDIRECT_URI });
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_grant');
  });

  test('PKCE: verifiers of 42 or 129 characters or with + = or space are refused', async () => {
    for (const verifier of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}+`, `${'a'.repeat(42)}=`, `${'a'.repeat(42)} `]) {
      const m = await mint({ challenge: s256(verifier) });
      const { status, body } = await exchange({ ...m, verifier });
      assert.equal(status, 400, verifier);
      assert.equal(body.error, 'invalid_grant');
    }
  });

  test('PKCE downgrade: a verifier for a code stored without an S256 challenge is refused', async () => {
    const m = await mint({ challenge: '' });
    const { status, body } = await exchange(m);
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_grant');
  });

  test('redirect_uri must equal the one used at /authorize', async () => {
    for (const redirect of [`${REDIRECT_URI}/`, 'https://CLIENT.example/cb', `${REDIRECT_URI}?x=1`]) {
      const m = await mint();
      const { status, body } = await exchange(m, { redirect_uri: redirect });
      assert.equal(status, 400, redirect);
      assert.equal(body.error, 'invalid_grant');
    }
    const m = await mint();
    const { status } = await postToken(t.url, m.fixture, { grant_type: 'authorization_code', code: m.code, code_verifier: m.verifier });
    assert.equal(status, 400);
  });

  test('code bound to client: another public client_id gets invalid_grant', async () => {
    const m = await mint();
    const other = await createClient(t.core.db, clock);
    const { status, body } = await exchange(m, {}, other);
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_grant');
    assert.equal((await exchange(m)).status, 200);
  });

  test('code bound to client: a confidential client with valid credentials cannot redeem another client’s code', async () => {
    const a = await createClient(t.core.db, clock, { type: 'confidential' });
    const b = await createClient(t.core.db, clock, { type: 'confidential' });
    const m = await mint({ fixture: a });
    assert.equal((await exchange(m, {}, b)).body.error, 'invalid_grant');
    assert.equal((await exchange(m)).status, 200);
  });

  test('code expiry: a code presented after AUTH_CODE_TTL is invalid_grant', async () => {
    const m = await mint();
    clock.advance(t.config.AUTH_CODE_TTL * 1000 + 1);
    const { status, body } = await exchange(m);
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_grant');
  });

  test('an altered code is invalid_grant, never 5xx', async () => {
    const m = await mint();
    for (const code of [`${m.code}x`, m.code.slice(0, -1), 'x'.repeat(5000), '%00']) {
      const { status, body } = await exchange(m, { code });
      assert.equal(status, 400);
      assert.equal(body.error, 'invalid_grant');
    }
  });

  test('parallel redemption: 10 simultaneous exchanges give one success and nine invalid_grant (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const m = await mint();
      const results = await Promise.all(Array.from({ length: 10 }, () => exchange(m)));
      assert.equal(results.filter((r) => r.status === 200).length, 1, `round ${round}`);
      assert.equal(results.filter((r) => r.status === 400 && r.body.error === 'invalid_grant').length, 9, `round ${round}`);
    }
  });

  test('code reuse revokes tokens: a second redemption revokes the access and refresh tokens of the first', async () => {
    const m = await mint();
    const first = await exchange(m);
    assert.equal(first.status, 200);
    assert.equal(await userinfoStatus(first.body.access_token as string), 200);
    const second = await exchange(m);
    assert.equal(second.body.error, 'invalid_grant');
    assert.equal(await userinfoStatus(first.body.access_token as string), 401);
    const refresh = await postToken(t.url, m.fixture, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token as string });
    assert.equal(refresh.body.error, 'invalid_grant');
  });

  test('a resource other than the bound audience is invalid_target', async () => {
    const { status, body } = await exchange(await mint(), { resource: 'https://other.example/api' });
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_target');
  });
});
