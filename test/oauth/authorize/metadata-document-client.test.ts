// A client whose client_id is the https URL of its metadata document (docs/agents.md), through every endpoint
// that looks clients up: discovery advertises it, /authorize reads the document and checks the redirect URI
// exactly, the consent page names the document's host and says the client is not registered here, /token
// redeems the code, /revoke accepts it as a public client, /introspect refuses it (public clients may not
// introspect), and a refused document is a clear page or invalid_client, never a 500.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { executeCommand } from '../../../src/cli/execute.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { browserlessLogin } from '../../helpers/browserless-login.js';
import { Browser } from '../../helpers/browser.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { publicClientDocument, startMetadataDocumentServer, TEST_TLS_OUTBOUND, type MetadataDocumentServer } from '../../helpers/metadata-document-server.js';
import { pkcePair } from '../../helpers/pkce.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';
import { postForm } from '../fixtures.js';
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';

const REDIRECT = 'http://127.0.0.1:9/callback';
const NOTES = 'https://notes.example/api';
let t: TestApp;
let off: TestApp;
let budgeted: TestApp;
let documents: MetadataDocumentServer;
let clientId: string;
let username: string;

before(async () => {
  documents = await startMetadataDocumentServer();
  t = await startTestApp({
    env: { ...NO_LIMITS, OPEN_CLIENT_SCOPES: 'openid profile notes:read', OPEN_CLIENT_RESOURCES: NOTES },
    outbound: TEST_TLS_OUTBOUND,
  });
  off = await startTestApp({ env: { ...NO_LIMITS, CIMD: 'off' }, outbound: TEST_TLS_OUTBOUND });
  budgeted = await startTestApp({ env: { ...NO_LIMITS, CIMD_MAX_CLIENTS_PER_HOST: '3' }, outbound: TEST_TLS_OUTBOUND });
  await executeCommand(['resource-servers', 'create', '--identifier', NOTES, '--name', 'Notes', '--scope', 'notes:read=Read your notes'], t.core);
  await executeCommand(
    ['resource-servers', 'create', '--identifier', 'https://files.example/api', '--name', 'Files', '--scope', 'files:read=Read files'],
    t.core,
  );
  clientId = documents.publish('/agent.json', { body: null }, 'agent.client.test');
  documents.publish('/agent.json', { body: publicClientDocument(clientId, [REDIRECT], { client_name: 'Friendly Agent' }) }, 'agent.client.test');
  username = (await createUser(t.core.db, t.core.clock, SIGN_IN)).username;
});
after(async () => {
  await t.close();
  await off.close();
  await budgeted.close();
  await documents.close();
});

const authorizeUrl = (app: TestApp, params: Record<string, string>) => {
  const url = new URL('/authorize', app.url);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url;
};
const codeRequest = (challenge: string, extra: Record<string, string> = {}) => ({
  response_type: 'code',
  client_id: clientId,
  redirect_uri: REDIRECT,
  scope: 'openid notes:read',
  state: 'st',
  code_challenge: challenge,
  code_challenge_method: 'S256',
  ...extra,
});

