// Disabling and enabling a client through /admin/v1/clients (the writable `disabled` member), and the
// built-in clients the admin API leaves alone (docs/admin-api.md, docs/console.md). Real HTTP, real PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { CONSOLE_CLIENT_ID } from '../../src/oauth/clients/console-client.js';
import { DEMO_CLIENT_ID } from '../../src/oauth/clients/demo-client.js';
import { adminFixture, createBody, patchBody, problemOf, SERVICE_CLIENT, type AdminFixture } from './fixture.js';

const clock = manualClock(Date.now());
let f: AdminFixture;
before(async () => {
  f = await adminFixture({ clock, env: { DEMO_ENABLED: 'true' } });
});
after(() => f.t.close());

const WEB_CLIENT = {
  client_name: 'Web shop',
  grant_types: ['authorization_code'],
  redirect_uris: ['https://shop.example/cb'],
  scope: 'openid',
  token_endpoint_auth_method: 'client_secret_basic',
};

async function create(body: Record<string, unknown> = SERVICE_CLIENT) {
  const res = await f.api('/admin/v1/clients', createBody(body, crypto.randomUUID()));
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json()) as Record<string, unknown> & { client_id: string; client_secret: string };
}

async function read(id: string) {
  const res = await f.api(`/admin/v1/clients/${encodeURIComponent(id)}`);
  assert.equal(res.status, 200);
  return { etag: res.headers.get('etag')!, body: (await res.json()) as Record<string, unknown> };
}

async function patch(id: string, body: unknown) {
  const { etag } = await read(id);
  return f.api(`/admin/v1/clients/${encodeURIComponent(id)}`, patchBody(body, etag));
}

/** Past the disabling's revocation window (CLIENT_CACHE_TTL, 5 s by default). */
const pastTheWindow = () => clock.advance(6_000);

test('a client disabled with PATCH disabled:true gets invalid_client at /token and the tokens it holds stop working', async () => {
  const client = await create();
  const token = String((await f.tokenFor(client.client_id, client.client_secret, 'orders:read')).body.access_token);
  assert.equal((await fetch(`${f.t.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } })).status, 200);
  const res = await patch(client.client_id, { disabled: true });
  assert.equal(res.status, 200, await res.clone().text());
  const disabled = (await res.json()) as { disabled: boolean; built_in: boolean };
  assert.equal(disabled.disabled, true);
  assert.equal(disabled.built_in, false);
  const refused = await f.tokenFor(client.client_id, client.client_secret, 'orders:read');
  assert.equal(refused.status, 401);
  assert.equal(refused.body.error, 'invalid_client');
  assert.equal((await fetch(`${f.t.url}/v1/orders`, { headers: { authorization: `Bearer ${token}` } })).status, 401);
  const events = (await (await f.api(`/admin/v1/audit-events?subject=${client.client_id}&type=admin.client.updated`)).json()) as {
    data: { changed_fields: string[] }[];
  };
  assert.deepEqual(events.data[0]?.changed_fields, ['disabled']);
});

test('/authorize for a disabled client shows an error page and redirects nowhere', async () => {
  const client = await create(WEB_CLIENT);
  const url = `${f.t.url}/authorize?${new URLSearchParams({ client_id: client.client_id, response_type: 'code', redirect_uri: 'https://shop.example/cb', scope: 'openid', state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`;
  // Enabled: the request is accepted and the browser goes on to sign in (303 to our login page).
  assert.equal((await fetch(url, { redirect: 'manual' })).status, 303);
  assert.equal((await patch(client.client_id, { disabled: true })).status, 200);
  const page = await fetch(url, { redirect: 'manual' });
  assert.equal(page.status, 400, await page.clone().text());
  assert.equal(page.headers.get('location'), null);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
});

test('enabling a client again within its revocation window is 409 and changes nothing; after it, the client gets working tokens', async () => {
  const client = await create();
  assert.equal((await patch(client.client_id, { disabled: true })).status, 200);
  const early = await patch(client.client_id, { disabled: false });
  assert.equal(early.status, 409);
  const problem = (await problemOf(early)) as { code: string; detail?: string };
  assert.equal(problem.code, 'conflict');
  assert.match(problem.detail ?? '', /enable it again after/);
  assert.equal((await read(client.client_id)).body.disabled, true);
  pastTheWindow();
  const enabled = await patch(client.client_id, { disabled: false });
  assert.equal(enabled.status, 200, await enabled.clone().text());
  const issued = await f.tokenFor(client.client_id, client.client_secret, 'orders:read');
  assert.equal(issued.status, 200);
  assert.equal((await fetch(`${f.t.url}/v1/orders`, { headers: { authorization: `Bearer ${String(issued.body.access_token)}` } })).status, 200);
});

test('a PUT that leaves out disabled leaves the client as it is; a client can be created disabled', async () => {
  const client = await create({ ...SERVICE_CLIENT, disabled: true });
  assert.equal(client.disabled, true);
  assert.equal((await f.tokenFor(client.client_id, client.client_secret, 'orders:read')).status, 401);
  const { etag } = await read(client.client_id);
  const put = await f.api(`/admin/v1/clients/${client.client_id}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'if-match': etag },
    body: JSON.stringify({ ...SERVICE_CLIENT, client_name: 'Renamed' }),
  });
  assert.equal(put.status, 200);
  assert.deepEqual(((await put.json()) as Record<string, unknown>).disabled, true);
});

test('built-in clients cannot be changed, disabled, rotated or deleted through the admin API (409)', async () => {
  for (const id of [CONSOLE_CLIENT_ID, DEMO_CLIENT_ID]) {
    const { etag, body } = await read(id);
    const attempts = {
      disable: await f.api(`/admin/v1/clients/${id}`, patchBody({ disabled: true }, etag)),
      rename: await f.api(`/admin/v1/clients/${id}`, patchBody({ client_name: 'Mine now' }, etag)),
      delete: await f.api(`/admin/v1/clients/${id}`, { method: 'DELETE', headers: { 'if-match': etag } }),
      rotate: await f.api(`/admin/v1/clients/${id}/secrets`, createBody({}, crypto.randomUUID())),
    };
    for (const [what, res] of Object.entries(attempts)) {
      assert.equal(res.status, 409, `${what} ${id}: ${await res.clone().text()}`);
      const problem = (await problemOf(res)) as { code: string; detail?: string };
      assert.match(problem.detail ?? '', /is built in/, `${what} ${id}`);
    }
    const after = await read(id);
    assert.equal(after.etag, etag, `${id} changed`);
    assert.equal(after.body.disabled, false);
    assert.equal(after.body.client_name, body.client_name);
    assert.equal(after.body.built_in, true);
  }
});

test('a built-in client cannot be disabled from the CLI either (the console would lock every operator out)', async () => {
  await assert.rejects(f.cli('clients', 'disable', CONSOLE_CLIENT_ID), /is built in/);
  assert.equal((await read(CONSOLE_CLIENT_ID)).body.disabled, false);
});

test('disabled is a boolean: anything else is 400 and changes nothing', async () => {
  const client = await create();
  const res = await patch(client.client_id, { disabled: 'yes' });
  assert.equal(res.status, 400);
  assert.equal((await read(client.client_id)).body.disabled, false);
});
