// Security suite, area 12: HTTP conventions of the resource API (RFC 9110, RFC 9457, RFC 7396, RFC 9745, RFC 8594),
// black-box on the real /v1 routes with real access tokens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { shopTokens } from '../helpers/shop.js';
import { PERMISSIVE_ENV } from './helpers/world.js';
import { assertNoLeak } from './helpers/invariants.js';

let t: TestApp;
let token: string;
let sub: string;
let service: string;
before(async () => {
  t = await startTestApp({ env: PERMISSIVE_ENV });
  const u = await shopTokens(t.core).user(['users:read', 'users:write', 'orders:read', 'orders:write', 'payments:write']);
  token = u.token;
  sub = u.sub;
  service = (await shopTokens(t.core).service(['users:read', 'users:write'])).token;
});
after(() => t.close());

const api = (path: string, init: RequestInit & { as?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${init.as ?? token}`);
  return fetch(`${t.url}${path}`, { ...init, headers });
};
const me = () => `/v1/users/${sub}`;

async function assertProblem(response: Response, status: number): Promise<Record<string, unknown>> {
  assert.equal(response.status, status);
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await response.json()) as Record<string, unknown>;
  assert.equal(body.status, status);
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.code, 'string');
  assertNoLeak(JSON.stringify(body));
  return body;
}

describe('12. API conventions', () => {
  test('12.148 oversized numeric ids, malformed unicode and junk paths → problem body without stack, SQL or paths', async () => {
    const paths = [
      `/v1/users/${'9'.repeat(400)}`,
      '/v1/users/%ED%A0%80',
      '/v1/users/%ff',
      '/v1/orders/%C0%AF',
      `/v1/orders/${'1'.repeat(5000)}`,
      '/v1/payments/..%2f..%2fetc%2fpasswd',
      "/v1/reports/'%20OR%201=1--",
    ];
    const nul = ['/v1/users/%00', '/v1/orders/%00', '/v1/payments/%00', '/v1/reports/%00', '/v1/orders/a%00b'];
    for (const path of [...paths, ...nul]) {
      const response = await api(path);
      assert.ok(response.status >= 400 && response.status < 500, `${path.slice(0, 40)} → ${response.status}`);
      await assertProblem(response, response.status);
    }
  });

  test('12.148+ malformed percent-encoding before routing keeps each face: problem on /v1, OAuth JSON on /token, HTML on pages', async () => {
    const problem = await fetch(`${t.url}/v1/users/%E0%A4%A`, { headers: { authorization: `Bearer ${token}` } });
    await assertProblem(problem, 400);
    const page = await fetch(`${t.url}/interaction/%E0%A4%A`);
    assert.equal(page.status, 400);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const register = await fetch(`${t.url}/register/%E0%A4%A`);
    assert.equal(register.status, 400);
    assert.match(register.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(typeof ((await register.json()) as { error: string }).error, 'string');
  });

  test('12.148+ NUL inside a JSON body field is 400 problem, never 500', async () => {
    const key = crypto.randomUUID();
    const response = await api('/v1/payments', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify({ amount: '1.00', currency: 'EUR', account: 'a\u0000b' }),
    });
    assert.ok([400, 422].includes(response.status), String(response.status));
    await assertProblem(response, response.status);
    const order = await api('/v1/orders', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ currency: 'EUR', items: [{ sku: '\u0000', quantity: 1, unit_price: '1.00' }] }),
    });
    assert.ok([400, 422].includes(order.status), String(order.status));
  });

  test('12.149 OAuth endpoints (token, revoke, introspect) answer RFC 6749 JSON, never problem+json', async () => {
    for (const path of ['/token', '/revoke', '/introspect']) {
      const response = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' });
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(typeof ((await response.json()) as { error: string }).error, 'string');
    }
  });

  test('12.151 Accept: application/xml or application/json;q=0 → 406 problem; absent or */* → application/json', async () => {
    for (const accept of ['application/xml', 'application/json;q=0', 'text/html']) await assertProblem(await api(me(), { headers: { accept } }), 406);
    for (const accept of [undefined, '*/*', 'application/*', 'application/json']) {
      const response = await api(me(), accept ? { headers: { accept } } : {});
      assert.equal(response.status, 200, String(accept));
      assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
      assert.match(response.headers.get('vary') ?? '', /accept/i);
    }
  });

  test('12.152 POST or PUT with Content-Type text/plain, or with none → 415 problem', async () => {
    for (const [method, path] of [
      ['POST', '/v1/orders'],
      ['PUT', me()],
      ['PATCH', me()],
      ['POST', '/v1/payments'],
    ] as const) {
      await assertProblem(await api(path, { method, headers: { 'content-type': 'text/plain', 'idempotency-key': crypto.randomUUID() }, body: '{}' }), 415);
      await assertProblem(await api(path, { method, headers: { 'idempotency-key': crypto.randomUUID() }, body: new Uint8Array([123, 125]) }), 415);
    }
  });

  test('12.152+ malformed JSON, a JSON scalar, or a body with a BOM → 400 problem, never 500', async () => {
    for (const body of ['{', '{"a":', '"x"', '\u00ef\u00bb\u00bf{}', '{"__proto__":{"x":1}}', '[]']) {
      const response = await api('/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.ok([400, 422].includes(response.status), `${JSON.stringify(body)} → ${response.status}`);
      await assertProblem(response, response.status);
    }
  });

  test('12.154 body over the documented limit (1 MiB) → 413 problem', async () => {
    const big = JSON.stringify({ currency: 'EUR', items: [{ sku: 'x'.repeat(t.config.JSON_BODY_LIMIT + 10), quantity: 1, unit_price: '1' }] });
    await assertProblem(await api('/v1/orders', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big }), 413);
  });

  test('12.155 authenticated GET → Cache-Control no-store or private, never public', async () => {
    for (const path of [me(), '/v1/users/me', '/v1/orders']) {
      const cc = (await api(path)).headers.get('cache-control') ?? '';
      assert.match(cc, /no-store|private/, path);
      assert.doesNotMatch(cc, /public/, path);
    }
  });

  test('12.157 GET → strong quoted ETag; If-None-Match with it → 304, no body, same ETag, Cache-Control and Vary', async () => {
    const first = await api(me());
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^"[^"]+"$/);
    const second = await api(me(), { headers: { 'if-none-match': etag } });
    assert.equal(second.status, 304);
    assert.equal(await second.text(), '');
    assert.equal(second.headers.get('etag'), etag);
    assert.equal(second.headers.get('cache-control'), first.headers.get('cache-control'));
    assert.equal(second.headers.get('vary'), first.headers.get('vary'));
  });

  test('12.158 If-None-Match: W/<tag> → 304; stale tag → 200; * on an existing resource → 304', async () => {
    const etag = (await api(me())).headers.get('etag')!;
    assert.equal((await api(me(), { headers: { 'if-none-match': `W/${etag}` } })).status, 304);
    assert.equal((await api(me(), { headers: { 'if-none-match': '"stale"' } })).status, 200);
    assert.equal((await api(me(), { headers: { 'if-none-match': '*' } })).status, 304);
    assert.equal((await api(me(), { headers: { 'if-none-match': `"stale", ${etag}` } })).status, 304);
  });

  test('12.160 If-Match: W/<tag>, If-Match: * on a missing resource, PUT with If-None-Match: * on an existing one → 412', async () => {
    const current = await api(me());
    const etag = current.headers.get('etag')!;
    const doc = (await current.json()) as Record<string, unknown>;
    const replacement = JSON.stringify({ username: doc.username, name: 'X' });
    const json = { 'content-type': 'application/json' };
    await assertProblem(await api(me(), { method: 'PUT', headers: { ...json, 'if-match': `W/${etag}` }, body: replacement }), 412);
    await assertProblem(
      await api('/v1/users/00000000-0000-4000-8000-000000000000', { method: 'PUT', as: service, headers: { ...json, 'if-match': '*' }, body: replacement }),
      412,
    );
    await assertProblem(await api(me(), { method: 'PUT', headers: { ...json, 'if-none-match': '*' }, body: replacement }), 412);
    assert.equal((await api(me())).headers.get('etag'), etag, 'nothing changed');
  });

  test('12.161 non-matching If-None-Match with an If-Modified-Since later than Last-Modified → 200 (IMS ignored)', async () => {
    const response = await api(me(), { headers: { 'if-none-match': '"nope"', 'if-modified-since': new Date(Date.now() + 86_400_000).toUTCString() } });
    assert.equal(response.status, 200);
  });

  test('12.163 merge patch replaces arrays whole (RFC 7396 App. A vectors via the pure module)', async () => {
    const { mergePatch } = await import('../../src/http/merge-patch.js');
    assert.deepEqual(mergePatch({ a: ['b'] }, { a: 'c' }), { a: 'c' });
    assert.deepEqual(mergePatch({ a: 'c' }, { a: ['b'] }), { a: ['b'] });
    assert.deepEqual(mergePatch({ a: [{ b: 'c' }] }, { a: [1] }), { a: [1] });
    assert.deepEqual(mergePatch(['a', 'b'], ['c', 'd']), ['c', 'd']);
  });

  test('12.164 non-object merge patch on a typed resource → 422 (or 400), resource unchanged', async () => {
    const etag = (await api(me())).headers.get('etag');
    for (const body of ['["c"]', 'null', '"bar"', '1']) {
      const response = await api(me(), { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body });
      assert.ok([400, 422].includes(response.status), `${body} → ${response.status}`);
      await assertProblem(response, response.status);
    }
    assert.equal((await api(me())).headers.get('etag'), etag);
  });

  test('12.166 merge patch nulling a required field or changing a read-only one → 422/400, resource unchanged', async () => {
    const etag = (await api(me())).headers.get('etag');
    for (const patch of [{ username: null }, { id: 'other' }, { created_at: '2000-01-01T00:00:00Z' }]) {
      const response = await api(me(), { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(patch) });
      assert.ok([400, 422].includes(response.status), `${JSON.stringify(patch)} → ${response.status}`);
    }
    assert.equal((await api(me())).headers.get('etag'), etag);
  });

  test('12.167 a non-deprecated version sends neither Deprecation nor Sunset', async () => {
    const response = await api(me());
    assert.equal(response.headers.get('deprecation'), null);
    assert.equal(response.headers.get('sunset'), null);
  });

  test('12.167 a deprecated version sends Deprecation: @<unix seconds>, rel="deprecation" Link and an IMF-fixdate Sunset not before it', async () => {
    const old = await startTestApp({ env: { ...PERMISSIVE_ENV, API_DEPRECATED_VERSIONS: 'v1@2026-01-01T00:00:00Z@2099-01-01T00:00:00Z' } });
    try {
      const u = await shopTokens(old.core).user(['users:read']);
      const response = await fetch(`${old.url}/v1/users/me`, { headers: { authorization: `Bearer ${u.token}` } });
      const deprecation = response.headers.get('deprecation') ?? '';
      assert.match(deprecation, /^@\d+$/);
      assert.match(response.headers.get('link') ?? '', /rel="deprecation"/);
      const sunset = response.headers.get('sunset') ?? '';
      assert.match(sunset, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      assert.ok(Date.parse(sunset) / 1000 >= Number(deprecation.slice(1)));
    } finally {
      await old.close();
    }
  });

  test('12.x unknown route → 404 problem; wrong method → 405 problem with Allow', async () => {
    await assertProblem(await api('/v1/nothing-here'), 404);
    const response = await api('/v1/orders', { method: 'DELETE' });
    await assertProblem(response, 405);
    assert.ok(response.headers.get('allow'));
  });
});