test('discovery advertises client_id_metadata_document_supported when CIMD is on, and not when it is off', async () => {
  const on = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  assert.equal(on.client_id_metadata_document_supported, true);
  const offDoc = (await (await fetch(`${off.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
  assert.equal(offDoc.client_id_metadata_document_supported, undefined);
});

test('a metadata-document client signs a user in: the login and consent pages show the host, consent says it is not registered, and the code is redeemed at /token', async () => {
  const pkce = pkcePair();
  const pages: string[] = [];
  const back = await browserlessLogin(authorizeUrl(t, codeRequest(pkce.challenge, { resource: NOTES })), { username, onPage: (html) => pages.push(html) });
  const consent = pages.find((p) => p.includes('name="decision"'));
  assert.ok(consent, 'a consent page was shown');
  assert.match(consent, /<strong class="host">agent\.client\.test:\d+<\/strong>/);
  assert.match(consent, /not registered with this server/);
  assert.match(consent, /Friendly Agent/);
  // The login page names the host beside the name the document claims.
  assert.ok(pages.some((p) => /to continue to <strong>Friendly Agent \(agent\.client\.test:\d+\)<\/strong>/.test(p)));
  assert.equal(back.origin + back.pathname, REDIRECT);
  const code = back.searchParams.get('code');
  assert.ok(code);
  const token = await postForm(`${t.url}/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: pkce.verifier,
  });
  assert.equal(token.status, 200, token.text);
  const claims = JSON.parse(Buffer.from(String(token.body.access_token).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
  assert.equal(claims.client_id, clientId);
  assert.deepEqual(claims.aud, [NOTES, `${t.url}/userinfo`]);

  // /revoke identifies a public client by client_id alone; /introspect accepts no public client.
  const revoked = await postForm(`${t.url}/revoke`, { token: String(token.body.access_token), client_id: clientId });
  assert.equal(revoked.status, 200, revoked.text);
  const introspected = await postForm(`${t.url}/introspect`, { token: String(token.body.access_token), client_id: clientId });
  assert.equal(introspected.status, 401);
  assert.equal(introspected.body.error, 'invalid_client');
});

test('CIMD redirect URI not in the document: /authorize answers with an error page, never a redirect', async () => {
  const response = await new Browser(t.url).get(authorizeUrl(t, codeRequest(pkcePair().challenge, { redirect_uri: 'http://127.0.0.1:9/elsewhere' })));
  assert.equal(response.status, 400);
  assert.equal(response.headers.get('location'), null);
  assert.match(await response.text(), /redirect_uri is not registered for this application/);
});

test('CIMD resources are limited to OPEN_CLIENT_RESOURCES: naming another registered resource is invalid_target', async () => {
  const response = await new Browser(t.url).get(authorizeUrl(t, codeRequest(pkcePair().challenge, { scope: 'openid', resource: 'https://files.example/api' })));
  assert.equal(response.status, 303);
  const location = new URL(response.headers.get('location')!);
  assert.equal(location.searchParams.get('error'), 'invalid_target');
});

test('CIMD scopes are limited to OPEN_CLIENT_SCOPES: another registered scope is invalid_scope', async () => {
  const response = await new Browser(t.url).get(authorizeUrl(t, codeRequest(pkcePair().challenge, { scope: 'openid files:read' })));
  assert.equal(response.status, 303);
  assert.equal(new URL(response.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
});

test('a refused metadata document is a page saying why at /authorize and invalid_client at /token, never a 500', async () => {
  const mismatched = documents.publish('/mismatch.json', { body: publicClientDocument('https://agent.client.test/other', [REDIRECT]) }, 'agent.client.test');
  const page = await new Browser(t.url).get(authorizeUrl(t, { ...codeRequest(pkcePair().challenge), client_id: mismatched }));
  assert.equal(page.status, 400);
  assert.match(await page.text(), /client_id in the metadata document is not the URL it was fetched from/);
  const token = await postForm(`${t.url}/token`, {
    grant_type: 'authorization_code',
    code: 'x',
    redirect_uri: REDIRECT,
    client_id: mismatched,
    code_verifier: 'x'.repeat(43),
  });
  assert.equal(token.status, 401);
  assert.equal(token.body.error, 'invalid_client');
});

test('with CIMD off an https client_id is an unknown application, and nothing is fetched', async () => {
  const url = documents.publish('/off.json', { body: null }, 'agent.client.test');
  documents.publish('/off.json', { body: publicClientDocument(url, [REDIRECT]) }, 'agent.client.test');
  const page = await new Browser(off.url).get(authorizeUrl(off, { ...codeRequest(pkcePair().challenge), client_id: url }));
  assert.equal(page.status, 400);
  assert.match(await page.text(), /not registered/);
  assert.equal(documents.fetches('/off.json'), 0);
});

test('a metadata-document client with private_key_jwt authenticates at /token with keys published at its jwks_uri, and a wrong key is invalid_client', async () => {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const keysUrl = documents.publish(
    '/keys.json',
    { body: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] } },
    'agent.client.test',
  );
  const keyed = documents.publish('/keyed.json', { body: null }, 'agent.client.test');
  documents.publish(
    '/keyed.json',
    { body: publicClientDocument(keyed, [REDIRECT], { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: keysUrl }) },
    'agent.client.test',
  );
  const pkce = pkcePair();
  const back = await browserlessLogin(authorizeUrl(t, { ...codeRequest(pkce.challenge, { scope: 'openid' }), client_id: keyed }), { username });
  const assertion = (key: CryptoKey) =>
    new SignJWT({ iss: keyed, sub: keyed, aud: t.url, jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);
  const redeem = async (key: CryptoKey) =>
    postForm(`${t.url}/token`, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: pkce.verifier,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: await assertion(key),
    });
  const wrong = await redeem((await generateKeyPair('ES256')).privateKey);
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.error, 'invalid_client');
  const token = await redeem(privateKey);
  assert.equal(token.status, 200, token.text);
});

test('CIMD per-host budget: parallel first uses of many URLs of one host at /authorize create at most CIMD_MAX_CLIENTS_PER_HOST rows; the rest are a page saying why, and /token is invalid_client, with nothing written', async () => {
  const host = 'many.client.test';
  const urls = Array.from({ length: 10 }, (_, i) => {
    const url = documents.publish(`/many-${i}.json`, { body: null }, host);
    documents.publish(`/many-${i}.json`, { body: publicClientDocument(url, [REDIRECT]) }, host);
    return url;
  });
  const answers = await Promise.all(
    urls.map(async (url) => {
      const response = await fetch(authorizeUrl(budgeted, { ...codeRequest(pkcePair().challenge), client_id: url }), { redirect: 'manual' });
      return { url, status: response.status, text: await response.text() };
    }),
  );
  const accepted = answers.filter((a) => a.status === 303);
  const refused = answers.filter((a) => a.status === 400);
  assert.equal(accepted.length, 3, JSON.stringify(answers.map((a) => a.status)));
  assert.equal(refused.length, 7);
  for (const answer of refused) assert.match(answer.text, /already holds 3 applications from many\.client\.test/);
  const rows = await budgeted.core.db.selectFrom('clients').select('id').where('provenance', '=', 'metadata_document').execute();
  assert.deepEqual(rows.map((r) => r.id).sort(), accepted.map((a) => a.url).sort());
  const events = await budgeted.core.db.selectFrom('audit_events').select('client_id').where('type', '=', 'client.metadata_document_created').execute();
  assert.equal(events.length, 3);
  const token = await postForm(`${budgeted.url}/token`, {
    grant_type: 'authorization_code',
    code: 'x',
    redirect_uri: REDIRECT,
    client_id: refused[0]!.url,
    code_verifier: 'x'.repeat(43),
  });
  assert.equal(token.status, 401);
  assert.equal(token.body.error, 'invalid_client');
});
