// The authenticator against the real KeyService and revocation list on a real database, with a manual
// clock: the verified-token cache, its bounds (exp, revocation, key retirement) and the in-process JWKS.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { manualClock } from '../../../src/clock.js';
import { createCore, type Core } from '../../../src/core.js';
import type { Database } from '../../../src/storage/driver/database.js';
import { revocationsRepository } from '../../../src/storage/repositories/revocations-repository.js';
import { accessTokenIssuer } from '../../../src/oauth/issued-tokens/access-tokens.js';
import { accessTokenVerifier, bearerAuthenticator, inProcessKeySource, localKeySource, type KeySource } from '../../../src/resource-server/auth/index.js';
import type { AccessTokenVerifier } from '../../../src/tokens/access-token-verifier.js';
import { createTestDatabase } from '../../helpers/database.js';
import { testConfig } from '../../helpers/app.js';
import { ProblemError } from '../../../src/http/errors.js';

const clock = manualClock(Date.parse('2026-03-01T10:00:00Z'));
let database: Database;
let core: Core;

before(async () => {
  database = await createTestDatabase();
  core = createCore({ config: testConfig(3999), clock, database });
  await core.keys.ensureKeys();
});
after(() => database.close());

const issuer = () => accessTokenIssuer({ keys: core.keys, clock: core.clock, config: core.config });

function counting(verifier: AccessTokenVerifier) {
  let calls = 0;
  return {
    verifier: {
      verify: (token: string) => {
        calls += 1;
        return verifier.verify(token);
      },
    },
    calls: () => calls,
  };
}

function setup(options: { recheckMs?: number; keySource?: KeySource } = {}) {
  const keySource = options.keySource ?? inProcessKeySource(core);
  const counted = counting(accessTokenVerifier({ keySource, clock, config: core.config }));
  const authenticator = bearerAuthenticator({
    verifier: counted.verifier,
    keySource,
    revocations: core.revocationFeed,
    clock,
    ...(options.recheckMs !== undefined ? { recheckMs: options.recheckMs } : {}),
  });
  return { authenticator, verifications: counted.calls, keySource };
}

async function rejects(promise: Promise<unknown>, code = 'invalid-token') {
  await assert.rejects(promise, (e: unknown) => e instanceof ProblemError && e.code === code);
}

test('a token from the real access-token issuer is accepted; a user token (auth_time) is a user principal', async () => {
  const { authenticator } = setup();
  const { token } = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: ['users:read'], authTime: 1 });
  const principal = await authenticator.authenticate(token);
  assert.equal(principal.kind, 'user');
  assert.equal(principal.sub, 'u1');
  assert.equal(principal.clientId, 'c1');
  assert.ok(principal.scopes.has('users:read'));
});

test('a client_credentials token (sub = client_id) is a service principal', async () => {
  const { authenticator } = setup();
  const { token } = await issuer().issue({ sub: 'svc', clientId: 'svc', scope: ['users:write'] });
  assert.equal((await authenticator.authenticate(token)).kind, 'service');
});

test('an id_token signed by the same server (RS256, typ JWT, aud = client) is refused as a bearer token', async () => {
  const { authenticator } = setup();
  const now = Math.floor(clock.now() / 1000);
  const idToken = await core.keys.sign(
    { iss: core.config.ISSUER, sub: 'u1', aud: 'c1', exp: now + 600, iat: now, jti: 'x', client_id: 'c1' },
    { alg: 'RS256', typ: 'JWT' },
  );
  await rejects(authenticator.authenticate(idToken));
  const idTokenEs = await core.keys.sign(
    { iss: core.config.ISSUER, sub: 'u1', aud: 'c1', exp: now + 600, iat: now, jti: 'y', client_id: 'c1' },
    { alg: 'ES256', typ: 'JWT' },
  );
  await rejects(authenticator.authenticate(idTokenEs));
});

test('a repeated token pays the signature check once (verified-token cache)', async () => {
  const { authenticator, verifications } = setup();
  const { token } = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  for (let i = 0; i < 5; i++) await authenticator.authenticate(token);
  assert.equal(verifications(), 1);
});

test('the cache is keyed by the exact token string: a one-character change is verified (and refused)', async () => {
  const { authenticator, verifications } = setup();
  const { token } = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await authenticator.authenticate(token);
  const altered = token.slice(0, -2) + (token.endsWith('A') ? 'BB' : 'AA');
  await rejects(authenticator.authenticate(altered));
  assert.equal(verifications(), 2);
});

test('a cached token is never served beyond its exp', async () => {
  const { authenticator, verifications } = setup();
  const { token, expiresAt } = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await authenticator.authenticate(token);
  clock.set(expiresAt.getTime() + core.config.CLOCK_SKEW * 1000 + 1000);
  try {
    await rejects(authenticator.authenticate(token));
    assert.equal(verifications(), 2);
  } finally {
    clock.set(expiresAt.getTime() - core.config.ACCESS_TOKEN_TTL * 1000);
  }
});

