// Route matching of `gatehouse protect` against an upstream that reads paths leniently, as Express does by
// default: case-insensitive, a trailing slash ignored (docs/protect.md, "Route matching"). The upstream is a real
// HTTP server that shows which of its handlers served a request; each rule has a test named after it that fails
// without the rule.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as rawRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { protectArgs, registerWithClient, type ResourceServerCredentials } from '../helpers/protect.js';
import { freePort } from '../../scripts/pg-cluster.mjs';
import { startProtect, type RunningProxy } from '../../src/protect/proxy.js';
import { parseProtectArgs } from '../../src/protect/options.js';

let gatehouse: TestApp;
let upstream: Server;
let proxy: RunningProxy;
let resource: string;
let credentials: ResourceServerCredentials;
let service: { id: string; secret: string };
/** Every request target the upstream received. */
const received: string[] = [];

/**
 * The upstream's handlers, keyed by method and lower-cased path without trailing slash (Express's defaults), the
 * path percent-decoded before routing (Flask/Werkzeug, Spring, ASP.NET Core, Go).
 */
const HANDLERS: Record<string, string> = {
  'GET /mcp/admin/keys': 'admin keys',
  'GET /mcp/users/@me': 'my profile',
  'DELETE /mcp/notes': 'delete notes',
  'POST /mcp/notes': 'create note',
  'GET /mcp/notes/x': 'note x',
  'GET /mcp/reports/public': 'public report',
};

