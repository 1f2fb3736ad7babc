// Anonymous registration within a policy (REGISTRATION=open; docs/agents.md). Each rule has a test named after
// it: public clients only, OPEN_CLIENT_SCOPES and OPEN_CLIENT_RESOURCES only, never admin scopes, never
// client_credentials, a per-address budget, the self-registered label on the consent page and in the admin
// API, and the purge of unused ones.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../../src/clock.js';
import { unusedOpenClientsPurge } from '../../../src/oauth/housekeeping.js';
import { clientsRepository } from '../../../src/storage/repositories/clients-repository.js';
import { adminFixture, type AdminFixture } from '../../admin/fixture.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { browserlessLogin } from '../../helpers/browserless-login.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';
import { postForm } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
const NOTES = 'https://notes.example/api';
let world: AdminFixture;
let limited: TestApp;
let tokenOnly: TestApp;
let proxied: TestApp;

before(async () => {
  world = await adminFixture({
    env: { REGISTRATION: 'open', OPEN_CLIENT_SCOPES: 'openid offline_access notes:read', OPEN_CLIENT_RESOURCES: NOTES, OPEN_CLIENT_UNUSED_TTL: '86400' },
  });
  await world.cli('resource-servers', 'create', '--identifier', NOTES, '--name', 'Notes', '--scope', 'notes:read=Read your notes notes:write=Write notes');
  limited = await startTestApp({ env: { REGISTRATION: 'open', RATE_LIMIT_OPEN_REGISTRATIONS: '3', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } });
  tokenOnly = await startTestApp({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY: '0', RATE_LIMIT_ENABLED: 'false' } });
  // Behind a trusted proxy, so each request can come from an address of the test's choosing (X-Forwarded-For);
  // every rate limit off: the open registration budget is a storage budget and must hold regardless.
  proxied = await startTestApp({ env: { ...NO_LIMITS, REGISTRATION: 'open', RATE_LIMIT_OPEN_REGISTRATIONS: '3', TRUST_PROXY: '127.0.0.1' } });
});
after(async () => {
  await world.t.close();
  await limited.close();
  await tokenOnly.close();
  await proxied.close();
});