test('a revoked jti is refused on first use', async () => {
  const { authenticator } = setup();
  const issued = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await revocationsRepository(core.db, clock).revoke([{ jti: issued.jti, expiresAt: issued.expiresAt }]);
  await rejects(authenticator.authenticate(issued.token));
});

/**
 * A revocation another instance wrote: straight into the shared table, so this process's revocation count
 * does not move and only the re-check interval can bring it to a cached token.
 */
const revokeElsewhere = (issued: { jti: string; expiresAt: Date }) =>
  core.db
    .insertInto('revoked_access_tokens')
    .values({ jti: issued.jti, expires_at: issued.expiresAt, revoked_at: new Date(clock.now()) })
    .execute();

test('a cached token revoked later is refused once the revocation re-check interval has passed', async () => {
  const { authenticator } = setup({ recheckMs: 1000 });
  const issued = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await authenticator.authenticate(issued.token);
  await revokeElsewhere(issued);
  clock.advance(1000);
  await rejects(authenticator.authenticate(issued.token));
  await rejects(authenticator.authenticate(issued.token));
});

test('with a zero re-check interval a revocation takes effect on the very next request', async () => {
  const { authenticator } = setup({ recheckMs: 0 });
  const issued = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await authenticator.authenticate(issued.token);
  await revokeElsewhere(issued);
  await rejects(authenticator.authenticate(issued.token));
});

test('a cached token whose signing key is no longer published is dropped at the next re-check', async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'retiring', alg: 'ES256' };
  let published: JWK[] = [jwk];
  const keySource = localKeySource(async () => ({ keys: published }), clock, { maxAgeMs: 5000, cooldownMs: 1000 });
  const { authenticator } = setup({ keySource, recheckMs: 1000 });
  const now = Math.floor(clock.now() / 1000);
  const token = await new SignJWT({
    iss: core.config.ISSUER,
    aud: core.config.API_AUDIENCE,
    sub: 'u1',
    client_id: 'c1',
    jti: 'j-retire',
    iat: now,
    exp: now + 300,
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'retiring' })
    .sign(pair.privateKey);
  await authenticator.authenticate(token);
  published = [];
  clock.advance(6000);
  // The key set reloads on its max age; the next re-check sees the kid gone.
  await rejects(authenticator.authenticate(token));
  clock.advance(2000);
  await rejects(authenticator.authenticate(token));
});

test('in-process keys: 100 unknown kids cause at most one key-row read (no amplification)', async () => {
  const keySource = inProcessKeySource(core);
  const { authenticator } = setup({ keySource });
  const { token } = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await authenticator.authenticate(token);
  const loads = keySource.loads();
  const pair = await generateKeyPair('ES256');
  const forged = await Promise.all(
    Array.from({ length: 100 }, (_, i) => new SignJWT({}).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: `nope-${i}` }).sign(pair.privateKey)),
  );
  clock.advance(1_000);
  await Promise.all(forged.map((f) => rejects(authenticator.authenticate(f))));
  assert.ok(keySource.loads() - loads <= 1, `reloaded ${keySource.loads() - loads} times`);
});

test('a rotated key is accepted as soon as it starts signing', async () => {
  const keySource = inProcessKeySource(core);
  const { authenticator } = setup({ keySource });
  await authenticator.authenticate((await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] })).token);
  clock.set(Date.parse((await core.keys.rotate('ES256')).activates_at));
  const { token } = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  const principal = await authenticator.authenticate(token);
  assert.equal(principal.sub, 'u1');
});

test('a revocation written by this process reaches a cached token on the next request, long before the re-check interval', async () => {
  const { authenticator, verifications } = setup({ recheckMs: 60_000 });
  const issued = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  await authenticator.authenticate(issued.token);
  await authenticator.authenticate(issued.token);
  assert.equal(verifications(), 1, 'cached');
  await revocationsRepository(core.db, clock).revoke([{ jti: issued.jti, expiresAt: issued.expiresAt }]);
  await rejects(authenticator.authenticate(issued.token));
});

test('after a revocation of another token, a cached token that is not revoked is checked once and stays cached', async () => {
  const { authenticator, verifications } = setup({ recheckMs: 60_000 });
  const kept = await issuer().issue({ sub: 'u1', clientId: 'c1', scope: [] });
  const other = await issuer().issue({ sub: 'u2', clientId: 'c1', scope: [] });
  await authenticator.authenticate(kept.token);
  await revocationsRepository(core.db, clock).revoke([{ jti: other.jti, expiresAt: other.expiresAt }]);
  assert.equal((await authenticator.authenticate(kept.token)).sub, 'u1');
  assert.equal((await authenticator.authenticate(kept.token)).sub, 'u1');
  assert.equal(verifications(), 1, 'no second signature check');
});
