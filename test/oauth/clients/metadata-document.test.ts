// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document) as the resolver reads them:
// each rule has a test named after it, against a real https document server and the real clients table.
// The resolver is driven directly (with a manual clock for the cache); test/oauth/authorize/
// metadata-document-client.test.ts drives the same rules through /authorize, /token and the consent page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { manualClock } from '../../../src/clock.js';
import { metadataDocumentClients, type MetadataDocumentClients, type MetadataDocumentRefusal } from '../../../src/oauth/clients/metadata-document.js';
import { cacheLifetime, hostPermitted, metadataDocumentUrlProblem } from '../../../src/oauth/clients/metadata-document-url.js';
import { resourceRegistry } from '../../../src/oauth/resources/registry.js';
import { clientsRepository } from '../../../src/storage/repositories/clients-repository.js';
import { resourceServersRepository } from '../../../src/storage/repositories/resource-servers-repository.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { STRICT_OUTBOUND } from '../../../src/http/outbound/outbound-policy.js';
import { testConfig } from '../../helpers/app.js';
import { createStore } from '../../../src/storage/store.js';
import { unusedOpenClientsPurge } from '../../../src/oauth/housekeeping.js';
import { openClientUses } from '../../../src/oauth/clients/open-client-use.js';
import { auditSink, databaseSubscriber } from '../../../src/audit/audit-sink.js';
import { createTestDatabase } from '../../helpers/database.js';
import { publicClientDocument, startMetadataDocumentServer, TEST_TLS_OUTBOUND, type MetadataDocumentServer } from '../../helpers/metadata-document-server.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
let database: Database;
let documents: MetadataDocumentServer;
const clock = manualClock();
const config = testConfig(1, { CIMD_MAX_BYTES: '1024', CIMD_CACHE_MIN: '60', CIMD_CACHE_MAX: '600', CIMD_CACHE_SIZE: '3' });
const refusals: { url: string; refusal: MetadataDocumentRefusal }[] = [];

before(async () => {
  database = await createTestDatabase();
  documents = await startMetadataDocumentServer();
});
after(async () => {
  await documents.close();
  await database.close();
  rmSync(config.DATA_DIR, { recursive: true, force: true });
});

const resolver = (overrides: Partial<typeof config> = {}, outbound = TEST_TLS_OUTBOUND): MetadataDocumentClients =>
  metadataDocumentClients({
    config: { ...config, ...overrides },
    clock,
    outbound,
    store: createStore(database.db, clock),
    audit: auditSink({ clock, subscribers: [databaseSubscriber(createStore(database.db, clock))] }),
    resources: resourceRegistry(resourceServersRepository(database.db), clock, 0),
    onRefusal: (url, refusal) => refusals.push({ url, refusal }),
  });

/** Publishes `document(url)` at a fresh path and resolves it with a fresh resolver; returns the client or the refusal code. */
async function resolveDocument(path: string, document: (url: string) => unknown, options: { headers?: Record<string, string>; host?: string } = {}) {
  const url = documents.publish(path, { body: null }, options.host);
  documents.publish(path, { body: document(url), ...(options.headers ? { headers: options.headers } : {}) }, options.host);
  const cimd = resolver();
  const client = await cimd.resolve(url);
  return { url, client, refusal: cimd.refusal(url)?.code, message: cimd.refusal(url)?.message };
}

test('a metadata document with client_id equal to its URL becomes a public client limited to OPEN_CLIENT_SCOPES and OPEN_CLIENT_RESOURCES', async () => {
  const { url, client, refusal } = await resolveDocument('/ok', (u) => publicClientDocument(u, [REDIRECT], { scope: 'openid profile orders:read' }));
  assert.ok(client, refusal);
  assert.equal(client.id, url);
  assert.equal(client.type, 'public');
  assert.equal(client.authMethod, 'none');
  assert.equal(client.provenance, 'metadata_document');
  assert.deepEqual(client.redirectUris, [REDIRECT]);
  // orders:read is not in OPEN_CLIENT_SCOPES (default: openid profile email offline_access): dropped.
  assert.deepEqual(client.scopes, ['openid', 'profile']);
  assert.deepEqual(client.resources, []);
  assert.equal(client.name, 'Agent Example');
  // The row exists, so codes and grants can refer to it.
  assert.equal((await clientsRepository(database.db, clock).find(url))?.provenance, 'metadata_document');
});

