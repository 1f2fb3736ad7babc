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

test('a failure budget is charged before the check: the attempt past the budget is refused before it is evaluated', async () => {
  const limits = createRateLimits(config());
  await limits.reserve('client_auth_failures', 'c1');
  await limits.reserve('client_auth_failures', 'c1');
  await assert.rejects(limits.reserve('client_auth_failures', 'c1'), /Too many requests/);
  await limits.reserve('client_auth_failures', 'c2');
});

test('a refunded charge (a success) gives its point back, so successes never use up a failure budget', async () => {
  const limits = createRateLimits(config());
  for (let i = 0; i < 10; i++) await (await limits.reserve('client_auth_failures', 'c1')).refund();
  await limits.reserve('client_auth_failures', 'c1');
  await limits.reserve('client_auth_failures', 'c1');
  await assert.rejects(limits.reserve('client_auth_failures', 'c1'), /Too many requests/);
});

test('parallel charges cannot overrun a failure budget: of 40 at once exactly the budget passes', async () => {
  const limits = createRateLimits(config({ RATE_LIMIT_CLIENT_AUTH_FAILURES: '10' }));
  const results = await Promise.allSettled(Array.from({ length: 40 }, () => limits.reserve('client_auth_failures', 'c1')));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 10);
});

test('RATE_LIMIT_ENABLED=false turns every limit off', async () => {
  const limits = createRateLimits(config({ RATE_LIMIT_ENABLED: 'false' }));
  for (let i = 0; i < 10; i++) await limits.hit('token', 'x');
  for (let i = 0; i < 10; i++) await limits.reserve('client_auth_failures', 'x');
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
