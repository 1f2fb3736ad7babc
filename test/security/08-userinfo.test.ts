// Security suite, area 8: UserInfo (OIDC Core §5.3, §5.4; RFC 6750 §2, §3).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt, SignJWT, generateKeyPair } from 'jose';
import { manualClock } from '../../src/clock.js';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { bearer, startWorld, token, tokensFor, type World } from './helpers/world.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { fullProfile } from '../helpers/users.js';

const clock = manualClock();
let w: World;
before(async () => {
  w = await startWorld({ clock });
  await usersRepository(w.t.core.db, clock).update(w.U1.id, fullProfile);
});
after(() => w.close());

const userinfo = (init: RequestInit = {}, path = '/userinfo') => fetch(`${w.url}${path}`, init);

function assertInvalidToken(response: Response): void {
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer\b.*error="invalid_token"/);
}

describe('8. userinfo', () => {
  test('8.95 GET and POST with Authorization: Bearer → 200 application/json, sub equals the id_token sub', async () => {
    const t = await tokensFor(w, w.A);
    const sub = decodeJwt(t.id_token!).sub;
    for (const method of ['GET', 'POST']) {
      const response = await bearer(w, '/userinfo', t.access_token, { method });
      assert.equal(response.status, 200, method);
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(((await response.json()) as { sub: string }).sub, sub);
    }
  });

  test('8.95+ POST with access_token in the form body → 200 (RFC 6750 §2.2)', async () => {
    const t = await tokensFor(w, w.A);
    const r = await postForm(`${w.url}/userinfo`, { access_token: t.access_token });
    assert.equal(r.status, 200);
  });

  test('8.97 no token → 401 with WWW-Authenticate: Bearer and no error attribute', async () => {
    for (const method of ['GET', 'POST']) {
      const response = await userinfo({ method });
      assert.equal(response.status, 401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      assert.match(challenge, /^Bearer/);
      assert.doesNotMatch(challenge, /error=/);
    }
  });

  test('8.97+ token in the query only → 401, not accepted (RFC 9700 §4.3.2)', async () => {
    const t = await tokensFor(w, w.A);
    const response = await userinfo({}, `/userinfo?access_token=${t.access_token}`);
    assert.equal(response.status, 401);
  });

  test('8.97+ token in the header and in the body → 400 invalid_request', async () => {
    const t = await tokensFor(w, w.A);
    const r = await postForm(`${w.url}/userinfo`, { access_token: t.access_token }, { authorization: `Bearer ${t.access_token}` });
    assert.equal(r.status, 400);
    assert.match(r.headers.get('www-authenticate') ?? '', /invalid_request/);
  });

  test('8.98 expired token → 401 invalid_token', async () => {
    const t = await tokensFor(w, w.A);
    clock.advance((w.t.config.ACCESS_TOKEN_TTL + w.t.config.CLOCK_SKEW + 5) * 1000);
    assertInvalidToken(await bearer(w, '/userinfo', t.access_token));
  });

  test('8.98 revoked token → 401 invalid_token', async () => {
    const t = await tokensFor(w, w.A);
    const revoke = await postForm(`${w.url}/revoke`, { token: t.access_token }, { authorization: basicAuth(w.A.id, w.A.secret) });
    assert.equal(revoke.status, 200);
    assertInvalidToken(await bearer(w, '/userinfo', t.access_token));
  });

  test('8.98 garbage tokens → 401 invalid_token', async () => {
    for (const garbage of ['garbage', 'a.b.c', 'eyJhbGciOiJub25lIn0.e30.', 'x'.repeat(5000)]) assertInvalidToken(await bearer(w, '/userinfo', garbage));
  });

  test('8.98 a token from another issuer (own key, same claims) → 401 invalid_token', async () => {
    const t = await tokensFor(w, w.A);
    const claims = decodeJwt(t.access_token);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'attacker' }).sign(privateKey);
    assertInvalidToken(await bearer(w, '/userinfo', forged));
    const otherIss = await new SignJWT({ ...claims, iss: 'https://other.example' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'attacker' })
      .sign(privateKey);
    assertInvalidToken(await bearer(w, '/userinfo', otherIss));
  });

  test('8.100 token with no user (client_credentials) → 401 invalid_token or 403 insufficient_scope; never 200', async () => {
    const r = await token(w, w.C, { grant_type: 'client_credentials', scope: 'users:read' });
    assert.equal(r.status, 200);
    const response = await bearer(w, '/userinfo', String(r.body.access_token));
    assert.ok(response.status === 401 || response.status === 403);
    assert.match(response.headers.get('www-authenticate') ?? '', /invalid_token|insufficient_scope/);
  });

  test('8.100 user token without the openid scope → 403 insufficient_scope; never 200', async () => {
    const t = await tokensFor(w, w.A, { scope: 'users:read', nonce: undefined });
    const response = await bearer(w, '/userinfo', t.access_token);
    assert.ok(response.status === 401 || response.status === 403);
    assert.match(response.headers.get('www-authenticate') ?? '', /insufficient_scope|invalid_token/);
  });

  const SETS: Record<string, string[]> = {
    profile: ['name', 'given_name', 'family_name'],
    email: ['email', 'email_verified'],
    address: ['address'],
    phone: ['phone_number', 'phone_number_verified'],
  };
  for (const [scope, expected] of Object.entries(SETS)) {
    test(`8.101 scope=openid ${scope} → exactly the ${scope} claim set`, async () => {
      const t = await tokensFor(w, w.A, { scope: `openid ${scope}` }, w.U1);
      const info = (await (await bearer(w, '/userinfo', t.access_token)).json()) as Record<string, unknown>;
      for (const claim of expected) assert.ok(claim in info, `${claim} missing for ${scope}: ${JSON.stringify(info)}`);
      for (const [other, claims] of Object.entries(SETS))
        if (other !== scope) for (const claim of claims) assert.equal(claim in info, false, `${claim} leaked into ${scope}`);
    });
  }

  test('8.101 all four scopes together → every claim set', async () => {
    const t = await tokensFor(w, w.A, { scope: 'openid profile email address phone' }, w.U1);
    const info = (await (await bearer(w, '/userinfo', t.access_token)).json()) as Record<string, unknown>;
    for (const claims of Object.values(SETS)) for (const claim of claims) assert.ok(claim in info, claim);
  });

  test('8.x userinfo responses are Cache-Control: no-store', async () => {
    const t = await tokensFor(w, w.A);
    assert.equal((await bearer(w, '/userinfo', t.access_token)).headers.get('cache-control'), 'no-store');
  });
});
