// The built-in demo application (/demo) against the real server over real HTTP: sign-in with code + PKCE
// as a confidential client, decoded tokens, the /v1 call, refresh, sign-out, and its security rules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import cookie from '@fastify/cookie';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { demoCookie } from '../../src/demo/cookie.js';
import { clientsRepository } from '../../src/storage/repositories/clients-repository.js';
import { DEMO_CLIENT_ID } from '../../src/oauth/clients/demo-client.js';
import type { User } from '../../src/storage/repositories/users-repository.js';
import { csrfOf, DEMO_COOKIE, location, signIn, signInUntilCallback } from './demo-flow.js';
import { Browser } from '../helpers/browser.js';
import { createUser, SIGN_IN } from '../helpers/users.js';

describe('demo application', () => {
  let t: TestApp;
  let user: User;
  before(async () => {
    t = await startTestApp({ env: { DEMO_ENABLED: 'true' } });
    user = await createUser(t.core.db, t.core.clock, SIGN_IN);
  });
  after(async () => {
    await t.close();
  });

  test('the demo signs in with code + PKCE and shows verified id_token claims, access token claims and the /v1 answer', async () => {
    const browser = new Browser(t.url);
    const html = await signIn(browser, user.username);
    assert.match(html, /Signed in as Test User/);
    assert.match(html, new RegExp(`&quot;sub&quot;: &quot;${user.id}&quot;`));
    assert.match(html, /&quot;client_id&quot;: &quot;gatehouse-demo&quot;/);
    assert.match(html, /The API answers <code>GET \/v1\/users\//);
    assert.match(html, /Status <strong>200<\/strong>/);
    assert.match(html, new RegExp(`&quot;username&quot;: &quot;${user.username}&quot;`));
    // Backend-for-frontend: no token reaches the browser.
    assert.doesNotMatch(html, /eyJ[A-Za-z0-9_-]{10,}\./);
  });

  test('refresh through the demo replaces the access token and keeps the session', async () => {
    const browser = new Browser(t.url);
    const before = await signIn(browser, user.username);
    const jti = (html: string) => /&quot;jti&quot;: &quot;([^&]+)&quot;/.exec(html)?.[1];
    const refreshed = await browser.post('/demo/refresh', { csrf: csrfOf(before) });
    assert.equal(refreshed.status, 303);
    const after = await (await browser.get('/demo')).text();
    assert.match(after, /Tokens refreshed/);
    assert.ok(jti(before) && jti(after) && jti(before) !== jti(after));
    assert.match(after, /Status <strong>200<\/strong>/);
  });

  test('sign-out ends the demo session and goes through RP-initiated logout with id_token_hint back to /demo', async () => {
    const browser = new Browser(t.url);
    const html = await signIn(browser, user.username);
    const out = await browser.post('/demo/logout', { csrf: csrfOf(html) });
    assert.equal(out.status, 303);
    const logout = new URL(location(out));
    assert.equal(logout.origin + logout.pathname, `${t.url}/logout`);
    assert.ok(logout.searchParams.get('id_token_hint'));
    assert.equal(logout.searchParams.get('post_logout_redirect_uri'), `${t.url}/demo`);
    assert.equal(browser.cookies.has(DEMO_COOKIE), false);
    const back = await browser.get(logout.pathname + logout.search);
    assert.equal(back.status, 303);
    assert.equal(new URL(location(back)).href.replace(/\?$/, ''), `${t.url}/demo`);
    assert.equal(browser.cookies.has('gatehouse_session'), false, 'the server session ended too');
    assert.match(await (await browser.get('/demo')).text(), /href="\/demo\/login"/);
  });

  test('the demo session cookie is HttpOnly, SameSite=Lax, scoped to /demo and holds no token', async () => {
    const browser = new Browser(t.url);
    const start = await browser.get('/demo/login');
    const line = start.headers.getSetCookie().find((l) => l.startsWith(`${DEMO_COOKIE}=`));
    assert.ok(line);
    assert.match(line, /; HttpOnly/i);
    assert.match(line, /; SameSite=Lax/i);
    assert.match(line, /; Path=\/demo/i);
    assert.doesNotMatch(line, /eyJ/);
    assert.match(line.split(';')[0]!, /^gatehouse_demo=[A-Za-z0-9_-]{43}$/);
  });

  test('the demo cookie is Secure with the __Host- prefix (Path=/) on an https issuer', async () => {
    const jar = demoCookie('https://id.example.com');
    const app = Fastify();
    await app.register(cookie);
    app.get('/', async (_request, reply) => {
      jar.set(reply, 'opaque');
      return 'ok';
    });
    const line = (await app.inject('/')).headers['set-cookie'];
    assert.equal(line, '__Host-gatehouse_demo=opaque; Path=/; HttpOnly; Secure; SameSite=Lax');
    await app.close();
  });

  test('a callback with a wrong state is refused and issues no session', async () => {
    const browser = new Browser(t.url);
    const callback = await signInUntilCallback(browser, user.username);
    callback.searchParams.set('state', 'not-the-state-we-sent');
    const response = await browser.get(callback.pathname + callback.search);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /sign-in response was not accepted/);
    assert.doesNotMatch(await (await browser.get('/demo')).text(), /Signed in as/);
  });

  test('a callback in a browser that did not start the sign-in is refused (state is bound to the session cookie)', async () => {
    const victim = new Browser(t.url);
    const attacker = new Browser(t.url);
    const callback = await signInUntilCallback(attacker, user.username);
    const response = await victim.get(callback.pathname + callback.search);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /not started from this browser/);
  });

  test('a callback is single use: replaying it after a successful sign-in is refused', async () => {
    const browser = new Browser(t.url);
    const callback = await signInUntilCallback(browser, user.username);
    const first = await browser.get(callback.pathname + callback.search);
    assert.equal(first.status, 303);
    const replay = await browser.get(callback.pathname + callback.search);
    assert.equal(replay.status, 400);
    // Refused by the demo itself (nothing pending any more), before the code reaches the token endpoint.
    assert.match(await replay.text(), /not started from this browser/);
  });

  test('a started sign-in allows one callback: after a refused callback even the right one is refused', async () => {
    const browser = new Browser(t.url);
    const callback = await signInUntilCallback(browser, user.username);
    const wrong = new URL(callback);
    wrong.searchParams.set('state', 'guessed');
    assert.equal((await browser.get(wrong.pathname + wrong.search)).status, 400);
    const right = await browser.get(callback.pathname + callback.search);
    assert.equal(right.status, 400);
    assert.match(await right.text(), /not started from this browser/);
  });

  test('signing in gives the demo session a new id: the cookie value from before sign-in is worth nothing after it', async () => {
    const browser = new Browser(t.url);
    const callback = await signInUntilCallback(browser, user.username);
    const before = browser.cookies.get(DEMO_COOKIE)!;
    await browser.get(callback.pathname + callback.search);
    assert.notEqual(browser.cookies.get(DEMO_COOKIE), before);
    const planted = new Browser(t.url);
    planted.cookies.set(DEMO_COOKIE, before);
    assert.doesNotMatch(await (await planted.get('/demo')).text(), /Signed in as/);
    assert.match(await (await browser.get('/demo')).text(), /Signed in as/);
  });

  test('parallel callbacks of one sign-in: exactly one signs in, the others are refused', async () => {
    const browser = new Browser(t.url);
    const callback = await signInUntilCallback(browser, user.username);
    const answers = await Promise.all(Array.from({ length: 5 }, () => browser.get(callback.pathname + callback.search)));
    assert.deepEqual(answers.map((r) => r.status).sort(), [303, 400, 400, 400, 400]);
  });

  test('a callback whose code was obtained with another PKCE verifier is refused by the token endpoint', async () => {
    // Two sign-ins in one browser: the second overwrites the pending verifier, so the first code no longer matches.
    const browser = new Browser(t.url);
    const first = await signInUntilCallback(browser, user.username);
    const second = await signInUntilCallback(browser, user.username);
    const firstState = first.searchParams.get('state');
    const forged = new URL(first);
    forged.searchParams.set('state', second.searchParams.get('state')!);
    assert.notEqual(firstState, forged.searchParams.get('state'));
    const response = await browser.get(forged.pathname + forged.search);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /invalid_grant/);
  });

  test('the demo refuses its POST actions without the CSRF token of its session', async () => {
    const browser = new Browser(t.url);
    await signIn(browser, user.username);
    for (const path of ['/demo/refresh', '/demo/logout']) {
      const missing = await browser.post(path, {});
      assert.equal(missing.status, 403, path);
      const wrong = await browser.post(path, { csrf: 'guessed' });
      assert.equal(wrong.status, 403, path);
    }
    assert.match(await (await browser.get('/demo')).text(), /Signed in as/, 'still signed in');
  });

  test('the demo refuses its POST actions from another origin even with the right token', async () => {
    const browser = new Browser(t.url);
    const html = await signIn(browser, user.username);
    const response = await browser.post('/demo/logout', { csrf: csrfOf(html) }, { origin: 'https://evil.example' });
    assert.equal(response.status, 403);
    assert.match(await (await browser.get('/demo')).text(), /Signed in as/);
  });

  test('the demo never redirects off its issuer: parameters cannot choose where it sends the browser', async () => {
    const browser = new Browser(t.url);
    const start = await browser.get('/demo/login?redirect_uri=https://evil.example/&return_to=https://evil.example/&next=//evil.example');
    const target = new URL(location(start));
    assert.equal(target.origin, t.url);
    assert.equal(target.searchParams.get('redirect_uri'), `${t.url}/demo/callback`);
    const html = await signIn(browser, user.username);
    const out = await browser.post('/demo/logout?post_logout_redirect_uri=https://evil.example/', {
      csrf: csrfOf(html),
      post_logout_redirect_uri: 'https://evil.example/',
    });
    assert.equal(new URL(location(out)).origin, t.url);
    assert.equal(new URL(location(out)).searchParams.get('post_logout_redirect_uri'), `${t.url}/demo`);
  });

  test('the demo client is registered idempotently: a second start on the same database keeps one working registration', async () => {
    const again = await startTestApp({ database: t.database, env: { DEMO_ENABLED: 'true', KEY_ENCRYPTION_KEY: t.config.KEY_ENCRYPTION_KEY! } });
    try {
      const demoClients = (await clientsRepository(t.core.db, t.core.clock).list()).filter((c) => c.id === DEMO_CLIENT_ID);
      assert.equal(demoClients.length, 1);
      assert.deepEqual(demoClients[0]!.redirectUris, [`${again.url}/demo/callback`]);
    } finally {
      await again.close();
    }
  });

  test('without any user account the demo page says how to create one with the CLI', async () => {
    const empty = await startTestApp({ env: { DEMO_ENABLED: 'true' } });
    try {
      const html = await (await fetch(`${empty.url}/demo`)).text();
      assert.match(html, /Nobody can sign in yet/);
      assert.match(html, /npx gatehouse users create --username/);
    } finally {
      await empty.close();
    }
  });
});

