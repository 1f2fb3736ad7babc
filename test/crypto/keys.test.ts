import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { manualClock } from '../../src/clock.js';
import { keyEncryption } from '../../src/crypto/key-encryption.js';
import { keyService, type KeyService } from '../../src/crypto/keys.js';
import { signingKeysRepository } from '../../src/storage/repositories/signing-keys-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
const clock = manualClock(Date.parse('2026-01-01T00:00:00Z'));
const kek = keyEncryption(randomBytes(32));
const make = (): KeyService =>
  keyService({
    repository: signingKeysRepository(database.db),
    encryption: kek,
    clock,
    publishDelaySeconds: 300,
    maxTokenLifetimeSeconds: 600,
    clockSkewSeconds: 30,
    refreshIntervalMs: 0,
  });

before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

test('first start creates one ES256 and one RS256 key (RSA modulus >= 2048 bits, EC P-256)', async () => {
  const keys = make();
  await keys.ensureKeys();
  await keys.ensureKeys(); // idempotent
  const { keys: jwks } = await keys.jwks();
  assert.deepEqual(jwks.map((k) => k.alg).sort(), ['ES256', 'RS256']);
  const rsa = jwks.find((k) => k.alg === 'RS256')!;
  assert.ok(Buffer.from(rsa.n!, 'base64url').length * 8 >= 2048);
  assert.equal(jwks.find((k) => k.alg === 'ES256')!.crv, 'P-256');
  for (const k of jwks) assert.equal(k.use, 'sig');
});

test('the JWKS publishes public keys only, never a private part', async () => {
  const { keys: jwks } = await make().jwks();
  for (const k of jwks) for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.equal((k as unknown as Record<string, unknown>)[part], undefined);
});

test('private keys are sealed at rest (no JWK private member in the database)', async () => {
  const rows = await database.db.selectFrom('signing_keys').select(['sealed_private_jwk', 'kid']).execute();
  for (const row of rows) {
    assert.match(row.sealed_private_jwk, /^v1\./);
    assert.ok(!row.sealed_private_jwk.includes('"d"'));
  }
});

test('a rotated key is published at once but signs only after the JWKS cache time; tokens of the old key keep verifying', async () => {
  const keys = make();
  const before = await keys.sign({ sub: 'x', exp: Math.floor(clock.now() / 1000) + 600 }, { alg: 'ES256', typ: 'at+jwt' });
  const oldKid = decodeProtectedHeader(before).kid;
  const rotated = await keys.rotate('ES256');
  assert.equal(rotated.state, 'pending');
  const published = (await keys.jwks()).keys.map((k) => k.kid);
  assert.ok(published.includes(rotated.kid), 'new key published immediately');
  assert.ok(published.includes(oldKid!), 'old key still published');
  const during = await keys.sign({ sub: 'x' }, { alg: 'ES256', typ: 'at+jwt' });
  assert.equal(decodeProtectedHeader(during).kid, oldKid, 'old key signs until the new one activates');
  clock.set(Date.parse(rotated.activates_at));
  const after = await keys.sign({ sub: 'x', exp: Math.floor(clock.now() / 1000) + 600 }, { alg: 'ES256', typ: 'at+jwt' });
  assert.equal(decodeProtectedHeader(after).kid, rotated.kid, 'new key signs after the publish delay');
  const jwks = createLocalJWKSet(await keys.jwks());
  await jwtVerify(before, jwks, { currentDate: new Date(clock.now()) });
  await jwtVerify(after, jwks, { currentDate: new Date(clock.now()) });
  // Once everything the old key signed has expired, it drops out of the JWKS.
  clock.advance((600 + 30 + 1) * 1000);
  assert.ok(!(await keys.jwks()).keys.some((k) => k.kid === oldKid));
  const schedule = await keys.schedule();
  assert.equal(schedule.find((k) => k.kid === oldKid)!.state, 'expired');
});

test('two instances on one database agree on the active key', async () => {
  const a = make();
  const b = make();
  clock.set(Date.parse((await a.rotate('RS256')).activates_at));
  const ta = await a.sign({}, { alg: 'RS256', typ: 'JWT' });
  const tb = await b.sign({}, { alg: 'RS256', typ: 'JWT' });
  assert.equal(decodeProtectedHeader(ta).kid, decodeProtectedHeader(tb).kid);
});

test('a sealed key cannot be opened with another kid or after tampering', () => {
  const sealed = kek.seal('{"d":"x"}', 'kid-1');
  assert.equal(kek.open(sealed, 'kid-1'), '{"d":"x"}');
  assert.throws(() => kek.open(sealed, 'kid-2'));
  const parts = sealed.split('.');
  parts[2] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => kek.open(parts.join('.'), 'kid-1'));
});
