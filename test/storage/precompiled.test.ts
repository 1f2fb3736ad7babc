// A precompiled statement is built and compiled once, then executed with each call's values in place of
// its placeholders.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { precompiled } from '../../src/storage/repositories/precompiled.js';
import type { Database } from '../../src/storage/driver/database.js';
import { createTestDatabase } from '../helpers/database.js';

let database: Database;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.close());

const insertUser = precompiled((db, v: { id: string; username: string; name: string | null }) =>
  db
    .insertInto('users')
    .values({ id: v.id, username: v.username, password_hash: 'not-a-hash', name: v.name, created_at: new Date(0), updated_at: new Date(0) })
    .returning(['id', 'username', 'name']),
);

test('precompiled statement: each call runs with its own values, in the order the compiler placed them', async () => {
  const first = await insertUser.execute(database.db, { id: 'u-precompiled-1', username: 'ada', name: 'Ada' });
  const second = await insertUser.execute(database.db, { id: 'u-precompiled-2', username: 'grace', name: null });
  assert.deepEqual(first, [{ id: 'u-precompiled-1', username: 'ada', name: 'Ada' }]);
  assert.deepEqual(second, [{ id: 'u-precompiled-2', username: 'grace', name: null }]);
});

test('precompiled statement: built and compiled once, however often it runs', async () => {
  let builds = 0;
  const byId = precompiled((db, v: { id: string }) => {
    builds++;
    return db.selectFrom('users').select('username').where('id', '=', v.id);
  });
  assert.deepEqual(await byId.execute(database.db, { id: 'u-precompiled-1' }), [{ username: 'ada' }]);
  assert.deepEqual(await byId.execute(database.db, { id: 'u-precompiled-2' }), [{ username: 'grace' }]);
  assert.deepEqual(await byId.execute(database.db, { id: 'nobody' }), []);
  assert.equal(builds, 1);
});

test('precompiled statement: a value left undefined is refused instead of becoming NULL', async () => {
  await assert.rejects(
    insertUser.execute(database.db, { id: 'u-precompiled-3', username: 'linus', name: undefined as unknown as null }),
    /no value for "name"/,
  );
  const rows = await database.db.selectFrom('users').select('id').where('id', '=', 'u-precompiled-3').execute();
  assert.deepEqual(rows, []);
});

test('precompiled statement: a placeholder cannot be computed with while the statement is built', async () => {
  const lowered = precompiled((db, v: { username: string }) => db.selectFrom('users').select('id').where('username', '=', `${v.username}`.toLowerCase()));
  await assert.rejects(async () => lowered.execute(database.db, { username: 'ADA' }), /"username" is a placeholder/);
});
