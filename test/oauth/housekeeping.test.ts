// Records are purged once their lifetime is over, and not a moment before they can no longer matter:
// replay tables while a replay could pass, sessions, interactions, codes and token families.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { manualClock } from '../../src/clock.js';
import { expiredRecordsPurge, pendingLoginsPurge } from '../../src/oauth/housekeeping.js';
import { clientAssertionsRepository } from '../../src/storage/repositories/client-assertions-repository.js';
import { dpopProofsRepository } from '../../src/storage/repositories/dpop-proofs-repository.js';
import { revocationsRepository } from '../../src/storage/repositories/revocations-repository.js';
import { ANONYMOUS_GRACE_MS, browserSessionsRepository } from '../../src/storage/repositories/browser-sessions-repository.js';
import { interactionsRepository, KEEP_EXPIRED_MS } from '../../src/storage/repositories/interactions-repository.js';
import { PURGE_BATCH_SIZE } from '../../src/storage/repositories/batches.js';
import { initialAccessTokensRepository } from '../../src/storage/repositories/initial-access-tokens-repository.js';
import { clientsRepository } from '../../src/storage/repositories/clients-repository.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createStore } from '../../src/storage/store.js';
import { createTestDatabase } from '../helpers/database.js';
import { secondFactorsRepository } from '../../src/storage/repositories/second-factors-repository.js';

let database: Database;
const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
const at = (seconds: number) => new Date(clock.now() + seconds * 1000);
const purge = async () =>
  (await expiredRecordsPurge({ store: createStore(database.db, clock), clock })()) +
  (await pendingLoginsPurge({ store: createStore(database.db, clock), clock })());
let userId: string;
const clientId = 'housekeeping-client';
const TEN_MINUTES = 600_000;

before(async () => {
  database = await createTestDatabase();
  userId = (await usersRepository(database.db, clock).create({ username: 'housekeeping', passwordHash: 'not-a-login' })).id;
  await clientsRepository(database.db, clock).create({
    id: clientId,
    name: clientId,
    type: 'confidential',
    secretHash: 'h',
    authMethod: 'client_secret_basic',
    redirectUris: ['https://app.example/cb'],
    postLogoutRedirectUris: [],
    grantTypes: ['authorization_code', 'refresh_token'],
    scopes: ['openid'],
    jwks: null,
    jwksUri: null,
    registrationPolicy: null,
    idTokenSignedResponseAlg: 'RS256',
    skipConsent: false,
  });
});
after(() => database.close());

