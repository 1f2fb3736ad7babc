// Security suite, area 3: authorization codes — single use, short-lived, bound to the client, unguessable
// (RFC 6749 §4.1.2, §4.1.3, §10.10; FAPI2-SP 5.3.2.1-11). Time moves on a manual clock, never a sleep.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { authorizationCodes } from '../../src/oauth/codes/index.js';
import { authorize, assertTokenError, bearer, exchange, REG, startWorld, token, type World } from './helpers/world.js';

const clock = manualClock();
let w: World;
before(async () => {
  w = await startWorld({ clock });
});
after(() => w.close());

describe('3. authorization codes', () => {
  test('3.46 redeem a code, then again at once → second call invalid_grant', async () => {
    const a = await authorize(w, w.A);
    assert.equal((await exchange(w, w.A, a)).status, 200);
    assertTokenError(await exchange(w, w.A, a), 'invalid_grant');
  });

  test('3.46+ ten parallel redemptions of one code → exactly one 200', async () => {
    const a = await authorize(w, w.A);
    const results = await Promise.all(Array.from({ length: 10 }, () => exchange(w, w.A, a)));
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    for (const r of results.filter((x) => x.status !== 200)) assertTokenError(r, 'invalid_grant');
  });

  test('3.47 redeem, 30 s later redeem again → invalid_grant, and the first access and refresh tokens die', async () => {
    const a = await authorize(w, w.A, { scope: 'openid offline_access', prompt: 'consent' });
    const first = await exchange(w, w.A, a);
    assert.equal(first.status, 200);
    clock.advance(30_000);
    assertTokenError(await exchange(w, w.A, a), 'invalid_grant');
    assert.equal((await bearer(w, '/userinfo', String(first.body.access_token))).status, 401);
    assert.equal((await bearer(w, '/v1/users/me', String(first.body.access_token))).status, 401);
    assertTokenError(await token(w, w.A, { grant_type: 'refresh_token', refresh_token: String(first.body.refresh_token) }), 'invalid_grant');
  });

  test('3.49 code redeemed after its lifetime (≤ 60 s) → invalid_grant', async () => {
    assert.ok(w.t.config.AUTH_CODE_TTL <= 60);
    const a = await authorize(w, w.A);
    clock.advance((w.t.config.AUTH_CODE_TTL + 1) * 1000);
    assertTokenError(await exchange(w, w.A, a), 'invalid_grant');
  });

  test('3.49+ a code redeemed just inside its lifetime still works', async () => {
    const a = await authorize(w, w.A);
    clock.advance((w.t.config.AUTH_CODE_TTL - 2) * 1000);
    assert.equal((await exchange(w, w.A, a)).status, 200);
  });

  test("3.50 A's code redeemed with B's valid credentials → invalid_grant", async () => {
    const a = await authorize(w, w.A);
    assertTokenError(await exchange(w, w.B, a), 'invalid_grant');
  });

  test("3.50 P's code redeemed with client_id of another public client → invalid_grant", async () => {
    const a = await authorize(w, w.P);
    const { registerClient } = await import('../oauth/fixtures.js');
    const P2 = await registerClient(w.t.core, {
      grant_types: ['authorization_code'],
      redirect_uris: [REG],
      scope: 'openid',
      token_endpoint_auth_method: 'none',
    });
    assertTokenError(await token(w, P2, { grant_type: 'authorization_code', code: a.code, redirect_uri: REG, code_verifier: a.verifier }), 'invalid_grant');
  });

  test('3.50+ a confidential client redeeming its code without authenticating → invalid_client', async () => {
    const a = await authorize(w, w.A);
    assertTokenError(
      await token(w, w.A, { grant_type: 'authorization_code', code: a.code, redirect_uri: REG, code_verifier: a.verifier }, 'none'),
      'invalid_client',
    );
  });

  test('3.50+ redirect_uri at /token different from the one at /authorize → invalid_grant', async () => {
    const a = await authorize(w, w.A);
    assertTokenError(await exchange(w, w.A, a, { redirect_uri: 'https://client.example/cb2?x=1' }), 'invalid_grant');
  });

  test('3.52 code altered (flipped, truncated, extended, foreign) → invalid_grant, no 5xx', async () => {
    const a = await authorize(w, w.A);
    const flip = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');
    for (const code of [
      flip(a.code),
      a.code.slice(0, -3),
      `${a.code}x`,
      'gh_code_from_another_environment_0123456789',
      '',
      'a'.repeat(5000),
      "' OR '1'='1",
      '%00',
    ]) {
      assertTokenError(await exchange(w, w.A, { ...a, code }), ['invalid_grant', 'invalid_request']);
    }
    assert.equal((await exchange(w, w.A, a)).status, 200, 'the genuine code still works after the failed guesses');
  });

  test('3.53 1,000 issued codes → no duplicates, ≥ 128 bits each (≥ 22 base64url chars), no user data inside', async () => {
    const issuer = authorizationCodes(w.t.core);
    const codes = await Promise.all(
      Array.from({ length: 1000 }, () =>
        issuer.issue({ clientId: w.A.id, redirectUri: REG, codeChallenge: 'a'.repeat(43), scope: ['openid'], userId: w.U1.id, authTime: 1 }),
      ),
    );
    assert.equal(new Set(codes).size, 1000);
    for (const code of codes) {
      assert.match(code, /^[A-Za-z0-9_-]{22,}$/);
      assert.ok(!code.includes(w.U1.id) && !code.includes(w.A.id));
    }
    const chars = new Set(codes.join(''));
    assert.ok(chars.size >= 60, 'codes draw from the whole base64url alphabet');
  });
});
