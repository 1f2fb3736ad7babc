// `gatehouse protect` in front of a real upstream, against a real Gatehouse: tokens from /token, the JWKS, the
// registered routes and the revocation feed over HTTP. Each security rule has a test named after it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as rawRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { protectArgs, registerWithClient, type ResourceServerCredentials } from '../helpers/protect.js';
import { dpopKey, dpopProof, serverNonce } from '../helpers/dpop.js';
import { sha256 } from '../../src/crypto/random.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startProtect, type RunningProxy } from '../../src/protect/proxy.js';
import { parseProtectArgs } from '../../src/protect/options.js';

let gatehouse: TestApp;
let upstream: Server;
let upstreamUrl: string;
let proxy: RunningProxy;
let resource: string;
let credentials: ResourceServerCredentials;
let service: { id: string; secret: string };
/** The headers the upstream saw, by request path. */
const seen = new Map<string, IncomingHttpHeaders>();
/** Releases the event stream's last event. */
let finishStream: () => void = () => {};

async function startUpstream(): Promise<void> {
  upstream = createServer((req, res) => {
    seen.set(req.url ?? '', req.headers);
    if (req.url === '/mcp/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('event: first\ndata: 1\n\n');
      finishStream = () => {
        res.write('event: last\ndata: 2\n\n');
        res.end();
      };
      return;
    }
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ path: req.url, method: req.method, body }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
}

const silent = pino({ level: 'silent' });

function protectOptions(extra: string[] = [], env: Record<string, string> = {}) {
  return parseProtectArgs([...protectArgs({ resource, upstream: upstreamUrl, issuer: gatehouse.url, port: new URL(resource).port }), ...extra], {
    GATEHOUSE_CLIENT_ID: credentials.client_id,
    GATEHOUSE_CLIENT_SECRET: credentials.client_secret,
    ...env,
  });
}

before(async () => {
  gatehouse = await startTestApp();
  await startUpstream();
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  ({ credentials, service } = await registerWithClient(gatehouse.core, resource, {
    name: 'Notes',
    scope: 'notes:read=Read notes notes:write=Write notes',
    routes: ['GET /mcp/notes*=notes:read', 'POST /mcp/notes*=notes:write'],
    clientScopes: ['notes:read', 'notes:write', 'users:read'],
  }));
  // No --route: the routes come from the registration.
  proxy = await startProtect(protectOptions(), silent);
});

after(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await gatehouse.close();
});

