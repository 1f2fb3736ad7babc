// An instance meeting a kid it has not read yet — here because the key was rotated by a process configured
// with no margin at all (the misconfiguration docs/key-rotation.md warns about), the same situation a clock
// running behind creates — re-reads the key rows once before refusing, and a flood of invented kids can
// neither turn that into a flood of database reads nor make it refuse a genuine new kid (issue 28).
// Real app over HTTP, real PostgreSQL, manual clock for the tokens.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { keyEncryption } from '../../../src/crypto/key-encryption.js';
import { DEFAULT_UNKNOWN_KID_COOLDOWN_MS, keyService } from '../../../src/crypto/keys.js';
import { accessTokenIssuer } from '../../../src/oauth/issued-tokens/access-tokens.js';
import { signingKeysRepository } from '../../../src/storage/repositories/signing-keys-repository.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { createClient, type ClientFixture } from '../../helpers/oauth-fixtures.js';
import { basicAuth, postForm } from '../../oauth/fixtures.js';
import { NO_LIMITS } from '../../helpers/env.js';
import { createUser } from '../../helpers/users.js';

const clock = manualClock(Date.parse('2026-06-01T08:00:00Z'));
let t: TestApp;
let fixture: ClientFixture;
let userId: string;

before(async () => {
  t = await startTestApp({ clock, env: NO_LIMITS });
  fixture = await createClient(t.core.db, clock, { type: 'confidential', grantTypes: ['client_credentials'] });
  userId = (await createUser(t.core.db, clock)).id;
});
after(() => t.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const v1 = (token: string) => fetch(`${t.url}/v1/users/me`, { headers: bearer(token) });
const userinfo = (token: string) => fetch(`${t.url}/userinfo`, { headers: bearer(token) });
const introspect = async (token: string) =>
  (await postForm(`${t.url}/introspect`, { token }, { authorization: basicAuth(fixture.client.id, fixture.secret!) })).body.active;

/** A token for the user from whatever KeyService signs it. */
const userToken = (keys: Parameters<typeof accessTokenIssuer>[0]['keys']) =>
  accessTokenIssuer({ keys, clock, config: t.config }).issue({
    sub: userId,
    clientId: fixture.client.id,
    scope: ['openid', 'users:read'],
    authTime: Math.floor(clock.now() / 1000),
  });

test('a token signed with a key this instance has not read yet is accepted after one re-read of the key rows, by /v1, /userinfo and /introspect', async () => {
  // This instance's copy of the rows is fresh, so only an unknown-kid re-read can find the new key.
  assert.equal((await v1((await userToken(t.core.keys)).token)).status, 200);
  const elsewhere = elsewhereKeys();
  const rotated = await elsewhere.rotate('ES256');
  const { token } = await userToken(elsewhere);
  assert.equal(decodeProtectedHeader(token).kid, rotated.kid);
  const reads = t.core.keys.reads();
  assert.equal((await v1(token)).status, 200, '/v1');
  assert.equal((await userinfo(token)).status, 200, '/userinfo');
  assert.equal(await introspect(token), true, '/introspect');
  assert.equal(t.core.keys.reads() - reads, 1, 'one re-read served all three endpoints');
});

/** A KeyService of another process sharing this database, configured with no margin at all. */
const elsewhereKeys = () =>
  keyService({
    repository: signingKeysRepository(t.core.db),
    encryption: keyEncryption(randomBytes(32)),
    clock,
    publishDelaySeconds: 0,
    maxTokenLifetimeSeconds: 600,
    clockSkewSeconds: 0,
    refreshIntervalMs: 0,
  });

const forger = async () => {
  const { privateKey } = await generateKeyPair('ES256');
  const now = Math.floor(clock.now() / 1000);
  return (i: number) =>
    new SignJWT({ iss: t.config.ISSUER, aud: t.config.API_AUDIENCE, sub: userId, client_id: fixture.client.id, jti: `forged-${i}`, iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: `invented-${i}` })
      .sign(privateKey);
};

// The cooldown is real time (it paces database reads; callers within it wait for the next read), so the
// reads are counted against the time the floods took.
test('a flood of tokens with invented kids across /v1, /userinfo and /introspect causes at most one key-row read per cooldown', async () => {
  const forge = await forger();
  const flood = async (round: number) => {
    const forged = await Promise.all(Array.from({ length: 60 }, (_, i) => forge(round * 100 + i)));
    const answers = await Promise.all(
      forged.map(async (token, i) => {
        if (i % 3 === 0) return (await v1(token)).status === 401;
        if (i % 3 === 1) return (await userinfo(token)).status === 401;
        return (await introspect(token)) === false;
      }),
    );
    assert.ok(answers.every(Boolean), 'every forged token is refused');
  };
  await t.core.keys.jwks();
  const reads = t.core.keys.reads();
  const started = performance.now();
  for (const round of [1, 2, 3]) await flood(round);
  const cooldowns = Math.floor((performance.now() - started) / DEFAULT_UNKNOWN_KID_COOLDOWN_MS);
  assert.ok(t.core.keys.reads() - reads <= cooldowns + 1, `${t.core.keys.reads() - reads} reads in ${cooldowns + 1} cooldowns for 180 invented kids`);
});

test('a token signed with a key this instance has not read yet is accepted even when invented kids have just spent the re-read of the cooldown', async () => {
  const forge = await forger();
  assert.equal((await v1(await forge(900))).status, 401, 'an invented kid spends the re-read of this cooldown');
  const elsewhere = elsewhereKeys();
  const rotated = await elsewhere.rotate('ES256');
  const { token } = await userToken(elsewhere);
  assert.equal(decodeProtectedHeader(token).kid, rotated.kid);
  const [genuine, forged] = await Promise.all([v1(token), v1(await forge(901))]);
  assert.equal(genuine.status, 200, `refused: ${genuine.headers.get('www-authenticate')}`);
  assert.equal(forged.status, 401);
});
