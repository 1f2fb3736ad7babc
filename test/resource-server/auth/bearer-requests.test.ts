// What a resource route does with the bearer request around a token (RFC 6750, RFC 9068 §4): a valid token
// accepted with its principal, the scheme and where the token may travel, expiry and cnf, scope, unknown or
// injected kids, garbage and hostile values. The forged tokens themselves are in forged-tokens.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestApp } from '../../helpers/app.js';
import { b64, rawJws, sign, testIssuerKeys, type JwksServer, type TestIssuerKeys } from './forge.js';
import { closeProbeWorld, probeRequests, startProbeWorld } from './probe-world.js';

let t: TestApp;
let jwks: JwksServer;
let keys: TestIssuerKeys;
before(async () => {
  ({ t, jwks, keys } = await startProbeWorld());
});
after(() => closeProbeWorld({ t, jwks }));
const { good, es256, call, assertInvalidToken } = probeRequests(() => ({ t, keys }));

test('a valid at+jwt from the trusted JWKS is accepted, and its principal is a user', async () => {
  const res = await call(await es256());
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(await res.json(), { sub: 'user-1', kind: 'user' });
});

test('aud may be an array that contains this API', async () => {
  const res = await call(await es256(good({ aud: ['https://other.example', t.config.API_AUDIENCE] })));
  assert.equal(res.status, 200);
});

test('a client_credentials token (sub = client_id, no auth_time) is a service principal', async () => {
  const res = await call(await es256(good({ sub: 'svc', client_id: 'svc', auth_time: undefined })));
  assert.deepEqual(await res.json(), { sub: 'svc', kind: 'service' });
});

test('the Bearer scheme is case-insensitive', async () => {
  const token = await es256();
  const res = await fetch(`${t.url}/probe/whoami`, { headers: { authorization: `bEaReR ${token}` } });
  assert.equal(res.status, 200);
});

test('no Authorization header answers 401 with a bare Bearer challenge and no error attribute', async () => {
  const res = await call(undefined);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
});

test('a non-Bearer scheme (Basic, Token) answers 401 with a bare Bearer challenge', async () => {
  for (const authorization of ['Basic dXNlcjpwYXNz', `Token ${await es256()}`]) {
    const res = await fetch(`${t.url}/probe/whoami`, { headers: { authorization } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  }
});

test('a token only in the query (?access_token=) is not accepted: 401', async () => {
  const res = await fetch(`${t.url}/probe/whoami?access_token=${await es256()}`);
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
});

test('a token in the header and the query answers 400 invalid_request', async () => {
  const token = await es256();
  const res = await call(token, { path: `/whoami?access_token=${token}` });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_request"/);
  assert.equal(((await res.json()) as { code: string }).code, 'invalid-request');
});

test('a token in the header and a form body answers 400 invalid_request', async () => {
  const token = await es256();
  const res = await call(token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `access_token=${token}`,
  });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('www-authenticate') ?? '', /error="invalid_request"/);
});

test('a token only in a form body is not accepted: 401', async () => {
  const res = await fetch(`${t.url}/probe/whoami`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `access_token=${await es256()}`,
  });
  assert.equal(res.status, 401);
});

test('an expired token is refused with a 401 that says so without echoing it', async () => {
  const now = Math.floor(Date.now() / 1000);
  const token = await es256(good({ iat: now - 900, exp: now - 600 }));
  const res = await call(token);
  await assertInvalidToken(res, token);
});

test('a DPoP-bound token (cnf.jkt) sent with the Bearer scheme is refused with a DPoP challenge (RFC 9449 §7.1)', async () => {
  const token = await es256(good({ cnf: { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' } }));
  const res = await call(token);
  assert.equal(res.status, 401);
  assert.match(res.headers.get('www-authenticate') ?? '', /^DPoP algs="ES256 RS256 PS256", error="invalid_token"/);
  assert.equal(((await res.json()) as { code: string }).code, 'invalid-token');
});

test('a cnf other than one JWK thumbprint (jkt) is not understood: 401 invalid_token', async () => {
  for (const cnf of [{ 'x5t#S256': 'abc' }, { jkt: 'short' }, { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I', extra: 1 }, 'jkt']) {
    const token = await es256(good({ cnf }));
    await assertInvalidToken(await call(token), token);
  }
});

test('a valid token without the route scope answers 403 insufficient_scope naming every required scope', async () => {
  const res = await call(await es256(good({ scope: 'users:read users:write' })), { path: '/admin' });
  assert.equal(res.status, 403);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer error="insufficient_scope"/);
  assert.match(challenge, /scope="users:write orders:read"/);
  assert.equal(((await res.json()) as { code: string }).code, 'insufficient-scope');
});

test('unknown kids cause at most one JWKS refresh at the issuer, however many requests: no amplification', async () => {
  const before = jwks.fetches();
  const other = await testIssuerKeys();
  const tokens = await Promise.all(Array.from({ length: 100 }, (_, i) => sign(good(), other.privateKey, { alg: 'ES256', typ: 'at+jwt', kid: `unknown-${i}` })));
  const responses = await Promise.all(tokens.map((token) => call(token)));
  for (const res of responses) assert.equal(res.status, 401);
  assert.ok(jwks.fetches() - before <= 2, `JWKS fetched ${jwks.fetches() - before} times for 100 unknown kids`);
});

test('kid injection strings answer 401 invalid_token, never 5xx, and fetch nothing extra', async () => {
  const before = jwks.fetches();
  for (const kid of ['../../../../dev/null', "' OR '1'='1", '$(id)', 'https://evil.example/jwks.json', 'k'.repeat(10_240), '\u0000', '{}']) {
    const token = await sign(good(), keys.privateKey, { alg: 'ES256', typ: 'at+jwt', kid });
    const res = await call(token);
    assert.ok(res.status === 401 || res.status === 400, `status ${res.status}`);
    if (res.status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
  }
  assert.ok(jwks.fetches() - before <= 1);
});

test('garbage bearer values answer 401 invalid_token, never 5xx', async () => {
  for (const token of ['abc', 'a.b.c', '...', `${'a'.repeat(9000)}`, 'eyJhbGciOiJFUzI1NiJ9.e30', `${b64('{"alg":')}.e30.sig`]) {
    const res = await call(token);
    assert.equal(res.status, 401, token.slice(0, 20));
  }
});

test('401 and 403 descriptions carry no CR/LF even when the request is hostile', async () => {
  const token = rawJws({ alg: 'ES256\r\nX-Evil: 1', typ: 'at+jwt', kid: 'a\r\nb' }, good(), 'AAAA');
  const res = await call(token);
  assert.equal(res.status, 401);
  assert.doesNotMatch(res.headers.get('www-authenticate') ?? '', /[\r\n]/);
  assert.equal(res.headers.get('x-evil'), null);
});
