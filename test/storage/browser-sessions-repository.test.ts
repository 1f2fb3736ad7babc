// Browser sessions: a login starts a new session and deletes the one it replaces in the same statement
// (session fixation: the pre-login id never becomes a logged-in session, and it stops working at once).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { manualClock } from '../../src/clock.js';
import { browserSessionsRepository } from '../../src/storage/repositories/browser-sessions-repository.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
const clock = manualClock(Date.parse('2026-06-01T00:00:00Z'));
let userId: string;

before(async () => {
  database = await createTestDatabase();
  userId = (await usersRepository(database.db, clock).create({ username: 'sessions', passwordHash: 'not-a-login' })).id;
});
after(() => database.close());

test('starting a session that replaces another deletes the replaced one in the same statement', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const anonymous = await sessions.start({ userId: null, authTime: null, ttlSeconds: 3600 });
  const bystander = await sessions.start({ userId: null, authTime: null, ttlSeconds: 3600 });
  const fresh = await sessions.start({ userId, authTime: 1_780_000_000, ttlSeconds: 3600, replaces: anonymous.idHash });

  assert.notEqual(fresh.id, anonymous.id);
  assert.equal(await sessions.find(anonymous.id), undefined, 'the pre-login session is gone');
  const found = await sessions.find(fresh.id);
  assert.equal(found?.userId, userId);
  assert.equal(found?.authTime, 1_780_000_000);
  assert.ok(await sessions.find(bystander.id), 'other sessions are untouched');
});

test('a session expires: find no longer returns it after its lifetime', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const session = await sessions.start({ userId, authTime: null, ttlSeconds: 60 });
  assert.ok(await sessions.find(session.id));
  clock.advance(60_000);
  assert.equal(await sessions.find(session.id), undefined);
});