describe('demo sign-in limits', () => {
  test('starting demo sign-ins draws on the per-address anonymous budget (RATE_LIMIT_ANONYMOUS), not the page budget', async () => {
    const t = await startTestApp({ env: { DEMO_ENABLED: 'true', RATE_LIMIT_ANONYMOUS: '3', RATE_LIMIT_PAGES: '1000' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${t.url}/demo/login`, { redirect: 'manual' })).status);
      assert.deepEqual(statuses, [303, 303, 303, 429]);
    } finally {
      await t.close();
    }
  });

  test("one address cannot evict other visitors' demo sessions: 1,016 sign-in starts from one address leave a signed-in visitor signed in", async () => {
    // Budgets out of the way: the store's per-address share alone must hold (issue 28 S7).
    const t = await startTestApp({ env: { DEMO_ENABLED: 'true', TRUST_PROXY: '127.0.0.1', RATE_LIMIT_ANONYMOUS: '100000', RATE_LIMIT_PAGES: '100000' } });
    try {
      const visitor = await createUser(t.core.db, t.core.clock, SIGN_IN);
      const browser = new Browser(t.url);
      assert.match(await signIn(browser, visitor.username), /Signed in as/);
      for (let i = 0; i < 1016; i += 8) {
        await Promise.all(Array.from({ length: 8 }, () => fetch(`${t.url}/demo/login`, { redirect: 'manual', headers: { 'x-forwarded-for': '203.0.113.7' } })));
      }
      assert.match(await (await browser.get('/demo')).text(), /Signed in as/, 'the visitor is still signed in');
    } finally {
      await t.close();
    }
  });
});

describe('demo without a reachable issuer', () => {
  test('when the server cannot reach itself at ISSUER the demo answers a 503 page that says so, not a 500', async () => {
    const t = await startTestApp({ env: { DEMO_ENABLED: 'true', ISSUER: 'http://127.0.0.1:9' } });
    try {
      const port = (t.app.server.address() as AddressInfo).port;
      const response = await fetch(`http://127.0.0.1:${port}/demo/login`, { redirect: 'manual' });
      assert.equal(response.status, 503);
      const html = await response.text();
      assert.match(html, /could not reach this server at http:\/\/127\.0\.0\.1:9 \(ISSUER\)/);
      assert.match(html, /href="\/demo">Back to the demo/);
    } finally {
      await t.close();
    }
  });
});

describe('demo switch', () => {
  test('the demo is off by default when NODE_ENV=production: no route, no client', async () => {
    const { parseConfig } = await import('../../src/config.js');
    const production = parseConfig({ NODE_ENV: 'production', ISSUER: 'https://id.example.com', KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64url') });
    assert.equal(production.DEMO_ENABLED, false);
    assert.equal(parseConfig({ NODE_ENV: 'development' }).DEMO_ENABLED, true);
    assert.equal(
      parseConfig({
        NODE_ENV: 'production',
        ISSUER: 'https://id.example.com',
        KEY_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64url'),
        DEMO_ENABLED: 'true',
      }).DEMO_ENABLED,
      true,
    );
    const t = await startTestApp({ env: { DEMO_ENABLED: 'false' } });
    try {
      assert.equal((await fetch(`${t.url}/demo`)).status, 404);
      assert.equal(await clientsRepository(t.core.db, t.core.clock).find(DEMO_CLIENT_ID), undefined);
    } finally {
      await t.close();
    }
  });
});