const count = async (
  table: 'browser_sessions' | 'interactions' | 'initial_access_tokens' | 'oauth_grants' | 'refresh_tokens' | 'grant_access_tokens' | 'authorization_codes',
) =>
  Number(
    (
      await database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

test('expired client-assertion jtis, DPoP-proof jtis and revoked access-token jtis are purged; live ones stay', async () => {
  const assertions = clientAssertionsRepository(database.db, clock);
  const proofs = dpopProofsRepository(database.db, clock);
  const revocations = revocationsRepository(database.db, clock);
  await assertions.consume('c', 'old', at(-1));
  await assertions.consume('c', 'live', at(60));
  await proofs.consume('k', 'old', at(-1));
  await proofs.consume('k', 'live', at(60));
  await revocations.revoke([
    { jti: 'old', expiresAt: at(-1) },
    { jti: 'live', expiresAt: at(60) },
  ]);

  assert.ok((await purge()) >= 3);
  assert.equal(await assertions.consume('c', 'live', at(60)), false, 'a live assertion jti is still remembered');
  assert.equal(await assertions.consume('c', 'old', at(60)), true, 'the expired one was forgotten');
  assert.equal(await proofs.consume('k', 'live', at(60)), false, 'a live proof jti is still remembered');
  assert.equal(await revocations.isRevoked({ jti: 'live', clientId: 'c', iat: 0 }), true);
  assert.equal(await revocations.isRevoked({ jti: 'old', clientId: 'c', iat: 0 }), false);
});

test('a revoked client is remembered until the last token it refuses has expired, then purged', async () => {
  const revocations = revocationsRepository(database.db, clock);
  const iat = Math.floor(clock.now() / 1000) - 10;
  await revocations.revokeClient({ clientId: 'gone-old', coversIssuedUntil: at(-100), expiresAt: at(-1) });
  await revocations.revokeClient({ clientId: 'gone-live', coversIssuedUntil: at(0), expiresAt: at(60) });
  await purge();
  assert.equal(await revocations.isRevoked({ jti: randomUUID(), clientId: 'gone-live', iat }), true);
  assert.equal(await revocations.isRevoked({ jti: randomUUID(), clientId: 'gone-live', iat: iat + 3600 }), false, 'a token issued after the covered time');
  assert.equal((await database.db.selectFrom('revoked_clients').select('client_id').where('client_id', '=', 'gone-old').execute()).length, 0);
});

test('browser sessions and initial access tokens are purged at expiry; interactions ten minutes after theirs', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const interactions = interactionsRepository<{ scope: string }>(database.db, clock);
  const initial = initialAccessTokensRepository(database.db, clock);
  const short = await sessions.start({ userId, authTime: null, ttlSeconds: 60 });
  const long = await sessions.start({ userId, authTime: null, ttlSeconds: 86_400 * 3 });
  const interaction = await interactions.create({ sessionHash: short.idHash, clientId, request: { scope: 'openid' }, loginRequired: true, ttlSeconds: 600 });
  const token = (tokenHash: string, expiresAt: Date) => ({ tokenHash, expiresAt, uses: 1, allowedGrantTypes: [], allowedScopes: [] });
  await initial.create(token(`short-${randomUUID()}`, at(60)));
  await initial.create(token(`long-${randomUUID()}`, at(86_400 * 3)));
  const before = { sessions: await count('browser_sessions'), initial: await count('initial_access_tokens') };

  clock.advance(601_000);
  await purge();
  assert.equal(await sessions.find(long.id).then((s) => s?.idHash), long.idHash, 'a live session stays');
  assert.equal(await count('browser_sessions'), before.sessions - 1, 'the expired session went');
  assert.equal(await count('initial_access_tokens'), before.initial - 1, 'the expired initial access token went');
  assert.equal(
    (await interactions.findWithSession(interaction, undefined))?.interaction.expired,
    true,
    'an expired interaction is still there to send the user back',
  );

  clock.advance(KEEP_EXPIRED_MS);
  await purge();
  assert.equal(await interactions.findWithSession(interaction, undefined), undefined, 'ten minutes later it is gone');
});

test('expired interactions are purged within ten minutes of expiry, in batches, however many there are', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const owner = await sessions.start({ userId, authTime: null, ttlSeconds: 86_400 });
  const total = PURGE_BATCH_SIZE * 2 + 7;
  const rows = Array.from({ length: total }, () => ({
    id_hash: randomUUID(),
    session_hash: owner.idHash,
    client_id: clientId,
    request: JSON.stringify({ scope: 'openid' }),
    login_required: true,
    created_at: at(0),
    expires_at: at(60),
  }));
  await database.db.insertInto('interactions').values(rows).execute();
  const live = await interactionsRepository(database.db, clock).create({
    sessionHash: owner.idHash,
    clientId,
    request: { scope: 'openid' },
    loginRequired: true,
    ttlSeconds: 3600,
  });

  assert.ok(KEEP_EXPIRED_MS <= TEN_MINUTES);
  clock.advance(60_000 + TEN_MINUTES - 1000);
  const early = await pendingLoginsPurge({ store: createStore(database.db, clock), clock })();
  assert.ok(early === 0 || early === total, 'all or nothing: they expired together');
  clock.advance(2000);
  assert.equal(early + (await pendingLoginsPurge({ store: createStore(database.db, clock), clock })()), total, 'every batch was deleted in one run');
  assert.ok(await interactionsRepository(database.db, clock).findWithSession(live, undefined), 'a live interaction stays');
  await sessions.end(owner.idHash);
});

test('anonymous (pre-login) sessions are purged as soon as no interaction refers to them; logged-in sessions stay until expiry', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const interactions = interactionsRepository<{ scope: string }>(database.db, clock);
  const orphan = await sessions.start({ userId: null, authTime: null, ttlSeconds: 43_200 });
  const carrying = await sessions.start({ userId: null, authTime: null, ttlSeconds: 43_200 });
  const loggedIn = await sessions.start({ userId, authTime: Math.floor(clock.now() / 1000), ttlSeconds: 43_200 });
  const interaction = await interactions.create({ sessionHash: carrying.idHash, clientId, request: { scope: 'openid' }, loginRequired: true, ttlSeconds: 600 });
  const pending = pendingLoginsPurge({ store: createStore(database.db, clock), clock });

  assert.equal(await pending(), 0, 'a just-started anonymous session is kept: its interaction may not be written yet');
  clock.advance(ANONYMOUS_GRACE_MS + 1000);
  await pending();
  assert.equal(await sessions.find(orphan.id), undefined, 'an anonymous session without interaction is gone within minutes, not after the session lifetime');
  assert.ok(await sessions.find(carrying.id), 'an anonymous session still carrying an interaction stays');
  assert.ok(await sessions.find(loggedIn.id), 'a logged-in session stays');

  clock.advance(600_000 + KEEP_EXPIRED_MS);
  await pending();
  assert.equal(await interactions.findWithSession(interaction, undefined), undefined);
  assert.equal(await sessions.find(carrying.id), undefined, 'once its interaction was purged, the anonymous session goes too');
  assert.ok(await sessions.find(loggedIn.id), 'the logged-in session still stays');
  await sessions.end(loggedIn.idHash);
});