async function clientToken(scope: string, audience = resource, headers: Record<string, string> = {}): Promise<{ access_token: string; token_type: string }> {
  const response = await fetch(`${gatehouse.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${service.id}:${service.secret}`).toString('base64')}`,
      ...headers,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: audience }),
  });
  const body = (await response.json()) as { access_token: string; token_type: string; error?: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body;
}

const call = (path: string, init: RequestInit = {}) => fetch(`${proxy.url}${path}`, init);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

test('protect serves the RFC 9728 metadata document of its resource, naming Gatehouse and the registered scopes', async () => {
  const response = await call('/.well-known/oauth-protected-resource/mcp');
  assert.equal(response.status, 200);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.resource, resource);
  assert.deepEqual(body.authorization_servers, [gatehouse.url]);
  assert.deepEqual(body.scopes_supported, ['notes:read', 'notes:write']);
});

test('no token: 401 with a Bearer challenge naming resource_metadata; the upstream is not called', async () => {
  seen.clear();
  const response = await call('/mcp/notes');
  assert.equal(response.status, 401);
  assert.equal(response.headers.get('www-authenticate'), `Bearer resource_metadata="${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp"`);
  assert.equal(seen.size, 0);
});

test('a token of this resource with the route scope is forwarded with the verified identity, the token itself is not', async () => {
  const { access_token } = await clientToken('notes:read');
  const response = await call('/mcp/notes/1?x=1', { headers: bearer(access_token) });
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { path: '/mcp/notes/1?x=1', method: 'GET', body: '' });
  const headers = seen.get('/mcp/notes/1?x=1')!;
  assert.equal(headers['gatehouse-subject'], service.id);
  assert.equal(headers['gatehouse-client'], service.id);
  assert.equal(headers['gatehouse-scope'], 'notes:read');
  assert.equal(headers['gatehouse-kind'], 'service');
  assert.equal(headers.authorization, undefined);
});

test('spoofed identity headers: every gatehouse-* header a client sends is stripped, refused or forwarded', async () => {
  const { access_token } = await clientToken('notes:read');
  const spoof = { 'gatehouse-subject': 'admin', 'gatehouse-scope': 'notes:write', 'gatehouse-act': '{"sub":"root"}', 'Gatehouse-Extra': 'x' };
  await call('/mcp/notes/spoof', { headers: { ...bearer(access_token), ...spoof } });
  const headers = seen.get('/mcp/notes/spoof')!;
  assert.equal(headers['gatehouse-subject'], service.id);
  assert.equal(headers['gatehouse-scope'], 'notes:read');
  assert.equal(headers['gatehouse-act'], undefined);
  assert.equal(headers['gatehouse-extra'], undefined);
});

test('spoofed identity headers, underscore spelling: gatehouse_* headers never reach the upstream (CGI-style servers read them as gatehouse-*)', async () => {
  const { access_token } = await clientToken('notes:read');
  const spoof = { gatehouse_acr: 'mfa', gatehouse_subject: 'admin', Gatehouse_Act: '{"sub":"root"}' };
  await call('/mcp/notes/underscore', { headers: { ...bearer(access_token), ...spoof } });
  const headers = seen.get('/mcp/notes/underscore')!;
  assert.equal(headers['gatehouse-subject'], service.id);
  assert.equal(headers.gatehouse_acr, undefined);
  assert.equal(headers.gatehouse_subject, undefined);
  assert.equal(headers.gatehouse_act, undefined);
});

test('audience: a token for another resource (the /v1 API) is refused with invalid_token', async () => {
  const { access_token } = await clientToken('users:read', gatehouse.config.API_AUDIENCE);
  const response = await call('/mcp/notes', { headers: bearer(access_token) });
  assert.equal(response.status, 401);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
});

test('scope per route (from the registration): a token without notes:write gets 403 insufficient_scope naming it', async () => {
  const { access_token } = await clientToken('notes:read');
  const response = await call('/mcp/notes', { method: 'POST', headers: bearer(access_token), body: '{}' });
  assert.equal(response.status, 403);
  assert.match(response.headers.get('www-authenticate') ?? '', /error="insufficient_scope".*scope="notes:write"/);
  assert.equal(((await response.json()) as { error: string }).error, 'insufficient_scope');
});

test('DPoP: a DPoP-bound token without its proof is refused; with a proof of its key for this request it passes', async () => {
  const key = await dpopKey();
  const tokenUrl = `${gatehouse.url}/token`;
  const nonce = await serverNonce(tokenUrl);
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${service.id}:${service.secret}`).toString('base64')}`,
      dpop: await dpopProof(key, tokenUrl, { nonce }),
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'notes:read', resource }),
  });
  const bound = (await response.json()) as { access_token?: string; token_type?: string };
  assert.ok(bound?.access_token, 'a DPoP-bound token');
  assert.equal(bound.token_type, 'DPoP');
  const withoutProof = await call('/mcp/notes', { headers: { authorization: `DPoP ${bound.access_token}` } });
  assert.equal(withoutProof.status, 401);
  assert.match(withoutProof.headers.get('www-authenticate') ?? '', /^DPoP /);
  const asBearer = await call('/mcp/notes', { headers: bearer(bound.access_token!) });
  assert.equal(asBearer.status, 401);
  const proof = await dpopProof(key, `${new URL(resource).origin}/mcp/notes`, { htm: 'GET', ath: sha256(bound.access_token!) });
  const ok = await call('/mcp/notes', { headers: { authorization: `DPoP ${bound.access_token}`, dpop: proof } });
  assert.equal(ok.status, 200);
});

test('revocation: a token revoked at Gatehouse is refused by the proxy within 1 s (the revocation feed, polled)', async () => {
  const { access_token } = await clientToken('notes:read');
  assert.equal((await call('/mcp/notes', { headers: bearer(access_token) })).status, 200);
  const revoke = await fetch(`${gatehouse.url}/revoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${service.id}:${service.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token: access_token }),
  });
  assert.equal(revoke.status, 200);
  const deadline = Date.now() + 1000;
  let status = 200;
  while (Date.now() < deadline && status === 200) {
    status = (await call('/mcp/notes', { headers: bearer(access_token) })).status;
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(status, 401, 'refused within the 1 s promise');
});

