// The in-memory revocation list across instances: two apps, each with its own pool, listener and feed, on
// one PostgreSQL database. A revocation committed by one reaches the other within the propagation promise
// through LISTEN/NOTIFY — the authenticators here re-check the database only once a minute, so nothing else
// could deliver it — and a killed listener never makes a revoked token pass beyond that promise.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { manualClock } from '../../src/clock.js';
import { createCore, type Core } from '../../src/core.js';
import { openPostgres, type Database } from '../../src/storage/driver/database.js';
import { LISTENER_NAME } from '../../src/storage/driver/notifications.js';
import { REVOCATION_PROMISE_MS, revocationFeed } from '../../src/storage/repositories/revocation-feed.js';
import { revocationsRepository } from '../../src/storage/repositories/revocations-repository.js';
import { accessTokenIssuer } from '../../src/oauth/issued-tokens/access-tokens.js';
import { resourceServerAuth, type Authenticator } from '../../src/resource-server/auth/index.js';
import { dpopDeps } from '../../src/tokens/dpop/proof.js';
import { ProblemError } from '../../src/http/errors.js';
import { createPostgresDatabaseUrl } from '../helpers/database.js';
import { testConfig } from '../helpers/app.js';

const clock = manualClock(Date.now());
let created: Awaited<ReturnType<typeof createPostgresDatabaseUrl>>;
let databases: Database[];
let a: Core;
let b: Core;
let authB: Authenticator;

before(async () => {
  created = await createPostgresDatabaseUrl();
  databases = [await openPostgres(created.url, 4), await openPostgres(created.url, 4)];
  const config = testConfig(3998);
  a = createCore({ config, clock, database: databases[0]! });
  b = createCore({ config, clock, database: databases[1]! });
  await a.keys.ensureKeys();
  authB = resourceServerAuth({ ...b, revocations: b.revocationFeed, dpop: dpopDeps(b) }, { recheckMs: 60_000 }).authenticator;
});
after(async () => {
  a.revocationFeed.close();
  b.revocationFeed.close();
  for (const database of databases) await database.close();
  await created.drop();
});

const issue = () => accessTokenIssuer({ keys: a.keys, clock, config: a.config }).issue({ sub: 'u1', clientId: 'c1', scope: ['users:read'] });
const presented = (issued: { jti: string }) => ({ jti: issued.jti, clientId: 'c1', iat: Math.floor(clock.now() / 1000) });
const isRefused = (promise: Promise<unknown>) =>
  promise.then(
    () => false,
    (e: unknown) => {
      if (e instanceof ProblemError && e.code === 'invalid-token') return true;
      throw e;
    },
  );

/** Polls `condition` until it holds; fails once `deadlineMs` (from `since`) has passed. Returns the time it took. */
async function within(deadlineMs: number, since: number, condition: () => Promise<boolean> | boolean, what: string): Promise<number> {
  for (;;) {
    if (await condition()) return performance.now() - since;
    if (performance.now() - since > deadlineMs) assert.fail(`${what}: not within ${deadlineMs} ms`);
    await delay(5);
  }
}

/** Instance B's feed is listening, loaded and current: it answers "not revoked" from memory. */
const bIsCurrent = () => b.revocationFeed.known({ jti: 'never-revoked', clientId: 'nobody', iat: 0 }) === false;

test('a revocation committed by another instance is refused here within the propagation promise (LISTEN/NOTIFY, not the re-check interval)', async () => {
  await within(10_000, performance.now(), bIsCurrent, 'instance B listening');
  const issued = await issue();
  assert.equal((await authB.authenticate(issued.token)).sub, 'u1');
  await revocationsRepository(a.db, clock).revoke([{ jti: issued.jti, expiresAt: issued.expiresAt }]);
  const committed = performance.now();
  await within(REVOCATION_PROMISE_MS, committed, () => isRefused(authB.authenticate(issued.token)), 'revocation seen by instance B');
  assert.equal(b.revocationFeed.known(presented(issued)), true, 'B knows it from memory');
});