const register = (base: string, metadata: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${base}/register`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(metadata) }).then(
    async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }),
  );
const agent = (extra: Record<string, unknown> = {}) => ({ client_name: 'Agent', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...extra });

test('open registration creates a public client within OPEN_CLIENT_SCOPES and OPEN_CLIENT_RESOURCES, without secret or registration access token', async () => {
  const { status, body } = await register(world.t.url, agent({ scope: 'openid notes:read', grant_types: ['authorization_code', 'refresh_token'] }));
  assert.equal(status, 201, JSON.stringify(body));
  assert.equal(body.token_endpoint_auth_method, 'none');
  assert.equal(body.client_type, 'public');
  assert.equal(body.scope, 'openid notes:read');
  assert.equal(body.client_secret, undefined);
  assert.equal(body.registration_access_token, undefined);
  const stored = await clientsRepository(world.t.core.db, world.t.core.clock).find(String(body.client_id));
  assert.equal(stored?.provenance, 'self_registered');
  assert.deepEqual(stored?.resources, [NOTES]);
  // Without a scope the client gets the whole allowed set; without a method, none.
  const plain = await register(world.t.url, { redirect_uris: [REDIRECT] });
  assert.equal(plain.status, 201);
  assert.equal(plain.body.scope, 'openid offline_access notes:read');
  assert.equal(plain.body.token_endpoint_auth_method, 'none');
});

test('anonymous registration asking for admin scopes is refused', async () => {
  for (const scope of ['admin:read', 'openid admin:write']) {
    const { status, body } = await register(world.t.url, agent({ scope }));
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_client_metadata');
    assert.match(String(body.error_description), /admin:(read|write) is operator-only/);
  }
});

test('anonymous registration asking for a scope outside OPEN_CLIENT_SCOPES is refused', async () => {
  const { status, body } = await register(world.t.url, agent({ scope: 'openid notes:write' }));
  assert.equal(status, 400);
  assert.equal(body.error, 'invalid_client_metadata');
  assert.match(String(body.error_description), /notes:write is not allowed for self-registered clients/);
});

test('anonymous registration asking for client_credentials is refused', async () => {
  for (const metadata of [agent({ grant_types: ['client_credentials'] }), agent({ grant_types: ['authorization_code', 'client_credentials'] })]) {
    const { status, body } = await register(world.t.url, metadata);
    assert.equal(status, 400);
    assert.equal(body.error, 'invalid_client_metadata');
    assert.match(String(body.error_description), /client_credentials/);
  }
});

test('anonymous registration asking for a confidential method (a secret or keys) is refused', async () => {
  for (const method of ['client_secret_basic', 'client_secret_post', 'private_key_jwt']) {
    const { status, body } = await register(world.t.url, agent({ token_endpoint_auth_method: method }));
    assert.equal(status, 400, method);
    assert.equal(body.error, 'invalid_client_metadata');
    assert.match(String(body.error_description), /must be none/);
  }
  const keys = await register(world.t.url, agent({ jwks_uri: 'https://keys.example/jwks' }));
  assert.equal(keys.status, 400);
  const logout = await register(world.t.url, agent({ backchannel_logout_uri: 'https://rp.example/logout' }));
  assert.equal(logout.status, 400);
});

test('open registration budget per address: past RATE_LIMIT_OPEN_REGISTRATIONS an hour, parallel or not, registrations are refused with 429; refused metadata costs nothing', async () => {
  // Refused metadata first: it does not use up the budget.
  for (let i = 0; i < 4; i++) assert.equal((await register(limited.url, agent({ grant_types: ['client_credentials'] }))).status, 400);
  const answers = await Promise.all(Array.from({ length: 6 }, () => register(limited.url, agent())));
  assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 201, 429, 429, 429]);
  const refused = answers.find((a) => a.status === 429)!;
  assert.equal(typeof refused.body, 'object');
  const rows = await limited.core.db.selectFrom('clients').select('id').where('provenance', '=', 'self_registered').execute();
  assert.equal(rows.length, 3);
});

test('with REGISTRATION=token (the default) an anonymous registration is 401 invalid_token', async () => {
  const { status, body } = await register(tokenOnly.url, agent());
  assert.equal(status, 401);
  assert.equal(body.error, 'invalid_token');
});

test('a self-registered client is labelled so on the consent page and in the admin API, and its tokens are limited to OPEN_CLIENT_RESOURCES', async () => {
  const { body } = await register(world.t.url, agent({ client_name: 'Totally Official App', scope: 'openid notes:read' }));
  const id = String(body.client_id);
  const admin = (await (await world.api(`/admin/v1/clients/${encodeURIComponent(id)}`)).json()) as Record<string, unknown>;
  assert.equal(admin.provenance, 'self_registered');
  assert.deepEqual(admin.resources, [NOTES]);
  const operatorMade = (await (await world.api(`/admin/v1/clients/${encodeURIComponent(world.admin.id)}`)).json()) as Record<string, unknown>;
  assert.equal(operatorMade.provenance, 'operator');

  const user = await createUser(world.t.core.db, world.t.core.clock, SIGN_IN);
  const pkce = pkcePair();
  const url = new URL('/authorize', world.t.url);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    state: 'st',
    client_id: id,
    redirect_uri: REDIRECT,
    scope: 'openid notes:read',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    resource: NOTES,
  }))
    url.searchParams.set(k, v);
  const pages: string[] = [];
  const back = await browserlessLogin(url, { username: user.username, onPage: (html) => pages.push(html) });
  const consent = pages.find((p) => p.includes('name="decision"'))!;
  assert.match(consent, /registered itself/);
  assert.match(consent, /self-registered/);
  assert.match(consent, /not registered with this server/);
  assert.match(consent, /<strong class="host">127\.0\.0\.1:9<\/strong>/);
  const token = await postForm(`${world.t.url}/token`, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: id,
    code_verifier: pkce.verifier,
  });
  assert.equal(token.status, 200, token.text);

  // Any other registered resource is out of reach.
  url.searchParams.set('resource', `${world.t.url}/v1`);
  url.searchParams.set('scope', 'openid');
  const other = await fetch(url, { redirect: 'manual' });
  assert.equal(new URL(other.headers.get('location')!).searchParams.get('error'), 'invalid_target');
});

test('unused self-registered clients are purged after OPEN_CLIENT_UNUSED_TTL; one with a live grant, or an operator-made one, is kept', async () => {
  const { db, store, config } = world.t.core;
  const unused = String((await register(world.t.url, agent())).body.client_id);
  const inUse = String((await register(world.t.url, agent({ scope: 'openid offline_access' }))).body.client_id);
  const user = await createUser(db, world.t.core.clock, SIGN_IN);
  const pkce = pkcePair();
  const url = new URL('/authorize', world.t.url);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    state: 'st',
    client_id: inUse,
    redirect_uri: REDIRECT,
    scope: 'openid offline_access',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);
  const back = await browserlessLogin(url, { username: user.username });
  const token = await postForm(`${world.t.url}/token`, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: inUse,
    code_verifier: pkce.verifier,
  });
  assert.equal(token.status, 200, token.text);

  const later = manualClock(Date.now() + (config.OPEN_CLIENT_UNUSED_TTL - 60) * 1000);
  await unusedOpenClientsPurge({ store, clock: later, config })();
  const clients = clientsRepository(db, world.t.core.clock);
  assert.ok(await clients.find(unused), 'not purged before OPEN_CLIENT_UNUSED_TTL');
  later.advance(120_000);
  const purged = await unusedOpenClientsPurge({ store, clock: later, config })();
  assert.ok(purged >= 1);
  assert.equal(await clients.find(unused), undefined);
  assert.ok(await clients.find(inUse), 'a client with a live grant is kept');
  assert.ok(await clients.find(world.admin.id), 'operator-made clients are never purged');
});

const from = (address: string) => ({ 'x-forwarded-for': address });
const selfRegisteredFrom = async (app: TestApp, key: string) =>
  (await app.core.db.selectFrom('clients').select('id').where('provenance', '=', 'self_registered').where('registered_from', '=', key).execute()).length;

test('open registration budget per IPv6 /64: registrations from many addresses of one /64 share one budget, in parallel too; another /64 has its own', async () => {
  const answers = await Promise.all(
    ['2001:db8:aa:1::1', '2001:db8:aa:1::2', '2001:db8:aa:1:ffff:ffff:ffff:fffe', '2001:db8:aa:1:1234::9', '2001:db8:aa:1::abcd'].map((a) =>
      register(proxied.url, agent(), from(a)),
    ),
  );
  assert.deepEqual(answers.map((a) => a.status).sort(), [201, 201, 201, 429, 429]);
  const refused = answers.find((a) => a.status === 429)!;
  assert.equal(refused.body.error, 'slow_down', JSON.stringify(refused.body));
  assert.equal(await selfRegisteredFrom(proxied, '2001:db8:aa:1::/64'), 3);
  // The neighbouring /64 is another subscriber: its own budget.
  assert.equal((await register(proxied.url, agent(), from('2001:db8:aa:2::1'))).status, 201);
  // An IPv4 address (and the same address written as IPv4-mapped IPv6) is one budget of its own.
  const v4 = await Promise.all(['198.51.100.7', '::ffff:198.51.100.7', '198.51.100.7', '198.51.100.7'].map((a) => register(proxied.url, agent(), from(a))));
  assert.deepEqual(v4.map((a) => a.status).sort(), [201, 201, 201, 429]);
  assert.equal((await register(proxied.url, agent(), from('198.51.100.8'))).status, 201);
});

test('open registration budget holds with RATE_LIMIT_ENABLED=false (it bounds rows, not request rates), with Retry-After; refused metadata costs nothing', async () => {
  assert.equal(proxied.core.rateLimits.enabled, false);
  const address = from('203.0.113.50');
  for (let i = 0; i < 3; i++) assert.equal((await register(proxied.url, agent({ grant_types: ['client_credentials'] }), address)).status, 400);
  for (let i = 0; i < 3; i++) assert.equal((await register(proxied.url, agent(), address)).status, 201);
  const response = await fetch(`${proxied.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...address },
    body: JSON.stringify(agent()),
  });
  assert.equal(response.status, 429);
  const retryAfter = Number(response.headers.get('retry-after'));
  assert.ok(retryAfter > 3000 && retryAfter <= 3600, String(retryAfter));
  assert.equal(await selfRegisteredFrom(proxied, '203.0.113.50'), 3);
});