test('CIMD document on a private address is refused before anything is fetched', async () => {
  const cimd = resolver();
  for (const host of ['private.client.test', 'metadata.client.test']) {
    const url = documents.publish('/private', { body: null }, host);
    documents.publish('/private', { body: publicClientDocument(url, [REDIRECT]) }, host);
    const before = documents.fetches('/private');
    assert.equal(await cimd.resolve(url), undefined);
    assert.equal(cimd.refusal(url)?.code, 'fetch_address_refused', host);
    assert.equal(documents.fetches('/private'), before);
  }
  // Loopback itself, under the strict policy production uses.
  const strict = resolver({}, { ...STRICT_OUTBOUND, resolve: TEST_TLS_OUTBOUND.resolve });
  const url = documents.publish('/ok-strict', { body: null });
  documents.publish('/ok-strict', { body: publicClientDocument(url, [REDIRECT]) });
  assert.equal(await strict.resolve(url), undefined);
  assert.equal(strict.refusal(url)?.code, 'fetch_address_refused');
  assert.equal(documents.fetches('/ok-strict'), 0);
});

test('CIMD client_id mismatch: a document whose client_id is not its own URL is refused', async () => {
  const { client, refusal } = await resolveDocument('/mismatch', () => publicClientDocument(`${documents.origin}/someone-else`, [REDIRECT]));
  assert.equal(client, undefined);
  assert.equal(refusal, 'client_id_mismatch');
});

test('CIMD oversized document: a document larger than CIMD_MAX_BYTES is refused', async () => {
  const { client, refusal } = await resolveDocument('/huge', (u) => publicClientDocument(u, [REDIRECT], { padding: 'x'.repeat(2048) }));
  assert.equal(client, undefined);
  assert.equal(refusal, 'fetch_too_large');
});

test('CIMD slow document: a document that does not arrive within CIMD_FETCH_TIMEOUT is refused', async () => {
  const url = documents.publish('/slow', { body: null, hang: true });
  const cimd = resolver({ CIMD_FETCH_TIMEOUT: 300 });
  assert.equal(await cimd.resolve(url), undefined);
  assert.equal(cimd.refusal(url)?.code, 'fetch_timeout');
});

test('CIMD confidential auth method: client_secret_basic, client_secret_post or a client_secret in the document is refused', async () => {
  for (const method of ['client_secret_basic', 'client_secret_post']) {
    const { refusal } = await resolveDocument(`/conf-${method}`, (u) => publicClientDocument(u, [REDIRECT], { token_endpoint_auth_method: method }));
    assert.equal(refusal, 'auth_method_not_allowed', method);
  }
  const secret = await resolveDocument('/secret', (u) => publicClientDocument(u, [REDIRECT], { client_secret: 'published' }));
  assert.equal(secret.refusal, 'secret_in_document');
  const noKeys = await resolveDocument('/pkjwt', (u) => publicClientDocument(u, [REDIRECT], { token_endpoint_auth_method: 'private_key_jwt' }));
  assert.equal(noKeys.refusal, 'auth_method_not_allowed');
});

test('CIMD never client_credentials: a document asking for it is refused', async () => {
  const { refusal, message } = await resolveDocument('/cc', (u) => publicClientDocument(u, [REDIRECT], { grant_types: ['client_credentials'] }));
  assert.equal(refusal, 'invalid_client_metadata');
  assert.match(message ?? '', /client_credentials/);
});

test('CIMD operator-only scopes are never granted through a document', async () => {
  const { client } = await resolveDocument('/admin', (u) => publicClientDocument(u, [REDIRECT], { scope: 'openid admin:read admin:write' }));
  assert.ok(client);
  assert.deepEqual(client.scopes, ['openid']);
});

test('CIMD redirect URIs follow the registration rules (no http on a public host, no fragment)', async () => {
  const { refusal } = await resolveDocument('/bad-redirect', (u) => publicClientDocument(u, ['http://evil.example/cb']));
  assert.equal(refusal, 'invalid_redirect_uri');
});

