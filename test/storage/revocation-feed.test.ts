// The per-app revocation feed on either database: each app holds its own list (two apps in one process
// share nothing), the list is bounded by the tokens' expiry and by a size cap, and whenever it cannot
// vouch for being current it answers from the database instead — never "not revoked" from a stale memory.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { manualClock } from '../../src/clock.js';
import { createCore, type Core } from '../../src/core.js';
import type { Database } from '../../src/storage/driver/database.js';
import { revocationFeed } from '../../src/storage/repositories/revocation-feed.js';
import { revocationsRepository } from '../../src/storage/repositories/revocations-repository.js';
import { createTestDatabase } from '../helpers/database.js';
import { testConfig } from '../helpers/app.js';

const clock = manualClock(Date.parse('2026-03-01T10:00:00Z'));
let databases: Database[];
let a: Core;
let b: Core;

before(async () => {
  databases = [await createTestDatabase(), await createTestDatabase()];
  a = createCore({ config: testConfig(3997), clock, database: databases[0]! });
  b = createCore({ config: testConfig(3996), clock, database: databases[1]! });
});
after(async () => {
  a.revocationFeed.close();
  b.revocationFeed.close();
  for (const database of databases) await database.close();
});

const token = (jti: string) => ({ jti, clientId: 'c1', iat: Math.floor(clock.now() / 1000) });
const inTenMinutes = () => new Date(clock.now() + 600_000);

async function until(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const since = performance.now();
  while (!condition()) {
    if (performance.now() - since > deadlineMs) assert.fail(`${what}: not within ${deadlineMs} ms`);
    await delay(5);
  }
}

test('two apps in one process do not share revocation state: a revocation in one app is not in the other', async () => {
  assert.notEqual(a.revocationFeed, b.revocationFeed);
  await until(() => a.revocationFeed.known(token('warm-up')) === false && b.revocationFeed.known(token('warm-up')) === false, 'both feeds current');
  await revocationsRepository(a.db, clock).revoke([{ jti: 'only-in-a', expiresAt: inTenMinutes() }]);
  // Seen by the app that wrote it by the time the write returns (its own notice), not by the other app.
  assert.equal(a.revocationFeed.known(token('only-in-a')), true);
  assert.equal(b.revocationFeed.known(token('only-in-a')), false);
  assert.equal(await b.revocationFeed.isRevoked(token('only-in-a')), false);
});

test('a revocation is announced by the database itself: a feed the writer never heard of knows it when the write returns', async () => {
  const repository = revocationsRepository(a.db, clock);
  const feed = revocationFeed({ repository, notifications: databases[0]!.notifications, clock });
  try {
    await until(() => feed.known(token('warm-up')) === false, 'feed current');
    await repository.revokeClient({ clientId: 'c-cascade', coversIssuedUntil: new Date(clock.now()), expiresAt: inTenMinutes() });
    assert.equal(feed.known({ jti: 'any', clientId: 'c-cascade', iat: Math.floor(clock.now() / 1000) - 1 }), true);
    assert.equal(feed.known({ jti: 'any', clientId: 'c-cascade', iat: Math.floor(clock.now() / 1000) + 1 }), false, 'a token issued later is not covered');
  } finally {
    feed.close();
  }
});

test('the revocation list is bounded: past its cap it answers from the database, and once entries expire with their tokens it is current again', async () => {
  const repository = revocationsRepository(b.db, clock);
  const feed = revocationFeed({ repository, notifications: databases[1]!.notifications, clock, maxEntries: 3 });
  try {
    await until(() => feed.known(token('warm-up')) === false, 'feed current');
    const soon = new Date(clock.now() + 60_000);
    await repository.revoke(['cap-1', 'cap-2', 'cap-3', 'cap-4'].map((jti) => ({ jti, expiresAt: soon })));
    // The existing row only-in-a is in the other database; this one held 0 entries before: 3 fit, the 4th does not.
    assert.equal(feed.known(token('not-revoked')), undefined, 'cannot vouch: over its cap');
    assert.equal(await feed.isRevoked(token('cap-4')), true, 'the database answers what memory could not hold');
    assert.equal(await feed.isRevoked(token('not-revoked')), false);
    clock.advance(61_000);
    await until(() => feed.known(token('not-revoked')) === false, 'current again after expiry');
    assert.equal(feed.known(token('cap-4')), false, 'expired with its token');
  } finally {
    feed.close();
  }
});

test('without a listener (a database with no notifications) every check reads the database: fail safe', async () => {
  const repository = revocationsRepository(a.db, clock);
  const feed = revocationFeed({ repository, notifications: undefined, clock });
  await repository.revoke([{ jti: 'no-listener', expiresAt: inTenMinutes() }]);
  assert.equal(feed.known(token('no-listener')), undefined);
  assert.equal(await feed.isRevoked(token('no-listener')), true);
  assert.equal(await feed.isRevoked(token('other')), false);
});
