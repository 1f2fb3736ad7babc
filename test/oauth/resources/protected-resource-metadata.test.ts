// RFC 9728 for every resource server (docs/resource-servers.md, "Protected-resource metadata"): each registered
// identifier has a document, found by a real client library (oauth4webapi) at the RFC 9728 3 address when the
// identifier is on Gatehouse's origin, and as a copy for one on another host; `resource-servers create` and the
// admin API give its URL; every 401/403 challenge of Gatehouse's own faces (/v1, /admin/v1, /userinfo) names
// the document of that face.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { executeCommand } from '../../../src/cli/execute.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { basicAuth, postForm, registerClient } from '../fixtures.js';

let t: TestApp;
const insecure = { [oauth.allowInsecureRequests]: true };
const cli = (...argv: string[]) => executeCommand(argv, t.core) as Promise<Record<string, unknown>>;
before(async () => {
  t = await startTestApp({ env: NO_LIMITS });
});
after(() => t.close());

const discover = async (identifier: string) => {
  const resource = new URL(identifier);
  return oauth.processResourceDiscoveryResponse(resource, await oauth.resourceDiscoveryRequest(resource, insecure));
};
const metadataOf = (challenge: string | null) => /resource_metadata="([^"]+)"/.exec(challenge ?? '')?.[1];

test('a resource server on Gatehouse’s origin: create prints the RFC 9728 3 URL, and oauth4webapi finds the document there', async () => {
  const out = await cli('resource-servers', 'create', '--identifier', `${t.url}/notes/api`, '--name', 'Notes', '--scope', 'notes:read=Read your notes');
  assert.equal(out.resource_metadata, `${t.url}/.well-known/oauth-protected-resource/notes/api`);
  const metadata = await discover(`${t.url}/notes/api`);
  assert.equal(metadata.resource, `${t.url}/notes/api`);
  assert.deepEqual(metadata.authorization_servers, [t.url]);
  assert.deepEqual(metadata.scopes_supported, ['notes:read']);
  assert.deepEqual(metadata.bearer_methods_supported, ['header']);
  assert.ok(metadata.dpop_signing_alg_values_supported?.includes('ES256'));
  assert.equal(metadata.resource_name, 'Notes');
});

test('an identifier with a terminating slash after the host: the slash is removed before the suffix (RFC 9728 3)', async () => {
  // The test app's origin itself, with its slash: its document is the bare well-known URL.
  const out = await cli('resource-servers', 'create', '--identifier', `${t.url}/`, '--name', 'Root', '--scope', 'root:read=Read everything here');
  assert.equal(out.resource_metadata, `${t.url}/.well-known/oauth-protected-resource`);
  assert.equal((await discover(`${t.url}/`)).resource, `${t.url}/`);
});

test('a resource server on another host: its document is served as a copy, and only there', async () => {
  const out = await cli(
    'resource-servers',
    'create',
    '--identifier',
    'https://contacts.example/api',
    '--name',
    'Contacts',
    '--scope',
    'contacts:read=See contacts',
  );
  const url = `${t.url}/protected-resource-metadata?resource=${encodeURIComponent('https://contacts.example/api')}`;
  assert.equal(out.resource_metadata, url);
  const response = await fetch(url);
  assert.equal(response.headers.get('access-control-allow-origin'), '*');
  const metadata = await oauth.processResourceDiscoveryResponse(new URL('https://contacts.example/api'), response);
  assert.deepEqual(metadata.scopes_supported, ['contacts:read']);
  // Not under Gatehouse's well-known path: that address would claim an identifier on Gatehouse's own origin.
  assert.equal((await fetch(`${t.url}/.well-known/oauth-protected-resource/api`)).status, 404);
});

test('unknown identifiers have no document (404)', async () => {
  assert.equal((await fetch(`${t.url}/.well-known/oauth-protected-resource/nothing-here`)).status, 404);
  assert.equal((await fetch(`${t.url}/protected-resource-metadata?resource=https%3A%2F%2Fnowhere.example%2F`)).status, 404);
  assert.equal((await fetch(`${t.url}/protected-resource-metadata`)).status, 404);
});

test('the admin API and resource-servers list show each document’s URL', async () => {
  const listed = (await cli('resource-servers', 'list')).resource_servers as { identifier: string; resource_metadata: string }[];
  assert.equal(listed.find((s) => s.identifier === `${t.url}/v1`)?.resource_metadata, `${t.url}/.well-known/oauth-protected-resource/v1`);
  const admin = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'admin:read' });
  const token = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials', scope: 'admin:read' },
    { authorization: basicAuth(admin.id, admin.secret) },
  );
  const res = await fetch(`${t.url}/admin/v1/resource-servers/${encodeURIComponent(`${t.url}/notes/api`)}`, {
    headers: { authorization: `Bearer ${String(token.body.access_token)}` },
  });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as Record<string, unknown>).resource_metadata, `${t.url}/.well-known/oauth-protected-resource/notes/api`);
});

test('every 401/403 of /admin/v1 names the admin audience’s document, which advertises no scope (operator-only)', async () => {
  const bare = await fetch(`${t.url}/admin/v1/clients`);
  assert.equal(bare.status, 401);
  const url = metadataOf(bare.headers.get('www-authenticate'));
  assert.equal(url, `${t.url}/.well-known/oauth-protected-resource/admin`);
  const metadata = await discover(`${t.url}/admin`);
  assert.equal(metadata.resource, `${t.url}/admin`);
  assert.equal(metadata.scopes_supported, undefined);
  const reader = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'admin:read' });
  const token = await postForm(
    `${t.url}/token`,
    { grant_type: 'client_credentials', scope: 'admin:read' },
    { authorization: basicAuth(reader.id, reader.secret) },
  );
  const forbidden = await fetch(`${t.url}/admin/v1/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${String(token.body.access_token)}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
    body: '{}',
  });
  assert.equal(forbidden.status, 403);
  assert.match(forbidden.headers.get('www-authenticate') ?? '', /^Bearer error="insufficient_scope".*resource_metadata=/);
});

test('every 401/403 of /userinfo names /userinfo’s document', async () => {
  const bare = await fetch(`${t.url}/userinfo`);
  assert.equal(bare.status, 401);
  assert.equal(metadataOf(bare.headers.get('www-authenticate')), `${t.url}/.well-known/oauth-protected-resource/userinfo`);
  const metadata = await discover(`${t.url}/userinfo`);
  assert.ok(metadata.scopes_supported?.includes('openid'));
  const service = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'orders:read' });
  const token = await postForm(`${t.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(service.id, service.secret) });
  const invalid = await fetch(`${t.url}/userinfo`, { headers: { authorization: `Bearer ${String(token.body.access_token)}` } });
  assert.ok(invalid.status === 401 || invalid.status === 403);
  assert.equal(metadataOf(invalid.headers.get('www-authenticate')), `${t.url}/.well-known/oauth-protected-resource/userinfo`);
});

test('a 403 of /v1 names the /v1 document too', async () => {
  const service = await registerClient(t.core, { grant_types: ['client_credentials'], scope: 'orders:read' });
  const token = await postForm(`${t.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(service.id, service.secret) });
  const res = await fetch(`${t.url}/v1/users/me`, { headers: { authorization: `Bearer ${String(token.body.access_token)}` } });
  assert.equal(res.status, 403);
  assert.equal(metadataOf(res.headers.get('www-authenticate')), `${t.url}/.well-known/oauth-protected-resource/v1`);
});