const auditOf = (app: TestApp, type: string, clientId?: string) => {
  let query = app.core.db.selectFrom('audit_events').selectAll().where('type', '=', type);
  if (clientId) query = query.where('client_id', '=', clientId);
  return query.execute();
};

test('audit: a self-registered client writes client.self_registered naming the registering address (its /64), the client id, redirect URIs and scopes; a refused registration writes none', async () => {
  const before = (await auditOf(proxied, 'client.self_registered')).length;
  assert.equal((await register(proxied.url, agent({ scope: 'admin:read' }), from('2001:db8:bb:1::5'))).status, 400);
  assert.equal((await auditOf(proxied, 'client.self_registered')).length, before);
  const { status, body } = await register(proxied.url, agent({ scope: 'openid' }), from('2001:db8:bb:1::5'));
  assert.equal(status, 201);
  const [event] = await auditOf(proxied, 'client.self_registered', String(body.client_id));
  assert.ok(event, 'client.self_registered written');
  assert.equal(event.actor_kind, 'system');
  assert.equal(event.resource_id, body.client_id);
  assert.deepEqual(event.details, {
    registered_from: '2001:db8:bb:1::/64',
    redirect_uris: REDIRECT,
    scope: 'openid',
    grant_types: 'authorization_code',
    token_endpoint_auth_method: 'none',
  });
  assert.ok(event.trace_id, 'the request that registered it');
});

