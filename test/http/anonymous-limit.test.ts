// Unauthenticated endpoints that create state are limited per client address: registration under
// RATE_LIMIT_ANONYMOUS, the browser pages (/authorize, interaction pages, logout) under their own, larger
// RATE_LIMIT_PAGES so a corporate NAT can log in; discovery and JWKS are not limited.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_PAGES: '3', REGISTRATION_ENABLED: 'true', OVERLOAD_MAX_EVENT_LOOP_DELAY: '0' } });
});
after(() => t.close());

const register = () =>
  fetch(`${t.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250)}` },
    body: '{}',
  });

test('/register is limited per IP: past the limit a 429 in OAuth JSON with Retry-After, RateLimit headers before it, whatever X-Forwarded-For says', async () => {
  const first = await register();
  assert.notEqual(first.status, 429);
  assert.equal(first.headers.get('ratelimit-policy'), '"anonymous";q=2;w=60');
  assert.notEqual((await register()).status, 429);
  const limited = await register();
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  assert.equal(((await limited.json()) as { error: string }).error, 'slow_down');
});

test('/authorize from the same IP draws on the separate page budget (an HTML 429 past it), while discovery and JWKS stay unlimited', async () => {
  for (let i = 0; i < 3; i++) {
    const page = await fetch(`${t.url}/authorize?client_id=x`);
    assert.notEqual(page.status, 429, 'used-up registrations do not refuse the login pages');
    assert.equal(page.headers.get('ratelimit-policy'), '"pages";q=3;w=60');
  }
  const authorize = await fetch(`${t.url}/authorize?client_id=x`);
  assert.equal(authorize.status, 429);
  assert.match(authorize.headers.get('content-type') ?? '', /^text\/html/);
  for (let i = 0; i < 5; i++) {
    assert.equal((await fetch(`${t.url}/.well-known/openid-configuration`)).status, 200);
    assert.equal((await fetch(`${t.url}/.well-known/jwks.json`)).status, 200);
  }
});
