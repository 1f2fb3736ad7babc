// Security suite, area 6: refresh tokens (RFC 6749 §6, §10.4; RFC 9700 §2.2.2, §4.14.2; OIDC Core §11).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { authorize, assertTokenError, bearer, exchange, startWorld, token, tokensFor, type World } from './helpers/world.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

const refresh = (client: World['A'], refreshToken: string, extra: Record<string, string> = {}) =>
  token(w, client, { grant_type: 'refresh_token', refresh_token: refreshToken, ...extra });

describe('6. refresh tokens', () => {
  test('6.74 refresh with a valid refresh token and client auth (oauth4webapi) → 200, new access token, no-store', async () => {
    const first = await tokensFor(w, w.A);
    const as = { issuer: w.url, token_endpoint: `${w.url}/token` };
    const response = await oauth.refreshTokenGrantRequest(as, { client_id: w.A.id }, oauth.ClientSecretBasic(w.A.secret), first.refresh_token!, {
      [oauth.allowInsecureRequests]: true,
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const body = (await response.json()) as { access_token: string; refresh_token: string };
    assert.notEqual(body.access_token, first.access_token);
    assert.ok(body.refresh_token);
  });

  test("6.76 A's refresh token presented with B's credentials → invalid_grant, and A's token is not burnt by the attempt", async () => {
    const first = await tokensFor(w, w.A);
    assertTokenError(await refresh(w.B, first.refresh_token!), 'invalid_grant');
    assertTokenError(await refresh(w.P, first.refresh_token!), 'invalid_grant');
    assert.equal((await refresh(w.A, first.refresh_token!)).status, 200);
  });

  test('6.77 scope wider than originally granted → invalid_scope', async () => {
    const first = await tokensFor(w, w.A, { scope: 'openid offline_access' });
    assertTokenError(await refresh(w.A, first.refresh_token!, { scope: 'openid offline_access email' }), 'invalid_scope');
    assertTokenError(await refresh(w.A, first.refresh_token!, { scope: 'openid offline_access users:read' }), 'invalid_scope');
  });

  test('6.77+ narrowing works and the narrowed access token lacks the dropped scope', async () => {
    const first = await tokensFor(w, w.A, { scope: 'openid offline_access profile' });
    const r = await refresh(w.A, first.refresh_token!, { scope: 'openid offline_access' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(String(r.body.scope).split(' ').sort(), ['offline_access', 'openid']);
  });

  test('6.79 P rotates RT1 → RT2; replaying RT1 → invalid_grant, and RT2 (the whole family) is dead too', async () => {
    const first = await tokensFor(w, w.P);
    const second = await refresh(w.P, first.refresh_token!);
    assert.equal(second.status, 200);
    const rt2 = String(second.body.refresh_token);
    assert.notEqual(rt2, first.refresh_token);
    assertTokenError(await refresh(w.P, first.refresh_token!), 'invalid_grant');
    assertTokenError(await refresh(w.P, rt2), 'invalid_grant');
    assert.equal((await bearer(w, '/userinfo', String(second.body.access_token))).status, 401, 'the family’s access tokens die too');
  });

  test('6.80 two concurrent refreshes with one rotating RT → at most one success, never two live families', async () => {
    const first = await tokensFor(w, w.P);
    const results = await Promise.all([refresh(w.P, first.refresh_token!), refresh(w.P, first.refresh_token!), refresh(w.P, first.refresh_token!)]);
    const winners = results.filter((r) => r.status === 200);
    assert.ok(winners.length <= 1, `${winners.length} winners`);
    for (const r of results.filter((x) => x.status !== 200)) assertTokenError(r, 'invalid_grant');
    // Whatever the outcome, at most one refresh token of the family can still be used.
    const live = [];
    for (const r of winners) if ((await refresh(w.P, String(r.body.refresh_token))).status === 200) live.push(r);
    assert.ok(live.length <= 1);
  });

  test('6.82 access token used as refresh_token → invalid_grant', async () => {
    const first = await tokensFor(w, w.A);
    assertTokenError(await refresh(w.A, first.access_token), 'invalid_grant');
    assertTokenError(await refresh(w.A, first.id_token!), 'invalid_grant');
  });

  test('6.82 refresh token used as Bearer at the RS or userinfo → 401 invalid_token', async () => {
    const first = await tokensFor(w, w.A);
    for (const path of ['/userinfo', '/v1/users/me']) {
      const response = await bearer(w, path, first.refresh_token!);
      assert.equal(response.status, 401);
      assert.match(response.headers.get('www-authenticate') ?? '', /invalid_token/);
    }
  });

  test('6.83 scope=openid offline_access without prompt=consent → consent screen forced (or no refresh token)', async () => {
    const browser = new (await import('../helpers/browser.js')).Browser(w.url);
    const { authorizeUrl } = await import('./helpers/world.js');
    const first = await browser.get(authorizeUrl(w.B.id, { scope: 'openid offline_access' }));
    const login = await browser.get(first.headers.get('location')!);
    const { parseForm } = await import('../helpers/browser.js');
    const { PASSWORD } = await import('../helpers/users.js');
    const form = parseForm(await login.text());
    const afterLogin = await browser.post(form.action, { ...form.hidden, username: w.U2.username, password: PASSWORD });
    const next = afterLogin.headers.get('location')!;
    if (next.startsWith('https://client.example')) {
      const location = new URL(next);
      assert.fail(`no consent screen for offline_access: ${location.href}`);
    }
    const consent = await (await browser.get(next)).text();
    assert.match(consent, /name="decision"/);
    assert.match(consent, /offline_access|offline/i);
  });

  test('6.x a refresh token of a public client is bound: client_id omitted → invalid_client/invalid_request', async () => {
    const first = await tokensFor(w, w.P);
    const { postForm } = await import('../oauth/fixtures.js');
    const r = await postForm(`${w.url}/token`, { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    assertTokenError(r, ['invalid_client', 'invalid_request']);
  });

  test('6.x a refused refresh (resource of another API) does not rotate: the same refresh token still works', async () => {
    const first = await tokensFor(w, w.A);
    for (const resource of ['https://other.example/api', ';0OC']) {
      assertTokenError(await refresh(w.A, first.refresh_token!, { resource }), 'invalid_target');
    }
    assert.equal((await refresh(w.A, first.refresh_token!)).status, 200);
  });

  test('6.x a tampered refresh token → invalid_grant, no 5xx', async () => {
    const first = await tokensFor(w, w.A);
    const rt = first.refresh_token!;
    for (const bad of [rt.slice(0, -1), `${rt}A`, rt.toUpperCase(), '', ' ', 'x'.repeat(10_000)]) {
      assertTokenError(await refresh(w.A, bad), ['invalid_grant', 'invalid_request']);
    }
  });

  test('6.x a revoked (logged-out) grant: code exchanged, then RT revoked at /revoke → refresh invalid_grant', async () => {
    const a = await authorize(w, w.A, { scope: 'openid offline_access', prompt: 'consent' });
    const r = await exchange(w, w.A, a);
    const { basicAuth, postForm } = await import('../oauth/fixtures.js');
    const revoked = await postForm(`${w.url}/revoke`, { token: String(r.body.refresh_token) }, { authorization: basicAuth(w.A.id, w.A.secret) });
    assert.equal(revoked.status, 200);
    assertTokenError(await refresh(w.A, String(r.body.refresh_token)), 'invalid_grant');
  });
});
