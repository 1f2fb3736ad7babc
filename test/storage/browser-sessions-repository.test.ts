// Browser sessions: a login takes the session it replaces over (deletes it, once) and starts a new one under a
// new cookie value (session fixation: the pre-login id never becomes a logged-in session, and it stops working
// at once), keeping the taken one's sid when told to (user-rules/sign-in-session.ts).
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

test('taking a session deletes it and returns it once; a session started with its sid keeps the sid under a new cookie value', async () => {
  const sessions = browserSessionsRepository(database.db, clock);
  const anonymous = await sessions.start({ userId: null, authTime: null, ttlSeconds: 3600 });
  const bystander = await sessions.start({ userId: null, authTime: null, ttlSeconds: 3600 });
  assert.notEqual(anonymous.sid, bystander.sid, 'each new session has a sid of its own');
  const taken = await sessions.take(anonymous.idHash);
  assert.equal(taken?.sid, anonymous.sid);
  assert.equal(await sessions.take(anonymous.idHash), undefined, 'a second take finds nothing');
  const fresh = await sessions.start({ userId, authTime: 1_780_000_000, ttlSeconds: 3600, sid: taken.sid });

  assert.notEqual(fresh.id, anonymous.id);
  assert.notEqual(fresh.idHash, anonymous.idHash);
  assert.equal(fresh.sid, anonymous.sid);
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