test('CIMD URL rules: https, a path, canonical form, no query, no fragment, no user information', () => {
  assert.equal(metadataDocumentUrlProblem('https://app.example/client.json'), undefined);
  assert.equal(metadataDocumentUrlProblem('https://app.example:8443/c'), undefined);
  assert.match(metadataDocumentUrlProblem('http://app.example/client.json') ?? '', /https/);
  assert.match(metadataDocumentUrlProblem('https://app.example/') ?? '', /path/);
  assert.match(metadataDocumentUrlProblem('https://app.example') ?? '', /path/);
  assert.match(metadataDocumentUrlProblem('https://app.example/a/../client.json') ?? '', /canonical/);
  assert.match(metadataDocumentUrlProblem('https://app.example/./client.json') ?? '', /canonical/);
  assert.match(metadataDocumentUrlProblem('https://APP.example/client.json') ?? '', /canonical/);
  assert.match(metadataDocumentUrlProblem('https://app.example:443/client.json') ?? '', /canonical/);
  assert.match(metadataDocumentUrlProblem('https://app.example/c?x=1') ?? '', /query/);
  assert.match(metadataDocumentUrlProblem('https://app.example/c#f') ?? '', /fragment/);
  assert.match(metadataDocumentUrlProblem('https://u:p@app.example/c') ?? '', /user information/);
});

test('CIMD host lists: a denied host is refused even when allowed; with an allow list only its hosts are accepted', async () => {
  const lists = (allowed: string[], denied: string[]) => ({ CIMD_ALLOWED_HOSTS: allowed, CIMD_DENIED_HOSTS: denied });
  assert.equal(hostPermitted('https://app.example/c', lists([], [])), true);
  assert.equal(hostPermitted('https://app.example/c', lists([], ['app.example'])), false);
  assert.equal(hostPermitted('https://a.app.example/c', lists(['*.app.example'], ['bad.app.example'])), true);
  assert.equal(hostPermitted('https://bad.app.example/c', lists(['*.app.example'], ['bad.app.example'])), false);
  assert.equal(hostPermitted('https://app.example/c', lists(['*.app.example'], [])), false);
  assert.equal(hostPermitted('https://other.example/c', lists(['app.example'], [])), false);
  // Refused before any fetch.
  const url = documents.publish('/denied', { body: null }, 'denied.client.test');
  documents.publish('/denied', { body: publicClientDocument(url, [REDIRECT]) }, 'denied.client.test');
  const cimd = resolver({ CIMD_DENIED_HOSTS: ['denied.client.test'] });
  assert.equal(await cimd.resolve(url), undefined);
  assert.equal(cimd.refusal(url)?.code, 'host_not_allowed');
  assert.equal(documents.fetches('/denied'), 0);
});

test('CIMD HTTP caching: max-age is honoured between CIMD_CACHE_MIN and CIMD_CACHE_MAX', async () => {
  assert.equal(cacheLifetime('public, max-age=120', 60, 600), 120);
  assert.equal(cacheLifetime('max-age=5', 60, 600), 60);
  assert.equal(cacheLifetime('max-age=86400', 60, 600), 600);
  assert.equal(cacheLifetime('no-store', 60, 600), 60);
  assert.equal(cacheLifetime(undefined, 60, 600), 60);
  const url = documents.publish('/cached', { body: null });
  documents.publish('/cached', { body: publicClientDocument(url, [REDIRECT]), headers: { 'cache-control': 'max-age=300' } });
  const cimd = resolver();
  // Parallel first uses share one fetch.
  const [a, b] = await Promise.all([cimd.resolve(url), cimd.resolve(url)]);
  assert.ok(a && b);
  assert.equal(documents.fetches('/cached'), 1);
  clock.advance(299_000);
  assert.ok(await cimd.resolve(url));
  assert.equal(documents.fetches('/cached'), 1);
  // The document changed; after max-age the new one is read (and the row follows it).
  documents.publish('/cached', { body: publicClientDocument(url, [REDIRECT, 'http://127.0.0.1:9/other']), headers: { 'cache-control': 'max-age=300' } });
  clock.advance(2_000);
  assert.deepEqual((await cimd.resolve(url))?.redirectUris, [REDIRECT, 'http://127.0.0.1:9/other']);
  assert.equal(documents.fetches('/cached'), 2);
  assert.deepEqual((await clientsRepository(database.db, clock).find(url))?.redirectUris, [REDIRECT, 'http://127.0.0.1:9/other']);
});

