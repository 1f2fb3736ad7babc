import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({
    configure(app) {
      app.post('/test/echo', async (request) => ({ received: request.body }));
      app.get('/test/bug', async () => {
        throw new Error('relation "secret_table" does not exist at /srv/app/src/x.ts:12');
      });
      app.post('/test/oauth', { config: { face: 'oauth' } }, async () => ({ ok: true }));
    },
  });
});
after(() => t.close());

async function problem(res: Response) {
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.status, res.status);
  assert.equal(body.type, `${t.url}/problems/${body.code}`);
  assert.equal(typeof body.title, 'string');
  assert.equal(body.trace_id, res.headers.get('x-request-id'));
  return body;
}

test('unknown route answers 404 problem', async () => {
  const res = await fetch(`${t.url}/nope`);
  assert.equal(res.status, 404);
  const body = await problem(res);
  assert.equal(body.code, 'not-found');
  assert.equal(body.instance, '/nope');
});

test('known route with the wrong method answers 405 with Allow', async () => {
  const res = await fetch(`${t.url}/healthz`, { method: 'DELETE' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'GET, HEAD');
  assert.equal((await problem(res)).code, 'method-not-allowed');
});

test('malformed JSON answers 400 problem', async () => {
  const res = await fetch(`${t.url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
  assert.equal(res.status, 400);
  assert.equal((await problem(res)).code, 'bad-request');
});

test('a JSON body with __proto__ is refused, never merged', async () => {
  const res = await fetch(`${t.url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"__proto__":{"admin":true}}' });
  assert.equal(res.status, 400);
  await problem(res);
});

test('body over the JSON limit answers 413 problem', async () => {
  const big = JSON.stringify({ x: 'a'.repeat(t.config.JSON_BODY_LIMIT + 10) });
  const res = await fetch(`${t.url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
  assert.equal(res.status, 413);
  assert.equal((await problem(res)).code, 'payload-too-large');
});

test('unsupported Content-Type answers 415 problem', async () => {
  const res = await fetch(`${t.url}/test/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
  assert.equal(res.status, 415);
  assert.equal((await problem(res)).code, 'unsupported-media-type');
});

test('a thrown bug answers 500 problem with only the trace id: no message, SQL, path or stack', async () => {
  const res = await fetch(`${t.url}/test/bug`);
  assert.equal(res.status, 500);
  const text = await res.clone().text();
  const body = await problem(res);
  assert.equal(body.code, 'internal-error');
  assert.equal(body.detail, undefined);
  for (const leak of ['secret_table', '/srv/app', 'x.ts', 'relation', 'at ']) assert.ok(!text.includes(leak), `leaked ${leak}`);
});

test('OAuth-face routes render errors as RFC 6749 JSON, not problem+json', async () => {
  const res = await fetch(`${t.url}/test/oauth`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(body.error, 'invalid_request');
  assert.equal(typeof body.error_description, 'string');
});

test('every response carries the trace id header', async () => {
  const res = await fetch(`${t.url}/healthz`);
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('metrics expose request count and latency by route and status (read from the registry the metrics listener serves)', async () => {
  await fetch(`${t.url}/healthz`);
  const text = await t.app.metrics.metrics();
  assert.match(text, /http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
  assert.match(text, /http_request_duration_seconds_bucket\{.*route="\/healthz"/);
});