test('an open client stays alive only by tokens issued to it: an anonymous /authorize or /device_authorization naming it records no use, a token does', async () => {
  const { db } = world.t.core;
  const id = String((await register(world.t.url, agent({ scope: 'openid' }))).body.client_id);
  const old = new Date(Date.now() - 5 * 86_400_000);
  const lastUsed = async () => (await db.selectFrom('clients').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow()).last_used_at!;
  await db.updateTable('clients').set({ last_used_at: old }).where('id', '=', id).execute();
  const user = await createUser(db, world.t.core.clock, SIGN_IN);
  const pkce = pkcePair();
  const url = new URL('/authorize', world.t.url);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    state: 'st',
    client_id: id,
    redirect_uri: REDIRECT,
    scope: 'openid',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);
  // Anyone can send this request; it must not keep the row alive (whoever registered it would repeat it for ever).
  assert.equal((await fetch(url, { redirect: 'manual' })).status, 303);
  assert.equal((await lastUsed()).getTime(), old.getTime(), 'an anonymous /authorize is no use');
  const back = await browserlessLogin(url, { username: user.username });
  const token = await postForm(`${world.t.url}/token`, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    client_id: id,
    code_verifier: pkce.verifier,
  });
  assert.equal(token.status, 200, token.text);
  assert.ok((await lastUsed()).getTime() > Date.now() - 60_000, '/token recorded the use');

  const device = String(
    (await register(world.t.url, agent({ scope: 'openid', grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] }))).body.client_id,
  );
  await db.updateTable('clients').set({ last_used_at: old }).where('id', '=', device).execute();
  const started = await postForm(`${world.t.url}/device_authorization`, { client_id: device, scope: 'openid' });
  assert.equal(started.status, 200, started.text);
  const deviceUsed = (await db.selectFrom('clients').select('last_used_at').where('id', '=', device).executeTakeFirstOrThrow()).last_used_at!;
  assert.equal(deviceUsed.getTime(), old.getTime(), 'a started device authorization is no use');
});
