import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../src/config.js';
import { createRateLimits } from '../../src/http/rate-limit.js';
import { ProblemError } from '../../src/http/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const config = (env: Record<string, string> = {}) => parseConfig({ RATE_LIMIT_TOKEN: '3', RATE_LIMIT_CLIENT_AUTH_FAILURES: '2', ...env });

test('past the limit a request is refused with 429, Retry-After and RateLimit headers whose remaining count decreases monotonically', async () => {
  const limits = createRateLimits(config());
  const remaining: number[] = [];
  for (let i = 0; i < 3; i++) {
    const headers = await limits.hit('token', 'client-a');
    assert.equal(headers?.['ratelimit-policy'], '"token";q=3;w=60');
    remaining.push(Number(/r=(\d+)/.exec(headers!.ratelimit)![1]));
  }
  assert.deepEqual(remaining, [2, 1, 0]);
  await assert.rejects(limits.hit('token', 'client-a'), (error: unknown) => {
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 429);
    assert.ok(Number(error.headers['retry-after']) >= 1);
    assert.match(error.headers.ratelimit!, /r=0;t=\d+/);
    return true;
  });
  // Another key has its own budget.
  assert.ok(await limits.hit('token', 'client-b'));
});

test('a key blocked by failures is refused even before the next attempt is checked (brute force blocks the right secret too)', async () => {
  const limits = createRateLimits(config());
  await limits.assertNotBlocked('client_auth_failures', 'c1');
  await limits.fail('client_auth_failures', 'c1');
  await limits.assertNotBlocked('client_auth_failures', 'c1');
  await limits.fail('client_auth_failures', 'c1');
  await assert.rejects(limits.assertNotBlocked('client_auth_failures', 'c1'), /Too many requests/);
  await limits.assertNotBlocked('client_auth_failures', 'c2');
});

test('RATE_LIMIT_ENABLED=false turns every limit off', async () => {
  const limits = createRateLimits(config({ RATE_LIMIT_ENABLED: 'false' }));
  for (let i = 0; i < 10; i++) await limits.hit('token', 'x');
  for (let i = 0; i < 10; i++) await limits.fail('client_auth_failures', 'x');
  await limits.assertNotBlocked('client_auth_failures', 'x');
  assert.equal(limits.enabled, false);
});

let t: TestApp;
before(async () => {
  t = await startTestApp({
    env: { RATE_LIMIT_ANONYMOUS: '1' },
    configure(app) {
      const limited = async () => {
        await t.core.rateLimits.hit('anonymous', 'same-key');
        return { ok: true };
      };
      app.get('/test/limited-problem', limited);
      app.post('/test/limited-oauth', { config: { face: 'oauth' } }, limited);
      app.get('/test/limited-page', { config: { face: 'page' } }, limited);
    },
  });
});
after(() => t.close());

test('every 429 carries Retry-After, in the format of its face: problem+json, OAuth JSON, HTML', async () => {
  assert.equal((await fetch(`${t.url}/test/limited-problem`)).status, 200);
  const problem = await fetch(`${t.url}/test/limited-problem`);
  assert.equal(problem.status, 429);
  assert.ok(problem.headers.get('retry-after'));
  assert.match(problem.headers.get('content-type')!, /application\/problem\+json/);
  assert.equal(((await problem.json()) as { code: string }).code, 'rate-limited');

  const oauth = await fetch(`${t.url}/test/limited-oauth`, { method: 'POST' });
  assert.equal(oauth.status, 429);
  assert.ok(oauth.headers.get('retry-after'));
  assert.match(oauth.headers.get('content-type')!, /^application\/json/);
  assert.equal(((await oauth.json()) as { error: string }).error, 'slow_down');

  const page = await fetch(`${t.url}/test/limited-page`);
  assert.equal(page.status, 429);
  assert.ok(page.headers.get('retry-after'));
  assert.match(page.headers.get('content-type')!, /^text\/html/);
});
