// CORS for single-page apps: which endpoints answer which origins, and what every other path and origin gets
// (nothing, so the browser hides the answer from the page).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient } from '../../helpers/oauth-fixtures.js';
import { basicAuth } from '../fixtures.js';
import { executeCommand } from '../../../src/cli/execute.js';
import { NO_LIMITS } from '../../helpers/env.js';

const SPA = 'https://spa.example';
const OTHER_SPA = 'https://other-spa.example';
const CONFIDENTIAL_WEB = 'https://web.example';
const CONFIDENTIAL_BROWSER = 'https://browser-part.example';

let t: TestApp;
let spaClientId: string;
let otherSpaClientId: string;

before(async () => {
  t = await startTestApp({ env: { ...NO_LIMITS, CLIENT_CACHE_TTL: '0', DEMO_ENABLED: 'true', REGISTRATION_ENABLED: 'true' } });
  spaClientId = (await createClient(t.core.db, t.core.clock, { redirectUris: [`${SPA}/callback`, 'com.example.app:/cb'] })).client.id;
  otherSpaClientId = (await createClient(t.core.db, t.core.clock, { redirectUris: [`${OTHER_SPA}/cb`] })).client.id;
  // A confidential client: its redirect URI's origin is a server's, not a browser app's.
  await createClient(t.core.db, t.core.clock, { type: 'confidential', redirectUris: [`${CONFIDENTIAL_WEB}/cb`] });
});
after(() => t.close());

const preflight = (url: string, origin: string, method = 'POST') =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type, dpop' },
  });

const tokenPost = (origin: string | undefined, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin !== undefined ? { origin } : {}), ...headers },
    payload: new URLSearchParams(form).toString(),
  } as InjectOptions);

const corsHeaderNames = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'));

test("a preflight to /token from the origin of a public client's redirect URI answers 204 with methods, headers (Authorization, DPoP, Content-Type), max-age and Vary: Origin", async () => {
  const res = await preflight('/token', SPA);
  assert.equal(res.statusCode, 204);
  assert.equal(res.headers['access-control-allow-origin'], SPA);
  assert.match(String(res.headers['access-control-allow-methods']), /\bPOST\b/);
  const allowed = String(res.headers['access-control-allow-headers']).toLowerCase().split(/,\s*/);
  for (const header of ['authorization', 'dpop', 'content-type']) assert.ok(allowed.includes(header), header);
  assert.ok(Number(res.headers['access-control-max-age']) > 0);
  assert.match(String(res.headers.vary), /\bOrigin\b/);
});

test('preflights to /userinfo, /revoke and /introspect answer a registered origin too', async () => {
  for (const [path, method] of [
    ['/userinfo', 'GET'],
    ['/revoke', 'POST'],
    ['/introspect', 'POST'],
  ] as const) {
    const res = await preflight(path, SPA, method);
    assert.equal(res.statusCode, 204, path);
    assert.equal(res.headers['access-control-allow-origin'], SPA, path);
    assert.match(String(res.headers['access-control-allow-methods']), new RegExp(method), path);
  }
});

test('an unregistered origin gets no CORS headers, on the preflight nor on the request', async () => {
  const pre = await preflight('/token', 'https://evil.example');
  assert.equal(pre.statusCode, 204);
  assert.deepEqual(corsHeaderNames(pre.headers), []);
  const res = await tokenPost('https://evil.example', {
    grant_type: 'authorization_code',
    code: 'x',
    client_id: spaClientId,
    redirect_uri: `${SPA}/callback`,
    code_verifier: 'v'.repeat(43),
  });
  assert.equal(res.statusCode, 400);
  assert.deepEqual(corsHeaderNames(res.headers), []);
});

test('Origin: null is never allowed, even for a client whose private-use redirect URI has the opaque origin', async () => {
  for (const path of ['/token', '/userinfo']) assert.deepEqual(corsHeaderNames((await preflight(path, 'null')).headers), [], path);
  const res = await tokenPost('null', { grant_type: 'refresh_token', refresh_token: 'x', client_id: spaClientId });
  assert.deepEqual(corsHeaderNames(res.headers), []);
});

test('a huge or odd Origin header is harmless: no CORS headers, no 500', async () => {
  const odd = [
    `https://${'a'.repeat(20_000)}.example`,
    `${SPA}/`,
    `${SPA}/callback`,
    `${SPA}, ${OTHER_SPA}`,
    SPA.toUpperCase(),
    `${SPA}\t`,
    `https://user@spa.example`,
    `${SPA}:443`,
    '*',
  ];
  for (const origin of odd) {
    const pre = await preflight('/token', origin);
    assert.equal(pre.statusCode, 204, origin.slice(0, 40));
    assert.deepEqual(corsHeaderNames(pre.headers), [], origin.slice(0, 40));
    const res = await tokenPost(origin, { grant_type: 'refresh_token', refresh_token: 'x', client_id: spaClientId });
    assert.ok(res.statusCode < 500, origin.slice(0, 40));
    assert.deepEqual(corsHeaderNames(res.headers), [], origin.slice(0, 40));
  }
});

