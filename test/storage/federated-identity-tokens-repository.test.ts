// The rows of --store-tokens (docs/federation.md): written only while the link exists and its provider stores
// tokens — checked in the same statement, which waits on a provider being switched off, so a sign-in racing
// the switch never writes tokens back after the switch deleted them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { federatedIdentityTokensRepository, type StoredUpstreamTokens } from '../../src/storage/repositories/federated-identity-tokens-repository.js';
import { identityProvidersRepository, type IdentityProvider } from '../../src/storage/repositories/identity-providers-repository.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';
import { storedIdentityProvider } from '../helpers/identity-providers.js';

let database: Database;
const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
let provider: IdentityProvider;

before(async () => {
  database = await createTestDatabase();
  provider = await storedIdentityProvider(database.db, 'storing', { storeTokens: true });
  const user = await usersRepository(database.db, clock).create({ username: 'linked', passwordHash: 'not-a-login' });
  await database.db.insertInto('federated_identities').values({ provider_id: provider.id, subject: 'sub-1', user_id: user.id, email: null }).execute();
});
after(() => database.close());

const tokens = (subject: string): StoredUpstreamTokens => ({
  providerId: provider.id,
  subject,
  sealed: 'v1.iv.body.tag',
  expiresAt: null,
  hasRefreshToken: false,
  scope: null,
  storedAt: new Date(clock.now()),
});

test('--store-tokens rows exist only for a linked identity: tokens of an identity with no link are not written', async () => {
  const repository = federatedIdentityTokensRepository(database.db);
  assert.equal(await repository.put(tokens('no-such-link')), false);
  assert.equal(await repository.find(provider.id, 'no-such-link'), undefined);
  assert.equal(await repository.put(tokens('sub-1')), true);
  assert.equal(await repository.put({ ...tokens('sub-1'), sealed: 'v1.replaced' }), true, 'replaced at the next sign-in');
  assert.equal((await repository.find(provider.id, 'sub-1'))?.sealed, 'v1.replaced');
});

test('--store-tokens turned off while a sign-in stores tokens: the sign-in waits for the switch and writes nothing back', async () => {
  const repository = federatedIdentityTokensRepository(database.db);
  let put: Promise<boolean> | undefined;
  await database.db.transaction().execute(async (tx) => {
    // The switch: the provider's row written and its tokens deleted, not committed yet.
    const off = await identityProvidersRepository(tx).updateIfVersion(provider.id, { ...provider, storeTokens: false }, undefined, new Date(clock.now()));
    assert.equal(typeof off, 'object');
    // A sign-in of a linked identity stores its tokens now, on another connection.
    put = repository.put(tokens('sub-1'));
    // Give it every chance to run ahead of the commit (it must wait on the provider's row instead).
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  assert.equal(await put, false, 'it found the provider switched off');
  assert.equal(await repository.find(provider.id, 'sub-1'), undefined, 'nothing written back');
});
