// The /token endpoint's request rules (RFC 6749 3.2, 5.2), independent of any one grant.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

let t: TestApp;
let service: RegisteredClient;
let webApp: RegisteredClient;
let tokenUrl: string;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  tokenUrl = `${t.url}/token`;
  service = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'orders:read' });
  webApp = await registerClient(t.core, {
    grant_types: ['authorization_code', 'refresh_token'],
    redirect_uris: ['https://app.example/cb'],
    scope: 'openid orders:read',
  });
});
after(() => t.close());

const assertNoStore = (headers: Headers) => {
  assert.equal(headers.get('cache-control'), 'no-store');
  assert.equal(headers.get('pragma'), 'no-cache');
};

test('a successful token response carries Cache-Control: no-store and Pragma: no-cache', async () => {
  const res = await postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basicAuth(service.id, service.secret) });
  assert.equal(res.status, 200);
  assertNoStore(res.headers);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
});

test('GET /token is 405 with Allow: POST (and OPTIONS, the CORS preflight) and never issues tokens', async () => {
  const res = await fetch(`${tokenUrl}?grant_type=client_credentials&client_id=${service.id}&client_secret=${service.secret}`);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'OPTIONS, POST');
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.access_token, undefined);
  assertNoStore(res.headers);
});

test('a JSON body is refused with invalid_request and the grant is not processed', async () => {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: basicAuth(service.id, service.secret) },
    body: JSON.stringify({ grant_type: 'client_credentials' }),
  });
  assert.equal(res.status, 400);
  assert.equal(((await res.json()) as { error: string }).error, 'invalid_request');
  assertNoStore(res.headers);
});

test('a text/plain body or no content type is refused with invalid_request', async () => {
  for (const headers of [{ 'content-type': 'text/plain' }, {}] as Record<string, string>[]) {
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: { ...headers, authorization: basicAuth(service.id, service.secret) },
      body: 'grant_type=client_credentials',
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: string };
    assert.equal(body.error, 'invalid_request');
  }
});

test('a repeated parameter is refused with invalid_request', async () => {
  const res = await postForm(tokenUrl, 'grant_type=client_credentials&scope=orders:read&scope=orders:read', {
    authorization: basicAuth(service.id, service.secret),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_request');
  assertNoStore(res.headers);
});

test('a missing grant_type is invalid_request', async () => {
  const res = await postForm(tokenUrl, { scope: 'orders:read' }, { authorization: basicAuth(service.id, service.secret) });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_request');
});

test('grant_type password, implicit-style and unknown values are unsupported_grant_type', async () => {
  for (const grantType of ['password', 'implicit', 'token', 'urn:example:unknown']) {
    const res = await postForm(tokenUrl, { grant_type: grantType, username: 'u', password: 'p' }, { authorization: basicAuth(service.id, service.secret) });
    assert.equal(res.status, 400, grantType);
    assert.equal(res.body.error, 'unsupported_grant_type', grantType);
    assertNoStore(res.headers);
  }
});

test('a client not registered for client_credentials gets unauthorized_client', async () => {
  const res = await postForm(tokenUrl, { grant_type: 'client_credentials' }, { authorization: basicAuth(webApp.id, webApp.secret) });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'unauthorized_client');
});

test('client credentials in the URL query are never accepted', async () => {
  const query = new URLSearchParams({ client_id: service.id, client_secret: service.secret }).toString();
  const res = await postForm(`${tokenUrl}?${query}`, { grant_type: 'client_credentials' });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, 'invalid_request');
  assert.equal(res.body.access_token, undefined);
});

test('every token error is RFC 6749 JSON with error and error_description, never problem+json', async () => {
  const res = await postForm(tokenUrl, { grant_type: 'nope' }, { authorization: basicAuth(service.id, service.secret) });
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(res.body).sort(), ['error', 'error_description']);
});

test('a body over the form limit is refused without a 5xx', async () => {
  const res = await postForm(
    tokenUrl,
    { grant_type: 'client_credentials', pad: 'x'.repeat(t.config.FORM_BODY_LIMIT + 10) },
    {
      authorization: basicAuth(service.id, service.secret),
    },
  );
  assert.equal(res.status, 413);
  assertNoStore(res.headers);
});

test('parameters the grant did not declare are stripped (an extra audience-like parameter changes nothing)', async () => {
  const res = await postForm(
    tokenUrl,
    { grant_type: 'client_credentials', sub: 'admin', client_id: service.id, aud: 'https://evil.example' },
    {
      authorization: basicAuth(service.id, service.secret),
    },
  );
  assert.equal(res.status, 200);
  const claims = JSON.parse(Buffer.from(String(res.body.access_token).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  assert.equal(claims.sub, service.id);
  assert.equal(claims.aud, t.config.API_AUDIENCE);
});