test('streaming: server-sent events reach the client before the upstream has finished the response', async () => {
  const { access_token } = await clientToken('notes:read');
  const response = await call('/mcp/events', { headers: { ...bearer(access_token), accept: 'text/event-stream' } });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/event-stream');
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes('data: 1\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  assert.ok(!text.includes('event: last'), 'the upstream has not sent its last event yet');
  finishStream();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /event: last\ndata: 2\n\n$/);
});

test('limits: a declared body over --max-body-bytes is 413 and headers over --max-header-bytes are 431, before the upstream', async () => {
  const small = await startProtect(protectOptions(['--max-body-bytes', '10', '--max-header-bytes', '2048', '--listen', '127.0.0.1:0']), silent);
  try {
    const { access_token } = await clientToken('notes:write');
    const big = await fetch(`${small.url}/mcp/notes`, { method: 'POST', headers: bearer(access_token), body: 'x'.repeat(100) });
    assert.equal(big.status, 413);
    const status = await new Promise<number>((resolve, reject) => {
      const req = rawRequest(`${small.url}/mcp/notes`, { headers: { 'x-filler': 'y'.repeat(4096) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 431);
  } finally {
    await small.close();
  }
});

test('operations: /healthz, /readyz and /metrics with refusals by reason, on the operations listener only', async () => {
  assert.equal((await fetch(`${proxy.opsUrl}/healthz`)).status, 200);
  const ready = await fetch(`${proxy.opsUrl}/readyz`);
  assert.equal(ready.status, 200);
  const metrics = await (await fetch(`${proxy.opsUrl}/metrics`)).text();
  assert.match(metrics, /gatehouse_protect_refusals_total\{reason="scope"\} [1-9]/);
  assert.match(metrics, /gatehouse_protect_refusals_total\{reason="missing_token"\} [1-9]/);
  assert.equal((await call('/metrics')).status, 401, 'the proxied listener does not expose them');
});

test('--route on the command line takes the place of the registered routes', async () => {
  const own = await startProtect(protectOptions(['--route', 'GET /mcp/notes*=notes:write', '--listen', '127.0.0.1:0']), silent);
  try {
    const { access_token } = await clientToken('notes:read');
    assert.equal((await fetch(`${own.url}/mcp/notes`, { headers: bearer(access_token) })).status, 403);
  } finally {
    await own.close();
  }
});

test('offline: with Gatehouse unreachable the proxy goes on for the offline grace, then refuses with 503 (fail closed)', async () => {
  const other = await startTestApp();
  const port = await freePort();
  const otherResource = `http://127.0.0.1:${port}/api`;
  const { credentials: creds, service: client } = await registerWithClient(other.core, otherResource, {
    name: 'Other',
    scope: 'other:read=Read',
    routes: ['GET /api*=other:read'],
    clientScopes: ['other:read'],
  });
  const tokenResponse = await fetch(`${other.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'other:read', resource: otherResource }),
  });
  const { access_token } = (await tokenResponse.json()) as { access_token: string };
  const options = parseProtectArgs([...protectArgs({ resource: otherResource, upstream: upstreamUrl, issuer: other.url, port }), '--offline-grace', '2'], {
    GATEHOUSE_CLIENT_ID: creds.client_id,
    GATEHOUSE_CLIENT_SECRET: creds.client_secret,
  });
  const offline = await startProtect(options, silent);
  try {
    assert.equal((await fetch(`${offline.url}/api/x`, { headers: bearer(access_token) })).status, 200);
    await other.close();
    assert.equal((await fetch(`${offline.url}/api/x`, { headers: bearer(access_token) })).status, 200, 'within the grace, on the cached keys and list');
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await fetch(`${offline.url}/api/x`, { headers: bearer(access_token) })).status;
    }
    assert.equal(status, 503, 'past the grace every request is refused');
    assert.equal((await fetch(`${offline.opsUrl}/readyz`)).status, 503);
  } finally {
    await offline.close();
  }
});
