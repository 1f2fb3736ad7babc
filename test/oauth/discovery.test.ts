// OIDC Discovery 1.0 / RFC 8414: the metadata document, and a walk over every advertised value proving the
// server behaves accordingly.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { validateClientMetadata } from '../../src/oauth/clients/metadata.js';
import { basicAuth, postForm, registerClient } from './fixtures.js';
import { NO_LIMITS } from '../helpers/env.js';

let t: TestApp;
let metadata: Record<string, unknown>;

before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
  metadata = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
});
after(() => t.close());

const list = (name: string) => metadata[name] as string[];

test('discovery answers 200 application/json with issuer equal to the exact URL prefix it was fetched from', async () => {
  const res = await fetch(`${t.url}/.well-known/openid-configuration`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(metadata.issuer, t.url);
});

test('/.well-known/oauth-authorization-server answers the same document', async () => {
  const other = await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json();
  assert.deepEqual(other, metadata);
});

test('the OAuth endpoints of this issue are advertised under the issuer', () => {
  assert.equal(metadata.token_endpoint, `${t.url}/token`);
  assert.equal(metadata.jwks_uri, `${t.url}/.well-known/jwks.json`);
  assert.equal(metadata.revocation_endpoint, `${t.url}/revoke`);
  assert.equal(metadata.introspection_endpoint, `${t.url}/introspect`);
});

test('fixed policy values: S256 only, code only, iss in responses, no request objects, no implicit or password grant', () => {
  assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(metadata.response_types_supported, ['code']);
  assert.equal(metadata.authorization_response_iss_parameter_supported, true);
  assert.equal(metadata.request_parameter_supported, false);
  assert.equal(metadata.request_uri_parameter_supported, false);
  assert.deepEqual(metadata.subject_types_supported, ['public']);
  for (const g of ['implicit', 'password']) assert.ok(!list('grant_types_supported').includes(g));
});

test('response_modes_supported advertises exactly the modes /authorize accepts: query and form_post', () => {
  assert.deepEqual(metadata.response_modes_supported, ['query', 'form_post']);
});

test('every advertised endpoint is served (no advertised URL answers 404)', async () => {
  const endpoints = Object.entries(metadata).filter(([k]) => k.endsWith('_endpoint') || k === 'jwks_uri');
  assert.ok(endpoints.length >= 4);
  for (const [name, url] of endpoints) {
    const get = await fetch(String(url));
    const post = await fetch(String(url), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.ok(get.status !== 404 || post.status !== 404, `${name} ${String(url)} is not served`);
    assert.ok(get.status < 500 && post.status < 500, `${name} answers 5xx`);
  }
});

test('every advertised grant type is accepted by /token (never unsupported_grant_type)', async () => {
  for (const grantType of list('grant_types_supported')) {
    const c = await registerClient(t.core, {
      grant_types: [grantType],
      ...(grantType === 'client_credentials' ? {} : { redirect_uris: ['https://app.example/cb'] }),
      scope: 'orders:read openid',
    });
    const res = await postForm(`${t.url}/token`, { grant_type: grantType }, { authorization: basicAuth(c.id, c.secret) });
    assert.notEqual(res.body.error, 'unsupported_grant_type', grantType);
    assert.notEqual(res.body.error, 'unauthorized_client', grantType);
  }
});

test('every advertised token endpoint auth method, and every assertion signing alg, authenticates a client', async () => {
  const results: Record<string, number> = {};
  for (const method of list('token_endpoint_auth_methods_supported')) {
    if (method === 'private_key_jwt') {
      for (const alg of list('token_endpoint_auth_signing_alg_values_supported')) {
        const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
        const c = await registerClient(t.core, { token_endpoint_auth_method: method, jwks: { keys: [{ ...(await exportJWK(publicKey)), alg }] } });
        const assertion = await new SignJWT({ iss: c.id, sub: c.id, aud: t.url, jti: randomUUID() })
          .setProtectedHeader({ alg })
          .setExpirationTime('1m')
          .sign(privateKey);
        const res = await postForm(`${t.url}/token`, {
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        });
        results[`${method}/${alg}`] = res.status;
      }
      continue;
    }
    if (method === 'none') {
      // A public client is identified; it then meets the grant's own rules (not invalid_client).
      const c = await registerClient(t.core, {
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        redirect_uris: ['https://p.example/cb'],
        scope: 'openid',
      });
      const res = await postForm(`${t.url}/token`, { grant_type: 'client_credentials', client_id: c.id });
      results[method] = res.body.error === 'invalid_client' ? 401 : 200;
      continue;
    }
    const c = await registerClient(t.core, { token_endpoint_auth_method: method });
    const res =
      method === 'client_secret_basic'
        ? await postForm(`${t.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(c.id, c.secret) })
        : await postForm(`${t.url}/token`, { grant_type: 'client_credentials', client_id: c.id, client_secret: c.secret });
    results[method] = res.status;
  }
  for (const [method, status] of Object.entries(results)) assert.equal(status, 200, method);
  assert.ok(Object.keys(results).length >= 4);
});

test('revocation and introspection advertise the auth methods they enforce', async () => {
  const publicClient = await registerClient(t.core, {
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
    redirect_uris: ['https://p.example/cb'],
    scope: 'openid',
  });
  for (const [endpoint, methods] of [
    ['revocation_endpoint', list('revocation_endpoint_auth_methods_supported')],
    ['introspection_endpoint', list('introspection_endpoint_auth_methods_supported')],
  ] as const) {
    const res = await postForm(String(metadata[endpoint]), { token: 'x', client_id: publicClient.id });
    assert.equal(res.status === 200, methods.includes('none'), `${endpoint} and method none`);
    const c = await registerClient(t.core);
    const ok = await postForm(String(metadata[endpoint]), { token: 'x' }, { authorization: basicAuth(c.id, c.secret) });
    assert.equal(ok.status === 200, methods.includes('client_secret_basic'), `${endpoint} and client_secret_basic`);
  }
});

test('every advertised scope can be registered for a client, and nothing else can', async () => {
  const catalogue = await t.core.resources.catalogue();
  for (const scope of list('scopes_supported')) await validateClientMetadata({ grant_types: ['client_credentials'], scope }, { catalogue });
  await assert.rejects(validateClientMetadata({ grant_types: ['client_credentials'], scope: 'admin' }, { catalogue }));
});

test('every advertised id_token signing alg has a key in the JWKS', async () => {
  const jwks = (await (await fetch(String(metadata.jwks_uri))).json()) as { keys: { alg: string }[] };
  for (const alg of list('id_token_signing_alg_values_supported'))
    assert.ok(
      jwks.keys.some((k) => k.alg === alg),
      alg,
    );
  assert.ok(list('id_token_signing_alg_values_supported').includes('RS256'));
});
