// The rotation schedule across instances: two KeyServices on one database, each with its own copy of the key
// rows refreshed every KEY_REFRESH_INTERVAL, and a manual clock stepped through the whole rotation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { manualClock } from '../../src/clock.js';
import { keyEncryption } from '../../src/crypto/key-encryption.js';
import { keyService, type KeyService, type KeyServiceOptions } from '../../src/crypto/keys.js';
import { signingKeysRepository } from '../../src/storage/repositories/signing-keys-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';

const JWKS_CACHE_TTL = 300;
const REFRESH_MS = 30_000;
const CLOCK_SKEW = 30;

let database: Database;
const clock = manualClock(Date.parse('2026-05-01T00:00:00Z'));
const kek = keyEncryption(randomBytes(32));
const instance = (overrides: Partial<KeyServiceOptions> = {}): KeyService =>
  keyService({
    repository: signingKeysRepository(database.db),
    encryption: kek,
    clock,
    publishDelaySeconds: JWKS_CACHE_TTL,
    maxTokenLifetimeSeconds: 600,
    clockSkewSeconds: CLOCK_SKEW,
    refreshIntervalMs: REFRESH_MS,
    ...overrides,
  });

before(async () => {
  database = await createTestDatabase();
  await instance().ensureKeys();
});
after(() => database.close());

const kidOf = async (keys: KeyService) => decodeProtectedHeader(await keys.sign({ sub: 'x' }, { alg: 'ES256', typ: 'at+jwt' })).kid;
const publishes = async (keys: KeyService, kid: string) => (await keys.jwks()).keys.some((k) => k.kid === kid);

test('no instance signs with a rotated key before every instance has served it in its JWKS for JWKS_CACHE_TTL', async () => {
  const a = instance();
  const b = instance();
  // B takes its copy of the rows just before the rotation, so it is the last to learn of the new key.
  await b.jwks();
  clock.advance(1);
  const rotated = await a.rotate('ES256');
  const start = clock.now();
  let servedByBoth: number | undefined;
  let firstSigned: number | undefined;
  for (let t = start; t <= start + 2 * (JWKS_CACHE_TTL * 1000 + REFRESH_MS); t += 1000) {
    clock.set(t);
    if (servedByBoth === undefined && (await publishes(a, rotated.kid)) && (await publishes(b, rotated.kid))) servedByBoth = t;
    const signedBy = [await kidOf(a), await kidOf(b)];
    if (signedBy.includes(rotated.kid)) {
      firstSigned = t;
      assert.deepEqual(signedBy, [rotated.kid, rotated.kid], 'both instances switch at the same moment');
      break;
    }
  }
  assert.ok(servedByBoth !== undefined && firstSigned !== undefined, 'the key was published and then signed');
  assert.ok(servedByBoth > start, 'B served its older copy for a while (the case the margin is for)');
  assert.ok(
    firstSigned - servedByBoth >= JWKS_CACHE_TTL * 1000,
    `first signature ${(firstSigned - servedByBoth) / 1000} s after both instances served the key`,
  );
  assert.equal(firstSigned, Date.parse(rotated.activates_at), "the switch is the row's activates_at, not a cache age");
});

test('the schedule is written into the row: activates_at = published_at + JWKS_CACHE_TTL + KEY_REFRESH_INTERVAL + CLOCK_SKEW', async () => {
  const rotated = await instance().rotate('RS256');
  assert.equal(rotated.state, 'pending');
  assert.equal(Date.parse(rotated.activates_at) - Date.parse(rotated.published_at), (JWKS_CACHE_TTL + CLOCK_SKEW) * 1000 + REFRESH_MS);
  // An instance that never saw the rotation (fresh copy taken long after) reads the same schedule.
  clock.set(Date.parse(rotated.activates_at) - 1);
  assert.equal((await instance().schedule()).find((k) => k.kid === rotated.kid)!.state, 'pending');
  clock.set(Date.parse(rotated.activates_at));
  const late = instance();
  assert.equal(decodeProtectedHeader(await late.sign({}, { alg: 'RS256', typ: 'JWT' })).kid, rotated.kid);
});

test('concurrent requests on a stale copy of the key rows share one database read', async () => {
  const keys = instance();
  await keys.jwks();
  clock.advance(REFRESH_MS);
  const reads = keys.reads();
  await Promise.all(Array.from({ length: 50 }, () => keys.jwks()));
  assert.equal(keys.reads() - reads, 1);
});