test('CIMD cache is bounded by CIMD_CACHE_SIZE (least recently used first), refusals included', async () => {
  const cimd = resolver();
  for (let i = 0; i < 5; i++) {
    const url = documents.publish(`/many-${i}`, { body: null });
    documents.publish(`/many-${i}`, { body: publicClientDocument(url, [REDIRECT]) });
    await cimd.resolve(url);
  }
  assert.equal(cimd.size, 3);
});

test('CIMD does not take over a client an operator registered under the same id, nor one an operator disabled', async () => {
  const url = documents.publish('/taken', { body: null });
  documents.publish('/taken', { body: publicClientDocument(url, [REDIRECT]) });
  const clients = clientsRepository(database.db, clock);
  await clients.create({
    id: url,
    name: 'operator client',
    type: 'confidential',
    secretHash: 'x',
    authMethod: 'client_secret_basic',
    redirectUris: ['https://operator.example/cb'],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code'],
    scopes: ['openid'],
    jwks: null,
    jwksUri: null,
    idTokenSignedResponseAlg: 'RS256',
    skipConsent: false,
  });
  const cimd = resolver();
  assert.equal(await cimd.resolve(url), undefined);
  assert.equal(cimd.refusal(url)?.code, 'client_unavailable');
  assert.equal((await clients.find(url))?.name, 'operator client');

  const { url: disabledUrl, client } = await resolveDocument('/disabled', (u) => publicClientDocument(u, [REDIRECT]));
  assert.ok(client);
  await clients.disable(disabledUrl);
  const again = resolver();
  assert.equal(await again.resolve(disabledUrl), undefined);
  assert.equal(again.refusal(disabledUrl)?.code, 'client_unavailable');
});

test('every CIMD refusal is reported for the log with its code', () => {
  assert.ok(refusals.some((r) => r.refusal.code === 'client_id_mismatch'));
  assert.ok(refusals.every((r) => r.url.startsWith('https://')));
});

const auditRows = (type: string, url: string) =>
  database.db.selectFrom('audit_events').selectAll().where('type', '=', type).where('client_id', '=', url).orderBy('occurred_at').execute();

test('CIMD audit: the first read writes client.metadata_document_created (document URL, redirect URIs, scopes); a re-read that changes nothing writes no event; a changed document writes client.metadata_document_updated', async () => {
  const host = 'audited.client.test';
  const url = documents.publish('/audited', { body: null }, host);
  documents.publish('/audited', { body: publicClientDocument(url, [REDIRECT], { scope: 'openid profile' }) }, host);
  assert.ok(await resolver().resolve(url));
  const [created] = await auditRows('client.metadata_document_created', url);
  assert.ok(created, 'client.metadata_document_created written');
  assert.equal(created.actor_kind, 'system');
  assert.equal(created.resource_id, url);
  assert.deepEqual(created.details, {
    document_url: url,
    host,
    redirect_uris: REDIRECT,
    scope: 'openid profile',
    grant_types: 'authorization_code refresh_token',
    token_endpoint_auth_method: 'none',
  });
  const version = (await clientsRepository(database.db, clock).find(url))!.version;
  // Read again (a fresh instance, or the cache expired): nothing changed, nothing written.
  for (let i = 0; i < 3; i++) assert.ok(await resolver().resolve(url));
  assert.equal((await auditRows('client.metadata_document_created', url)).length, 1);
  assert.equal((await auditRows('client.metadata_document_updated', url)).length, 0);
  assert.equal((await clientsRepository(database.db, clock).find(url))!.version, version, 'the row is not rewritten');
  // The document changed: one event naming what changed.
  documents.publish('/audited', { body: publicClientDocument(url, [REDIRECT, 'http://127.0.0.1:9/second'], { scope: 'openid profile' }) }, host);
  assert.ok(await resolver().resolve(url));
  assert.ok(await resolver().resolve(url));
  const updates = await auditRows('client.metadata_document_updated', url);
  assert.equal(updates.length, 1);
  assert.deepEqual(updates[0]!.changed_fields, ['redirect_uris']);
  assert.equal((updates[0]!.details as Record<string, unknown>).redirect_uris, `${REDIRECT} http://127.0.0.1:9/second`);
});

