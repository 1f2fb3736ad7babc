// Every way a client is made accepts the device_code grant type: `gatehouse clients create --grant-types
// urn:ietf:params:oauth:grant-type:device_code` (a public client needs no redirect URI for it), the admin
// API, and RFC 7591 /register (a user-facing grant, allowed by default like authorization_code); each such
// client then starts a device authorization.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { adminFixture, createBody, type AdminFixture } from '../../admin/fixture.js';
import { executeCommand } from '../../../src/cli/execute.js';
import { DEVICE_CODE_GRANT } from './device-world.js';

let f: AdminFixture;
before(async () => {
  f = await adminFixture();
});
after(() => f.t.close());

const startWith = async (clientId: string, secret?: string) => {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const form = new URLSearchParams({ scope: 'openid' });
  if (secret) headers.authorization = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
  else form.set('client_id', clientId);
  return fetch(`${f.t.url}/device_authorization`, { method: 'POST', headers, body: form });
};

test('clients create --grant-types urn:ietf:params:oauth:grant-type:device_code makes a public client without redirect URI that starts a device authorization', async () => {
  const created = await f.cli(
    'clients',
    'create',
    '--name',
    'CLI tool',
    '--type',
    'public',
    '--grant-types',
    `${DEVICE_CODE_GRANT},refresh_token`,
    '--scope',
    'openid offline_access',
  );
  assert.deepEqual(created.grant_types, [DEVICE_CODE_GRANT, 'refresh_token']);
  assert.equal((await startWith(String(created.client_id))).status, 200);
});

test('the admin API creates a confidential device_code client', async () => {
  const res = await f.api(
    '/admin/v1/clients',
    createBody(
      { client_name: 'TV', grant_types: [DEVICE_CODE_GRANT], scope: 'openid', token_endpoint_auth_method: 'client_secret_basic' },
      crypto.randomUUID(),
    ),
  );
  assert.equal(res.status, 201, await res.clone().text());
  const body = (await res.json()) as { client_id: string; client_secret: string; grant_types: string[] };
  assert.deepEqual(body.grant_types, [DEVICE_CODE_GRANT]);
  assert.equal((await startWith(body.client_id, body.client_secret)).status, 200);
});

test('/register accepts the device_code grant for a public client with an initial access token that allows nothing extra', async () => {
  const { initial_access_token: token } = (await executeCommand(['registration-token', 'create', '--ttl', '3600'], f.t.core)) as {
    initial_access_token: string;
  };
  const res = await fetch(`${f.t.url}/register`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Registered CLI', grant_types: [DEVICE_CODE_GRANT], token_endpoint_auth_method: 'none', scope: 'openid' }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const body = (await res.json()) as { client_id: string };
  assert.equal((await startWith(body.client_id)).status, 200);
});
