// An interaction is read together with the browser session it is bound to, in one statement; the session
// comes back only when the cookie names that very session and it is still live.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { browserSessionsRepository } from '../../src/storage/repositories/browser-sessions-repository.js';
import { interactionsRepository } from '../../src/storage/repositories/interactions-repository.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';
import { createClient } from '../helpers/oauth-fixtures.js';

let database: Database;
const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
let clientId: string;
const sessions = () => browserSessionsRepository(database.db, clock);
const interactions = () => interactionsRepository<{ state: string }>(database.db, clock);

before(async () => {
  database = await createTestDatabase();
  clientId = (await createClient(database.db, clock)).client.id;
});
after(() => database.close());

async function parked(sessionTtlSeconds = 3600, userId: string | null = null) {
  const session = await sessions().start({ userId, authTime: userId === null ? null : 1_780_000_000, ttlSeconds: sessionTtlSeconds });
  const id = await interactions().create({ sessionHash: session.idHash, clientId, request: { state: 's' }, loginRequired: true, ttlSeconds: 600 });
  return { id, session };
}

test('findWithSession returns the interaction with the live session it is bound to', async () => {
  const { id, session } = await parked();
  const found = await interactions().findWithSession(id, session.id);
  assert.deepEqual(found?.interaction.request, { state: 's' });
  assert.equal(found?.interaction.expired, false);
  assert.equal(found?.session?.idHash, session.idHash);
  assert.equal(found?.session?.csrfToken, session.csrfToken);
  assert.equal(found?.session?.userId, null);
  assert.equal(found?.session?.username, null, 'nobody has signed in yet');
});

test('findWithSession names the user of a signed-in session (the consent page shows who approves)', async () => {
  const user = await usersRepository(database.db, clock).create({ username: 'ada', passwordHash: 'not-a-login' });
  const { id, session } = await parked(3600, user.id);
  const found = await interactions().findWithSession(id, session.id);
  assert.equal(found?.session?.userId, user.id);
  assert.equal(found?.session?.authTime, 1_780_000_000);
  assert.equal(found?.session?.username, 'ada');
});

test('findWithSession: a live session of another browser is not the interaction’s session', async () => {
  const { id } = await parked();
  const other = await sessions().start({ userId: null, authTime: null, ttlSeconds: 3600 });
  const found = await interactions().findWithSession(id, other.id);
  assert.ok(found, 'the interaction itself is found');
  assert.equal(found.session, undefined);
});

test('findWithSession without a session cookie finds the interaction and no session', async () => {
  const { id } = await parked();
  const found = await interactions().findWithSession(id, undefined);
  assert.ok(found);
  assert.equal(found.session, undefined);
});

test('findWithSession: an expired bound session is not returned (the user must sign in again)', async () => {
  const { id, session } = await parked(60);
  clock.advance(61_000);
  const found = await interactions().findWithSession(id, session.id);
  assert.ok(found, 'the interaction (600 s) is still there');
  assert.equal(found.interaction.expired, false);
  assert.equal(found.session, undefined);
});

test('findWithSession of an unknown interaction id is undefined', async () => {
  const { session } = await parked();
  assert.equal(await interactions().findWithSession('no-such-interaction-id-000000', session.id), undefined);
});
