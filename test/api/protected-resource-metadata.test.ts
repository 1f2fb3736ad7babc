// RFC 9728 for the built-in resource API: the metadata document found from the API's identifier by a real
// client library (oauth4webapi), and `resource_metadata` in the API's 401 challenge pointing at it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { NO_LIMITS } from '../helpers/env.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

test('RFC 9728 metadata at /.well-known/oauth-protected-resource/v1 names the resource, its authorization server, scopes and DPoP algorithms', async () => {
  const resource = new URL(`${t.url}/v1`);
  const metadata = await oauth.processResourceDiscoveryResponse(
    resource,
    await oauth.resourceDiscoveryRequest(resource, { [oauth.allowInsecureRequests]: true }),
  );
  assert.equal(metadata.resource, `${t.url}/v1`);
  assert.deepEqual(metadata.authorization_servers, [t.url]);
  assert.ok(metadata.scopes_supported?.includes('orders:read'));
  assert.deepEqual(metadata.bearer_methods_supported, ['header']);
  assert.ok(metadata.dpop_signing_alg_values_supported?.includes('ES256'));
});

test('the resource API 401 challenge carries resource_metadata (RFC 9728 5.1)', async () => {
  const url = `${t.url}/.well-known/oauth-protected-resource/v1`;
  const bare = await fetch(`${t.url}/v1/orders`);
  assert.equal(bare.status, 401);
  assert.equal(bare.headers.get('www-authenticate'), `Bearer resource_metadata="${url}"`);
  const invalid = await fetch(`${t.url}/v1/orders`, { headers: { authorization: 'Bearer not-a-token' } });
  assert.equal(invalid.status, 401);
  assert.match(
    invalid.headers.get('www-authenticate') ?? '',
    new RegExp(`^Bearer error="invalid_token".*, resource_metadata="${url.replace(/[.]/g, '\\.')}"$`),
  );
});
