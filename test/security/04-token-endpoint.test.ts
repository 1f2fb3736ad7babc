// Security suite, area 4: the token endpoint (RFC 6749 §3.2, §5.1, §5.2, App. A; RFC 9700 §2.4).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { basicAuth, postForm } from '../oauth/fixtures.js';
import { authorize, assertTokenError, exchange, startWorld, token, type World } from './helpers/world.js';

let w: World;
before(async () => {
  w = await startWorld();
});
after(() => w.close());

const REGISTERED = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
]);

/** Shannon estimate over the character distribution × length: a rough lower bound proxy. */
function entropyBits(values: string[]): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const v of values)
    for (const ch of v) {
      counts.set(ch, (counts.get(ch) ?? 0) + 1);
      total += 1;
    }
  let perChar = 0;
  for (const c of counts.values()) perChar -= (c / total) * Math.log2(c / total);
  return perChar * Math.min(...values.map((v) => v.length));
}

describe('4. token endpoint', () => {
  test('4.55 GET /token?grant_type=…&code=… → 405 with Allow: POST, never tokens', async () => {
    const a = await authorize(w, w.P);
    const response = await fetch(
      `${w.url}/token?grant_type=authorization_code&code=${a.code}&client_id=${w.P.id}&code_verifier=${a.verifier}&redirect_uri=${encodeURIComponent('https://client.example/cb')}`,
    );
    assert.equal(response.status, 405);
    assert.match(response.headers.get('allow') ?? '', /POST/);
    assert.doesNotMatch(await response.text(), /access_token/);
    assert.equal((await exchange(w, w.P, a)).status, 200, 'the GET did not consume the code');
  });

  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    test(`4.55+ ${method} /token → 405, never tokens`, async () => {
      const response = await fetch(`${w.url}/token`, {
        method,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      assert.equal(response.status, 405);
    });
  }

  test('4.56 POST with a JSON body → invalid_request (or 415); the grant is not processed', async () => {
    const a = await authorize(w, w.P);
    const response = await fetch(`${w.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        code: a.code,
        client_id: w.P.id,
        code_verifier: a.verifier,
        redirect_uri: 'https://client.example/cb',
      }),
    });
    assert.ok(response.status === 400 || response.status === 415);
    if (response.status === 400) assert.equal(((await response.json()) as { error: string }).error, 'invalid_request');
    assert.equal((await exchange(w, w.P, a)).status, 200, 'the JSON request did not consume the code');
  });

  test('4.56+ multipart/form-data body → refused, not processed', async () => {
    const form = new FormData();
    form.set('grant_type', 'client_credentials');
    const response = await fetch(`${w.url}/token`, { method: 'POST', headers: { authorization: basicAuth(w.C.id, w.C.secret) }, body: form });
    assert.ok(response.status === 400 || response.status === 415, String(response.status));
  });

  test('4.58 grant_type=urn:example:unknown → unsupported_grant_type', async () => {
    assertTokenError(await token(w, w.A, { grant_type: 'urn:example:unknown' }), 'unsupported_grant_type');
  });

  test('4.58 grant_type=password with valid user credentials → unsupported_grant_type (or unauthorized_client)', async () => {
    const r = await token(w, w.A, { grant_type: 'password', username: w.U1.username, password: 'correct horse battery staple' });
    assertTokenError(r, ['unsupported_grant_type', 'unauthorized_client']);
  });

  test('4.58+ implicit-style and device grants are unsupported', async () => {
    for (const grant of [
      'implicit',
      'token',
      'urn:ietf:params:oauth:grant-type:device_code',
      'urn:ietf:params:oauth:grant-type:jwt-bearer',
      'urn:ietf:params:oauth:grant-type:token-exchange',
    ]) {
      assertTokenError(await token(w, w.A, { grant_type: grant }), ['unsupported_grant_type', 'unauthorized_client', 'invalid_request']);
    }
  });

  test('4.59 client A (authorization_code, refresh_token only) sends client_credentials → unauthorized_client', async () => {
    assertTokenError(await token(w, w.A, { grant_type: 'client_credentials', scope: 'users:read' }), 'unauthorized_client');
  });

  test('4.59+ public client P sends client_credentials → unauthorized_client or invalid_client, never tokens', async () => {
    assertTokenError(await token(w, w.P, { grant_type: 'client_credentials' }), ['unauthorized_client', 'invalid_client']);
  });

  test('4.61 every token-endpoint error is 400/401 application/json with a registered error code', async () => {
    const cases: Array<Record<string, string> | string> = [
      {},
      { grant_type: '' },
      { grant_type: 'authorization_code' },
      { grant_type: 'authorization_code', code: 'x' },
      { grant_type: 'refresh_token' },
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { grant_type: 'client_credentials', scope: 'not-a-scope' },
      'grant_type=client_credentials&grant_type=client_credentials',
      '%%%=%%%',
    ];
    for (const params of cases) {
      for (const headers of [{ authorization: basicAuth(w.C.id, w.C.secret) }, {}, { authorization: 'Basic !!!' }] as Array<Record<string, string>>) {
        const r = await postForm(`${w.url}/token`, params, headers);
        assert.ok(r.status === 400 || r.status === 401, `${JSON.stringify(params)} → ${r.status}`);
        assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
        assert.ok(REGISTERED.has(String(r.body.error)), r.text);
        assert.equal(r.status === 401, r.body.error === 'invalid_client');
        assert.equal(r.headers.get('cache-control'), 'no-store');
      }
    }
  });

  test('4.62 50 token responses → VSCHAR only, ≥ 128 bits estimated, all distinct', async () => {
    const accessTokens: string[] = [];
    const refreshTokens: string[] = [];
    const a = await authorize(w, w.A, { scope: 'openid offline_access', prompt: 'consent' });
    let refresh = String((await exchange(w, w.A, a)).body.refresh_token);
    for (let i = 0; i < 50; i++) {
      const r = await token(w, w.A, { grant_type: 'refresh_token', refresh_token: refresh });
      assert.equal(r.status, 200, r.text);
      accessTokens.push(String(r.body.access_token));
      refresh = String(r.body.refresh_token);
      refreshTokens.push(refresh);
    }
    for (const list of [accessTokens, refreshTokens]) {
      assert.equal(new Set(list).size, list.length);
      for (const v of list) assert.match(v, /^[\x20-\x7E]+$/);
    }
    assert.ok(entropyBits(refreshTokens) >= 128, `refresh token entropy ${entropyBits(refreshTokens)}`);
    // Access tokens are signed JWTs: their unpredictability is the signature, and each has a distinct jti.
    const jtis = accessTokens.map((t) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString()).jti as string);
    assert.equal(new Set(jtis).size, 50);
  });

  test('4.x a successful token response carries Cache-Control: no-store and Pragma: no-cache', async () => {
    const a = await authorize(w, w.A);
    const r = await exchange(w, w.A, a);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(typeof r.body.expires_in, 'number');
  });
});
