// Route facts live with the route: each route's `config` names its error face and its anonymous budget,
// and the error edge and the anonymous limiter derive everything from them — including the face of an
// answer given before any route was chosen (a malformed URL) and of a 405. Unknown paths stay 404 problems.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { routeFacts } from '../../src/http/route-facts.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

test('the route table takes each face from the route config, problem by default', () => {
  const facts = routeFacts();
  facts.add({ url: '/token', method: 'POST', config: { face: 'oauth' } });
  facts.add({ url: '/token', method: 'OPTIONS', config: { face: 'oauth' } });
  facts.add({ url: '/interaction/:id', method: 'GET', config: { face: 'page' } });
  facts.add({ url: '/.well-known/jwks.json', method: 'GET', config: {} });
  facts.add({ url: '/.well-known/jwks.json', method: 'OPTIONS', config: { face: 'oauth' } });
  facts.add({ url: '/v1/users/:id', method: ['GET', 'PUT'], config: {} });

  assert.deepEqual(facts.matching('/token'), { methods: ['OPTIONS', 'POST'], face: 'oauth' });
  assert.deepEqual(facts.matching('/v1/users/42'), { methods: ['GET', 'PUT'], face: 'problem' });
  assert.equal(facts.matching('/nothing'), undefined);

  assert.equal(facts.faceOfPath('/interaction/%E0%A4%A'), 'page', 'a path a route matches takes its face');
  assert.equal(facts.faceOfPath('/token/%E0%A4%A?x=1'), 'oauth', 'else the face every route under its first segment shares');
  assert.equal(facts.faceOfPath('/.well-known/%E0%A4%A'), 'problem', 'routes of mixed faces settle nothing: problem');
  assert.equal(facts.faceOfPath('/%E0%A4%A'), 'problem');
  assert.equal(facts.faceOfPath('/unknown/%E0%A4%A'), 'problem');
});

let t: TestApp;
before(async () => {
  t = await startTestApp({
    env: { RATE_LIMIT_ANONYMOUS: '50', RATE_LIMIT_PAGES: '50', REGISTRATION_ENABLED: 'true' },
    configure(app) {
      // A route that only declares its facts: the limiter and the edge must follow them.
      app.post('/declared-only', { config: { face: 'oauth', limit: 'anonymous' } }, async () => {
        throw new Error('a bug');
      });
    },
  });
});
after(() => t.close());

const policy = (res: Response) => res.headers.get('ratelimit-policy');

test('a route is limited by the budget its config declares, and its errors take its declared face', async () => {
  const res = await fetch(`${t.url}/declared-only`, { method: 'POST' });
  assert.equal(policy(res), '"anonymous";q=50;w=60');
  assert.equal(res.status, 500);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(((await res.json()) as { error: string }).error, 'server_error');
});

test('the browser pages and registration declare their budgets; logged-out page, discovery and JWKS declare none', async () => {
  assert.equal(policy(await fetch(`${t.url}/authorize?client_id=x`)), '"pages";q=50;w=60');
  assert.equal(
    policy(await fetch(`${t.url}/authorize`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=x' })),
    '"pages";q=50;w=60',
  );
  assert.equal(policy(await fetch(`${t.url}/interaction/${'a'.repeat(22)}`)), '"pages";q=50;w=60');
  assert.equal(policy(await fetch(`${t.url}/logout`)), '"pages";q=50;w=60');
  assert.equal(
    policy(await fetch(`${t.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })),
    '"anonymous";q=50;w=60',
  );
  assert.equal(policy(await fetch(`${t.url}/register/some-client`)), '"anonymous";q=50;w=60');
  for (const path of ['/logout/done', '/.well-known/openid-configuration', '/.well-known/jwks.json']) {
    assert.equal(policy(await fetch(`${t.url}${path}`)), null, path);
  }
});

test('/authorize is served by the authorization server with the pages’ security headers', async () => {
  const res = await fetch(`${t.url}/authorize?client_id=nobody`);
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(res.headers.get('x-frame-options'), 'DENY');
  assert.match(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
});

test('unknown paths keep their face: 404 problem everywhere, even under a page or OAuth prefix', async () => {
  for (const path of ['/no-such-thing', `/interaction/${'a'.repeat(22)}/nope`, '/token/extra', '/authorize/extra']) {
    const res = await fetch(`${t.url}${path}`);
    assert.equal(res.status, 404, path);
    assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/, path);
  }
});

test('a wrong method takes the face of the route at that path (405 with Allow)', async () => {
  const token = await fetch(`${t.url}/token`);
  assert.equal(token.status, 405);
  assert.equal(token.headers.get('allow'), 'OPTIONS, POST');
  assert.equal(((await token.json()) as { error: string }).error, 'invalid_request');
  const page = await fetch(`${t.url}/interaction/${'a'.repeat(22)}/login`);
  assert.equal(page.status, 405);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
});

test('a malformed URL takes the face of the routes it belongs to, before any route is chosen', async () => {
  const expected: [string, RegExp][] = [
    ['/token/%E0%A4%A', /^application\/json/],
    ['/authorize/%E0%A4%A', /^text\/html/],
    ['/logout/%E0%A4%A', /^text\/html/],
    ['/.well-known/%E0%A4%A', /^application\/problem\+json/],
    ['/v1/users/%E0%A4%A', /^application\/problem\+json/],
    ['/%E0%A4%A', /^application\/problem\+json/],
  ];
  for (const [path, type] of expected) {
    const res = await fetch(`${t.url}${path}`);
    assert.equal(res.status, 400, path);
    assert.match(res.headers.get('content-type') ?? '', type, path);
  }
});