test('an anonymous session waiting for its second factor (after a correct password on /account) is not purged while the wait lasts', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const factors = secondFactorsRepository(database.db, clock);
  const waiting = await sessions.start({ userId: null, authTime: null, ttlSeconds: 43_200 });
  await factors.setPending(waiting.idHash, { userId, boundTo: 'account' }, 300);
  const pending = pendingLoginsPurge({ store: createStore(database.db, clock), clock });
  clock.advance(ANONYMOUS_GRACE_MS + 1000);
  await pending();
  assert.ok(await sessions.find(waiting.id), 'the code may take the user minutes to type');
  clock.advance(300_000);
  await pending();
  assert.equal(await sessions.find(waiting.id), undefined, 'once the wait is over the session goes like any anonymous one');
});

test('an expired second-factor wait is purged, with the sealed upstream tokens of an abandoned provider sign-in; a live one stays', async () => {
  // A signed-in session keeps living, so nothing else would remove the wait it was left with (prompt=login through
  // a provider, abandoned at the account's own second factor).
  const sessions = browserSessionsRepository(database.db, clock);
  const factors = secondFactorsRepository(database.db, clock);
  const abandoned = await sessions.start({ userId, authTime: Math.floor(clock.now() / 1000), ttlSeconds: 43_200 });
  const live = await sessions.start({ userId, authTime: Math.floor(clock.now() / 1000), ttlSeconds: 43_200 });
  const sealed = { providerId: 'p', subject: 's', sealed: 'sealed-by-the-key-encryption-key' } as unknown as Parameters<
    typeof factors.setPending
  >[1]['upstreamTokens'];
  await factors.setPending(abandoned.idHash, { userId, boundTo: 'flow', upstreamTokens: sealed }, 300);
  const waits = () => database.db.selectFrom('pending_second_factors').select('session_hash').execute();
  clock.advance(301_000);
  await factors.setPending(live.idHash, { userId, boundTo: 'flow' }, 300);
  await pendingLoginsPurge({ store: createStore(database.db, clock), clock })();
  assert.deepEqual(
    (await waits()).map((w) => w.session_hash),
    [live.idHash],
    'the expired wait and its sealed tokens are gone, the live one stays',
  );
  assert.ok(await sessions.find(abandoned.id), 'the signed-in session itself stays');
  await sessions.end(abandoned.idHash);
  await sessions.end(live.idHash);
});

