// An instance meeting a kid it has not read yet — here because the key was rotated by a process configured
// with no margin at all (the misconfiguration docs/key-rotation.md warns about), the same situation a clock
// running behind creates — re-reads the key rows once before refusing, and a flood of invented kids cannot
// turn that into a flood of database reads. Real app over HTTP, real PGlite, manual clock.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { keyEncryption } from '../../../src/crypto/key-encryption.js';
import { DEFAULT_UNKNOWN_KID_COOLDOWN_MS, keyService } from '../../../src/crypto/keys.js';
import { accessTokenIssuer } from '../../../src/oauth/issued-tokens/access-tokens.js';
import { signingKeysRepository } from '../../../src/storage/signing-keys-repository.js';
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
  accessTokenIssuer({ keys, clock, config: t.config }).issue({ sub: userId, clientId: fixture.client.id, scope: ['openid', 'users:read'], authTime: Math.floor(clock.now() / 1000) });

test('a token signed with a key this instance has not read yet is accepted after one re-read of the key rows, by /v1, /userinfo and /introspect', async () => {
  // This instance's copy of the rows is fresh, so only an unknown-kid re-read can find the new key.
  assert.equal((await v1((await userToken(t.core.keys)).token)).status, 200);
  const elsewhere = keyService({
    repository: signingKeysRepository(t.core.db),
    encryption: keyEncryption(randomBytes(32)),
    clock,
    publishDelaySeconds: 0,
    maxTokenLifetimeSeconds: 600,
    clockSkewSeconds: 0,
    refreshIntervalMs: 0,
  });
  const rotated = await elsewhere.rotate('ES256');
  const { token } = await userToken(elsewhere);
  assert.equal(decodeProtectedHeader(token).kid, rotated.kid);
  const reads = t.core.keys.reads();
  assert.equal((await v1(token)).status, 200, '/v1');
  assert.equal((await userinfo(token)).status, 200, '/userinfo');
  assert.equal(await introspect(token), true, '/introspect');
  assert.equal(t.core.keys.reads() - reads, 1, 'one re-read served all three endpoints');
});

test('a flood of tokens with invented kids across /v1, /userinfo and /introspect causes at most one key-row read per cooldown', async () => {
  const { privateKey } = await generateKeyPair('ES256');
  const now = Math.floor(clock.now() / 1000);
  const forge = (i: number) =>
    new SignJWT({ iss: t.config.ISSUER, aud: t.config.API_AUDIENCE, sub: userId, client_id: fixture.client.id, jti: `forged-${i}`, iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: `invented-${i}` })
      .sign(privateKey);
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
  clock.advance(DEFAULT_UNKNOWN_KID_COOLDOWN_MS);
  await flood(1);
  assert.ok(t.core.keys.reads() - reads <= 1, `${t.core.keys.reads() - reads} reads for the first flood`);
  await flood(2);
  assert.ok(t.core.keys.reads() - reads <= 1, 'none more within the cooldown');
  clock.advance(DEFAULT_UNKNOWN_KID_COOLDOWN_MS);
  await flood(3);
  assert.ok(t.core.keys.reads() - reads <= 2, `${t.core.keys.reads() - reads} reads after the cooldown`);
});