test('a registered origin is never echoed on another path: /authorize, the login pages, /logout, /v1, /demo and /register get no CORS headers', async () => {
  const paths = ['/authorize', '/login', '/consent', '/logout', '/v1/users/me', '/v1/orders', '/demo', '/register', '/', '/healthz'];
  for (const path of paths) {
    const get = await t.app.inject({
      method: 'GET',
      url: `${path}?client_id=${spaClientId}&redirect_uri=${encodeURIComponent(`${SPA}/callback`)}`,
      headers: { origin: SPA },
    });
    assert.ok(get.statusCode < 500, `${path} ${get.statusCode}`);
    assert.deepEqual(corsHeaderNames(get.headers), [], `GET ${path}`);
    const pre = await preflight(path, SPA, 'GET');
    assert.deepEqual(corsHeaderNames(pre.headers), [], `OPTIONS ${path}`);
  }
  for (const path of ['/register', `/register/${spaClientId}`]) {
    const res = await t.app.inject({
      method: path === '/register' ? 'POST' : 'GET',
      url: path,
      headers: { origin: SPA, 'content-type': 'application/json' },
      payload: path === '/register' ? '{}' : undefined,
    });
    assert.equal(res.statusCode, 401, path);
    assert.deepEqual(corsHeaderNames(res.headers), [], path);
  }
});

test('discovery and JWKS allow any origin with `*` and no credentials', async () => {
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/jwks.json']) {
    const res = await t.app.inject({ method: 'GET', url: path, headers: { origin: 'https://anyone.example' } });
    assert.equal(res.statusCode, 200, path);
    assert.equal(res.headers['access-control-allow-origin'], '*', path);
    assert.equal(res.headers['access-control-allow-credentials'], undefined, path);
    const pre = await preflight(path, 'https://anyone.example', 'GET');
    assert.equal(pre.statusCode, 204, path);
    assert.equal(pre.headers['access-control-allow-origin'], '*', path);
  }
});

test('no response anywhere carries Access-Control-Allow-Credentials', async () => {
  const answers = [
    await preflight('/token', SPA),
    await tokenPost(SPA, { grant_type: 'refresh_token', refresh_token: 'x', client_id: spaClientId }),
    await t.app.inject({ method: 'GET', url: '/userinfo', headers: { origin: SPA } }),
    await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json', headers: { origin: SPA } }),
  ];
  for (const res of answers) assert.equal(res.headers['access-control-allow-credentials'], undefined);
});

test('/token answers from an allowed origin expose DPoP-Nonce and WWW-Authenticate, errors included', async () => {
  const res = await tokenPost(SPA, { grant_type: 'refresh_token', refresh_token: 'not-a-token', client_id: spaClientId });
  assert.equal(res.statusCode, 400);
  assert.equal(res.headers['access-control-allow-origin'], SPA);
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
  assert.ok(exposed.includes('dpop-nonce'));
  assert.ok(exposed.includes('www-authenticate'));
  assert.match(String(res.headers.vary), /\bOrigin\b/);
  const userinfo = await t.app.inject({ method: 'GET', url: '/userinfo', headers: { origin: SPA, authorization: 'Bearer nope' } });
  assert.equal(userinfo.statusCode, 401);
  assert.equal(userinfo.headers['access-control-allow-origin'], SPA);
  assert.ok(userinfo.headers['www-authenticate']);
});

test("a /token request naming a client is answered only for that client's origins, not for another registered client's", async () => {
  const res = await tokenPost(OTHER_SPA, { grant_type: 'refresh_token', refresh_token: 'x', client_id: spaClientId });
  assert.deepEqual(corsHeaderNames(res.headers), []);
  const own = await tokenPost(OTHER_SPA, { grant_type: 'refresh_token', refresh_token: 'x', client_id: otherSpaClientId });
  assert.equal(own.headers['access-control-allow-origin'], OTHER_SPA);
});

test("a confidential client's redirect URI origin is not a CORS origin; --allowed-origin on clients create makes one, checked against the Basic credentials", async () => {
  assert.deepEqual(corsHeaderNames((await preflight('/token', CONFIDENTIAL_WEB)).headers), []);
  const created = (await executeCommand(
    [
      'clients',
      'create',
      '--name',
      'BFF',
      '--type',
      'confidential',
      '--grant-types',
      'authorization_code,client_credentials',
      '--scope',
      'orders:read',
      '--redirect-uri',
      'https://bff-server.example/cb',
      '--allowed-origin',
      CONFIDENTIAL_BROWSER,
      '--allowed-origin',
      'http://localhost:5173',
    ],
    t.core,
  )) as Record<string, unknown>;
  assert.deepEqual(created.allowed_origins, [CONFIDENTIAL_BROWSER, 'http://localhost:5173']);
  assert.equal((await preflight('/token', CONFIDENTIAL_BROWSER)).headers['access-control-allow-origin'], CONFIDENTIAL_BROWSER);
  assert.deepEqual(corsHeaderNames((await preflight('/token', 'https://bff-server.example')).headers), []);
  const authorization = basicAuth(String(created.client_id), String(created.client_secret));
  const res = await tokenPost(CONFIDENTIAL_BROWSER, { grant_type: 'client_credentials' }, { authorization });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['access-control-allow-origin'], CONFIDENTIAL_BROWSER);
  const fromSpa = await tokenPost(SPA, { grant_type: 'client_credentials' }, { authorization });
  assert.equal(fromSpa.statusCode, 200);
  assert.deepEqual(corsHeaderNames(fromSpa.headers), []);
  const fromServerOrigin = await tokenPost('https://bff-server.example', { grant_type: 'client_credentials' }, { authorization });
  assert.deepEqual(corsHeaderNames(fromServerOrigin.headers), []);
});

test('clients create refuses an --allowed-origin that is not a plain https (or loopback http) origin', async () => {
  const base = [
    'clients',
    'create',
    '--name',
    'X',
    '--type',
    'public',
    '--grant-types',
    'authorization_code',
    '--scope',
    'openid',
    '--redirect-uri',
    'https://x.example/cb',
  ];
  for (const bad of ['null', '*', 'https://x.example/', 'https://x.example/path', 'http://x.example', 'x.example', 'https://x.example, https://y.example']) {
    await assert.rejects(executeCommand([...base, '--allowed-origin', bad], t.core), /allowed-origin/, bad);
  }
});
