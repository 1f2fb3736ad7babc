// Token scanning: /introspect and /revoke are limited per calling client
// (RATE_LIMIT_INTROSPECTION), so one client cannot try tokens by the thousand.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { basicAuth, postForm, registerClient, type RegisteredClient } from './fixtures.js';

const LIMIT = 50;
let t: TestApp;
let scanner: RegisteredClient;
let bystander: RegisteredClient;

before(async () => {
  // Load shedding off: on a busy test machine 1,000 requests would otherwise meet 503s, which this test is not about.
  t = await startTestApp({ env: { RATE_LIMIT_INTROSPECTION: String(LIMIT), OVERLOAD_MAX_EVENT_LOOP_DELAY: '0', OVERLOAD_MAX_DB_WAITING: '0' } });
  scanner = await registerClient(t.core);
  bystander = await registerClient(t.core);
});
after(() => t.close());

const introspect = (client: RegisteredClient, token: string) =>
  postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(client.id, client.secret) });

test('1,000 random tokens to /introspect by one caller: answers past the threshold are 429 with Retry-After', async () => {
  const statuses: number[] = [];
  const started = performance.now();
  for (let batch = 0; batch < 50; batch++) {
    const answers = await Promise.all(Array.from({ length: 20 }, () => introspect(scanner, randomBytes(24).toString('base64url'))));
    for (const answer of answers) {
      statuses.push(answer.status);
      if (answer.status === 200) assert.deepEqual(answer.body, { active: false });
      else {
        assert.equal(answer.body.error, 'slow_down');
        assert.ok(Number(answer.headers.get('retry-after')) >= 1);
      }
    }
  }
  assert.equal(statuses.length, 1000);
  // The window is a fixed 60 s; a slow machine may cross into a new one during the run, which grants
  // exactly one more budget per window started (the test never waits for one).
  const windows = 1 + Math.floor((performance.now() - started) / 60_000);
  const answered = statuses.filter((s) => s === 200).length;
  assert.ok(answered >= LIMIT && answered <= LIMIT * windows, `${answered} answered in ${windows} window(s) of ${LIMIT}`);
  assert.equal(statuses.filter((s) => s === 429).length, 1000 - answered, 'everything past the budget is 429');
  assert.deepEqual(statuses.slice(0, 20), Array(20).fill(200), 'the first requests are within budget');
});

test('/revoke shares the caller budget with /introspect, and another caller keeps its own (with RateLimit headers)', async () => {
  const revoke = await postForm(`${t.url}/revoke`, { token: 'anything' }, { authorization: basicAuth(scanner.id, scanner.secret) });
  assert.equal(revoke.status, 429);
  const fresh = await introspect(bystander, 'anything');
  assert.equal(fresh.status, 200);
  assert.equal(fresh.headers.get('ratelimit-policy'), `"introspection";q=${LIMIT};w=60`);
  assert.match(fresh.headers.get('ratelimit') ?? '', new RegExp(`^"introspection";r=${LIMIT - 1};t=\\d+$`));
});
