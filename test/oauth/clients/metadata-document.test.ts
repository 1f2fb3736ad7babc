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
    clients: clientsRepository(database.db, clock),
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
