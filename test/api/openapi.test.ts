// The OpenAPI 3.1 document generated from the route schemas, its HTML rendering at /docs, and the
// /problems/{code} pages: shape checks, and every /v1 route of the running app is documented.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { problemTypes } from '../../src/http/problem-types.js';

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean }[];
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
}
interface Doc {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; flows: Record<string, { scopes: Record<string, string> }> }> };
}

let t: TestApp;
let doc: Doc;
before(async () => {
  t = await startTestApp();
  doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Doc;
});
after(() => t.close());

/** The app's own route table (printRoutes), as [path, method] pairs under /v1 and /admin/v1, in OpenAPI path syntax. */
function registeredApiRoutes(): [string, string][] {
  const stack: string[] = [];
  const out: [string, string][] = [];
  for (const line of t.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^(.*?)(?:├── |└── )(\S+) \(([^)]+)\)/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    stack[depth] = m[2]!;
    const path = stack.join('').replace(/:([A-Za-z_]+)/g, '{$1}');
    if (!path.startsWith('/v1/') && !path.startsWith('/admin/v1/')) continue;
    for (const method of m[3]!.split(', ')) if (method !== 'HEAD' && method !== 'OPTIONS') out.push([path, method.toLowerCase()]);
  }
  return out;
}

test('/openapi.json is an OpenAPI 3.1 document with info and paths', () => {
  assert.equal(doc.openapi, '3.1.0');
  assert.ok(doc.info.title && doc.info.version);
  assert.ok(Object.keys(doc.paths).length > 0);
});

test('every /v1 and /admin/v1 route of the running app is in the document, and nothing else is', () => {
  const routes = registeredApiRoutes();
  assert.ok(routes.length >= 6, `found ${routes.length} routes`);
  for (const [path, method] of routes) assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path} is not documented`);
  for (const path of Object.keys(doc.paths)) assert.ok(path.startsWith('/v1/') || path.startsWith('/admin/v1/'), `${path} should not be documented`);
});

test('every operation declares its OAuth scopes (derived from requireScope), its path parameters, and a described success response', () => {
  const flows = doc.components.securitySchemes.oauth2!.flows;
  const known = new Set(Object.values(flows).flatMap((f) => Object.keys(f.scopes)));
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      const scopes = (op.security ?? []).flatMap((s) => s.oauth2 ?? []);
      assert.ok(scopes.length > 0, `${where} has no scope`);
      for (const s of scopes) assert.ok(known.has(s), `${where}: unknown scope ${s}`);
      for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1])) {
        assert.ok(
          op.parameters?.some((p) => p.in === 'path' && p.name === name && p.required),
          `${where}: path parameter ${name}`,
        );
      }
      const success = Object.entries(op.responses).filter(([status]) => /^2/.test(status));
      assert.ok(success.length > 0, `${where} has no success response`);
      for (const [status, response] of Object.entries(op.responses)) {
        assert.equal(typeof response.description, 'string', `${where} ${status} description`);
        if (/^4/.test(status) && response.content) assert.ok(response.content['application/problem+json'], `${where} ${status} is not a problem`);
      }
    }
  }
});

test('every /v1/users operation documents its success body schema and its problem responses', () => {
  const users = Object.entries(doc.paths).filter(([path]) => path.startsWith('/v1/users'));
  assert.ok(users.length >= 3);
  for (const [path, methods] of users) {
    for (const [method, op] of Object.entries(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.match((op as { operationId?: string }).operationId ?? '', /^[a-z][A-Za-z]+$/, `${where} operationId`);
      const [status, success] = Object.entries(op.responses).find(([s]) => /^2/.test(s))!;
      if (status !== '204') assert.ok(success.content?.['application/json']?.schema, `${where} ${status} has no JSON schema`);
      assert.ok(op.responses['401']?.content?.['application/problem+json'], `${where} lacks its 401 problem`);
    }
  }
});

test('every operation has a summary, an operationId and its error responses as problems (401, 403, 429 at least)', () => {
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods) as [string, Operation & { summary?: string; operationId?: string }][]) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(op.summary && op.summary.length > 5, `${where} has no summary`);
      assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${where} operationId`);
      for (const status of ['401', '403', '429'])
        assert.ok(op.responses[status]?.content?.['application/problem+json'], `${where} lacks its ${status} problem`);
      if (/\{id\}/.test(path)) assert.ok(op.responses['404'], `${where} lacks its 404`);
      if (method === 'post' && path !== '/v1/orders/{id}/cancel') assert.ok(op.responses['422'] || op.responses['400'], `${where} lacks its validation error`);
    }
  }
});