test('CIMD per-host budget: past CIMD_MAX_CLIENTS_PER_HOST rows from one host a further URL is refused (host_budget_exhausted) and no row is written; its known URLs and other hosts still work', async () => {
  const host = 'budget.client.test';
  const publish = (i: number) => {
    const url = documents.publish(`/budget-${i}`, { body: null }, host);
    documents.publish(`/budget-${i}`, { body: publicClientDocument(url, [REDIRECT]) }, host);
    return url;
  };
  const cimd = resolver({ CIMD_MAX_CLIENTS_PER_HOST: 2 });
  assert.ok(await cimd.resolve(publish(1)));
  assert.ok(await cimd.resolve(publish(2)));
  const third = publish(3);
  assert.equal(await cimd.resolve(third), undefined);
  assert.equal(cimd.refusal(third)?.code, 'host_budget_exhausted');
  assert.match(cimd.refusal(third)?.message ?? '', /budget\.client\.test/);
  assert.equal(await clientsRepository(database.db, clock).find(third), undefined);
  assert.equal((await auditRows('client.metadata_document_created', third)).length, 0);
  // The two it has are still read (and may change), and another host has its own budget.
  assert.ok(await resolver({ CIMD_MAX_CLIENTS_PER_HOST: 2 }).resolve(`https://${host}:${documents.port}/budget-1`));
  const elsewhere = documents.publish('/budget-elsewhere', { body: null }, 'other-budget.client.test');
  documents.publish('/budget-elsewhere', { body: publicClientDocument(elsewhere, [REDIRECT]) }, 'other-budget.client.test');
  assert.ok(await resolver({ CIMD_MAX_CLIENTS_PER_HOST: 2 }).resolve(elsewhere));
});

test('CIMD per-host budget holds for parallel first uses of many URLs of one host', async () => {
  const host = 'parallel.client.test';
  const urls = Array.from({ length: 8 }, (_, i) => {
    const url = documents.publish(`/parallel-${i}`, { body: null }, host);
    documents.publish(`/parallel-${i}`, { body: publicClientDocument(url, [REDIRECT]) }, host);
    return url;
  });
  // One resolver per URL, as if each first use arrived at another instance.
  const results = await Promise.all(urls.map((url) => resolver({ CIMD_MAX_CLIENTS_PER_HOST: 3 }).resolve(url)));
  assert.equal(results.filter(Boolean).length, 3);
  const rows = await database.db.selectFrom('clients').select('id').where('registered_from', '=', host).execute();
  assert.equal(rows.length, 3);
});

test('CIMD re-reading a document does not keep its row from the unused purge; a use (an authorization or token request) does', async () => {
  const store = createStore(database.db, clock);
  const ttl = 86_400;
  const publish = (path: string) => {
    const url = documents.publish(path, { body: null }, 'purge.client.test');
    documents.publish(path, { body: publicClientDocument(url, [REDIRECT]) }, 'purge.client.test');
    return url;
  };
  const fetchedOnly = publish('/purge-fetched');
  const used = publish('/purge-used');
  assert.ok(await resolver().resolve(fetchedOnly));
  const usedClient = await resolver().resolve(used);
  assert.ok(usedClient);
  clock.advance((ttl - 600) * 1000);
  // Its document is read again and again (a changed one too) — no use.
  assert.ok(await resolver().resolve(fetchedOnly));
  documents.publish('/purge-fetched', { body: publicClientDocument(fetchedOnly, [REDIRECT, 'http://127.0.0.1:9/x']) }, 'purge.client.test');
  assert.ok(await resolver().resolve(fetchedOnly));
  await openClientUses(store).note(usedClient);
  clock.advance(1_200_000);
  await unusedOpenClientsPurge({ store, clock, config: { ...config, OPEN_CLIENT_UNUSED_TTL: ttl } })();
  const clients = clientsRepository(database.db, clock);
  assert.equal(await clients.find(fetchedOnly), undefined, 'fetched but unused: purged');
  assert.ok(await clients.find(used), 'used within the TTL: kept');
});
