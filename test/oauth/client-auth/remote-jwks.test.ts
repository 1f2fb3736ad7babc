// private_key_jwt with a jwks_uri, end to end against a local key server. The app is given an outbound
// policy that reaches loopback over http (a test-only dependency of buildApp); the fetch limits
// (CLIENT_JWKS_MAX_BYTES, CLIENT_JWKS_FETCH_TIMEOUT) and the bounded, per-app key-set cache are real.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import * as oauth from 'oauth4webapi';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { STRICT_OUTBOUND } from '../../../src/http/outbound/outbound-policy.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { postForm, registerClient } from '../fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
let t: TestApp;
let keyServer: Server;
let keysUrl: string;
let key: CryptoKey;
let jwks: string;
let log = '';
const hanging = new Set<ServerResponse>();

before(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  key = pair.privateKey;
  jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'remote-1', use: 'sig' }] });
  keyServer = createServer((req, res) => {
    if (req.url?.startsWith('/good')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ keys: [JSON.parse(jwks).keys[0]], padding: 'x'.repeat(70 * 1024) }));
    }
    if (req.url === '/slow') return void hanging.add(res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
  keysUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => (log += chunk.toString()));
  t = await startTestApp({
    env: { ...NO_LIMITS, CLIENT_JWKS_FETCH_TIMEOUT: '400', CLIENT_JWKS_CACHE_SIZE: '2' },
    outbound: { ...STRICT_OUTBOUND, allowedClasses: ['loopback'], allowHttp: true },
    logStream: stream,
  });
});
after(async () => {
  await t.close();
  for (const res of hanging) res.destroy();
  keyServer.closeAllConnections();
  await new Promise((resolve) => keyServer.close(resolve));
});

const clientWithKeysAt = async (path: string) =>
  (await registerClient(t.core, { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: `${keysUrl}${path}` })).id;
const assertion = (clientId: string) =>
  new SignJWT({ iss: clientId, sub: clientId, aud: t.url, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', kid: 'remote-1' })
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(key);
const present = async (clientId: string) =>
  postForm(`${t.url}/token`, { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion(clientId) });
const loggedReason = (clientId: string) =>
  log
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.client_id === clientId && l.reason !== undefined)?.reason;

test("oauth4webapi authenticates with private_key_jwt against keys published at the client's jwks_uri", async () => {
  const clientId = await clientWithKeysAt('/good');
  const response = await oauth.clientCredentialsGrantRequest(
    { issuer: t.url, token_endpoint: `${t.url}/token` },
    { client_id: clientId },
    oauth.PrivateKeyJwt({ key, kid: 'remote-1' }),
    { scope: 'orders:read' },
    { [oauth.allowInsecureRequests]: true },
  );
  assert.equal(response.status, 200);
});

test('jwks_uri size cap: a key set larger than CLIENT_JWKS_MAX_BYTES is refused (invalid_client, logged as jwks_uri_too_large)', async () => {
  const clientId = await clientWithKeysAt('/huge');
  const res = await present(clientId);
  assert.equal(res.status, 401);
  assert.equal(res.body.error, 'invalid_client');
  assert.equal(loggedReason(clientId), 'jwks_uri_too_large');
});

test('jwks_uri timeout: a key server that never answers costs at most CLIENT_JWKS_FETCH_TIMEOUT (invalid_client, logged as jwks_uri_timeout)', {
  timeout: 10_000,
}, async () => {
  const clientId = await clientWithKeysAt('/slow');
  const started = performance.now();
  const res = await present(clientId);
  const elapsed = performance.now() - started;
  assert.equal(res.status, 401);
  assert.ok(elapsed < 3_000, `answered after ${elapsed.toFixed(0)} ms`);
  assert.equal(loggedReason(clientId), 'jwks_uri_timeout');
});

test('the cache of remote key sets is bounded (CLIENT_JWKS_CACHE_SIZE, least recently used first) and belongs to one app', async () => {
  const [a, b, c] = await Promise.all(['/good?a', '/good?b', '/good?c'].map(clientWithKeysAt));
  for (const clientId of [a!, b!, a!, c!]) assert.equal((await present(clientId)).status, 200);
  assert.equal(t.core.remoteKeySets.size, 2);
  assert.ok(t.core.remoteKeySets.has(`${keysUrl}/good?a`), 'a was used more recently than b');
  assert.ok(t.core.remoteKeySets.has(`${keysUrl}/good?c`));
  assert.ok(!t.core.remoteKeySets.has(`${keysUrl}/good?b`), 'the least recently used went');
  const other = await startTestApp({ env: NO_LIMITS, database: t.database });
  try {
    assert.notEqual(other.core.remoteKeySets, t.core.remoteKeySets);
    assert.equal(other.core.remoteKeySets.size, 0, 'another app shares nothing with this one');
  } finally {
    await other.close();
  }
});

test('an app with the default (strict) outbound policy never fetches a loopback jwks_uri', async () => {
  const clientId = await clientWithKeysAt('/good?strict');
  const strict = await startTestApp({ env: { ...NO_LIMITS, ISSUER: t.url, KEY_ENCRYPTION_KEY: t.config.KEY_ENCRYPTION_KEY! }, database: t.database });
  try {
    const res = await postForm(`http://127.0.0.1:${strict.config.PORT}/token`, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(clientId),
    });
    assert.equal(res.status, 401);
  } finally {
    await strict.close();
  }
});