test('every operation, /v1 and /admin/v1 alike, has a unique operationId, a tag and a schema for each success body (204 has none)', () => {
  const ids = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods) as [string, Operation & { operationId?: string; tags?: string[] }][]) {
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(op.operationId, `${where} has no operationId`);
      assert.ok(!ids.has(op.operationId), `${where} repeats the operationId ${op.operationId}`);
      ids.add(op.operationId);
      assert.ok((op.tags ?? []).length > 0, `${where} has no tag`);
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => /^2/.test(s) && s !== '204')) {
        const bodies = Object.entries(response.content ?? {});
        assert.ok(bodies.length > 0, `${where} ${status} documents no body`);
        // A response declared with a description only comes out as a "schema" holding just that description.
        const typed = (schema: unknown) =>
          typeof schema === 'object' && schema !== null && ['type', '$ref', 'anyOf', 'oneOf', 'allOf'].some((k) => k in schema);
        for (const [type, { schema }] of bodies) assert.ok(typed(schema), `${where} ${status} ${type} has no schema`);
      }
    }
  }
});

test('reading a payment is documented as payments:read or payments:write, and the scope is in the catalogue', async () => {
  assert.deepEqual(doc.paths['/v1/payments/{id}']!.get!.security, [{ oauth2: ['payments:read'] }, { oauth2: ['payments:write'] }]);
  assert.ok(doc.components.securitySchemes.oauth2!.flows.authorizationCode!.scopes['payments:read']);
  const discovery = (await (await fetch(`${t.url}/.well-known/openid-configuration`)).json()) as { scopes_supported: string[] };
  assert.ok(discovery.scopes_supported.includes('payments:read'));
  const html = await (await fetch(`${t.url}/docs`)).text();
  assert.ok(html.includes('payments:read or payments:write'));
});

test('the users response schema never documents a password or its hash', () => {
  const text = JSON.stringify(doc.paths['/v1/users/{id}']!.get!.responses['200']);
  assert.doesNotMatch(text, /password/i);
});

test('/docs renders every documented operation as HTML under the strict page CSP, without scripts or CDNs', async () => {
  const res = await fetch(`${t.url}/docs`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const html = await res.text();
  assert.doesNotMatch(html, /<script|https?:\/\/(?!127\.0\.0\.1)/i);
  for (const path of Object.keys(doc.paths)) assert.ok(html.includes(path), `${path} missing from /docs`);
  assert.equal((await fetch(`${t.url}/assets/docs.css`)).status, 200);
});

test('GET /problems/{code} serves a human page for every code in the catalogue; unknown codes are a 404 problem', async () => {
  for (const [code, p] of Object.entries(problemTypes)) {
    const res = await fetch(`${t.url}/problems/${code}`);
    assert.equal(res.status, 200, code);
    const html = await res.text();
    assert.ok(html.includes(p.title) || html.includes(p.title.replace(/'/g, '&#39;')), code);
  }
  const unknown = await fetch(`${t.url}/problems/no-such-code`);
  assert.equal(unknown.status, 404);
  assert.match(unknown.headers.get('content-type') ?? '', /^application\/problem\+json/);
});

test('every problem type URI in an API error resolves to its page', async () => {
  const res = await fetch(`${t.url}/v1/users/me`);
  const { type } = (await res.json()) as { type: string };
  assert.equal((await fetch(type)).status, 200);
});

test('Accept-Encoding is honoured: gzip and br compress a large response', async () => {
  for (const encoding of ['gzip', 'br']) {
    const res = await fetch(`${t.url}/openapi.json`, { headers: { 'accept-encoding': encoding } });
    assert.equal(res.headers.get('content-encoding'), encoding);
    assert.match(res.headers.get('vary') ?? '', /accept-encoding/i);
  }
  // fetch decodes transparently; check the raw bytes through node:http once.
  const { request } = await import('node:http');
  const raw = await new Promise<Buffer>((resolve, reject) => {
    request(`${t.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => resolve(Buffer.concat(chunks)))
        .on('error', reject);
    })
      .on('error', reject)
      .end();
  });
  assert.equal((JSON.parse(gunzipSync(raw).toString()) as Doc).openapi, '3.1.0');
});
