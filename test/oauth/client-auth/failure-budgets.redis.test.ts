// With REDIS_URL, the failure budgets of client authentication and login hold across instances under
// parallel requests: two app instances sharing one database and one Redis, 40 attempts split between them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/database.js';
import { startRedisServer, type RedisServer } from '../../helpers/redis-server.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { createClient, REDIRECT_URI } from '../../helpers/oauth-fixtures.js';
import { authorizeQuery, openInteraction, submitLogin } from '../../interaction/browserless.js';
import { basicAuth, postForm, registerClient } from '../fixtures.js';
import { Browser } from '../../helpers/browser.js';
import { createUser, SIGN_IN } from '../../helpers/users.js';

const LIMIT = 10;
let server: RedisServer;
let database: Database;
let instances: TestApp[];

before(async () => {
  server = await startRedisServer();
  database = await createTestDatabase();
  const env = {
    REDIS_URL: server.url,
    RATE_LIMIT_CLIENT_AUTH_FAILURES: String(LIMIT),
    RATE_LIMIT_LOGIN_FAILURES: String(LIMIT),
    OVERLOAD_MAX_EVENT_LOOP_DELAY: '0',
  };
  instances = [await startTestApp({ database, env }), await startTestApp({ database, env })];
  // Until its client is connected an instance counts in memory (fail-open per instance); wait for both.
  for (const { core } of instances) if (core.redis!.status !== 'ready') await once(core.redis!, 'ready');
});
after(async () => {
  for (const t of instances ?? []) await t.close();
  await database?.close();
  await server?.stop();
});

test('with Redis, 40 parallel wrong secrets for one client split over two instances: at most the budget is evaluated', async () => {
  const victim = await registerClient(instances[0]!.core, { client_name: 'victim' });
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      postForm(`${instances[i % 2]!.url}/token`, { grant_type: 'client_credentials' }, { authorization: basicAuth(victim.id, `guess-${i}`) }),
    ),
  );
  const evaluated = results.filter((r) => r.status === 401).length;
  assert.ok(evaluated <= LIMIT, `${evaluated} wrong secrets were evaluated across two instances, the budget is ${LIMIT}`);
  assert.equal(results.filter((r) => r.status === 429).length, 40 - evaluated);
});

test('with Redis, 40 parallel wrong passwords for one username split over two instances: at most the budget is evaluated', async () => {
  const [a] = instances;
  const { client } = await createClient(a!.core.db, a!.core.clock);
  const user = await createUser(a!.core.db, a!.core.clock, SIGN_IN);
  const forms = [];
  for (let i = 0; i < 40; i++) {
    // The interaction lives in the shared database: open it on one instance, submit it on either.
    const browser = new Browser(instances[i % 2]!.url);
    forms.push({ browser, form: (await openInteraction(browser, authorizeQuery(client.id, REDIRECT_URI))).form });
  }
  const responses = await Promise.all(forms.map(({ browser, form }, i) => submitLogin(browser, form, user.username, `wrong-${i}`)));
  const evaluated = responses.filter((r) => r.status === 303 && /failed=1$/.test(r.headers.get('location') ?? '')).length;
  assert.ok(evaluated <= LIMIT, `${evaluated} wrong passwords were evaluated across two instances, the budget is ${LIMIT}`);
  assert.equal(responses.filter((r) => r.status === 429).length, 40 - evaluated);
});