test('a client revocation (deleted or disabled client) committed by another instance reaches this one within the promise', async () => {
  await within(10_000, performance.now(), bIsCurrent, 'instance B listening');
  const issued = await issue();
  assert.equal((await authB.authenticate(issued.token)).sub, 'u1');
  await revocationsRepository(a.db, clock).revokeClient({
    clientId: 'c1',
    coversIssuedUntil: new Date(clock.now() + 1000),
    expiresAt: new Date(clock.now() + 600_000),
  });
  const committed = performance.now();
  await within(REVOCATION_PROMISE_MS, committed, () => isRefused(authB.authenticate(issued.token)), 'client revocation seen by instance B');
  clock.advance(2_000);
});

test('the listener connection killed (pg_terminate_backend): a revoked token is still refused, and the feed is current again after reconnecting', async () => {
  await within(10_000, performance.now(), bIsCurrent, 'instance B listening');
  const before = await issue();
  const during = await issue();
  assert.equal((await authB.authenticate(before.token)).sub, 'u1');
  assert.equal((await authB.authenticate(during.token)).sub, 'u1');

  // Every connection of this database but the admin's: both listeners and every pooled connection (which
  // listen too). The revocation is then written through a connection opened afterwards.
  const admin = new pg.Client({ connectionString: created.url });
  await admin.connect();
  const writer = await openPostgres(created.url, 1);
  try {
    const { rows } = await admin.query<{ pid: number; application_name: string }>(
      'select pid, application_name from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
    );
    assert.ok(
      rows.some((r) => r.application_name === LISTENER_NAME),
      'listeners are connected',
    );
    for (const { pid } of rows) await admin.query('select pg_terminate_backend($1)', [pid]);
    await revocationsRepository(writer.db, clock).revoke([{ jti: during.jti, expiresAt: during.expiresAt }]);
    const committed = performance.now();
    // A request failing on a terminated pooled connection is no acceptance; B must refuse within the promise.
    const refused = () => isRefused(authB.authenticate(during.token)).catch(() => false);
    await within(REVOCATION_PROMISE_MS, committed, refused, 'revocation during the outage refused');
    // Reconnected: B is current again and knows the revocation from memory.
    await within(10_000, committed, bIsCurrent, 'instance B listening again');
    assert.equal(b.revocationFeed.known(presented(during)), true, 'in memory after reconnecting');
    assert.equal((await authB.authenticate(before.token)).sub, 'u1', 'a token not revoked still passes');
    // And the new listener delivers again.
    await revocationsRepository(writer.db, clock).revoke([{ jti: before.jti, expiresAt: before.expiresAt }]);
    const again = performance.now();
    await within(REVOCATION_PROMISE_MS, again, () => isRefused(authB.authenticate(before.token)), 'revocation after reconnect');
  } finally {
    await writer.close();
    await admin.end();
  }
});

test('while its listener is down the feed vouches for nothing: every check reads the database (fail safe)', async () => {
  const database = await openPostgres(created.url, 2);
  const repository = revocationsRepository(database.db, clock);
  const feed = revocationFeed({ repository, notifications: database.notifications, clock });
  const outsider = new pg.Client({ connectionString: created.url });
  await outsider.connect();
  try {
    const probe = { jti: 'down-probe', clientId: 'c9', iat: Math.floor(clock.now() / 1000) };
    await within(10_000, performance.now(), () => feed.known(probe) === false, 'feed current');
    await database.notifications!.close();
    assert.equal(feed.known(probe), undefined, 'no answer from memory once the listener is gone');
    // A revocation written meanwhile from another session is refused.
    await outsider.query('insert into revoked_access_tokens (jti, expires_at, revoked_at) values ($1, $2, now())', [
      probe.jti,
      new Date(clock.now() + 600_000),
    ]);
    assert.equal(await feed.isRevoked(probe), true);
  } finally {
    feed.close();
    await outsider.end();
    await database.close();
  }
});