test('a refresh-token family is purged once it can never refresh again (absolute limit, revoked, idled out, none issued) and its last access token expired, with its refresh tokens; a redeemed code stays exactly as long as its grant', async () => {
  const db = database.db;
  const grant = (id: string, expiresAt: Date, revokedAt: Date | null = null) =>
    db
      .insertInto('oauth_grants')
      .values({
        id,
        client_id: clientId,
        user_id: userId,
        scope: ['openid'],
        auth_time: at(0),
        created_at: at(0),
        expires_at: expiresAt,
        revoked_at: revokedAt,
      })
      .execute();
  const code = (grantId: string, expiresAt: Date, redeemedAt: Date | null) =>
    db
      .insertInto('authorization_codes')
      .values({
        code_hash: randomUUID(),
        grant_id: grantId,
        client_id: clientId,
        user_id: userId,
        redirect_uri: 'https://app.example/cb',
        code_challenge: 'c',
        scope: ['openid'],
        auth_time: at(0),
        created_at: at(0),
        expires_at: expiresAt,
        redeemed_at: redeemedAt,
      })
      .execute();
  const ended = `ended-${randomUUID()}`;
  const revoked = `revoked-${randomUUID()}`;
  const live = `live-${randomUUID()}`;
  const idle = `idle-${randomUUID()}`;
  const noRefresh = `no-refresh-${randomUUID()}`;
  await grant(ended, at(100));
  await grant(revoked, at(86_400), at(0));
  await grant(live, at(86_400));
  await grant(idle, at(86_400));
  await grant(noRefresh, at(86_400));
  for (const id of [ended, revoked, live, idle]) {
    await db
      .insertInto('refresh_tokens')
      .values({ token_hash: `${id}-rt`, grant_id: id, created_at: at(0), idle_expires_at: at(id === idle ? 100 : 86_400) })
      .execute();
  }
  // A rotated token of the live family that idled out long ago does not end the family.
  await db
    .insertInto('refresh_tokens')
    .values({ token_hash: `${live}-rotated`, grant_id: live, created_at: at(0), idle_expires_at: at(10), rotated_at: at(5) })
    .execute();
  for (const id of [ended, revoked, live, idle, noRefresh]) await code(id, at(60), at(1));
  await code('never-redeemed', at(60), null);
  // The ended family's last access token outlives the family by 500 s.
  await db
    .insertInto('grant_access_tokens')
    .values([
      { jti: `${ended}-at`, grant_id: ended, expires_at: at(600) },
      { jti: `${revoked}-at`, grant_id: revoked, expires_at: at(30) },
      { jti: `${live}-at`, grant_id: live, expires_at: at(600) },
      { jti: `${idle}-at`, grant_id: idle, expires_at: at(30) },
      { jti: `${noRefresh}-at`, grant_id: noRefresh, expires_at: at(600) },
    ])
    .execute();
  const grantIds = async () =>
    (await db.selectFrom('oauth_grants').select('id').where('id', 'in', [ended, revoked, live, idle, noRefresh]).execute()).map((r) => r.id).sort();
  const codesOf = async (id: string) =>
    Number(
      (
        await db
          .selectFrom('authorization_codes')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('grant_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  clock.advance(120_000);
  await purge();
  assert.deepEqual(
    await grantIds(),
    [ended, live, noRefresh].sort(),
    'the revoked family and the one whose refresh token idled out went (their access tokens expired); the others wait for their live access tokens',
  );
  assert.equal(
    await revocationsRepository(db, clock).isRevoked({ jti: `${ended}-at`, clientId: 'c', iat: 0 }),
    false,
    'purging never revokes a live access token',
  );
  assert.equal(await codesOf(revoked), 0, 'its redeemed code went with it');
  assert.equal(await codesOf(ended), 1, 'a redeemed code stays while its grant exists (a second use must find it)');
  assert.equal(await codesOf('never-redeemed'), 0, 'an expired code never redeemed went');
  assert.equal((await db.selectFrom('refresh_tokens').select('token_hash').where('grant_id', '=', revoked).execute()).length, 0);

  clock.advance(600_000);
  await purge();
  assert.deepEqual(await grantIds(), [live], 'the ended family, and the one that never had a refresh token, went once their access tokens expired');
  assert.equal(await codesOf(ended), 0);
  assert.equal(await codesOf(live), 1, 'the live family keeps its code');
  assert.equal(
    (await db.selectFrom('refresh_tokens').select('token_hash').where('grant_id', '=', live).execute()).length,
    2,
    'and its refresh tokens (the rotated one guards reuse)',
  );
  assert.equal(
    (await db.selectFrom('grant_access_tokens').select('jti').where('grant_id', '=', live).execute()).length,
    0,
    'expired access-token jtis are dropped even under a live family',
  );
});

test('delegation_tokens purge: the jtis of expired exchanged tokens go in batches, however many; live ones and the delegation stay', async () => {
  const db = database.db;
  const grantId = randomUUID();
  await db
    .insertInto('oauth_grants')
    .values({
      id: grantId,
      client_id: clientId,
      user_id: userId,
      scope: ['openid'],
      auth_time: at(0),
      created_at: at(0),
      expires_at: at(86_400),
      revoked_at: null,
    })
    .execute();
  const delegationId = randomUUID();
  await db
    .insertInto('delegations')
    .values({
      id: delegationId,
      user_id: userId,
      grant_id: grantId,
      client_id: clientId,
      actor: clientId,
      audience: 'https://api.example/',
      scope: ['api:read'],
      created_at: at(0),
      last_exchanged_at: at(0),
      expires_at: at(3600),
    })
    .execute();
  const total = PURGE_BATCH_SIZE * 2 + 3;
  await db
    .insertInto('delegation_tokens')
    .values(Array.from({ length: total }, (_, i) => ({ jti: `expired-${i}`, delegation_id: delegationId, expires_at: at(60) })))
    .execute();
  await db
    .insertInto('delegation_tokens')
    .values({ jti: 'live', delegation_id: delegationId, expires_at: at(3600) })
    .execute();
  // As an exchange records it: under the grant too, which keeps the grant (and its delegations) while it lives.
  await db
    .insertInto('grant_access_tokens')
    .values({ jti: 'live', grant_id: grantId, expires_at: at(3600) })
    .execute();

  const store = createStore(db, clock);
  assert.equal(await store.delegations.purgeExpiredTokens(), 0, 'nothing before its expiry');
  clock.advance(61_000);
  await purge();
  const left = await db.selectFrom('delegation_tokens').select('jti').where('delegation_id', '=', delegationId).execute();
  assert.deepEqual(
    left.map((r) => r.jti),
    ['live'],
    'every expired jti went in one run (several batches); the live one stays',
  );
  assert.ok(await db.selectFrom('delegations').select('id').where('id', '=', delegationId).executeTakeFirst(), 'the delegation stays with its grant');
});