async function startLenientUpstream(): Promise<string> {
  upstream = createServer((req, res) => {
    received.push(req.url ?? '');
    const path = (req.url ?? '/')
      .split('?')[0]!
      .toLowerCase()
      .replace(/(.)\/$/, '$1');
    const decoded = (() => {
      try {
        return decodeURIComponent(path);
      } catch {
        return path;
      }
    })();
    // Method override honoured, as Rails, Laravel, Symfony and Express's method-override do.
    const override =
      req.headers['x-http-method-override'] ??
      req.headers['x-http-method'] ??
      req.headers['x-method-override'] ??
      new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('_method') ??
      undefined;
    const method = typeof override === 'string' ? override.toUpperCase() : req.method;
    const served = HANDLERS[`${method} ${decoded}`] ?? 'not found';
    req.resume();
    res.writeHead(served === 'not found' ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ served, url: req.url }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
}

before(async () => {
  gatehouse = await startTestApp();
  const upstreamUrl = await startLenientUpstream();
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  ({ credentials, service } = await registerWithClient(gatehouse.core, resource, {
    name: 'Lenient',
    scope: 'notes:read=Read notes notes:write=Write notes',
    routes: [],
    clientScopes: ['notes:read', 'notes:write'],
  }));
  const routes = [
    '* /mcp/admin*=;acr=urn:gatehouse:acr:mfa',
    'POST /mcp/notes=notes:write',
    'GET /mcp/notes*=notes:read',
    'GET /mcp/reports*=notes:write',
    'GET /mcp/Reports/public=',
    '* /mcp/users/@me=notes:write',
    'DELETE /mcp/notes*=notes:admin',
  ].flatMap((rule) => ['--route', rule]);
  const options = parseProtectArgs([...protectArgs({ resource, upstream: upstreamUrl, issuer: gatehouse.url, port }), ...routes], {
    GATEHOUSE_CLIENT_ID: credentials.client_id,
    GATEHOUSE_CLIENT_SECRET: credentials.client_secret,
  });
  proxy = await startProtect(options, pino({ level: 'silent' }));
});

after(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await gatehouse.close();
});

async function clientToken(scope: string): Promise<string> {
  const response = await fetch(`${gatehouse.url}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${service.id}:${service.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
  });
  const body = (await response.json()) as { access_token: string };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.access_token;
}

/** A request with the path exactly as written (fetch would normalise backslashes and dot segments first). */
function send(
  method: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; challenge: string }> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    const req = rawRequest({ host: '127.0.0.1', port, method, path, headers: { ...headers, authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
          challenge: String(res.headers['www-authenticate'] ?? ''),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

test('case-insensitive upstream: GET /MCP/Admin/keys needs what "* /mcp/admin*" demands (step-up), it does not reach the handler', async () => {
  received.length = 0;
  const token = await clientToken('notes:read');
  const answer = await send('GET', '/MCP/Admin/keys', token);
  assert.equal(answer.status, 401);
  assert.match(answer.challenge, /error="insufficient_user_authentication".*acr_values="urn:gatehouse:acr:mfa"/);
  assert.deepEqual(received, [], 'the upstream, which would have served "admin keys", was not called');
});

test('trailing-slash-lenient upstream: POST /mcp/notes/ needs what "POST /mcp/notes" demands (notes:write)', async () => {
  received.length = 0;
  const refused = await send('POST', '/mcp/notes/', await clientToken('notes:read'));
  assert.equal(refused.status, 403);
  assert.match(refused.challenge, /scope="notes:write"/);
  assert.deepEqual(received, []);
  const allowed = await send('POST', '/mcp/notes/', await clientToken('notes:write'));
  assert.deepEqual(allowed.body, { served: 'create note', url: '/mcp/notes/' }, 'the path checked is the path forwarded');
});

test('strictest wins: a longer rule found only by a lenient reading ("GET /mcp/Reports/public=") does not out-rank "GET /mcp/reports*=notes:write"', async () => {
  received.length = 0;
  const answer = await send('GET', '/mcp/reports/public', await clientToken('notes:read'));
  assert.equal(answer.status, 403);
  assert.match(answer.challenge, /scope="notes:write"/);
  assert.deepEqual(received, []);
});

test('the normalised path is the one forwarded: dot segments, empty segments and encoded unreserved characters resolved before matching', async () => {
  received.length = 0;
  const answer = await send('GET', '/mcp//notes/./%61/../%78?q=1', await clientToken('notes:read'));
  assert.deepEqual(answer.body, { served: 'note x', url: '/mcp/notes/x?q=1' });
  assert.equal((await send('GET', '/mcp/notes/%2e%2e/admin/keys', await clientToken('notes:read'))).status, 401, 'the step-up of /mcp/admin*');
});

test('escaped sub-delims decoded: GET /mcp/users/%40me needs what "* /mcp/users/@me" demands at an upstream that decodes it to @me', async () => {
  received.length = 0;
  const refused = await send('GET', '/mcp/users/%40me', await clientToken('notes:read'));
  assert.equal(refused.status, 403);
  assert.match(refused.challenge, /scope="notes:write"/);
  assert.deepEqual(received, [], 'the upstream, which would have served "my profile", was not called');
  const allowed = await send('GET', '/mcp/users/%40me', await clientToken('notes:write'));
  assert.deepEqual(allowed.body, { served: 'my profile', url: '/mcp/users/@me' }, 'the decoded path is the one forwarded');
});

test('method override: POST /mcp/notes with X-HTTP-Method-Override: DELETE (or X-HTTP-Method, X-Method-Override, _method) needs what "DELETE /mcp/notes*" demands too', async () => {
  const token = await clientToken('notes:write');
  received.length = 0;
  for (const [path, headers] of [
    ['/mcp/notes', { 'x-http-method-override': 'DELETE' }],
    ['/mcp/notes', { 'x-http-method': 'delete' }],
    ['/mcp/notes', { 'x-method-override': 'DELETE' }],
    ['/mcp/notes?_method=DELETE', {}],
    // The name percent-encoded: frameworks decode it before they read it.
    ['/mcp/notes?%5Fmethod=DELETE', {}],
    ['/mcp/notes?x=1&%5fmethod=DELETE', {}],
  ] as const) {
    const answer = await send('POST', path, token, headers);
    assert.equal(answer.status, 403, `${path} ${JSON.stringify(headers)}`);
    assert.match(answer.challenge, /scope="[^"]*notes:admin/);
  }
  assert.deepEqual(received, [], 'the upstream, which would have run "delete notes", was not called');
  const plain = await send('POST', '/mcp/notes', token, { 'x-http-method-override': 'POST' });
  assert.equal(plain.body.served, 'create note', 'an override naming the request’s own method adds nothing');
});

test('method override: a value naming no method is refused (400 invalid_request) before the upstream', async () => {
  const token = await clientToken('notes:write');
  received.length = 0;
  for (const [path, headers] of [
    ['/mcp/notes', { 'x-http-method-override': 'FOO' }],
    ['/mcp/notes', { 'x-http-method-override': 'DELETE, PUT' }],
    ['/mcp/notes?_method=', {}],
  ] as const) {
    const answer = await send('POST', path, token, headers);
    assert.equal(answer.status, 400, `${path} ${JSON.stringify(headers)}`);
    assert.equal(answer.body.error, 'invalid_request');
  }
  assert.deepEqual(received, []);
});

/** Ambiguous between upstreams: 400 invalid_request in the proxy's OAuth error JSON, before the token and the upstream. */
async function assertAmbiguous(paths: string[]): Promise<void> {
  const token = await clientToken('notes:read notes:write');
  received.length = 0;
  for (const path of paths) {
    const answer = await send('GET', path, token);
    assert.equal(answer.status, 400, path);
    assert.equal(answer.body.error, 'invalid_request', path);
    assert.equal(typeof answer.body.error_description, 'string');
  }
  assert.deepEqual(received, [], 'nothing reached the upstream');
}

test('ambiguous path refused: an encoded / or \\ (%2F, %5C) — one segment to some upstreams, two to others', async () => {
  await assertAmbiguous(['/mcp/notes/..%2Fadmin/keys', '/mcp/notes/..%2fadmin/keys', '/mcp/notes/..%5Cadmin%5Ckeys']);
});

test('ambiguous path refused: a raw backslash (a separator to Windows and some Java servers)', async () => {
  await assertAmbiguous(['/mcp/notes\\..\\admin\\keys']);
});

test('ambiguous path refused: ";" path parameters, raw or encoded (Tomcat and Spring read /mcp/notes/..;/admin as /mcp/admin)', async () => {
  await assertAmbiguous(['/mcp/notes/..;/admin/keys', '/mcp/notes;jsessionid=1', '/mcp/notes/..%3B/admin/keys']);
});

test('ambiguous path refused: NUL and control characters, encoded', async () => {
  await assertAmbiguous(['/mcp/admin%00/keys', '/mcp/notes/%0a', '/mcp/notes/%7F']);
});

test('ambiguous path refused: invalid percent-encoding and escapes that are not UTF-8', async () => {
  await assertAmbiguous(['/mcp/notes/%zz', '/mcp/notes/%2', '/mcp/notes/%C0%AF', '/mcp/notes/%FF']);
});
